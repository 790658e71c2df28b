package tools_test

import (
	"context"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// gdbWatchLines runs GDB with software watchpoints (`set
// can-use-hw-watchpoints 0`, the oracle) on prog: break at bp, run,
// watch expr, continue n times; it returns the source line of each stop.
func gdbWatchLines(t *testing.T, prog, bp, expr string, n int) []string {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	args := []string{"-nx", "-batch", "-ex", "set can-use-hw-watchpoints 0", "-ex", "break " + bp, "-ex", "run", "-ex", "watch " + expr}
	for range n {
		args = append(args, "-ex", "continue")
	}
	out, err := exec.CommandContext(ctx, gdb, append(args, prog)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^New value = .*\n(?:.* at )?\S*?([a-z_]+\.c:\d+)`)
	var lines []string
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		lines = append(lines, m[1])
	}
	if len(lines) != n {
		t.Fatalf("gdb reported %d watchpoint stops, want %d:\n%s", len(lines), n, out)
	}
	return lines
}

// watchMech is the mechanism a watchpoint set now gets on the live
// backend, from the probe and RRMCP_HW_WATCHPOINTS, and the verdict.
func watchMech(t *testing.T) (string, hwdebug.Verdict) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var c hwdebug.Cache
	v := c.Get(ctx, nil)
	if v.UseHardwareWatch() {
		return "hardware watchpoint", v
	}
	return "software watchpoint", v
}

// TestLiveWatchpointPaths: a write watchpoint on the live backend fires at
// the statement GDB's software watchpoint reports, on the path the probe
// picks (hardware where the debug registers fire, software where they do
// not) and on the software path forced with RRMCP_HW_WATCHPOINTS=off. A
// 64-byte array is always a software watchpoint (too long for a debug
// register), and a fifth watchpoint is one when four hardware ones are set.
func TestLiveWatchpointPaths(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	want := gdbWatchLines(t, prog, "counter.c:78", "sq", 2)
	wantArr := gdbWatchLines(t, prog, "main", "bytes", 1)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	v := hwdebug.Probe(ctx)
	for _, tc := range []struct {
		name string
		off  bool
	}{{"probe", false}, {"forced-software", true}} {
		t.Run(tc.name, func(t *testing.T) {
			mech := "hardware watchpoint"
			if tc.off {
				t.Setenv(hwdebug.EnvVar, "off")
			}
			if tc.off || !v.Watch {
				mech = "software watchpoint"
			}
			t.Logf("proving the %s path (probe: %s)", mech, v.Reason)
			c := startServer(t)
			c.ok("rr_live_start", args{"command": []string{prog}}, "Watchpoints: ")
			l := c.ok("rr_session_list", nil)
			if w, _ := l.data["sessions"].([]any)[0].(map[string]any)["watchpoints"].(string); w == "" {
				t.Errorf("rr_session_list does not say how watchpoints work: %v", l.data)
			}
			c.ok("rr_breakpoint_set", args{"location": "counter.c:78"})
			c.ok("rr_continue", nil, "counter.c:78")
			c.ok("rr_watchpoint_set", args{"expression": "sq"}, "sq", "("+mech+")")
			c.ok("rr_breakpoint_disable", args{"breakpoint_number": 1})
			c.ok("rr_continue", nil, "("+mech+")", "old = 0, new = 1", want[0])
			c.ok("rr_continue", nil, "("+mech+")", "old = 1, new = 5", want[1])
			if !tc.off && v.Watch {
				// Four hardware watchpoints take the debug registers;
				// the fifth is a software one.
				for _, e := range []string{"hits", "total", "depth"} {
					c.ok("rr_watchpoint_set", args{"expression": e}, "(hardware watchpoint)")
				}
				c.ok("rr_watchpoint_set", args{"expression": "sum"}, "(software watchpoint)", "all 4 hardware watchpoints")
			}
			c.ok("rr_replay_stop", nil)

			c.ok("rr_live_start", args{"command": []string{prog}})
			c.ok("rr_breakpoint_set", args{"location": "main"})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_watchpoint_set", args{"expression": "bytes"}, "(software watchpoint)", "Note: software watchpoint")
			c.ok("rr_continue", nil, "(software watchpoint)", wantArr[0])
			c.ok("rr_replay_stop", nil)
		})
	}
}
