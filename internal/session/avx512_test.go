package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestStepiThroughGlibcString: single-steps through strncpy (glibc's
// EVEX version where the processor has AVX-512, its data in ymm16-ymm19)
// copy the string, as under native GDB, the oracle. Where gdbserver
// overwrites zmm16-zmm19 at each stop (hwdebug.ZMM: AMD with AVX-512,
// gdbserver before GDB 14) the session says so and runs the program with
// glibc's AVX-512 functions masked; without that, every stop inside
// strncpy zeroed its data and it copied nothing.
func TestStepiThroughGlibcString(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	path := testenv.Prog(t, "bigframe")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	zmm := hwdebug.ProbeZMM(ctx)
	t.Logf("AVX-512 probe: %s", zmm.Reason)

	// GDB, natively: the same single-steps from line 28 to line 29.
	gdbOut := gdbAt(t, path, "bigframe.c:28 if n == 2", "python\n"+
		"end = gdb.decode_line('bigframe.c:29')[1][0].pc\n"+
		"n = 0\n"+
		"while int(gdb.parse_and_eval('$pc')) != end and n < 2000:\n"+
		"    gdb.execute('stepi', to_string=True)\n"+
		"    n += 1\n"+
		"print('STEPS', n)\n"+
		"end", "output r.text", "echo \\n")
	if !strings.Contains(gdbOut, "STEPS") || !strings.Contains(gdbOut, `"gamma=3"`) {
		t.Fatalf("native GDB's single-steps through strncpy:\n%s", gdbOut)
	}
	s := liveSession(t, "bigframe", "")
	if got := s.Info().Registers; (got != "") != zmm.Clobbered {
		t.Errorf("session's registers note %q, probe says gdbserver clobbers zmm16-19 = %v", got, zmm.Clobbered)
	}
	if _, err := s.SetBreakpoint(ctx, "bigframe.c:28", "n == 2", false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue: %+v %v", st, err)
	}
	steps := 0
	for ; steps < 2000; steps++ {
		st, err := s.StepInstruction(ctx, 1, false, false)
		if err != nil {
			t.Fatalf("stepi %d: %v", steps, err)
		}
		if st.Frame != nil && st.Frame.Function == "parse_record" && st.Frame.Line == 29 {
			break
		}
	}
	r, err := s.Evaluate(ctx, "r.text")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Value, `"gamma=3"`) {
		t.Fatalf("after %d single-steps through strncpy r.text = %s, want \"gamma=3\" (as natively)", steps, r.Value)
	}
	t.Logf("%d single-steps through strncpy copied the string", steps)
}
