package session

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// stepAt is where a move stopped: pc, source file (base name) and line.
type stepAt struct {
	pc   string
	file string
	line int
}

func (a stepAt) String() string { return fmt.Sprintf("%s %s:%d", a.pc, a.file, a.line) }

// TestStepInlinedMatchesGDB steps through testdata/stlsteps.cpp (g++ and
// clang++ -O2: STL constructors, accessors, iterators and lambdas
// inlined) with the
// sequences of next, step and finish of a real-code differential, and
// compares every stop's pc, file and line with GDB's over the same
// sequence. It covers GDB's inline-frame model: a call whose first
// instruction is the pc is not entered yet (the stop is at its call
// site), "step" there goes into it without running, "next" steps over
// inlined calls made on its line, stops at the call site of one made on
// another line and goes through the rest of one it is inside of, and
// "finish" in an inlined frame returns into its caller. Before, the first
// difference came at the first to seventh move of each sequence.
func TestStepInlinedMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	seqs := []struct{ fn, moves string }{
		{"fill", "next next next next next next next next step step finish next next next next next next next next next next next next step finish next next"},
		{"make_key", "next next next next next next step step finish finish next next next next next next next next next next next next"},
		{"main", "next next next step next next finish next next next next next next next next next next"},
		{"sort_all", "next next next next next next next next next next step step step finish next next next next next next next next next next next next"},
		{"summarize", "next next next next next next next next next next step step finish next next next next next next next next next next next next next next"},
		{"longest_key", "next next next next next next next next next next step step finish next next next next next next next next next next next next"},
	}
	build := func(t *testing.T, cxx string) string {
		testenv.NeedTool(t, cxx)
		prog := filepath.Join(t.TempDir(), "stlsteps-"+cxx)
		src, err := filepath.Abs(filepath.Join("testdata", "stlsteps.cpp"))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cxx, "-O2", "-g", "-o", prog, src).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cxx, err, out)
		}
		return prog
	}
	t.Run("g++", func(t *testing.T) {
		if n := stepSequencesVsGDB(t, build(t, "g++"), seqs); n == 0 {
			t.Error("no move went into an inlined call without running: the program no longer exercises that")
		}
	})
	t.Run("clang++", func(t *testing.T) {
		// GDB's "break sort_all" (summarize, longest_key) also breaks
		// in the lambda defined inside it, which clang inlines: its
		// stops there are breakpoint hits, not steps.
		stepSequencesVsGDB(t, build(t, "clang++"), seqs[:3])
	})
}

// stepSequencesVsGDB runs each sequence on prog from a breakpoint on its
// function, under rrmcp and under GDB, and compares the stops. It returns
// how many moves went into an inlined call without running (the pc
// stayed, the line changed).
func stepSequencesVsGDB(t *testing.T, prog string, seqs []struct{ fn, moves string }) (stepsIn int) {
	for _, tc := range seqs {
		t.Run(tc.fn, func(t *testing.T) {
			moves := strings.Fields(tc.moves)
			want := gdbMoves(t, prog, tc.fn, moves)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			m := NewManager(Config{})
			t.Cleanup(m.Close)
			s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{prog}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SetBreakpoint(ctx, tc.fn, "", false); err != nil {
				t.Fatal(err)
			}
			st, err := s.Continue(ctx, false)
			if err != nil || st.Frame == nil {
				t.Fatalf("continue to %s: %+v %v", tc.fn, st, err)
			}
			got := []stepAt{at(st.Frame.Location)}
			for _, mv := range moves[:len(want)-1] {
				switch mv {
				case "next":
					st, err = s.Next(ctx, 1, false)
				case "step":
					st, err = s.Step(ctx, 1, false)
				case "finish":
					st, err = s.Finish(ctx, false)
				}
				if err != nil {
					t.Fatalf("%s: %v", mv, err)
				}
				if st.Frame == nil {
					break // exited
				}
				got = append(got, at(st.Frame.Location))
				// The stop names the frame the backtrace starts with.
				bt, _, _, err := s.Backtrace(ctx, 1)
				if err != nil || len(bt) == 0 || bt[0].Function != st.Frame.Function || bt[0].Line != st.Frame.Line {
					t.Fatalf("%s: stop in %s:%d, backtrace %+v %v", mv, st.Frame.Function, st.Frame.Line, bt, err)
				}
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("move %d (%s): stopped at %v, GDB at %v\nrrmcp: %v\nGDB:   %v", i, append([]string{"break " + tc.fn}, moves...)[i], got[i], want[i], got[:i+1], want[:i+1])
				}
				if i > 0 && got[i].pc == got[i-1].pc && got[i].line != got[i-1].line {
					stepsIn++
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d stops, GDB %d", len(got), len(want))
			}
		})
	}
	return stepsIn
}

func at(l Location) stepAt { return stepAt{pc: l.PC, file: filepath.Base(l.File), line: l.Line} }

// gdbStopRe reads a move's stop from GDB's `p/x $pc` and `frame 0`.
var gdbStopRe = regexp.MustCompile(`(?s)\$\d+ = (0x[0-9a-f]+)\n#0 .*? at (\S+):(\d+)\n`)

// gdbMoves runs prog under GDB to a breakpoint on fn and through moves,
// and returns where it stopped at the breakpoint and after each move,
// up to the program's exit.
func gdbMoves(t *testing.T, prog, fn string, moves []string) []stepAt {
	t.Helper()
	args := []string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "set width 0", "-ex", "set pagination off",
		"-ex", "set startup-with-shell off", "-ex", "break " + fn, "-ex", "run"}
	for _, mv := range append([]string{""}, moves...) {
		if mv != "" {
			args = append(args, "-ex", mv)
		}
		args = append(args, "-ex", `echo @@\n`, "-ex", "p/x $pc", "-ex", "frame 0")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", append(args, prog)...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var stops []stepAt
	for _, seg := range strings.Split(string(out), "@@\n")[1:] {
		m := gdbStopRe.FindStringSubmatch(seg)
		if m == nil {
			break // the program exited
		}
		var line int
		fmt.Sscan(m[3], &line) //nolint:errcheck // digits
		stops = append(stops, stepAt{pc: m[1], file: filepath.Base(m[2]), line: line})
	}
	if len(stops) < 2 {
		t.Fatalf("GDB stopped %d times:\n%s", len(stops), out)
	}
	return stops
}
