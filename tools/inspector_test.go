package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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
	return testenv.NodeCLI(t, "MCP Inspector CLI", "RRMCP_INSPECTOR", "mcp-inspector", "npm install @modelcontextprotocol/inspector@2.12.0")
}

// inspectorRunner returns run, which runs the Inspector CLI against a
// fresh rrmcp with its arguments and returns the output (stdout, or with
// combined stdout and stderr) and the exit status (a CLI that cannot be
// run fails the test), and the HOME the server runs with.
func inspectorRunner(t *testing.T, combined bool) (run func(args ...string) (string, int), home string) {
	t.Helper()
	ins := inspector(t)
	bin := serverBin(t)
	home = t.TempDir()
	return func(args ...string) (string, int) {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, ins, append([]string{"--cli", bin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		output := cmd.Output
		if combined {
			output = cmd.CombinedOutput
		}
		out, err := output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatalf("mcp-inspector %v: %v", args, err)
		}
		return string(out), 0
	}, home
}

// TestInspectorSmoke drives the server with a real third-party client:
// list the tools (with the portability lint) and call three.
func TestInspectorSmoke(t *testing.T) {
	run, _ := inspectorRunner(t, false)
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "null_deref")
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

// TestInspectorResourcesPrompts lists and reads resources and prompts with
// the Inspector CLI (one server per invocation, so no session exists).
func TestInspectorResourcesPrompts(t *testing.T) {
	run, home := inspectorRunner(t, true) // errors are on stderr
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--method", "resources/list"}, 0, []string{`"uri": "rrmcp://recordings"`, `"uri": "rrmcp://sessions"`}},
		{[]string{"--method", "resources/templates/list"}, 0, []string{"rrmcp://recordings/{name}", "rrmcp://sessions/{session}/sources",
			"rrmcp://sessions/{session}/source/{+path}", "rrmcp://sessions/{session}/output", "rrmcp://sessions/{session}/packets"}},
		{[]string{"--method", "resources/read", "--uri", "rrmcp://sessions"}, 0, []string{`\"sessions\": []`}},
		{[]string{"--method", "resources/read", "--uri", "rrmcp://recordings"}, 0, []string{`\"recordings\"`, home + "/.local/share/rr"}},
		{[]string{"--method", "resources/read", "--uri", "rrmcp://sessions/s1/packets"}, 1, []string{"no such session"}},
		{[]string{"--method", "prompts/list"}, 0, []string{`"investigate_crash"`, `"find_corruption"`, `"reproduce_flaky"`, `"compare_runs"`}},
		{[]string{"--method", "prompts/get", "--prompt-name", "investigate_crash", "--prompt-args", "command=./app"}, 0, []string{"./app", "rr_record", "rr_watchpoint_set"}},
		{[]string{"--method", "prompts/get", "--prompt-name", "compare_runs", "--prompt-args", "good_trace=/a"}, 1, []string{`\"bad_trace\" is required`}},
	}
	for _, tt := range tests {
		out, code := run(tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d:\n%.1500s", tt.args, code, tt.code, out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in:\n%.1500s", tt.args, w, out)
			}
		}
	}
}
