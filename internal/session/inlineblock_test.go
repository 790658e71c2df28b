package session

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestBreakSelfInlinedMatchesGDB: at a breakpoint on a function that gcc
// -O2 inlined into itself (testdata/inline_selfrec.c), whose inlined
// levels all begin at the breakpoint's address, the backtrace shows the
// one level that is the breakpoint location's symbol (the outermost) and
// hides those inside it, as GDB's stopped_by_user_bp_inline_frame
// compares the location symbol's block; rrmcp matched the levels by name,
// which all of them share, and showed every one. Each hit's frames,
// function and line, are compared with GDB's bt.
func TestBreakSelfInlinedMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O2", "inline_selfrec.c")
	const hits = 3
	var cmds []string
	for i := range hits {
		if i > 0 {
			cmds = append(cmds, "continue")
		}
		cmds = append(cmds, fmt.Sprintf(`echo <H%d>\n`, i), "bt", fmt.Sprintf(`echo </H%d>\n`, i))
	}
	out := gdbAt(t, exe, "walk", cmds...)
	frame := regexp.MustCompile(`(?m)^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+):(\d+)$`)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, st := liveStoppedAt(t, ctx, LiveOptions{Command: []string{exe}}, "walk")
	deep := false
	for i := range hits {
		var want []string
		for _, m := range frame.FindAllStringSubmatch(section(out, fmt.Sprintf("H%d", i)), -1) {
			want = append(want, fmt.Sprintf("%s %s:%s", m[1], filepath.Base(m[2]), m[3]))
		}
		if i > 0 {
			var err error
			if st, err = s.Continue(ctx, false); err != nil {
				t.Fatalf("continue to hit %d: %v", i, err)
			}
		}
		if len(want) == 0 {
			// GDB's program ran to its end.
			if i == 0 || st.Reason != "exited" {
				t.Errorf("hit %d: GDB ran to the end, rrmcp: %+v\n%s", i, st, out)
			}
			break
		}
		if st.Reason != "breakpoint" || st.Frame == nil {
			t.Fatalf("hit %d: GDB stopped, rrmcp: %+v", i, st)
		}
		fr, _, _, _, err := s.Backtrace(ctx, 64)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fr {
			got = append(got, fmt.Sprintf("%s %s:%d", f.Function, filepath.Base(f.File), f.Line))
		}
		if !slices.Equal(got, want) {
			t.Errorf("hit %d: backtrace\n  rrmcp %q\n  GDB   %q", i, got, want)
		}
		if at := fmt.Sprintf("%s %s:%d", st.Frame.Function, filepath.Base(st.Frame.File), st.Frame.Line); at != want[0] {
			t.Errorf("hit %d: stop at %s, GDB %s", i, at, want[0])
		}
		deep = deep || strings.Count(strings.Join(want, "\n"), "walk ") > 1
	}
	if !deep {
		t.Errorf("no hit in an inlined walk: gcc inlined no walk into itself?\n%s", out)
	}
}
