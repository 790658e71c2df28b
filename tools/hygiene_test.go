package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// procInfo reads the parent pid and state of pid from /proc.
func procInfo(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+4 > len(s) {
		return 0, 0, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0], true
}

// descendants lists the live (non-zombie) descendants of pid.
func descendants(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, st, ok := procInfo(p); ok && st != 'Z' {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return out
}

func alive(pid int) bool {
	_, st, ok := procInfo(pid)
	return ok && st != 'Z'
}

// serverPID finds the rrmcp process this test started.
func serverPID(t *testing.T) int {
	t.Helper()
	bin := serverBin(t)
	var found []int
	for _, p := range descendants(os.Getpid()) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p)); err == nil && filepath.Clean(exe) == bin {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("found %d rrmcp processes (%v), want 1", len(found), found)
	}
	return found[0]
}

// waitGone waits until none of pids is alive, or fails after d.
func waitGone(t *testing.T, pids []int, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var left []string
		for _, p := range pids {
			if alive(p) {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
				left = append(left, fmt.Sprintf("%d %q", p, strings.ReplaceAll(string(b), "\x00", " ")))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d processes still alive after %v: %s", what, len(left), d, strings.Join(left, "; "))
		}
		<-tick.C
	}
}

// TestHygieneCycles starts and stops 100 live sessions; afterwards the
// server has no child processes.
func TestHygieneCycles(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	c := startServer(t)
	pid := serverPID(t)
	for i := 0; i < 100; i++ {
		r := c.ok("rr_live_start", args{"command": []string{prog}})
		id := r.data["session"].(map[string]any)["id"].(string)
		if i%10 == 0 {
			c.ok("rr_breakpoint_set", args{"session": id, "location": "hit"})
			c.ok("rr_continue", args{"session": id}, "hit")
		}
		c.ok("rr_replay_stop", args{"session": id}, "stopped")
	}
	if d := descendants(pid); len(d) != 0 {
		waitGone(t, d, 5*time.Second, "after 100 start/stop cycles")
	}
	c.ok("rr_session_list", nil, "No sessions")
	figures.Lock()
	figures.cycles += 100
	figures.leftovers += len(descendants(pid))
	figures.Unlock()
}

// startBusyServer starts a server with three sessions (one with the GDB
// fallback running) and returns the client, the server pid and every
// process below it.
func startBusyServer(t *testing.T) (*mcpClient, int, []int) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "cpp_shapes")
	c := startServer(t)
	pid := serverPID(t)
	for i := 0; i < 3; i++ {
		c.ok("rr_live_start", args{"command": []string{prog}})
	}
	if _, err := os.Stat("/usr/bin/gdb"); err == nil {
		c.ok("rr_breakpoint_set", args{"location": "count_kinds"})
		c.ok("rr_continue", nil)
		c.ok("rr_evaluate", args{"expression": "typeid(*shapes[0].get())"}, "GDB")
	}
	kids := descendants(pid)
	if len(kids) < 6 {
		t.Fatalf("expected gdbserver and debuggee for 3 sessions (+ gdb), found %d processes: %v", len(kids), kids)
	}
	return c, pid, kids
}

// TestHygieneClientGone: the client disappearing (stdin EOF) stops every
// session; no rr, gdbserver, gdb or debuggee survives.
func TestHygieneClientGone(t *testing.T) {
	c, pid, kids := startBusyServer(t)
	c.c.Close()
	waitGone(t, append(kids, pid), 10*time.Second, "after the client went away")
}

// TestHygieneSIGTERM: SIGTERM, and SIGHUP alike (the old server had no
// handler for it: it died leaving gdbserver and the debuggees behind), to
// the server stops every session.
func TestHygieneSIGTERM(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			_, pid, kids := startBusyServer(t)
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatal(err)
			}
			waitGone(t, append(kids, pid), 10*time.Second, "after "+sig.String())
		})
	}
}

// TestServerDies: the debug server disappearing is a clear tool error, the
// session can still be stopped, and the MCP server keeps serving.
func TestServerDies(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	c := startServer(t)
	pid := serverPID(t)
	r := c.ok("rr_live_start", args{"command": []string{prog}})
	// The session's gdbserver is the program's parent (the hardware
	// watchpoint probe may have a gdbserver of its own running).
	info, _ := r.data["session"].(map[string]any)
	progPID, _ := info["pid"].(float64)
	gs, _, ok := procInfo(int(progPID))
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", gs))
	if !ok || !slices.Contains(descendants(pid), gs) || !strings.HasSuffix(exe, "gdbserver") {
		t.Fatalf("the program (pid %v) has parent %d (%s), want the session's gdbserver under rrmcp", info["pid"], gs, exe)
	}
	if err := syscall.Kill(gs, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.fails("rr_continue", nil, "the connection to the debug server is gone", "gdbserver was killed", "rr_replay_stop")
	c.fails("rr_backtrace", nil, "the connection to the debug server is gone")
	if r := c.ok("rr_session_list", nil); !strings.Contains(r.text, "dead") {
		t.Errorf("session list after gdbserver died does not say dead:\n%s", r.text)
	}
	c.ok("rr_replay_stop", nil, "stopped")
	c.ok("rr_live_start", args{"command": []string{prog}}, "live backend")
}
