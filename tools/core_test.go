package tools_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestCoreOpen drives rr_core_open through the stdio server: a core GDB
// wrote at list_corrupt's crash answers the inspection tools, moving tools
// say a core cannot run, and bad paths are argument errors.
func TestCoreOpen(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	prog := testenv.Prog(t, "list_corrupt")
	corePath := filepath.Join(t.TempDir(), "core")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "gdb", "-nx", "-batch", "-ex", "run", "-ex", "generate-core-file "+corePath, prog).CombinedOutput(); err != nil {
		if _, serr := os.Stat(corePath); serr != nil {
			t.Fatalf("gdb: %v\n%s", err, out)
		}
	}
	c := startServer(t)
	c.fails("rr_core_open", args{"core_file": corePath, "executable": "/nonexistent"}, "executable", "is not a file")
	c.fails("rr_core_open", args{"core_file": prog, "executable": prog}, "core_file", "not an x86-64 ELF core dump")
	c.fails("rr_core_open", args{"core_file": "/nonexistent/core", "executable": prog}, "core_file")
	c.ok("rr_core_open", args{"core_file": corePath, "executable": prog}, "backend", "core", "SIGSEGV", "count_duplicates", "list_corrupt.c:61")
	c.ok("rr_backtrace", nil, "#0  count_duplicates", "#1  main")
	c.ok("rr_locals", nil, "n = ")
	c.ok("rr_evaluate", args{"expression": "*n"}, `name = "removed carol`, "next = 0x20202020202020")
	c.ok("rr_registers", args{"register_names": []string{"rip", "rsp"}}, "rip", "count_duplicates+")
	c.ok("rr_thread_list", nil, "count_duplicates")
	c.ok("rr_disassemble", args{"count": 2}, "=>", "<count_duplicates+")
	c.ok("rr_select_frame", args{"frame_level": 1}, "main")
	c.ok("rr_source_lines", nil, "list_corrupt.c")
	c.fails("rr_continue", nil, "core dump", "no process to run")
	c.fails("rr_next", nil, "core dump")
	c.fails("rr_breakpoint_set", args{"location": "main"}, "core dump")
	c.fails("rr_watchpoint_set", args{"expression": "n->next"}, "core dump")
	c.ok("rr_replay_stop", nil, "stopped")
}
