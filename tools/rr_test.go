package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// rrSession records prog into a fresh trace directory and starts replaying it.
func rrSession(t *testing.T, prog string) (*mcpClient, string) {
	t.Helper()
	testenv.RR(t, rr.Probe)
	c := startServer(t)
	trace := filepath.Join(t.TempDir(), "trace")
	c.ok("rr_record", args{"command": []string{prog}, "trace_dir": trace}, "Recording complete", trace)
	c.ok("rr_replay_start", args{"trace_dir": trace}, "rr backend", "reverse execution", "rr event")
	return c, trace
}

// TestRRTraceTools: record, list, ps, traceinfo, pack, rm.
func TestRRTraceTools(t *testing.T) {
	testenv.RR(t, rr.Probe)
	prog := testenv.Prog(t, "null_deref")
	c := startServer(t)
	base := t.TempDir()
	trace := filepath.Join(base, "null_deref-0")
	r := c.ok("rr_record", args{"command": []string{prog}, "trace_dir": trace, "env": map[string]string{"RRMCP_TEST": "1"}}, trace)
	if r.data["result"].(map[string]any)["signal"] != "SIGSEGV" {
		t.Errorf("recorded program did not die of SIGSEGV: %s", r.text)
	}
	c.ok("rr_list_recordings", args{"trace_base_dir": base}, "null_deref-0")
	c.ok("rr_ps", args{"trace_dir": trace}, "PID", "null_deref")
	c.ok("rr_traceinfo", args{"trace_dir": trace})
	c.ok("rr_pack", args{"trace_dir": trace}, "packed")
	c.ok("rr_record", args{"command": []string{prog}, "trace_dir": filepath.Join(base, "chaos"), "chaos": true, "timeout": 60})
	c.ok("rr_rm", args{"trace_dir": trace}, "removed")
	if _, err := os.Stat(trace); !os.IsNotExist(err) {
		t.Errorf("rr_rm left %s: %v", trace, err)
	}
	c.fails("rr_rm", args{"trace_dir": base}, "not an rr trace directory")
	c.fails("rr_record", args{"command": []string{prog}, "trace_dir": filepath.Join(base, "chaos")}, "already exists")
}

// TestRRReverse: crash, watchpoint, reverse continue/step/next/finish,
// events, checkpoints.
func TestRRReverse(t *testing.T) {
	prog := testenv.Prog(t, "list_corrupt")
	c, _ := rrSession(t, prog)
	c.ok("rr_continue", nil, "SIGSEGV", "list_corrupt.c:61", "rr event")
	crash := c.ok("rr_when", nil, "Completed event")
	c.ok("rr_checkpoint_save", nil, "Checkpoint")
	c.ok("rr_checkpoint_list", nil, "count_duplicates")
	c.ok("rr_watchpoint_set", args{"expression": "n->next"}, "Watchpoint")
	c.ok("rr_continue", args{"reverse": true}, "watchpoint")
	c.ok("rr_backtrace", nil, "log_line")
	c.ok("rr_breakpoint_remove", args{"breakpoint_number": 1})
	c.ok("rr_breakpoint_set", args{"location": "list_corrupt.c:40"})
	c.ok("rr_continue", args{"reverse": true}, "breakpoint #2", "list_corrupt.c:40")
	c.ok("rr_evaluate", args{"expression": "prev->next == n"}, "= 1")
	c.ok("rr_next", nil, "list_corrupt.c:43")
	c.ok("rr_next", args{"reverse": true}, "list_corrupt.c:40")
	c.ok("rr_step", args{"reverse": true}, "list_corrupt.c:39")
	c.ok("rr_stepi", args{"reverse": true}, "Stopped")
	c.ok("rr_nexti", args{"reverse": true}, "Stopped")
	c.ok("rr_finish", args{"reverse": true}, "main", "list_corrupt.c:74")
	c.ok("rr_step", nil, "list_remove")
	c.ok("rr_finish", nil, "Returned from list_remove", "list_corrupt.c:74")
	c.ok("rr_checkpoint_restore", args{"checkpoint_id": 1}, "list_corrupt.c:61")
	c.ok("rr_when", nil, strings.TrimSpace(crash.text))
	c.ok("rr_checkpoint_delete", args{"checkpoint_id": 1}, "deleted")
	c.fails("rr_checkpoint_restore", args{"checkpoint_id": 1}, "no checkpoint 1")
	c.ok("rr_run_to_event", args{"event_number": 1}, "event")
	c.ok("rr_continue", args{"reverse": true}, "history-start")
	c.ok("rr_breakpoint_remove", args{"breakpoint_number": 2})
	c.ok("rr_continue", nil, "SIGSEGV")
	c.ok("rr_continue", nil)
	c.ok("rr_replay_stop", nil)
}

// TestRRDemo runs `make demo`'s script with the rr backend.
func TestRRDemo(t *testing.T) {
	testenv.RR(t, rr.Probe)
	root := testenv.Root(t)
	testenv.Prog(t, "list_corrupt")
	dir := t.TempDir()
	demo := filepath.Join(dir, "rrmcp-demo")
	if err := testenv.GoBuild(demo, "./cmd/rrmcp-demo"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), demo, "-server", serverBin(t), "-backend", "rr",
		"-prog", filepath.Join(root, "testprogs", "build", "list_corrupt")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Root cause: list_corrupt.c:40") {
		t.Fatalf("demo with rr: %v\n%s", err, out)
	}
}

// TestRRChildProcess: replay a child process of a recording (rr -p), found
// with rr_ps, to its crash.
func TestRRChildProcess(t *testing.T) {
	testenv.RR(t, rr.Probe)
	prog := testenv.Prog(t, "fork_exec")
	testenv.Prog(t, "crash_child")
	c := startServer(t)
	trace := filepath.Join(t.TempDir(), "trace")
	c.ok("rr_record", args{"command": []string{prog}, "trace_dir": trace}, "Recording complete")
	ps := c.ok("rr_ps", args{"trace_dir": trace}, "crash_child")
	var child float64
	for _, p := range ps.data["processes"].([]any) {
		p := p.(map[string]any)
		if strings.Contains(p["command"].(string), "crash_child") {
			child = p["pid"].(float64)
		}
	}
	if child == 0 {
		t.Fatalf("no crash_child in rr ps:\n%s", ps.text)
	}
	c.ok("rr_replay_start", args{"trace_dir": trace, "pid": int(child)}, "crash_child")
	c.ok("rr_continue", nil, "SIGSEGV", "crash_child.c:25")
	c.ok("rr_backtrace", nil, "greet", "main")
	c.fails("rr_replay_start", args{"trace_dir": trace, "pid": 999999}, "not in the recording")
}
