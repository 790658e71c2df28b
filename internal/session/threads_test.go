package session

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestRemovedBreakpointPendingHits: eight threads of threads_bp run
// through tick() at once, so several hit its breakpoint together;
// gdbserver reports one hit and keeps the others pending. The breakpoint
// is then deleted and the program continued: like GDB (moribund
// breakpoint locations), the pending hits of the deleted breakpoint must
// not surface as stops; the program must run to its exit. Repeated, since
// how many hits are pending depends on thread timing; the test fails if
// no iteration had a pending hit at all (then it proved nothing).
func TestRemovedBreakpointPendingHits(t *testing.T) {
	const iterations = 12
	dropped := 0
	for i := 0; i < iterations; i++ {
		s := liveSession(t, "threads_bp", "")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		bp, err := s.SetBreakpoint(ctx, "tick", "", false)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != "breakpoint" || st.Breakpoint != bp.Number {
			t.Fatalf("iteration %d: continue to tick: %+v %v", i, st, err)
		}
		if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
			t.Fatal(err)
		}
		st, err = s.Continue(ctx, false)
		if err != nil || st.Reason != "exited" || st.ExitCode == nil || *st.ExitCode != 0 {
			where := ""
			if st != nil && st.Frame != nil {
				where = st.Frame.Location.Function + " " + st.Frame.Location.PC
			}
			t.Fatalf("iteration %d: continue after deleting the breakpoint: %+v (%s) %v; want the exit, no stop nobody asked for", i, st, where, err)
		}
		dropped += s.c.MoribundHits()
		cancel()
	}
	t.Logf("%d iterations, %d pending hits of the deleted breakpoint dropped", iterations, dropped)
	if dropped == 0 {
		t.Fatalf("no iteration had a pending hit of the deleted breakpoint: the test did not exercise the race")
	}
}

// TestBacktraceAllThreads: at a stop of threads_bp, every thread's
// backtrace (rr_backtrace all_threads) is, thread by thread, what
// selecting the thread and asking its backtrace gives, in the thread
// list's order, the stopped thread marked; and asking it leaves the
// selected thread and frame as they were.
func TestBacktraceAllThreads(t *testing.T) {
	s := liveSession(t, "threads_bp", "")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := s.SetBreakpoint(ctx, "tick", "", false); err != nil {
		t.Fatal(err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to tick: %+v %v", st, err)
	}
	if _, err := s.SelectFrame(ctx, 1); err != nil {
		t.Fatal(err)
	}
	all, sel, err := s.BacktraceAll(ctx, 64)
	if err != nil || sel != 1 {
		t.Fatalf("BacktraceAll: selected frame %d, %v", sel, err)
	}
	threads, err := s.Threads(ctx)
	if err != nil || len(threads) != len(all) || len(all) < 2 {
		t.Fatalf("%d backtraces for %d threads (%v)", len(all), len(threads), err)
	}
	// nothing moved: the stopped thread is still selected, at frame 1
	fr, _, sel, _, err := s.Backtrace(ctx, 64)
	if err != nil || sel != 1 || fr[0].Function != "tick" {
		t.Fatalf("after BacktraceAll: selected frame %d, frame 0 %+v, %v", sel, fr, err)
	}
	current := 0
	for i, tb := range all {
		if tb.Thread != threads[i].ID || tb.Current != threads[i].Current || tb.Error != "" {
			t.Errorf("backtrace %d: %+v; thread list says %+v", i, tb, threads[i])
		}
		if tb.Current {
			current++
			if tb.Thread != st.Thread {
				t.Errorf("current thread %s, the stop's %s", tb.Thread, st.Thread)
			}
		}
	}
	if current != 1 {
		t.Errorf("%d threads marked current", current)
	}
	for _, tb := range all {
		if _, err := s.SelectThread(ctx, tb.Thread); err != nil {
			t.Fatal(err)
		}
		one, _, _, _, err := s.Backtrace(ctx, 64)
		if err != nil || !reflect.DeepEqual(one, tb.Frames) {
			t.Errorf("thread %s: selected, its backtrace is %+v (%v); all_threads said %+v", tb.Thread, one, err, tb.Frames)
		}
	}
}

// TestNextStaysInThread: a next over tick() in one of eight threads that
// all run that loop completes in the thread it started in, with its own
// id, each time: only the stepping thread's return to the caller counts
// (GDB's step-resume breakpoint is thread-specific). The other threads
// reach the same return address, and one whose stack lies above the
// stepping thread's (any sp at or above counted) used to end the step in
// its own frame.
func TestNextStaysInThread(t *testing.T) {
	for run := 0; run < 3; run++ {
		s := liveSession(t, "threads_bp", "")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		bp, err := s.SetBreakpoint(ctx, "threads_bp.c:36", "", false)
		if err != nil {
			t.Fatal(err)
		}
		var st *Stop
		for i := 0; i < 5; i++ { // a few threads into the loop
			if st, err = s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
				t.Fatalf("continue to the loop: %+v %v", st, err)
			}
		}
		if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
			t.Fatal(err)
		}
		id, err := s.Evaluate(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			nst, err := s.Next(ctx, 1, false)
			if err != nil {
				t.Fatalf("run %d, next %d: %v", run, i, err)
			}
			if nst.Reason == "exited" {
				break
			}
			now, err := s.Evaluate(ctx, "id")
			if nst.Thread != st.Thread || err != nil || now.Value != id.Value {
				t.Fatalf("run %d, next %d: in thread %s with id %s (%v); the step began in %s with id %s",
					run, i, nst.Thread, now.Value, err, st.Thread, id.Value)
			}
		}
		cancel()
	}
}
