package session

import (
	"context"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
)

// TestLineDone checks the decision that ends a source-level step, for
// forward (forwardDone) and reverse (lineDone) steps, into and over
// calls, and recursion. Inlined calls are TestStepInlinedMatchesGDB's.
func TestLineDone(t *testing.T) {
	f := &dwarf.Function{Name: "f", Entry: 0x1000}
	g := &dwarf.Function{Name: "g", Entry: 0x2000}
	at := func(fn *dwarf.Function, pc, sp, cfa uint64, line int, rowStart uint64, stmt bool) here {
		return here{pc: pc, sp: sp, cfa: cfa, fn: fn, hasLine: line > 0,
			line: dwarf.LineEntry{Addr: rowStart, File: "a.c", Line: line, IsStmt: stmt}}
	}
	entered := func(h here) here { h.entry = h.pc; return h }
	start := at(f, 0x1010, 0x7f00, 0x7f20, 10, 0x1010, true)
	for _, tc := range []struct {
		name      string
		h         here
		rev, into bool
		want      bool
	}{
		{"same line", at(f, 0x1014, 0x7f00, 0x7f20, 10, 0x1010, true), false, false, false},
		{"next line", at(f, 0x1018, 0x7f00, 0x7f20, 11, 0x1018, true), false, false, true},
		{"next line mid-row not stmt", at(f, 0x101c, 0x7f00, 0x7f20, 11, 0x1018, false), false, false, false},
		{"next line mid-row stmt (GDB refreshes the range)", at(f, 0x101c, 0x7f00, 0x7f20, 11, 0x1018, true), false, false, false},
		{"next line at a row that is no statement", at(f, 0x1018, 0x7f00, 0x7f20, 11, 0x1018, false), false, false, false},
		{"returned to caller at a row that is no statement", at(g, 0x2050, 0x7f28, 0x7f60, 31, 0x2050, false), false, false, false},
		{"reverse into previous line mid-row", at(f, 0x100c, 0x7f00, 0x7f20, 9, 0x1004, true), true, false, false},
		{"reverse at previous line start", at(f, 0x1004, 0x7f00, 0x7f20, 9, 0x1004, true), true, false, true},
		{"step into callee at line start", at(g, 0x2008, 0x7e00, 0x7ef0, 20, 0x2008, true), false, true, true},
		{"next never stops in a callee", at(g, 0x2008, 0x7e00, 0x7ef0, 20, 0x2008, true), false, false, false},
		{"reverse step lands on callee's ret", at(g, 0x2040, 0x7e00, 0x7ef0, 25, 0x2030, true), true, true, false},
		{"reverse step at callee's last line start", at(g, 0x2030, 0x7e00, 0x7ef0, 25, 0x2030, true), true, true, true},
		{"returned to caller mid-line", at(g, 0x2044, 0x7f28, 0x7f60, 30, 0x2040, true), false, false, false},
		{"returned to caller at a line start", at(g, 0x2050, 0x7f28, 0x7f60, 31, 0x2050, true), false, false, true},
		{"recursive call of the same function (next)", at(f, 0x1004, 0x7e00, 0x7ef0, 9, 0x1004, true), false, false, false},
		{"recursive call of the same function (step)", at(f, 0x1004, 0x7e00, 0x7ef0, 9, 0x1004, true), false, true, true},
		{"returned into a caller without lines", at(nil, 0x9000, 0x7f28, 0, 0, 0, false), false, false, true},
		{"reverse to the start of the line", at(f, 0x1010, 0x7f00, 0x7f20, 10, 0x1010, true), true, false, true},
		{"reverse to the function's entry, the line's start: on to the call", entered(at(f, 0x1010, 0x7f00, 0x7f20, 10, 0x1010, true)), true, false, false},
		{"reverse back into a caller mid-row", at(g, 0x2044, 0x7f28, 0x7f60, 30, 0x2040, true), true, false, false},
		{"reverse back into a caller at a statement's start", at(g, 0x2040, 0x7f28, 0x7f60, 30, 0x2040, true), true, false, true},
		{"reverse back into code without lines", at(nil, 0x9000, 0x7f28, 0, 0, 0, false), true, false, true},
		{"inside a callee without lines", at(nil, 0x9000, 0x7e00, 0, 0, 0, false), false, true, false},
	} {
		h := tc.h
		st := stepState{id: stepFrameID{cfa: start.cfa, code: f.Entry}, file: "a.c", line: 10, lo: 0x1010, hi: 0x1018}
		if tc.rev {
			if got, moved := (&Session{}).backwardDone(context.Background(), start, &h, &st, tc.into); got != tc.want {
				t.Errorf("%s: backwardDone = %v; want %v", tc.name, got, tc.want)
			} else if caller := h.fn == g && h.sp > start.sp; moved != (caller && !got) {
				t.Errorf("%s: backwardDone moved the step's frame: %v", tc.name, moved)
			}
			continue
		}
		if got, moved := (&Session{}).forwardDone(context.Background(), start, &h, &st, tc.into); got != tc.want {
			t.Errorf("%s: forwardDone = %v; want %v", tc.name, got, tc.want)
		} else if caller := h.fn == g && h.sp > start.sp; moved && !caller {
			t.Errorf("%s: forwardDone moved the step's frame, not into a caller", tc.name)
		}
	}
}
