package tools_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/tools"
)

// TestResourcesLive reads every session resource of a live session
// (gdbserver running counter) and checks that subscriptions are notified
// when a tool call changes a resource.
func TestResourcesLive(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	// resources/subscribe is the 2025-11-25 protocol's (Claude Code's,
	// the Inspector's); 2026-07-28 clients use subscriptions/listen.
	c := inProcessOpts(t, tools.Options{}, "2025-11-25")
	updated := make(chan string, 64)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			if uri, ok := n.Params.AdditionalFields["uri"].(string); ok {
				updated <- uri
			}
		}
	})
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	read := func(uri string) (string, error) {
		res, err := c.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			return "", err
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%s: %d contents", uri, len(res.Contents))
		}
		return res.Contents[0].(mcp.TextResourceContents).Text, nil
	}
	mustRead := func(uri string, want ...string) string {
		t.Helper()
		text, err := read(uri)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Fatalf("read %s: no %q in:\n%.3000s", uri, w, text)
			}
		}
		return text
	}

	call("rr_live_start", map[string]any{"command": []string{prog}})
	mustRead("rrmcp://sessions", `"id": "s1"`, `"backend": "live"`)
	mustRead("rrmcp://sessions/s1/sources", "counter.c")
	mustRead("rrmcp://sessions/s1/source/counter.c", "int main(void)")
	mustRead("rrmcp://sessions/s1/source/src/counter.c", "int main(void)")
	for _, bad := range []string{"rrmcp://sessions/s1/source/etc/passwd", "rrmcp://sessions/s1/source/../../../etc/passwd", "rrmcp://sessions/s9/output"} {
		if text, err := read(bad); err == nil {
			t.Errorf("read %s: no error, got %.200s", bad, text)
		}
	}
	before := mustRead("rrmcp://sessions/s1/packets", "# session s1:", " -> ", " <- ", "qSupported")

	for _, uri := range []string{"rrmcp://sessions/s1/packets", "rrmcp://sessions/s1/output", "rrmcp://sessions"} {
		if err := c.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	call("rr_continue", nil) // runs to the end: prints, exits
	// The program's stdout comes through its own pipe, possibly after the
	// exit is reported: wait for the update that carries it.
	want := map[string]bool{"rrmcp://sessions/s1/packets": true, "rrmcp://sessions/s1/output": true, "rrmcp://sessions": true}
	deadline := time.After(30 * time.Second)
	for len(want) > 0 {
		select {
		case uri := <-updated:
			if uri == "rrmcp://sessions/s1/output" {
				if text := mustRead(uri); !strings.Contains(text, "done") {
					continue
				}
			}
			delete(want, uri)
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %v after rr_continue", want)
		}
	}
	after := mustRead("rrmcp://sessions/s1/packets", "vCont")
	if len(after) <= len(before) {
		t.Errorf("packet log did not grow: %d then %d bytes", len(before), len(after))
	}
	mustRead("rrmcp://sessions/s1/output", "hits ", "done", "[gdbserver] Process "+prog+" created")

	// A call that changes nothing sends no update.
	if err := c.Unsubscribe(t.Context(), mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: "rrmcp://sessions"}}); err != nil {
		t.Fatal(err)
	}
	call("rr_session_list", nil)
	call("rr_replay_stop", nil)
	for len(updated) > 0 {
		if uri := <-updated; uri == "rrmcp://sessions" {
			t.Errorf("update for an unsubscribed resource")
		}
	}
}

// TestPrompts gets each workflow prompt and checks that a missing
// required argument is an error naming it.
func TestPrompts(t *testing.T) {
	c := inProcess(t)
	tests := []struct {
		name string
		args map[string]string
		want []string
	}{
		{"investigate_crash", map[string]string{"command": "./app --bad", "working_directory": "/tmp"}, []string{"./app --bad", "rr_record", `working_directory="/tmp"`, "rr_live_start", "rr_watchpoint_set", "reverse=true"}},
		{"find_corruption", map[string]string{"expression": "head->next", "location": "list.c:42"}, []string{"`head->next`", "rr_breakpoint_set at list.c:42", "rr_watchpoint_set", "reverse=true"}},
		{"reproduce_flaky", map[string]string{"command": "./race"}, []string{"chaos=true", "after 20 attempts", "rr_rm"}},
		{"compare_runs", map[string]string{"good_trace": "/t/a", "bad_trace": "/t/b"}, []string{"trace_dir=/t/a", "trace_dir=/t/b", "first stop where they differ"}},
	}
	for _, tt := range tests {
		res, err := c.GetPrompt(t.Context(), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: tt.name, Arguments: tt.args}})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		text := res.Messages[0].Content.(mcp.TextContent).Text
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in:\n%s", tt.name, w, text)
			}
		}
		if _, err := c.GetPrompt(t.Context(), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: tt.name}}); err == nil || !strings.Contains(err.Error(), "is required") {
			t.Errorf("%s without arguments: %v, want a missing-argument error", tt.name, err)
		}
	}
}
