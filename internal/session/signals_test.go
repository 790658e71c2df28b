package session

import (
	"strings"
	"syscall"
	"testing"
)

// TestSignalPolicy: GDB's defaults — SIGURG, SIGCHLD and SIGWINCH reach the
// program without a stop (gdbserver passes them: QPassSignals); the old code
// stopped for each. rr_signal_handle changes the policy per session: a
// signal made to stop stops, one made not to pass is not delivered (SIGUSR1
// would kill counter).
func TestSignalPolicy(t *testing.T) {
	s := liveSession(t, "counter", "hit")
	ctx := t.Context()
	pid := s.Info().PID
	if pid <= 0 {
		t.Fatal("no pid")
	}
	send := func(sig syscall.Signal) {
		t.Helper()
		if err := syscall.Kill(pid, sig); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what, reason, signal string) {
		t.Helper()
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != reason || st.Signal != signal {
			t.Fatalf("%s: continue = %+v %v, want %s %s", what, st, err, reason, signal)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGURG, syscall.SIGCHLD, syscall.SIGWINCH} {
		send(sig)
		expect("after "+sig.String(), "breakpoint", "")
	}
	yes, no := true, false
	if _, err := s.HandleSignal(ctx, "SIGURG", &yes, nil, nil); err != nil {
		t.Fatal(err)
	}
	send(syscall.SIGURG)
	expect("SIGURG set to stop", "signal", "SIGURG")
	h, err := s.HandleSignal(ctx, "usr1", nil, nil, &no)
	if err != nil || !h.Stop || h.Pass || h.Signal != "SIGUSR1" {
		t.Fatalf("handle usr1 nopass = %+v %v", h, err)
	}
	send(syscall.SIGUSR1)
	expect("SIGUSR1", "signal", "SIGUSR1")
	expect("SIGUSR1 not passed", "breakpoint", "")
	// nostop print: passed, and the next stop says so.
	if _, err := s.HandleSignal(ctx, "SIGWINCH", nil, &yes, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HandleSignal(ctx, "SIGWINCH", &no, nil, nil); err != nil {
		t.Fatal(err)
	}
	send(syscall.SIGWINCH)
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" || !strings.Contains(st.Message, "received SIGWINCH") {
		t.Fatalf("SIGWINCH nostop print: %+v %v", st, err)
	}
	for _, bad := range []string{"SIGNOPE", "", "999"} {
		if _, err := s.HandleSignal(ctx, bad, &yes, nil, nil); err == nil {
			t.Errorf("HandleSignal(%q) accepted", bad)
		}
	}
	if _, err := s.HandleSignal(ctx, "SIGTRAP", &no, nil, nil); err == nil {
		t.Error("SIGTRAP nostop accepted")
	}
}

// TestSignalNoteThroughCondition: a print-only signal that arrives before a
// conditional breakpoint whose condition is false at first is still named
// by the stop that ends the continue. The old code attached the note to the
// hit it went on from (condition false) and lost it. The condition is not
// of the simple form gdbserver evaluates, so the host sees every hit.
func TestSignalNoteThroughCondition(t *testing.T) {
	s := liveSession(t, "counter", "hit")
	ctx := t.Context()
	if _, err := s.SetCondition(ctx, 1, "i + 0 == 3"); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	if _, err := s.HandleSignal(ctx, "SIGWINCH", nil, &yes, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HandleSignal(ctx, "SIGWINCH", &no, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(s.Info().PID, syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" || st.Breakpoint != 1 {
		t.Fatalf("continue: %+v %v, want breakpoint 1", st, err)
	}
	if v, err := s.Evaluate(ctx, "i"); err != nil || v.Value != "3" {
		t.Fatalf("i at the stop = %+v %v, want 3 (the condition)", v, err)
	}
	if !strings.Contains(st.Message, "received SIGWINCH") {
		t.Errorf("stop message %q does not name SIGWINCH, received on the way", st.Message)
	}
	// Said once: the next stop has nothing to add.
	if err := s.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "exited" || strings.Contains(st.Message, "SIGWINCH") {
		t.Errorf("continue to the end: %+v %v, want an exit without the note", st, err)
	}
}
