package claudehook_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestPluginHookFires runs the hook commands exactly as hooks/hooks.json
// configures them (with CLAUDE_PLUGIN_ROOT pointing at a plugin root whose
// bin/rrmcp is built from this tree), on the event Claude Code sends after
// a Bash command that really crashed: a test program dying of SIGSEGV.
func TestPluginHookFires(t *testing.T) {
	root := testenv.Root(t)
	prog := testenv.Prog(t, "null_deref")
	// A plugin root with the launcher and a freshly built bin/rrmcp.
	plugin := t.TempDir()
	launcher, err := os.ReadFile(filepath.Join(root, "scripts", "plugin-rrmcp.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(plugin, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugin, "scripts", "plugin-rrmcp.sh"), launcher, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := testenv.GoBuild(filepath.Join(plugin, "bin", "rrmcp"), "./cmd/rrmcp"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("hooks/hooks.json: %v", err)
	}

	// The command as an agent would run it, in a shell that reports the
	// signal ("Segmentation fault") and its status (139).
	crash := exec.Command("bash", "-c", prog+"; exit $?")
	out, err := crash.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 139 {
		t.Fatalf("%s: %v, want exit status 139\n%s", prog, err, out)
	}

	for _, ev := range []string{"PostToolUse", "PostToolUseFailure"} {
		entries := cfg.Hooks[ev]
		if len(entries) != 1 || entries[0].Matcher != "Bash" || len(entries[0].Hooks) != 1 || entries[0].Hooks[0].Type != "command" {
			t.Fatalf("hooks.json %s: want one command hook for Bash, got %+v", ev, entries)
		}
		event := map[string]any{"hook_event_name": ev, "tool_name": "Bash", "tool_input": map[string]any{"command": prog}}
		if ev == "PostToolUse" {
			event["tool_response"] = map[string]any{"stdout": "", "stderr": string(out), "interrupted": false}
		} else {
			event["error"] = "Exit code 139\n" + string(out)
		}
		in, _ := json.Marshal(event)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		hook := exec.CommandContext(ctx, "sh", "-c", entries[0].Hooks[0].Command)
		hook.Env = append(os.Environ(), "CLAUDE_PLUGIN_ROOT="+plugin)
		hook.Stdin = strings.NewReader(string(in))
		res, err := hook.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s hook: %v", ev, err)
		}
		var o struct {
			HookSpecificOutput struct{ HookEventName, AdditionalContext string } `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(res, &o); err != nil {
			t.Fatalf("%s hook: output is not JSON (%v): %q", ev, err, res)
		}
		if o.HookSpecificOutput.HookEventName != ev || !strings.Contains(o.HookSpecificOutput.AdditionalContext, "died of SIGSEGV") ||
			!strings.Contains(o.HookSpecificOutput.AdditionalContext, "rr_record") {
			t.Errorf("%s hook: %s", ev, res)
		}
	}
}

// claudeCLI finds the Claude Code CLI: $RRMCP_CLAUDE, or
// node_modules/.bin/claude (make deps installs @anthropic-ai/claude-code).
func claudeCLI(t *testing.T) string {
	t.Helper()
	return testenv.NodeCLI(t, "Claude Code CLI", "RRMCP_CLAUDE", "claude", "make deps (installs @anthropic-ai/claude-code)")
}

// TestPluginInstalls installs the plugin from this checkout the way the
// README says (marketplace add, install) into a fresh Claude Code home, and
// has Claude Code start the plugin's MCP server and check its health.
func TestPluginInstalls(t *testing.T) {
	claude := claudeCLI(t)
	root := testenv.Root(t)
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 180*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("plugin", "marketplace", "add", root)
	if out := run("plugin", "install", "rrmcp@rrmcp-local"); !strings.Contains(out, "Successfully installed") {
		t.Fatalf("install: %s", out)
	}
	if out := run("plugin", "details", "rrmcp@rrmcp-local"); !strings.Contains(out, "rr-debugging") || !strings.Contains(out, "rr-investigator") ||
		!strings.Contains(out, "PostToolUse, PostToolUseFailure") {
		t.Errorf("plugin details: the skill, the agent or the hooks are missing:\n%s", out)
	}
	if out := run("mcp", "list"); !regexp.MustCompile(`plugin:rrmcp:rrmcp: .*plugin-rrmcp\.sh.*Connected`).MatchString(out) {
		t.Errorf("claude mcp list: the plugin's server is not connected:\n%s", out)
	}
}

// TestPluginValidates runs Claude Code's own validator (claude plugin
// validate --strict) on the plugin manifest, its hooks, and the local
// marketplace manifest.
func TestPluginValidates(t *testing.T) {
	root := testenv.Root(t)
	claude := claudeCLI(t)
	for _, target := range []string{".claude-plugin/plugin.json", "."} {
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		cmd := exec.CommandContext(ctx, claude, "plugin", "validate", "--strict", filepath.Join(root, target))
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), "Validation passed") {
			t.Errorf("claude plugin validate --strict %s: %v\n%s", target, err, out)
		}
	}
	// The validator is not a rubber stamp: a broken hooks file fails.
	bad := t.TempDir()
	for dir, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "bad"}`,
		"hooks/hooks.json":           `{"hooks": {"NoSuchEvent": []}}`,
	} {
		p := filepath.Join(bad, dir)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "plugin", "validate", "--strict", filepath.Join(bad, ".claude-plugin", "plugin.json"))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("a hooks file with an unknown event validated:\n%s", out)
	}
}
