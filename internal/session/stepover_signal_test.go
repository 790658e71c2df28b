package session

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestStepiSignalDuringStepOver: a signal (signal_storm keeps SIGURG
// pending on the main thread) stops an rr_stepi's step over the
// breakpoint on tick() before the instruction ran; the next stepi
// executes it. The step over is finished then, so the continue after
// reports the next call of tick() — same pc, same stack pointer — as GDB
// does (one stop per call). The old code kept the interrupted step over
// as unfinished and took that next hit for the handler's return,
// reporting the call after it. SIGURG is made not to pass (a passed one
// is delivered within the step: TestStepDeliversPassedSignal), so the
// step the signal stopped is simply made again. The test goes on until
// three step overs were stopped by the signal (the path it proves), and
// fails if none was.
func TestStepiSignalDuringStepOver(t *testing.T) {
	s := liveSession(t, "signal_storm", "tick")
	ctx := t.Context()
	no := false
	if _, err := s.HandleSignal(ctx, "SIGURG", nil, nil, &no); err != nil {
		t.Fatal(err)
	}
	interrupted := 0
	round := 0
	for ; round < 250 && interrupted < 3; round++ {
		want := strconv.Itoa(round)
		if v, err := s.Evaluate(ctx, "i"); err != nil || v.Value != want {
			t.Fatalf("round %d: i = %+v %v, want %s", round, v, err, want)
		}
		start := s.c.LastStop()
		pc0, err := s.inf.PC(ctx, start.Thread)
		if err != nil {
			t.Fatal(err)
		}
		// Step until the thread has left the breakpoint (a signal may stop
		// a step before its instruction ran).
		for n := 0; ; n++ {
			if n == 50 {
				t.Fatalf("round %d: 50 stepi never left the breakpoint", round)
			}
			if _, err := s.StepInstruction(ctx, 1, false, false); err != nil {
				t.Fatal(err)
			}
			pc, err := s.inf.PC(ctx, s.inf.Cur)
			if err != nil {
				t.Fatal(err)
			}
			if pc != pc0 {
				if n > 0 {
					interrupted++
				}
				break
			}
		}
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != "breakpoint" || st.Breakpoint != 1 {
			t.Fatalf("round %d: continue: %+v %v, want breakpoint 1", round, st, err)
		}
	}
	if interrupted == 0 {
		t.Fatalf("in %d rounds no signal stopped a step over: the path was not exercised", round)
	}
	t.Logf("%d of %d step overs were stopped by SIGURG before the instruction ran", interrupted, round)
}

// TestStepDeliversPassedSignal: a signal the policy passes without
// stopping (SIGURG) that stops a step is delivered to the program — its
// handler runs — and the step goes on, as GDB's step-resume breakpoint
// does; the old code dropped it (the next step resumed without it).
// signal_storm's handler counts its SIGURGs in urgs: while the main
// thread alone is stepped, every SIGURG that stopped a step must reach it.
// The test goes on until three steps were stopped by the signal, and fails
// if none was.
func TestStepDeliversPassedSignal(t *testing.T) {
	s := liveSession(t, "signal_storm", "tick")
	ctx := t.Context()
	urgs := func() int {
		t.Helper()
		v, err := s.Evaluate(ctx, "urgs")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(v.Value)
		if err != nil {
			t.Fatalf("urgs = %q", v.Value)
		}
		return n
	}
	delivered := 0
	for round := 0; round < 100 && delivered < 3; round++ {
		before := urgs()
		st, err := s.StepInstruction(ctx, 1, false, false)
		if err != nil || st.Reason != "step" {
			t.Fatalf("stepi: %+v %v", st, err)
		}
		delivered += urgs() - before
		if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
			t.Fatalf("continue: %+v %v", st, err)
		}
	}
	if delivered == 0 {
		t.Fatal("in 100 steps no SIGURG stopped a step and reached the handler")
	}
	t.Logf("%d SIGURGs stopped a step and were delivered to the handler", delivered)
}

// TestStepAfterSignalStopDelivers: stepping on from a stop for a signal
// that stops and is passed delivers it, as continuing does (GDB: "a
// subsequent step command delivers the signal"); the old code resumed the
// step without it, and the program never received it. SIGURG is made to
// stop; a continue in signal_storm's storm stops with it; the next stepi
// goes into the handler, on its first instruction (as GDB's), and the
// handler count grows when it returns (without the delivery the main
// thread is stepped alone and its handler cannot run).
func TestStepAfterSignalStopDelivers(t *testing.T) {
	s := liveSession(t, "signal_storm", "tick")
	ctx := t.Context()
	yes := true
	if _, err := s.HandleSignal(ctx, "SIGURG", &yes, nil, nil); err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		if n == 100 {
			t.Fatal("100 continues: none stopped with SIGURG")
		}
		st, err := s.Continue(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Reason == "signal" && st.Signal == "SIGURG" {
			break
		}
	}
	v, err := s.Evaluate(ctx, "urgs")
	if err != nil {
		t.Fatal(err)
	}
	before := v.Value
	st, err := s.StepInstruction(ctx, 1, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Frame == nil || st.Frame.Function != "on_urg" {
		t.Fatalf("stepi from the SIGURG stop: %+v, want on_urg's entry", st.Frame)
	}
	if _, err := s.Finish(ctx, false); err != nil {
		t.Fatal(err)
	}
	v, err = s.Evaluate(ctx, "urgs")
	if err != nil {
		t.Fatal(err)
	}
	if v.Value == before {
		t.Errorf("urgs = %s before and after the stepi from the SIGURG stop: the signal was not delivered", before)
	}
}

// TestSoftWatchThroughSignal: a passed signal (SIGURG) that stops the
// single steps of a software watchpoint is delivered with a return to
// where it came, and the checked continue goes on: every write of hits is
// reported (each call of hit() adds 1). The old code resumed with the signal at full speed, unchecked,
// and the program ran to its end past every write. Software watchpoints
// are forced through the same setting a user has (RRMCP_HW_WATCHPOINTS).
func TestSoftWatchThroughSignal(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	path := testenv.Prog(t, "counter")
	m := NewManager(Config{Env: []string{hwdebug.EnvVar + "=off"}})
	t.Cleanup(m.Close)
	ctx := t.Context()
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBreakpoint(ctx, "hit", "", false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to hit: %+v %v", st, err)
	}
	w, err := s.SetWatchpoint(ctx, "hits", "write")
	if err != nil || w.Mechanism != "software watchpoint" {
		t.Fatalf("watch hits: %+v %v, want a software watchpoint", w, err)
	}
	if err := s.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if err := syscall.Kill(s.Info().PID, syscall.SIGURG); err != nil {
			t.Fatal(err)
		}
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != "watchpoint" || st.Watch == nil {
			t.Fatalf("continue %d after SIGURG: %+v %v, want the watchpoint on hits", n, st, err)
		}
		if st.Watch.Old != strconv.Itoa(n-1) || st.Watch.New != strconv.Itoa(n) {
			t.Errorf("continue %d: hits %s -> %s, want %d -> %d", n, st.Watch.Old, st.Watch.New, n-1, n)
		}
	}
}
