package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCancelledStop: a client that cancels a long operation on a
// deadlocked program (gdbserver, the live backend) gets the target
// interrupted and a structured stop with reason "cancelled" naming the
// operation; the session keeps that stop in its state until the next
// command, and a time limit on a later move gives the "interrupted" stop,
// not an error.
func TestCancelledStop(t *testing.T) {
	for _, tc := range []struct {
		name, op string
		soft     bool                                                         // software watchpoints (RRMCP_HW_WATCHPOINTS=off)
		run      func(ctx context.Context, s *Session) (*Stop, string, error) // the stop and how collection ended
	}{
		{"software watchpoint", "continue", true, func(ctx context.Context, s *Session) (*Stop, string, error) {
			bp, err := s.SetWatchpoint(ctx, "balance_a", "write")
			if err != nil || bp.Mechanism != "software watchpoint" {
				return nil, "", fmt.Errorf("software watchpoint: %+v %v", bp, err)
			}
			st, err := s.Continue(ctx, false)
			return st, "", err
		}},
		{"continue", "continue", false, func(ctx context.Context, s *Session) (*Stop, string, error) {
			st, err := s.Continue(ctx, false)
			return st, "", err
		}},
		{"query calls", "rr_query", false, func(ctx context.Context, s *Session) (*Stop, string, error) {
			res, err := s.Query(ctx, QueryOptions{Kind: "calls", Function: "transfer_ab", Collect: []string{"balance_a"}, Limit: 5})
			if res == nil {
				return nil, "", err
			}
			return res.Stop, res.Ended, err
		}},
		{"query lines", "rr_query", false, func(ctx context.Context, s *Session) (*Stop, string, error) {
			res, err := s.Query(ctx, QueryOptions{Kind: "lines", Function: "transfer_ab"})
			if res == nil {
				return nil, "", err
			}
			return res.Stop, res.Ended, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *Session
			if tc.soft {
				s = liveSessionEnv(t, "deadlock", append(os.Environ(), "RRMCP_HW_WATCHPOINTS=off"))
			} else {
				s = liveSession(t, "deadlock", "")
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			type result struct {
				st    *Stop
				ended string
				err   error
			}
			done := make(chan result, 1)
			started := s.resumeStarted()
			go func() {
				st, ended, err := tc.run(ctx, s)
				done <- result{st, ended, err}
			}()
			deadline := time.NewTimer(60 * time.Second)
			defer deadline.Stop()
			// The query's first rows (transfer_ab's one call, its lines)
			// come quickly; the deadlock then keeps a resume running.
			for running := false; !running; {
				select {
				case <-started:
					running = s.running.Load()
					started = s.resumeStarted()
				case r := <-done:
					t.Fatalf("%s ended before the cancel: %+v %q %v", tc.name, r.st, r.ended, r.err)
				case <-deadline.C:
					t.Fatal("no resume started")
				}
			}
			// Watch the session's state as a client would, as often as
			// it can, until the command has returned.
			returned := make(chan struct{})
			seen := make(chan []*Stop, 1)
			go func() {
				var shown []*Stop
				for {
					if c := s.Info().Cancelled; c != nil && (len(shown) == 0 || shown[len(shown)-1] != c) {
						shown = append(shown, c)
					}
					select {
					case <-returned:
						seen <- shown
						return
					default:
					}
				}
			}()
			cancel()
			var r result
			select {
			case r = <-done:
				close(returned)
			case <-deadline.C:
				t.Fatal("the cancelled operation never returned: the target was not interrupted")
			}
			if r.err != nil {
				t.Fatalf("cancelled %s: error %v, want a cancelled stop", tc.name, r.err)
			}
			if r.st == nil || r.st.Reason != "cancelled" || r.st.Cancelled != tc.op || r.st.Frame == nil {
				t.Fatalf("cancelled %s: stop %+v, want reason cancelled, cancelled %q and a frame", tc.name, r.st, tc.op)
			}
			if tc.op == "rr_query" && r.ended != "cancelled" {
				t.Errorf("query ended %q, want cancelled", r.ended)
			}
			if !strings.Contains(r.st.Message, "Cancelled by the client ("+tc.op+")") {
				t.Errorf("message %q does not say what was cancelled", r.st.Message)
			}
			if c := s.Info().Cancelled; c == nil || c.Reason != "cancelled" || c.Cancelled != tc.op || c.Frame == nil {
				t.Fatalf("session state after the cancel: %+v, want the cancelled stop", c)
			}
			// Every cancelled stop the session showed while the command
			// ended named the command: it is named when it is kept, so no
			// client reading the state meanwhile (rr_session_list) sees it
			// without its command (a race once seen in CI).
			for _, c := range <-seen {
				if c.Cancelled != tc.op || c.Reason != "cancelled" {
					t.Errorf("while the command ended the session showed the cancelled stop %q (reason %s), want %q", c.Cancelled, c.Reason, tc.op)
				}
			}
			if _, err := s.Threads(t.Context()); err != nil {
				t.Fatalf("session unusable after the cancel: %v", err)
			}
			if c := s.Info().Cancelled; c != nil {
				t.Errorf("the cancelled stop outlived the next command: %+v", c)
			}
			// The next move, ended by its time limit: an interrupted
			// stop, not an error, and not a cancelled one.
			tctx, tcancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer tcancel()
			st, err := s.Continue(tctx, false)
			if err != nil || st.Reason != "interrupted" || st.Frame == nil || !strings.Contains(st.Message, "time limit") {
				t.Fatalf("continue past its time limit: %+v %v, want an interrupted stop", st, err)
			}
			if c := s.Info().Cancelled; c != nil {
				t.Errorf("a time limit left a cancelled stop: %+v", c)
			}
		})
	}
}

// liveSessionEnv starts prog under gdbserver with a manager whose children
// get env, stopped at its first instruction.
func liveSessionEnv(t *testing.T, prog string, env []string) *Session {
	t.Helper()
	return liveSessionWith(t, Config{Env: env}, prog, "")
}
