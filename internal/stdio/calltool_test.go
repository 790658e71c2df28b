package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	rrsession "github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/tools"
)

// rrmcpServer is rrmcp's MCP server as cmd/rrmcp builds it, with ctx
// carrying a registered client session as Serve's does.
func rrmcpServer(t testing.TB) (context.Context, *conn) {
	m := rrsession.NewManager(rrsession.Config{})
	t.Cleanup(m.Close)
	srv := tools.New(m, tools.Options{})
	sess := &session{notes: make(chan mcp.JSONRPCNotification, 1024)}
	ctx := context.Background()
	if err := srv.RegisterSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	ctx = srv.WithContext(ctx, sess)
	c := &conn{srv: srv, sess: sess}
	handle(t, ctx, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return ctx, c
}

// handle is HandleMessage's reply to line, encoded by json.Marshal (as
// mcp-go's own transports do).
func handle(t testing.TB, ctx context.Context, c *conn, line string) string {
	t.Helper()
	resp := c.srv.HandleMessage(ctx, []byte(line))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("%s: encode: %v", line, err)
	}
	return string(b)
}

// direct is callTool's reply to line, "" where it leaves the line to
// HandleMessage.
func direct(t testing.TB, ctx context.Context, c *conn, line string) string {
	t.Helper()
	env := new(envelope)
	if err := json.Unmarshal([]byte(line), env); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return string(c.callTool(ctx, env))
}

// TestCallToolAsHandleMessage: a tool call that Serve answers by calling
// the tool's handler gets the reply mcp-go's HandleMessage gives, byte for
// byte, on rrmcp's own tools: results, tool errors, bad arguments; and
// the calls it leaves to HandleMessage are the ones using what only
// mcp-go's router does.
func TestCallToolAsHandleMessage(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	ctx, c := rrmcpServer(t)
	call := func(id int, name, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
	}
	// A stop in hit(), where every inspection below is repeatable.
	for i, l := range []string{
		call(1, "rr_live_start", fmt.Sprintf(`{"command":[%q]}`, prog)),
		call(2, "rr_breakpoint_set", `{"location":"hit"}`),
		call(3, "rr_continue", `{}`),
	} {
		if r := handle(t, ctx, c, l); strings.Contains(r, `"isError":true`) || !strings.Contains(r, `"result"`) {
			t.Fatalf("setup %d: %s", i, r)
		}
	}
	for _, line := range []string{
		call(10, "rr_session_list", `{}`),
		call(11, "rr_registers", `{}`),
		call(12, "rr_backtrace", `{}`),
		call(13, "rr_locals", `{}`),
		call(14, "rr_evaluate", `{"expression":"list->next->name"}`),
		call(15, "rr_read_memory", `{"address":"&bytes","count":64}`),
		call(16, "rr_breakpoint_list", `{"session":null}`),
		call(17, "rr_source_lines", `{}`),
		// Tool errors: the session's, the arguments'.
		call(20, "rr_evaluate", `{"expression":"no_such_name + 1"}`),
		call(21, "rr_evaluate", `{}`),
		call(22, "rr_evaluate", `{"expression":"1","bogus":true}`),
		call(23, "rr_read_memory", `{"address":"&bytes","count":"64"}`),
		call(24, "rr_read_memory", `{"address":"&bytes","count":18446744073709551616}`),
		call(25, "rr_registers", `["rax"]`),
		call(26, "rr_registers", `null`),
		call(27, "rr_backtrace", `{"session":"s99"}`),
		call(28, "rr_evaluate", fmt.Sprintf(`{"expression":%q}`, strings.Repeat("x", 5000))),
		`{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"rr_registers"}}`,
		`{"jsonrpc":"2.0","id":"s-\"30\"","method":"tools/call","params":{"name":"rr_registers","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"rr_registers","arguments":{},"_meta":{"progressToken":"p31"}}}`,
	} {
		// (each print takes the next value history number, $N)
		hist := regexp.MustCompile(`"history":\d+|\[\$\d+\]`)
		got := hist.ReplaceAllString(direct(t, ctx, c, line), "$$N")
		want := hist.ReplaceAllString(handle(t, ctx, c, line), "$$N")
		if got == "" {
			t.Errorf("%.100s: left to HandleMessage", line)
			continue
		}
		if got != want {
			t.Errorf("%.100s:\ndirect        %.600s\nHandleMessage %.600s", line, got, want)
		}
	}
	// What only mcp-go's router does goes to it.
	for _, line := range []string{
		call(40, "no_such_tool", `{}`),
		`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"rr_registers","arguments":{},"task":{"ttl":1000}}}`,
		`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"rr_registers","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"rr_registers","arguments":{},"requestState":"x"}}`,
		`{"jsonrpc":"2.0","id":4.5,"method":"tools/call","params":{"name":"rr_registers","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"rr_registers","arguments":{}}}`,
		`{"jsonrpc":"1.0","id":46,"method":"tools/call","params":{"name":"rr_registers","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":47,"method":"tools/call","params":{"name":7,"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":48,"method":"tools/list","params":{}}`,
	} {
		if got := direct(t, ctx, c, line); got != "" {
			t.Errorf("%.100s: answered directly: %.300s", line, got)
		}
	}
}

// BenchmarkCallTool times the server side of a quick tool call without a
// transport: as Serve answers it (callTool) and through mcp-go's
// HandleMessage.
func BenchmarkCallTool(b *testing.B) {
	ctx, c := rrmcpServer(b)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rr_session_list","arguments":{}}}`
	b.Run("callTool", func(b *testing.B) {
		for b.Loop() {
			env := new(envelope)
			if err := json.Unmarshal([]byte(line), env); err != nil {
				b.Fatal(err)
			}
			if c.callTool(ctx, env) == nil {
				b.Fatal("not answered")
			}
		}
	})
	b.Run("HandleMessage", func(b *testing.B) {
		for b.Loop() {
			env := new(envelope)
			if err := json.Unmarshal([]byte(line), env); err != nil {
				b.Fatal(err)
			}
			handle(b, ctx, c, line)
		}
	})
}
