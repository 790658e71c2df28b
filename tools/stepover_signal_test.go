package tools_test

import (
	"fmt"
	"testing"
)

// TestContinueSignalDuringStepOver: a signal that arrives while a thread
// is stepped over a breakpoint (signal_storm keeps SIGURG pending on the
// main thread; SIGURG does not stop, as in GDB) is delivered, and the
// step over is finished when the handler returns, so each continue
// reports the next call of tick(), never the same one again (GDB: one
// stop per call, i = 0, 1, 2, ...).
func TestContinueSignalDuringStepOver(t *testing.T) {
	c := startLive(t, "signal_storm")
	c.ok("rr_breakpoint_set", args{"location": "tick"})
	for i := range 60 {
		c.ok("rr_continue", nil, "breakpoint #1", "tick")
		c.ok("rr_evaluate", args{"expression": "i"}, fmt.Sprintf("i = %d ", i))
	}
	c.ok("rr_breakpoint_remove", args{"breakpoint_number": 1})
	c.ok("rr_continue", nil, "exited")
	c.ok("rr_output", nil, "ticks 300")
}
