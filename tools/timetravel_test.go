package tools_test

import (
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestLiveLastWrite: a live program has no history; rr_last_write says so
// (and what to do instead), rejects bad arguments by name, and the session
// keeps serving.
func TestLiveLastWrite(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "list_corrupt")
	c := startServer(t)
	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_continue", nil, "SIGSEGV", "list_corrupt.c:61")
	c.fails("rr_last_write", args{"expression": "n->next"}, "needs the program's history", "rr_watchpoint_set")
	c.fails("rr_last_write", args{"expression": "n->next", "count": 99}, "count")
	c.fails("rr_last_write", args{"expression": ""}, "expression")
	c.ok("rr_backtrace", nil, "count_duplicates")
}
