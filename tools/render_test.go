package tools

import (
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/session"
)

// TestLocalsText: an optimized-out value reads <optimized out> in the text,
// as GDB prints it; why (the structured error) stays in the structured
// result. A value that failed with no text shows its error.
func TestLocalsText(t *testing.T) {
	out := localsOut{Locals: []session.Value{
		{Name: "wrflag", Type: "int", Value: "<optimized out>", Error: "the value at the function's entry (DW_OP_entry_value) is not known here: optimized out", Kind: "argument"},
		{Name: "p", Type: "char *", Error: "cannot read memory at 0x10"},
	}}.Text()
	for _, want := range []string{"wrflag = <optimized out>  (int) [arg]", "p = <cannot read memory at 0x10>  (char *)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "DW_OP") {
		t.Errorf("text %q shows the DWARF error", out)
	}
}

// TestFrameTextMarks: inlined and tail-call frames say so in the text.
func TestFrameTextMarks(t *testing.T) {
	f := session.Frame{Level: 3, Location: session.Location{PC: "0x5555555d7d1d", Function: "sqlite3BtreeBeginTrans"}, TailCall: true}
	if got := frameText(f); !strings.HasSuffix(got, " [tail call]") {
		t.Errorf("tail-call frame: %q", got)
	}
	f.TailCall, f.Inlined = false, true
	if got := frameText(f); !strings.HasSuffix(got, " [inlined]") {
		t.Errorf("inlined frame: %q", got)
	}
}
