package rsp_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/rrmcp/rrmcp/rsp"
)

// TestConsumeRacedSIGINT: an interrupt that races a stop for another
// reason leaves a SIGINT pending in a gdbserver program; the interrupted
// call itself takes it out with one step of the stopped thread (a
// signal-delivery stop before the instruction runs). Where the step
// reports something else, the program moved and that is the call's stop;
// where more than one 0x03 was sent, nothing is certain and no step is
// made (the next resume skips a stale SIGINT instead). The same path
// against real gdbserver: faultproxy's TestFaultInterruptRacesStop.
func TestConsumeRacedSIGINT(t *testing.T) {
	const thr = "thread:p3e8.3e8;"
	for _, tc := range []struct {
		name       string
		stepReply  string // reply to the consuming step
		interrupts int
		wantStep   bool
		wantSignal rsp.Signal
	}{
		{"pending SIGINT consumed", "T02" + thr, 1, true, rsp.SIGTRAP},
		{"no SIGINT: the step moved", "T0b" + thr, 1, true, rsp.SIGSEGV},
		{"two interrupts: uncertain, no step", "T02" + thr, 2, false, rsp.SIGTRAP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := 0
			started := make(chan struct{}, 1)
			c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
				switch req {
				case "vCont;c":
					started <- struct{}{}
					return []string{} // runs until interrupted
				case "\x03":
					mu.Lock()
					defer mu.Unlock()
					if seen++; seen == tc.interrupts {
						// The breakpoint was hit as the interrupt(s) came.
						return []string{"T05" + thr + "swbreak:;"}
					}
					return []string{}
				case "vCont;s:p3e8.3e8":
					return []string{tc.stepReply}
				}
				return nil
			})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				<-started
				for i := 1; i < tc.interrupts; i++ {
					c.Interrupt() //nolint:errcheck
				}
				cancel()
			}()
			st, err := c.Continue(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want cancelled", err)
			}
			if st.Signal != tc.wantSignal || !st.Interrupted {
				t.Errorf("stop = %+v, want signal %v, interrupted", st, tc.wantSignal)
			}
			stepped := slices.Contains(s.requests(), "vCont;s:p3e8.3e8")
			if stepped != tc.wantStep {
				t.Errorf("consuming step sent = %v, want %v (requests %q)", stepped, tc.wantStep, s.requests())
			}
		})
	}
}
