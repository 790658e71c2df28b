package session

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestNextRunsOtherThreads: a next on a line without a call lets the
// other threads run, as GDB's does (testdata/threadstep.c, round-9
// differential on zstd -T2): a spin-wait on another thread's flag ends
// (rrmcp stepped the spinning thread alone until its time limit), and
// another thread's breakpoint hit during the step stops it there, in
// that thread (rrmcp stepped past with the worker never running).
func TestNextRunsOtherThreads(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildTestdata(t, "gcc", "-O0", "threadstep.c")
	src := filepath.Join("testdata", "threadstep.c")
	spin, joined, goLn, busy := markerLine(t, src, "spin"), markerLine(t, src, "joined"), markerLine(t, src, "go"), markerLine(t, src, "busy")

	s, ctx := liveAt(t, Config{}, []string{exe}, fmt.Sprintf("threadstep.c:%d", spin))
	start := time.Now()
	st, err := s.Next(ctx, 1, false)
	if err != nil || st.Reason != "step" || st.Frame == nil || st.Frame.Line != joined {
		t.Fatalf("next over the spin-wait: %+v %v (after %v), want line %d", st, err, time.Since(start), joined)
	}

	// The worker calls hit 50 ms after go is set, while main spins on
	// the busy line.
	gdb := gdbAt(t, exe, fmt.Sprintf("threadstep.c:%d", goLn), "next", "break hit", "next")
	if !regexp.MustCompile(`Thread \d+ .* hit Breakpoint 2, hit \(i=0\)`).MatchString(gdb) {
		t.Fatalf("gdb's next did not stop in the worker's hit:\n%s", gdb)
	}
	if _, err := s.SetBreakpoint(ctx, fmt.Sprintf("threadstep.c:%d", goLn), "", false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to the go line: %+v %v", st, err)
	}
	main := st.Thread
	if st, err := s.Next(ctx, 1, false); err != nil || st.Frame == nil || st.Frame.Line != busy {
		t.Fatalf("next to the busy line: %+v %v", st, err)
	}
	if _, err := s.SetBreakpoint(ctx, "hit", "", false); err != nil {
		t.Fatal(err)
	}
	st, err = s.Next(ctx, 1, false)
	if err != nil || st.Reason != "breakpoint" || st.Frame == nil || st.Frame.Function != "hit" || st.Thread == main {
		t.Fatalf("next over the busy line: %+v %v, want the worker's breakpoint in hit (gdb: %s)", st, err, "Thread 2 hit Breakpoint 2, hit (i=0)")
	}
}
