package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/tools"
)

// inProcess is an initialized in-process client of a server with default
// options on a fresh session manager.
func inProcess(t testing.TB) *client.Client {
	t.Helper()
	return inProcessOpts(t, tools.Options{}, mcp.LATEST_PROTOCOL_VERSION)
}

// inProcessOpts is an initialized in-process client, speaking protocol, of
// a server with opts on a fresh session manager; both close when the test
// ends.
func inProcessOpts(t testing.TB, opts tools.Options, protocol string) *client.Client {
	t.Helper()
	m := session.NewManager(session.Config{})
	t.Cleanup(m.Close)
	c, err := client.NewInProcessClient(tools.New(m, opts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	initialize(t, ctx, c, protocol)
	return c
}

// karellen lists karellen-rr-mcp's tools with their argument names; rrmcp
// must offer every one unchanged.
var karellen = map[string][]string{
	"rr_record":             {"command", "working_directory", "env", "trace_dir"},
	"rr_replay_start":       {"trace_dir", "pid"},
	"rr_replay_stop":        {},
	"rr_list_recordings":    {"trace_base_dir"},
	"rr_ps":                 {"trace_dir"},
	"rr_traceinfo":          {"trace_dir"},
	"rr_rm":                 {"trace_dir"},
	"rr_when":               {},
	"rr_breakpoint_set":     {"location", "condition", "temporary"},
	"rr_breakpoint_remove":  {"breakpoint_number"},
	"rr_breakpoint_list":    {},
	"rr_watchpoint_set":     {"expression", "access_type"},
	"rr_continue":           {"reverse"},
	"rr_step":               {"count", "reverse"},
	"rr_next":               {"count", "reverse"},
	"rr_finish":             {"reverse"},
	"rr_run_to_event":       {"event_number"},
	"rr_thread_list":        {},
	"rr_thread_select":      {"thread_id"},
	"rr_select_frame":       {"frame_level"},
	"rr_backtrace":          {"max_depth"},
	"rr_evaluate":           {"expression"},
	"rr_locals":             {},
	"rr_read_memory":        {"address", "count"},
	"rr_registers":          {"register_names"},
	"rr_source_lines":       {"file", "line", "count"},
	"rr_checkpoint_save":    {},
	"rr_checkpoint_restore": {"checkpoint_id"},
}

var beyond = []string{"rr_stepi", "rr_nexti", "rr_interrupt", "rr_disassemble", "rr_breakpoint_enable",
	"rr_breakpoint_disable", "rr_breakpoint_condition", "rr_checkpoint_list", "rr_checkpoint_delete",
	"rr_pack", "rr_live_start", "rr_connect", "rr_rsp_packet", "rr_session_list", "rr_signal_handle"}

// TestToolList checks every tool's schema and annotations and that
// karellen-rr-mcp's names and arguments are all there.
func TestToolList(t *testing.T) {
	c := inProcess(t)
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
		a := tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: annotations incomplete: %+v", tool.Name, a)
		}
		if *a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive", tool.Name)
		}
		if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
			t.Errorf("%s: no output schema", tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	for name, params := range karellen {
		tool, ok := byName[name]
		if !ok {
			t.Errorf("karellen tool %s missing", name)
			continue
		}
		var wire struct {
			InputSchema struct {
				Properties map[string]any `json:"properties"`
			} `json:"inputSchema"`
		}
		b, _ := json.Marshal(tool)
		json.Unmarshal(b, &wire)
		schema := wire.InputSchema
		for _, p := range params {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("%s: argument %q missing from input schema %s", name, p, b)
			}
		}
		if !slices.Contains([]string{"rr_record", "rr_list_recordings", "rr_ps", "rr_traceinfo", "rr_rm", "rr_replay_start"}, name) {
			if _, ok := schema.Properties["session"]; !ok {
				t.Errorf("%s: no optional session argument", name)
			}
		}
	}
	for _, name := range beyond {
		if _, ok := byName[name]; !ok {
			t.Errorf("tool %s missing", name)
		}
	}
	if *byName["rr_rm"].Annotations.DestructiveHint != true || *byName["rr_backtrace"].Annotations.ReadOnlyHint != true {
		t.Error("rr_rm must be destructive and rr_backtrace read-only")
	}
}

// TestInProcessErrors: tool errors come back as isError results, not
// protocol errors, over the in-process transport too.
func TestInProcessErrors(t *testing.T) {
	c := inProcess(t)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"rr_backtrace", nil, "no session is active"},
		{"rr_step", map[string]any{"count": "x"}, `argument "count" must be an integer`},
		{"rr_evaluate", map[string]any{"expression": "1", "extra": true}, `unknown argument "extra"`},
		{"rr_session_list", nil, "No sessions"},
	} {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = tc.name, tc.args
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: protocol error %v", tc.name, err)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if !contains(text, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, text, tc.want)
		}
		if res.IsError == (tc.name == "rr_session_list") {
			t.Errorf("%s: isError = %v", tc.name, res.IsError)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
