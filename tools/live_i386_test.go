package tools_test

import (
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestLiveI386QEMUUser: an i386 program on a kernel that cannot execute it
// runs under QEMU user mode (qemu-i386 -g) by itself. This kernel runs
// i386 programs, so the server is told to take that path
// (RRMCP_I386_PEER=qemu-i386, as its probe decides on a kernel without
// IA32 emulation); the session says why, stops where GDB's do, evaluates,
// uses a software watchpoint (QEMU user mode has none in hardware) that
// fires at GDB's statement, and keeps the program's output.
func TestLiveI386QEMUUser(t *testing.T) {
	testenv.NeedTool(t, "qemu-i386")
	m32 := testenv.Prog(t, "counter-m32")
	want := gdbWatchLines(t, m32, "hit", "hits", 1)
	c := startServer(t, "RRMCP_I386_PEER=qemu-i386")
	c.ok("rr_live_start", args{"command": []string{m32}})
	l := c.ok("rr_session_list", nil)
	if srv, _ := l.data["sessions"].([]any)[0].(map[string]any)["server"].(string); !strings.Contains(srv, "qemu-i386") {
		t.Errorf("rr_session_list does not say the program runs under qemu-i386: %v", l.data)
	}
	c.ok("rr_breakpoint_set", args{"location": "hit"})
	c.ok("rr_continue", nil, "breakpoint #1", "hit")
	c.ok("rr_evaluate", args{"expression": "i + 40"}, "40")
	c.ok("rr_backtrace", nil, "hit", "main")
	c.ok("rr_watchpoint_set", args{"expression": "hits"}, "(software watchpoint)")
	c.ok("rr_breakpoint_disable", args{"breakpoint_number": 1})
	c.ok("rr_continue", nil, "(software watchpoint)", "old = 0, new = 1", want[0])
	c.ok("rr_breakpoint_remove", args{"breakpoint_number": 2})
	c.ok("rr_continue", nil, "exited")
	c.ok("rr_output", nil, "hits 10000 total 49995000")
	c.ok("rr_replay_stop", nil)

	// Forced to something else: a clear error, and the server keeps serving.
	c2 := startServer(t, "RRMCP_I386_PEER=bochs")
	c2.fails("rr_live_start", args{"command": []string{m32}}, "RRMCP_I386_PEER", "gdbserver or qemu-i386")
	c2.ok("rr_session_list", nil)
}

// TestLiveI386QEMUUserSignals: under QEMU user mode the vDSO is QEMU's own,
// relocated to where QEMU maps it (its link_map l_addr is 0, not its
// address); the session still finds it, so a backtrace from a signal stop
// in a system call unwinds through __kernel_vsyscall to main, and one in a
// handler shows the signal frame from the vDSO's .eh_frame, as GDB does
// against the same qemu-i386 (internal/gdbdiff with
// RRMCP_I386_PEER=qemu-i386 compares every frame).
func TestLiveI386QEMUUserSignals(t *testing.T) {
	testenv.NeedTool(t, "qemu-i386")
	prog := testenv.Prog(t, "signal_handler-m32")
	c := startServer(t, "RRMCP_I386_PEER=qemu-i386")
	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_continue", nil, "SIGUSR1")
	c.ok("rr_backtrace", nil, "__kernel_vsyscall", "raise", "main", "signal_handler.c:43")
	c.ok("rr_continue", nil, "SIGSEGV", "log_event", "signal_handler.c:28")
	c.ok("rr_backtrace", nil, "log_event", "on_usr1", "<signal handler called>")
	c.ok("rr_replay_stop", nil)
}
