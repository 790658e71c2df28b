package session

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestStepInlinedMatchesGDB steps through testdata/stlsteps.cpp (g++ and
// clang++ -O2: STL constructors, accessors, iterators and lambdas
// inlined) with the sequences of next, step and finish of a real-code
// differential, and compares every stop's pc, file and line with GDB's
// over the same sequence. It covers GDB's inline-frame model: a call whose first
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
		if n := inlineSequences(t, build(t, "g++"), seqs); n == 0 {
			t.Error("no move went into an inlined call without running: the program no longer exercises that")
		}
	})
	t.Run("clang++", func(t *testing.T) {
		// GDB's "break sort_all" (summarize, longest_key) also breaks
		// in the lambda defined inside it, which clang inlines: its
		// stops there are breakpoint hits, not steps.
		inlineSequences(t, build(t, "clang++"), seqs[:3])
	})
}

// inlineSequences runs each sequence on prog from a breakpoint on its
// function (movesVsGDB) and returns how many moves went into an inlined
// call without running (the pc stayed, the line changed).
func inlineSequences(t *testing.T, prog string, seqs []struct{ fn, moves string }) (stepsIn int) {
	for _, tc := range seqs {
		t.Run(tc.fn, func(t *testing.T) {
			got := movesVsGDB(t, prog, tc.fn, strings.Fields(tc.moves))
			for i := 1; i < len(got); i++ {
				if got[i].pc == got[i-1].pc && got[i].line != got[i-1].line {
					stepsIn++
				}
			}
		})
	}
	return stepsIn
}
