package session

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// liveSession starts prog under gdbserver and stops it at function fn.
func liveSession(tb testing.TB, prog, fn string) *Session {
	tb.Helper()
	return liveSessionWith(tb, Config{}, prog, fn)
}

// liveSessionWith is liveSession with a manager configured by cfg; with
// fn empty the program stays at its first instruction.
func liveSessionWith(tb testing.TB, cfg Config, prog, fn string) *Session {
	tb.Helper()
	testenv.NeedTool(tb, "gdbserver")
	path := testenv.Prog(tb, prog)
	m := NewManager(cfg)
	tb.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var s *Session
	var err error
	if testenv.IsI386(path) && testenv.I386Peer(tb) == "qemu-i386" {
		// This kernel cannot run i386 programs: QEMU user mode runs it.
		srv, addr, err := proc.StartQEMUUser(ctx, "qemu-i386", path, nil, filepath.Dir(path), nil, nil, nil)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { srv.Stop(time.Second) }) //nolint:errcheck
		s, _, err = m.Connect(ctx, ConnectOptions{Address: addr, Program: path})
		if err != nil {
			tb.Fatal(err)
		}
	} else if s, _, err = m.StartLive(ctx, LiveOptions{Command: []string{path}}); err != nil {
		tb.Fatal(err)
	}
	if fn != "" {
		if _, err := s.SetBreakpoint(ctx, fn, "", false); err != nil {
			tb.Fatal(err)
		}
		if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
			tb.Fatalf("continue to %s: %+v %v", fn, st, err)
		}
	}
	return s
}

// TestSerialized: calls on one session run one at a time; a call made
// while a resume runs fails at once with ErrNotStopped, and after an
// interrupt the session is usable.
func TestSerialized(t *testing.T) {
	s := liveSession(t, "deadlock", "")
	ctx := t.Context()
	done := make(chan error, 1)
	go func() {
		_, err := s.Continue(ctx, false)
		done <- err
	}()
	// Wait until the continue holds the lock (the program deadlocks).
	deadline := time.Now().Add(10 * time.Second)
	for !s.running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("continue never started")
		}
		runtime.Gosched()
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, _, _, _, err := s.Backtrace(short, 10)
	cancel()
	if !errors.Is(err, ErrNotStopped) {
		t.Fatalf("backtrace while a continue runs: %v, want ErrNotStopped", err)
	}
	if sent, err := s.Interrupt(); !sent || err != nil {
		t.Fatalf("interrupt: %v %v", sent, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("interrupted continue: %v", err)
	}
	if _, _, _, _, err := s.Backtrace(ctx, 10); err != nil {
		t.Fatalf("backtrace after interrupt: %v", err)
	}
}

func BenchmarkStepInstruction(b *testing.B) {
	s := liveSession(b, "counter", "hit")
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.StepInstruction(ctx, 1, false, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBreakpointHit(b *testing.B) {
	s := liveSession(b, "counter", "hit")
	ctx := context.Background()
	for b.Loop() {
		if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
			b.Fatal(st, err)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	s := liveSession(b, "counter", "hit")
	ctx := context.Background()
	for b.Loop() {
		st, err := s.Next(ctx, 1, false)
		if err != nil {
			b.Fatal(err)
		}
		if st.Frame != nil && st.Frame.Function == "main" {
			if _, err := s.Continue(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkBacktraceLocals(b *testing.B) {
	s := liveSession(b, "counter", "bottom")
	ctx := context.Background()
	for b.Loop() {
		s.invalidateForBench()
		if _, _, _, _, err := s.Backtrace(ctx, 64); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.Locals(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func (s *Session) invalidateForBench() {
	s.acquire(context.Background())
	s.invalidate()
	s.release()
}

// TestLocateNamesLikeBacktrace: a pc in a library function without debug
// information (libstdc++'s, under cpp_shapes' uncaught exception) has the
// same demangled name in a stop or the thread list (locate) as in the
// backtrace: the stop said _ZSt9terminatev+5 where the backtrace said
// std::terminate() (found by a real-code differential).
func TestLocateNamesLikeBacktrace(t *testing.T) {
	s := liveSession(t, "cpp_shapes", "")
	ctx := t.Context()
	if st, err := s.Continue(ctx, false); err != nil || st.Signal != "SIGABRT" {
		t.Fatalf("continue: %+v %v", st, err)
	}
	frames, _, _, _, err := s.Backtrace(ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range frames {
		if f.Module != "libstdc++.so.6" || f.Function == "" || f.File != "" {
			continue
		}
		pc, _ := strconv.ParseUint(strings.TrimPrefix(f.PC, "0x"), 16, 64)
		if f.Level > 0 {
			pc-- // a return address: the call is before it (the callee may not return)
		}
		s.do(ctx, s.to.Eval, func(ctx context.Context) error { //nolint:errcheck
			loc := s.locate(ctx, pc)
			if name, _, _ := strings.Cut(loc.Function, "+"); name != f.Function || strings.HasPrefix(loc.Function, "_Z") {
				t.Errorf("pc %s: locate says %q, the backtrace %q", f.PC, loc.Function, f.Function)
			}
			return nil
		})
		checked++
	}
	if checked == 0 {
		t.Fatalf("no libstdc++ frame without debug information in %+v", frames)
	}
}
