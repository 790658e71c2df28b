package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// inspector finds the MCP Inspector CLI (@modelcontextprotocol/inspector
// 2.12.0): $RRMCP_INSPECTOR, or node_modules/.bin/mcp-inspector in the
// module root (npm install @modelcontextprotocol/inspector@2.12.0).
func inspector(t *testing.T) string {
	t.Helper()
	p := os.Getenv("RRMCP_INSPECTOR")
	if p == "" {
		p = filepath.Join(testenv.Root(t), "node_modules", ".bin", "mcp-inspector")
	}
	if _, err := os.Stat(p); err != nil {
		if testenv.InCI() {
			t.Fatalf("MCP Inspector CLI not found at %s (CI must run: npm install @modelcontextprotocol/inspector@2.12.0)", p)
		}
		t.Skipf("MCP Inspector CLI not found at %s (npm install @modelcontextprotocol/inspector@2.12.0, or set RRMCP_INSPECTOR)", p)
	}
	return p
}

// TestInspectorSmoke drives the server with a real third-party client:
// list the tools (with the portability lint) and call three.
func TestInspectorSmoke(t *testing.T) {
	ins := inspector(t)
	testenv.NeedTool(t, "gdbserver")
	bin := serverBin(t)
	prog := testenv.Prog(t, "null_deref")
	home := t.TempDir()
	run := func(args ...string) (string, int) {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, ins, append([]string{"--cli", bin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("mcp-inspector %v: %v", args, err)
		}
		return string(out), code
	}
	out, code := run("--method", "tools/list")
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Tools) < 40 {
		t.Fatalf("tools/list: exit %d, %d tools:\n%.500s", code, len(list.Tools), out)
	}
	if out, code := run("--method", "tools/list", "--strict"); code != 0 {
		t.Errorf("tools/list --strict: exit %d (schema portability errors):\n%.2000s", code, out)
	}
	out, code = run("--method", "tools/call", "--tool-name", "rr_session_list")
	if code != 0 || !strings.Contains(out, "No sessions") {
		t.Errorf("rr_session_list: exit %d:\n%s", code, out)
	}
	out, code = run("--method", "tools/call", "--tool-name", "rr_live_start", "--tool-arg", `command=["`+prog+`"]`)
	if code != 0 || !strings.Contains(out, "live backend") {
		t.Errorf("rr_live_start: exit %d:\n%s", code, out)
	}
	// A tool error is exit status 5 with isError.
	out, code = run("--method", "tools/call", "--tool-name", "rr_backtrace")
	if code != 5 || !strings.Contains(out, "no session is active") {
		t.Errorf("rr_backtrace without a session: exit %d, want 5:\n%s", code, out)
	}
}
