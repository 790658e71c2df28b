package session

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestValueWatchpointMatchesGDB: a watchpoint on a variable -O2 keeps in
// a register (counter-O2's walk(): sum) is watched by its value, as GDB,
// the oracle, watches it: the same changes, old and new values, at the
// same lines, then the deletion when walk returns to main. It was
// refused ("not in memory").
func TestValueWatchpointMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	path := testenv.Prog(t, "counter-O2")
	out := gdbAt(t, path, "walk", "info address sum", "watch sum", "continue", "continue", "continue", "continue")
	if !strings.Contains(out, "a variable in $") && !strings.Contains(out, "multi-location") {
		t.Logf("GDB: %s", out)
	}
	var want []string
	for _, m := range regexp.MustCompile(`Old value = (.*)\nNew value = (.*)\n.*\n(\d+)\t`).FindAllStringSubmatch(out, -1) {
		want = append(want, fmt.Sprintf("%s -> %s at line %s", m[1], m[2], m[3]))
	}
	if m := regexp.MustCompile(`left the block in\nwhich its expression is valid.\n.* in (\w+) \(\) at .*:(\d+)`).FindStringSubmatch(out); m != nil {
		want = append(want, fmt.Sprintf("scope end in %s at line %s", m[1], m[2]))
	}
	if len(want) != 4 {
		t.Fatalf("GDB's watch of sum: %q\n%s", want, out)
	}

	s := liveSession(t, "counter-O2", "walk")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	w, err := s.SetWatchpoint(ctx, "sum", "write")
	if err != nil {
		t.Fatal(err)
	}
	if w.Mechanism != "software watchpoint" {
		t.Errorf("watchpoint %+v: want a software watchpoint", w)
	}
	var got []string
	for range 4 {
		st, err := s.Continue(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Reason == "watchpoint" && st.Watch != nil && st.Frame != nil:
			got = append(got, fmt.Sprintf("%s -> %s at line %d", st.Watch.Old, st.Watch.New, st.Frame.Line))
		case st.Reason == "watchpoint-scope" && st.Frame != nil:
			got = append(got, fmt.Sprintf("scope end in %s at line %d", st.Frame.Function, st.Frame.Line))
		default:
			got = append(got, fmt.Sprintf("%+v", st))
		}
	}
	t.Logf("rrmcp: %q", got)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("stop %d: %q, GDB: %q", i, got, want)
			break
		}
	}
}

// TestValueWatchpointAfterCallMatchesGDB: a value watchpoint on a value
// computed from a call's return register (st.ok at gcc -O2) stops at the
// call's return, where the value changed (it stopped one instruction
// later: callOver went on without comparing), and is deleted with GDB's
// "Error evaluating expression for watchpoint N" where the value is no
// longer known (it ran on to the caller's scope stop).
func TestValueWatchpointAfterCallMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O2", "watchvalue.c")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	watchLikeGDB(t, ctx, exe, false, "roundtrip", watchCase{expr: "st.ok", n: 2})
}

// TestValueWatchpointBesideMemory: with a watchpoint on memory set first
// (total, which walk() does not write), the change of the value
// watchpoint's sum is reported as sum's, and a next over the line that
// changes it stops there as GDB's next does.
func TestValueWatchpointBesideMemory(t *testing.T) {
	s := liveSession(t, "counter-O2", "walk")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := s.SetWatchpoint(ctx, "total", "write"); err != nil {
		t.Fatal(err)
	}
	w, err := s.SetWatchpoint(ctx, "sum", "write")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "watchpoint" || st.Watch == nil || st.Watch.Number != w.Number || st.Watch.New != "1" || st.Watch.Address != "" {
		t.Fatalf("continue: %+v %v; want watchpoint #%d (sum) 0 -> 1, no address", st, err, w.Number)
	}
	for range 8 {
		st, err = s.Next(ctx, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Reason == "watchpoint" {
			break
		}
	}
	if st.Reason != "watchpoint" || st.Watch == nil || st.Watch.Old != "1" || st.Watch.New != "3" {
		t.Fatalf("next until the next change: %+v; want sum 1 -> 3", st)
	}
}

// TestValueWatchpointOverCalls: the calls the watched frame makes run
// free to their return (callOver), and still a breakpoint in the callee
// stops them: counter-O2's sq in main's square loop gives GDB's sequence
// of square's breakpoint stops and sq's changes.
func TestValueWatchpointOverCalls(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	path := testenv.Prog(t, "counter-O2")
	out := gdbAt(t, path, "counter.c:79", "watch sq", "break square", "continue", "continue", "continue", "continue", "continue", "continue")
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^Breakpoint \d+, square \(x=x@entry=(\d+)\)|^Old value = (.*)\nNew value = (.*)$`).FindAllStringSubmatch(out, -1) {
		if m[1] != "" {
			want = append(want, "square("+m[1]+")")
		} else {
			want = append(want, m[2]+" -> "+m[3])
		}
	}
	if len(want) < 6 {
		t.Fatalf("GDB: %q\n%s", want, out)
	}
	want = want[:6]

	s := liveSession(t, "counter-O2", "")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := s.SetBreakpoint(ctx, "counter.c:79", "", false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("to line 79: %+v %v", st, err)
	}
	if _, err := s.SetWatchpoint(ctx, "sq", "write"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBreakpoint(ctx, "square", "", false); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < len(want) {
		st, err := s.Continue(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Reason == "breakpoint" && st.Frame != nil && st.Frame.Function == "square":
			x, err := s.Evaluate(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, "square("+x.Value+")")
		case st.Reason == "watchpoint" && st.Watch != nil:
			got = append(got, st.Watch.Old+" -> "+st.Watch.New)
		default:
			t.Fatalf("stop %+v; so far %q, GDB: %q", st, got, want)
		}
	}
	t.Logf("rrmcp and GDB: %q", got)
	if !slices.Equal(got, want) {
		t.Errorf("rrmcp: %q, GDB: %q", got, want)
	}
}
