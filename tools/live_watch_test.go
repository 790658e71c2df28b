package tools_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/proc"
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
	run := []string{"-ex", "run"}
	if testenv.IsI386(prog) && testenv.I386Peer(t) == "qemu-i386" {
		// The kernel cannot execute it: GDB debugs it under qemu-i386 -g,
		// as the server does.
		p, addr, err := proc.StartQEMUUser(ctx, "qemu-i386", prog, nil, filepath.Dir(prog), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(time.Second) //nolint:errcheck
		t.Logf("GDB (the oracle) debugs %s under qemu-i386", prog)
		run = []string{"-ex", "target remote " + addr, "-ex", "continue"}
	}
	args := append([]string{"-nx", "-batch", "-ex", "set can-use-hw-watchpoints 0", "-ex", "break " + bp}, run...)
	args = append(args, "-ex", "watch "+expr)
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

// gdbNexts runs GDB (the oracle) on prog to the for statement of the
// loop that adds to expr, watches expr and steps with next n times; it
// returns the breakpoint location and, per next, the line it stopped at,
// "watch:LINE" for a watchpoint stop (and nothing after it).
func gdbNexts(t *testing.T, prog, expr string, n int) (string, []string) {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	src, err := os.ReadFile(filepath.Join(testenv.Root(t), "testprogs", "src", "counter.c"))
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, expr+" += ") {
			at = i // the line before, 1-based
		}
	}
	bp := fmt.Sprintf("counter.c:%d", at)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	args := []string{"-nx", "-batch", "-ex", "break " + bp, "-ex", "run", "-ex", "delete 1", "-ex", "watch " + expr}
	for range n {
		args = append(args, "-ex", "next")
	}
	out, err := exec.CommandContext(ctx, gdb, append(args, prog)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	_, after, _ := strings.Cut(string(out), "atchpoint 2: "+expr+"\n")
	var lines []string
	watch := false
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "Old value") {
			watch = true
		}
		if m := regexp.MustCompile(`^(\d+)\t`).FindStringSubmatch(l); m != nil {
			if watch {
				return bp, append(lines, "watch:"+m[1])
			}
			lines = append(lines, m[1])
		}
	}
	t.Fatalf("gdb's nexts never stopped at the watchpoint:\n%s", out)
	return "", nil
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
// register), and a fifth watchpoint is one when four hardware ones are set;
// a local far below the frame pointer (bigframe) is watched as well.
func TestLiveWatchpointPaths(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	race := testenv.Prog(t, "race")
	m32 := testenv.Prog(t, "counter-m32")
	wantM32 := gdbWatchLines(t, m32, "hit", "hits", 1)
	want := gdbWatchLines(t, prog, "counter.c:78", "sq", 2)
	wantArr := gdbWatchLines(t, prog, "main", "bytes", 1)
	nextBP, nexts := gdbNexts(t, prog, "sq", 6)
	big := testenv.Prog(t, "bigframe")
	wantBig := gdbWatchLines(t, big, "parse_record if n == 2", "r.status", 1)
	for _, tc := range []struct {
		name string
		off  bool
	}{{"probe", false}, {"forced-software", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.off {
				t.Setenv(hwdebug.EnvVar, "off")
			}
			mech, v := watchMech(t) // the probe's path, or software when turned off
			t.Logf("proving the %s path (%s)", mech, v.Reason)
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
			if mech == "hardware watchpoint" {
				// Four hardware watchpoints take the debug registers;
				// the fifth is a software one.
				for _, e := range []string{"hits", "total", "depth"} {
					c.ok("rr_watchpoint_set", args{"expression": e}, "(hardware watchpoint)")
				}
				c.ok("rr_watchpoint_set", args{"expression": "sum"}, "(software watchpoint)", "all 4 x86 debug registers are in use")
			}
			c.ok("rr_replay_stop", nil)

			c.ok("rr_live_start", args{"command": []string{prog}})
			c.ok("rr_breakpoint_set", args{"location": "main"})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_watchpoint_set", args{"expression": "bytes"}, "(software watchpoint)", "Note: software watchpoint")
			c.ok("rr_continue", nil, "(software watchpoint)", wantArr[0])
			c.ok("rr_replay_stop", nil)

			// Nexts over the loop: the one over the statement that
			// writes sq stops at the write, on the line GDB's does.
			c.ok("rr_live_start", args{"command": []string{prog}})
			c.ok("rr_breakpoint_set", args{"location": nextBP})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_breakpoint_remove", args{"breakpoint_number": 1})
			c.ok("rr_watchpoint_set", args{"expression": "sq"}, "("+mech+")")
			for _, l := range nexts {
				if line, ok := strings.CutPrefix(l, "watch:"); ok {
					c.ok("rr_next", nil, "Stopped: watchpoint", "("+mech+")", "old = 0, new = 1", "counter.c:"+line)
					break
				}
				c.ok("rr_next", nil, "Stopped: step", "counter.c:"+l)
			}
			c.ok("rr_replay_stop", nil)

			// An i386 program (32-bit decoding and registers). Where
			// it runs under qemu-i386 (the kernel cannot execute it)
			// the watchpoint is a software one: QEMU user mode has
			// none in hardware (Z2 unsupported).
			mech32 := mech
			if testenv.I386Peer(t) == "qemu-i386" {
				mech32 = "software watchpoint"
			}
			c.ok("rr_live_start", args{"command": []string{m32}})
			c.ok("rr_breakpoint_set", args{"location": "hit"})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_watchpoint_set", args{"expression": "hits"}, "("+mech32+")")
			c.ok("rr_breakpoint_disable", args{"breakpoint_number": 1})
			c.ok("rr_continue", nil, "("+mech32+")", "old = 0, new = 1", wantM32[0])
			c.ok("rr_replay_stop", nil)

			// A local 0x130 bytes below the frame pointer: the stores to
			// it carry a 32-bit displacement, which the software path
			// once read unsigned and so placed the store 4 GiB away.
			c.ok("rr_live_start", args{"command": []string{big}})
			c.ok("rr_breakpoint_set", args{"location": "parse_record", "condition": "n == 2"})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_watchpoint_set", args{"expression": "r.status"}, "("+mech+")")
			c.ok("rr_breakpoint_disable", args{"breakpoint_number": 1})
			c.ok("rr_continue", nil, "("+mech+")", "old = 0, new = 2", wantBig[0])
			c.ok("rr_replay_stop", nil)

			// Threads: main waits in pthread_join while the workers write
			// counter; the other threads run while main is stepped.
			c.ok("rr_live_start", args{"command": []string{race}})
			c.ok("rr_breakpoint_set", args{"location": "main"})
			c.ok("rr_continue", nil, "breakpoint #1")
			c.ok("rr_watchpoint_set", args{"expression": "counter"}, "("+mech+")")
			c.ok("rr_continue", nil, "Stopped: watchpoint", "counter", "("+mech+")")
			c.ok("rr_replay_stop", nil)
		})
	}
}
