package session

import (
	"fmt"
	"strings"
	"testing"
)

// TestFinishPast: a finish from a breakpoint that the function cannot
// reach again before it returns is one resume (no single-step off the
// breakpoint); one inside a loop is stepped off and put back, so the
// next iteration stops the finish there; another breakpoint on the way
// stops it in both cases.
func TestFinishPast(t *testing.T) {
	s, pc := countedSession(t, "walk")
	ctx := t.Context()
	if _, err := s.SetBreakpoint(ctx, "counter.c:58", "", false); err != nil { // sum += n->value, in the loop
		t.Fatal(err)
	}
	pc.take()
	walkBP := fmt.Sprintf("Z0,%x,", s.pcOr0(ctx))
	// From walk's first line: the loop never comes back there, and
	// nothing is called: one resume, which the loop's breakpoint stops.
	st, err := s.Finish(ctx, false)
	if err != nil || st.Reason != "breakpoint" || st.Frame.Line != 58 {
		t.Fatalf("finish from walk's first line: %+v %v, want the breakpoint at :58", st, err)
	}
	if sent := strings.Join(pc.take(), " | "); strings.Contains(sent, "vCont;s") || !strings.Contains(sent, "vCont;c") {
		t.Errorf("finish from walk's first line: %s; want one continue, no step off the breakpoint", sent)
	}
	// From inside the loop: each iteration comes back; the breakpoint is
	// stepped off and put back, and stops the finish at the next two.
	for i := 0; i < 2; i++ {
		st, err := s.Finish(ctx, false)
		sent := pc.take()
		if err != nil || st.Reason != "breakpoint" || st.Frame.Line != 58 {
			t.Fatalf("finish %d inside the loop: %+v %v, want the breakpoint at :58 again; sent %s", i, st, err, strings.Join(sent, " | "))
		}
		if !strings.Contains(strings.Join(sent, " | "), "vCont;s") {
			t.Errorf("finish %d inside the loop: %s; want the step off the breakpoint", i, sent)
		}
		if i == 0 && !strings.HasPrefix(sent[0], walkBP) {
			t.Errorf("the resume after the finish that left walk's breakpoint out: %s; want it put back first (%s…)", sent[0], walkBP)
		}
	}
	st, err = s.Finish(ctx, false)
	if err != nil || st.Reason != "finish" || st.Frame.Function != "main" || st.ReturnValue != "6" {
		t.Fatalf("last finish: %+v %v, want back in main with 6", st, err)
	}
}

// TestAloneWithoutPassedHandlers: the live checks of a finish that leaves
// its breakpoint out: one thread, and no handler for a signal that the
// server passes without stopping.
func TestAloneWithoutPassedHandlers(t *testing.T) {
	ctx := t.Context()
	s := liveSession(t, "counter", "hit")
	if !s.aloneWithoutPassedHandlers() {
		t.Errorf("counter (one thread, no handlers): false")
	}
	s = liveSession(t, "threads_bp", "tick")
	if s.aloneWithoutPassedHandlers() {
		t.Errorf("threads_bp in tick (eight workers): true")
	}
	s = liveSession(t, "signal_handler", "signal_handler.c:43") // after the sigaction of SIGUSR1
	if !s.aloneWithoutPassedHandlers() {
		t.Errorf("signal_handler with SIGUSR1 stopping: false")
	}
	no, yes := false, true
	if _, err := s.HandleSignal(ctx, "SIGUSR1", &no, &no, &yes); err != nil {
		t.Fatal(err)
	}
	if s.aloneWithoutPassedHandlers() {
		t.Errorf("signal_handler with SIGUSR1 passed silently and a handler for it: true")
	}
}

// TestStraightRefused: a line step runs straight to a breakpoint at the
// line's end only where no other breakpoint lies on the way or there:
// with one at the next line's start, the range step is made, and the
// step stops on that breakpoint as a hit.
func TestStraightRefused(t *testing.T) {
	s, pc := countedSession(t, "hit")
	ctx := t.Context()
	if _, err := s.SetBreakpoint(ctx, "counter.c:39", "", false); err != nil { // total += i
		t.Fatal(err)
	}
	pc.take()
	st, err := s.Step(ctx, 1, false)
	if err != nil || st.Reason != "breakpoint" || st.Frame.Line != 39 {
		t.Fatalf("step: %+v %v, want the breakpoint at :39", st, err)
	}
	if sent := strings.Join(pc.take(), " | "); !strings.Contains(sent, "vCont;r") {
		t.Errorf("step: %s; want the range step", sent)
	}
}
