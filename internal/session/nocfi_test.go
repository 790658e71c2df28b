package session

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestNoCFIBacktraceMatchesGDB: in assembler functions without call
// frame information (testdata/nocfi.S: a leaf that keeps no frame, and a
// function that sets one up with push %rbp; mov %rsp,%rbp), at the entry,
// after the push, after the mov and in the body, the backtrace and a
// finish are GDB 13's, in x86-64 and i386 builds: GDB's prologue analyzer
// (amd64_analyze_prologue, i386_analyze_prologue) finds the return
// address on top of the stack at the entry, above the saved frame
// pointer after the push, and through the frame pointer once it is set
// up. rrmcp followed the frame pointer everywhere: at the entry that is
// still the caller's, so the backtrace skipped the caller and the finish
// ran the caller to its end.
func TestNoCFIBacktraceMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	testenv.NeedTool(t, "gcc")
	for _, m32 := range []bool{false, true} {
		t.Run(map[bool]string{false: "x86-64", true: "i386"}[m32], func(t *testing.T) {
			exe := gccForGDB(t, m32, "nocfi", "-O0", filepath.Join("testdata", "nocfi.c"), filepath.Join("testdata", "nocfi.S"))
			for _, c := range []struct {
				name  string
				bp    string
				moves []string
			}{
				{"entry", "*framedasm", []string{"finish"}},
				{"pushed", "*framedasm", []string{"stepi", "finish"}},
				{"framed", "*framedasm", []string{"stepi", "stepi", "finish"}},
				{"body", "*framedasm", []string{"stepi", "stepi", "stepi", "stepi"}},
				{"leaf", "leafasm", []string{"finish", "finish"}},
				{"leaf-from-main", "leafasm", []string{"continue", "finish"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					want := gdbBacktraces(t, exe, c.bp, c.moves)
					got := sessionBacktraces(t, exe, c.bp, c.moves)
					if !slices.Equal(got, want) {
						t.Errorf("backtraces (break %s; %s):\nrrmcp: %q\nGDB:   %q", c.bp, strings.Join(c.moves, ", "), got, want)
					}
				})
			}
		})
	}
}

// gdbBTFrameRe reads a frame of GDB's backtrace: level, pc (where
// printed) and function.
var gdbBTFrameRe = regexp.MustCompile(`(?m)^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+) \(`)

// gdbBacktraces breaks at bp in exe under GDB, runs to it and makes the
// moves; at the first stop and after each move it returns the backtrace,
// "pc function" per frame joined by " | " (frame 0's pc is $pc).
func gdbBacktraces(t *testing.T, exe, bp string, moves []string) []string {
	t.Helper()
	segs := gdbAtEachStop(t, exe, []string{bp}, moves, []string{"p/x $pc", "bt"})
	var bts []string
	for _, seg := range segs {
		pc := regexp.MustCompile(`\$\d+ = (0x[0-9a-f]+)`).FindStringSubmatch(seg)
		fs := gdbBTFrameRe.FindAllStringSubmatch(seg, -1)
		if pc == nil || len(fs) == 0 {
			break // the program exited
		}
		var frames []string
		for _, f := range fs {
			a := f[2]
			if f[1] == "0" {
				a = pc[1]
			}
			v, err := strconv.ParseUint(a, 0, 64)
			if err != nil {
				t.Fatalf("GDB's frame %q: %v", f[0], err)
			}
			frames = append(frames, fmt.Sprintf("%#x %s", v, f[3]))
		}
		bts = append(bts, strings.Join(frames, " | "))
	}
	if len(bts) < 2 {
		t.Fatalf("GDB stopped %d times:\n%s", len(bts), strings.Join(segs, "@@\n"))
	}
	return bts
}

// sessionBacktraces is gdbBacktraces through a live session.
func sessionBacktraces(t *testing.T, exe, bp string, moves []string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, st := liveStoppedAt(t, ctx, LiveOptions{Command: []string{exe}}, bp)
	var bts []string
	for i := 0; ; i++ {
		if st.Frame == nil {
			break // exited
		}
		bt, _, _, _, err := s.Backtrace(ctx, 20)
		if err != nil {
			t.Fatalf("backtrace: %v", err)
		}
		var frames []string
		for _, f := range bt {
			v, err := strconv.ParseUint(f.Location.PC, 0, 64)
			if err != nil {
				t.Fatalf("frame %+v: %v", f, err)
			}
			frames = append(frames, fmt.Sprintf("%#x %s", v, f.Location.Function))
		}
		bts = append(bts, strings.Join(frames, " | "))
		if i == len(moves) {
			break
		}
		if st, err = sessionMove(ctx, s, moves[i]); err != nil {
			t.Fatalf("%s: %v", moves[i], err)
		}
	}
	return bts
}
