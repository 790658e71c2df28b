package session

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestWatchpointScope: a watchpoint on a local is deleted when its frame
// returns, and the program stops there saying so, as GDB does
// (testdata/watchscope.c: a recursive function, whose deeper calls
// return to the same call site in frames that are not the watched one
// and go on). Before, the watchpoint went on watching the dead stack
// slot and reported the next call's writes to it. The stops of
// continue, next and finish are compared with GDB's, on the hardware
// path (where the debug registers fire) and the software one.
func TestWatchpointScope(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "watchscope.c")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var hw hwdebug.Cache
	hwOK := hw.Get(ctx, []string{}).UseHardwareWatch()
	for _, move := range []string{"continue", "next", "finish"} {
		for _, soft := range []bool{false, true} {
			if !soft && !hwOK {
				continue // no debug registers that fire here: the software path is the only one
			}
			t.Run(fmt.Sprintf("%s/soft=%v", move, soft), func(t *testing.T) {
				n := map[string]int{"continue": 4, "next": 7, "finish": 4}[move]
				setSW := "set can-use-hw-watchpoints 1"
				var env []string
				if soft {
					setSW, env = "set can-use-hw-watchpoints 0", []string{hwdebug.EnvVar + "=off"}
				}
				want := gdbWatchScopeStops(t, exe, setSW, move, n)
				m := NewManager(Config{Env: env})
				t.Cleanup(m.Close)
				s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.SetBreakpoint(ctx, "depth_sum", "n == 2", false); err != nil {
					t.Fatal(err)
				}
				if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
					t.Fatalf("continue to depth_sum(2): %+v %v", st, err)
				}
				w, err := s.SetWatchpoint(ctx, "local", "write")
				if err != nil {
					t.Fatal(err)
				}
				if err := s.RemoveBreakpoint(ctx, 1); err != nil {
					t.Fatal(err)
				}
				var got []string
				for i := range n {
					var st *Stop
					switch move {
					case "continue":
						st, err = s.Continue(ctx, false)
					case "next":
						st, err = s.Next(ctx, 1, false)
					case "finish":
						st, err = s.Finish(ctx, false)
					}
					if err != nil || st.Frame == nil {
						t.Fatalf("%s %d: %+v %v", move, i+1, st, err)
					}
					stop := fmt.Sprint(st.Frame.Line)
					if st.Watch != nil {
						stop += fmt.Sprintf(" old=%s new=%s", st.Watch.Old, st.Watch.New)
					}
					if slices.Contains(st.WatchScope, w.Number) {
						stop += " deleted"
						if !strings.Contains(st.Message, fmt.Sprintf("Watchpoint %d deleted because the program has left the block", w.Number)) {
							t.Errorf("%s %d: the stop does not say why watchpoint %d is gone: %q", move, i+1, w.Number, st.Message)
						}
						if move == "continue" && st.Reason != "watchpoint-scope" {
							t.Errorf("continue %d: reason %q, want watchpoint-scope", i+1, st.Reason)
						}
					}
					got = append(got, stop)
				}
				if !slices.Equal(got, want) {
					t.Errorf("stops:\n  %q\ngdb's:\n  %q", got, want)
				}
				if bps, err := s.Breakpoints(ctx); err != nil || len(bps) != 0 {
					t.Errorf("breakpoints left: %+v %v", bps, err)
				}
			})
		}
	}
}

// gdbWatchScopeStops runs exe under GDB to depth_sum(2), watches local
// and makes n moves; it returns one line per stop: "LINE", "LINE
// old=O new=N" at a watchpoint's stop, "LINE deleted" where the
// watchpoint went out of scope.
func gdbWatchScopeStops(t *testing.T, exe, setSW, move string, n int) []string {
	t.Helper()
	args := []string{"-nx", "-batch", "-ex", setSW, "-ex", "break depth_sum if n == 2", "-ex", "run", "-ex", "watch local", "-ex", "delete 1"}
	for range n {
		args = append(args, "-ex", move)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var stops []string
	var old, nw string
	deleted := false
	lineRE := regexp.MustCompile(`^(\d+)\t`)
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "Old value = "):
			old = strings.TrimPrefix(l, "Old value = ")
		case strings.HasPrefix(l, "New value = "):
			nw = strings.TrimPrefix(l, "New value = ")
		case strings.Contains(l, "deleted because the program has left the block"):
			deleted = true
		}
		if m := lineRE.FindStringSubmatch(l); m != nil {
			stop := m[1]
			if nw != "" {
				stop += fmt.Sprintf(" old=%s new=%s", old, nw)
			}
			if deleted {
				stop += " deleted"
			}
			stops = append(stops, stop)
			old, nw, deleted = "", "", false
		}
	}
	if len(stops) < n {
		t.Fatalf("gdb made %d stops of %d:\n%s", len(stops), n, out)
	}
	return stops[len(stops)-n:]
}
