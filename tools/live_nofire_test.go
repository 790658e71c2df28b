package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// nofirePath builds internal/faultproxy/nofire as "gdbserver" in a
// directory to put first on PATH: a gdbserver whose hardware debug
// registers accept Z1/Z2 and never fire, like on AMD Zen 5 VMs. It
// returns the server's environment for it.
func nofirePath(t *testing.T) []string {
	t.Helper()
	real := testenv.NeedTool(t, "gdbserver")
	dir := t.TempDir()
	if err := testenv.GoBuild(filepath.Join(dir, "gdbserver"), "github.com/rrmcp/rrmcp/internal/faultproxy/nofire"); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "NOFIRE_GDBSERVER=" + real}
}

// TestLiveNoFireMachine proves, end to end through MCP, what a machine
// whose debug registers accept breakpoints and watchpoints and never fire
// (AMD Zen 5 VMs) gets: the probe's verdict says hardware does not fire,
// a watchpoint is a software one and stops at the statement GDB's
// software watchpoint reports, and a hardware breakpoint asked for is a
// software one with a note, and is hit. On this machine's own gdbserver
// (hardware that fires here or not), a hardware breakpoint is hit either
// way.
func TestLiveNoFireMachine(t *testing.T) {
	prog := testenv.Prog(t, "counter")
	want := gdbWatchLines(t, prog, "counter.c:78", "sq", 2)

	c := startServer(t, nofirePath(t)...)
	c.ok("rr_live_start", args{"command": []string{prog}})
	l := c.ok("rr_session_list", nil)
	if w, _ := l.data["sessions"].([]any)[0].(map[string]any)["watchpoints"].(string); !strings.Contains(w, "hardware watchpoints do not fire") ||
		!strings.Contains(w, "hardware breakpoints do not fire") {
		t.Fatalf("the probe's verdict behind a never-firing gdbserver: %q", w)
	}
	c.ok("rr_breakpoint_set", args{"location": "counter.c:78", "hardware": true}, "(software breakpoint)", "Note: hardware breakpoints do not fire here")
	c.ok("rr_continue", nil, "breakpoint #1", "counter.c:78")
	c.ok("rr_watchpoint_set", args{"expression": "sq"}, "(software watchpoint)")
	c.ok("rr_breakpoint_disable", args{"breakpoint_number": 1})
	c.ok("rr_continue", nil, "(software watchpoint)", "old = 0, new = 1", want[0])
	c.ok("rr_continue", nil, "(software watchpoint)", "old = 1, new = 5", want[1])
	c.ok("rr_replay_stop", nil)

	// The real gdbserver: a hardware breakpoint where the probe saw one
	// fire, else a software one; hit either way.
	mech, v := watchMech(t)
	t.Logf("this machine: %s (%s)", mech, v.Reason)
	wantBP := "(hardware breakpoint)"
	if !v.Break {
		wantBP = "(software breakpoint)"
	}
	c2 := startServer(t)
	c2.ok("rr_live_start", args{"command": []string{prog}})
	c2.ok("rr_breakpoint_set", args{"location": "square", "hardware": true}, wantBP)
	c2.ok("rr_continue", nil, "breakpoint #1", "square")
	c2.ok("rr_continue", nil, "breakpoint #1", "square")
	c2.ok("rr_breakpoint_list", nil, wantBP, "hits 2")
}
