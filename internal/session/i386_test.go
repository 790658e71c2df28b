package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestI386SteppingLikeAMD64: the same source built for x86-64 (counter)
// and for i386 (counter-m32, -m32) is stepped through the same sequence
// of step, next, finish and stepi from main, under gdbserver; every stop
// must be at the same function and line, with the same backtrace and the
// same values, so a 32-bit program is stepped and inspected like a 64-bit
// one. (Values, backtraces and expressions at breakpoints are compared
// with GDB itself by the GDB differential's counter-m32 stops.)
func TestI386SteppingLikeAMD64(t *testing.T) {
	trace := func(prog string) []string {
		s := liveSession(t, prog, "main")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		var out []string
		note := func(what string, st *Stop, err error) {
			if err != nil {
				out = append(out, what+" -> error: "+err.Error())
				return
			}
			frames, _, _, _, err := s.Backtrace(ctx, 10)
			if err != nil {
				t.Fatalf("%s: backtrace after %s: %v", prog, what, err)
			}
			var bt []string
			for _, f := range frames {
				bt = append(bt, fmt.Sprintf("%s:%d", f.Location.Function, f.Location.Line))
			}
			vals, _, err := s.Locals(ctx)
			if err != nil {
				t.Fatalf("%s: locals after %s: %v", prog, what, err)
			}
			var ls []string
			for _, v := range vals {
				if len(out) >= 3 { // before that, i and sq are not initialized yet (stack garbage differs)
					ls = append(ls, v.Name+"="+v.Value)
				}
			}
			out = append(out, fmt.Sprintf("%s -> %s [%s] {%s}", what, st.Reason, strings.Join(bt, " "), strings.Join(ls, " ")))
		}
		if _, err := s.SetBreakpoint(ctx, "counter.c:78", "", false); err != nil { // int sq = 0;
			t.Fatal(err)
		}
		st, err := s.Continue(ctx, false)
		note("continue", st, err)
		for _, op := range []string{"next", "next", "step", "next", "next", "step", "step", "finish", "next", "step", "next", "finish", "stepi"} {
			// (stepi: instruction counts differ between the builds; one
			// instruction must not leave the line either way)
			st, err = sessionMove(ctx, s, op)
			note(op, st, err)
		}
		for _, e := range []string{"sq", "i", "*list->next->name", "list->next->next->value", "total + hits", "$pc == $sp", "greeting", "ratio * 4", "bytes[5] + n1.value"} {
			r, err := s.Evaluate(ctx, e)
			if err != nil {
				out = append(out, e+" = error "+err.Error())
				continue
			}
			out = append(out, e+" = "+r.Value)
		}
		regs, err := s.Registers(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		pcName := map[string]string{"counter": "rip", "counter-m32": "eip"}[prog]
		frames, _, _, _, _ := s.Backtrace(ctx, 1)
		found := false
		for _, r := range regs {
			if r.Name == pcName {
				found = r.Value == frames[0].Location.PC && strings.HasPrefix(r.Natural, "main+")
			}
		}
		if !found {
			t.Errorf("%s: registers %+v: want %s = the frame's pc %s, shown as main+N", prog, regs, pcName, frames[0].Location.PC)
		}
		if r, err := s.Evaluate(ctx, "sizeof(list) + sizeof(long)"); err != nil || r.Value != map[string]string{"counter": "16", "counter-m32": "8"}[prog] {
			t.Errorf("%s: sizeof(list) + sizeof(long) = %+v %v", prog, r, err)
		}
		return out
	}
	t.Logf("i386 peer: %s (RRMCP_I386_PEER forces gdbserver or qemu-i386)", testenv.I386Peer(t))
	amd64, i386 := trace("counter"), trace("counter-m32")
	if len(amd64) != len(i386) {
		t.Fatalf("different number of stops:\namd64: %q\ni386:  %q", amd64, i386)
	}
	for i := range amd64 {
		if amd64[i] != i386[i] {
			t.Errorf("stop %d differs:\n amd64: %s\n i386:  %s", i, amd64[i], i386[i])
		}
	}
	t.Logf("%d stops and values agree:\n%s", len(amd64), strings.Join(amd64, "\n"))
}
