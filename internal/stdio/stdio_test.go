package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// client is the test's end of a served connection: it writes lines and
// reads the server's, each with a deadline.
type client struct {
	t     *testing.T
	w     *io.PipeWriter
	lines chan map[string]any
	done  chan error // Serve's result
}

// serve runs Serve over pipes with srv and returns the client end.
func serve(t *testing.T, srv *server.MCPServer, o Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, lines: make(chan map[string]any, 1000), done: make(chan error, 1)}
	go func() {
		c.done <- Serve(t.Context(), srv, inR, outW, o)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := c.reply(0); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write %.80s: %v", line, err)
	}
}

// next returns the next message the server wrote.
func (c *client) next() map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no message from the server within 20 s")
	}
	return nil
}

// reply skips notifications up to the reply with the given id.
func (c *client) reply(id int) map[string]any {
	c.t.Helper()
	for {
		m := c.next()
		if m["id"] == float64(id) {
			return m
		}
		if m["method"] == nil {
			c.t.Fatalf("reply %v while waiting for id %d", m, id)
		}
	}
}

func (c *client) call(id int, tool string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":"p%d"}}}`, id, tool, id))
}

// testServer has three tools: quick, chatty (100 progress notifications,
// then its result) and wait (returns when its context ends, saying so on
// ended).
func testServer(ended chan<- string) *server.MCPServer {
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("quick"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("quick"), nil
	})
	srv.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 100; i++ {
			if err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": req.Params.Meta.ProgressToken, "progress": i}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("chatty"), nil
	})
	srv.AddTool(mcp.NewTool("once"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": req.Params.Meta.ProgressToken, "progress": 1}); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("once"), nil
	})
	srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		ended <- fmt.Sprint(context.Cause(ctx))
		return mcp.NewToolResultText("cancelled"), nil
	})
	return srv
}

// TestNotificationsBeforeReply: every notification a call sent comes
// before its reply, in order (mcp-go's own stdio server wrote them from
// another goroutine, often after the reply, and dropped them when 100
// were queued).
func TestNotificationsBeforeReply(t *testing.T) {
	c := serve(t, testServer(nil), Options{})
	for id := 1; id <= 20; id++ {
		c.call(id, "chatty")
		for i := 1; i <= 100; i++ {
			m := c.next()
			p, _ := m["params"].(map[string]any)
			if m["method"] != "notifications/progress" || p["progress"] != float64(i) || p["progressToken"] != fmt.Sprintf("p%d", id) {
				t.Fatalf("call %d: message %d is %v, want progress %d", id, i, m, i)
			}
		}
		if r := c.next(); r["id"] != float64(id) || r["result"] == nil {
			t.Fatalf("call %d: %v, want its result after its 100 notifications", id, r)
		}
	}
}

// TestNotificationBeforeQuickReply: a call that sends one notification
// and replies at once, many times over. The notification is often in the
// hand of the goroutine that writes notifications (taken from the queue,
// not written yet) when the reply is written: the reply must wait for it
// (write's slow path), and otherwise not (its fast path). Both paths are
// taken here; a reply written ahead of its notification fails.
func TestNotificationBeforeQuickReply(t *testing.T) {
	c := serve(t, testServer(nil), Options{})
	for id := 1; id <= 2000; id++ {
		c.call(id, "once")
		m := c.next()
		p, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/progress" || p["progressToken"] != fmt.Sprintf("p%d", id) {
			t.Fatalf("call %d: %v, want its notification before its reply", id, m)
		}
		if r := c.next(); r["id"] != float64(id) || r["result"] == nil {
			t.Fatalf("call %d: %v, want its result", id, r)
		}
	}
}

// TestLongCallDoesNotBlock: while one call waits, others are read and
// answered; a notifications/cancelled ends the waiting one, even when it
// follows the request at once; the end of input cancels what still runs.
func TestLongCallDoesNotBlock(t *testing.T) {
	ended := make(chan string, 10)
	c := serve(t, testServer(ended), Options{})
	c.call(1, "wait")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("a call cancelled right after its request did not end")
	}
	c.reply(1)
	c.call(2, "wait")
	for id := 3; id < 10; id++ {
		c.call(id, "quick")
		if r := c.reply(id); r["result"] == nil {
			t.Fatalf("quick call %d behind a waiting one: %v", id, r)
		}
	}
	select {
	case why := <-ended:
		t.Fatalf("the waiting call ended early: %s", why)
	default:
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("notifications/cancelled did not end the waiting call")
	}
	c.reply(2)
}

// TestEndOfInput: when the input ends, Serve cancels the calls still
// running, waits for them, and returns nil.
func TestEndOfInput(t *testing.T) {
	ended := make(chan string, 10)
	c := serve(t, testServer(ended), Options{})
	c.call(1, "wait")
	c.call(2, "quick")
	c.reply(2)
	c.w.Close()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the end of input did not cancel the running call")
	}
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Serve: %v, want nil at the end of input", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after the end of input")
	}
}

// TestBadLines: a line that is not JSON, JSON that is no request (its id
// kept where it has a usable one: it was answered as a parse error with
// no id, and the client waited on its id for good), a reply without a
// method and a line over the limit each get their error, and the server
// goes on.
func TestBadLines(t *testing.T) {
	c := serve(t, testServer(nil), Options{MaxLine: 1000})
	for _, tc := range []struct {
		line string
		id   any
		code float64
		msg  string
	}{
		{`{not json`, nil, -32700, "Parse error"},
		{`{"jsonrpc":"2.0","id":5}`, float64(5), -32600, "no method"},
		// JSON of the wrong shape: an invalid request, with its id where
		// it has one (a client waits on it)
		{`{"jsonrpc":"2.0","id":13,"method":5}`, float64(13), -32600, "method must be a JSON string, not number"},
		{`{"jsonrpc":"2.0","id":"s15","method":"tools/call","params":"x"}`, "s15", -32600, "params must be a JSON object, not string"},
		{`[{"jsonrpc":"2.0","id":16,"method":"ping"}]`, nil, -32600, "a message is a JSON object, not array"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, -32600, "the id must be a string or an integer, not null"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, -32600, "the id must be a string or an integer"},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"quick","arguments":{"pad":"` + strings.Repeat("x", 200000) + `"}}}`, float64(6), -32600, "request too large"},
		{`{"jsonrpc":"2.0","id":"s7","method":"tools/call","params":{"name":"quick","arguments":{"pad":"` + strings.Repeat("y", 1001) + `"}}}`, "s7", -32600, "limit of 1000 bytes"},
	} {
		c.send(tc.line)
		m := c.next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != tc.id || e == nil || e["code"] != tc.code || !strings.Contains(fmt.Sprint(e["message"]), tc.msg) {
			t.Errorf("%.40s…: %v, want error %v %q for id %v", tc.line, m, tc.code, tc.msg, tc.id)
		}
		c.call(100, "quick")
		if r := c.reply(100); r["result"] == nil {
			t.Fatalf("after %.40s…: %v", tc.line, r)
		}
	}
}

// TestEncodeReply: the replies encodeReply writes by hand are the bytes
// json.Marshal gives for them.
func TestEncodeReply(t *testing.T) {
	type out struct {
		Name  string            `json:"name"`
		Value string            `json:"value,omitempty"`
		Map   map[string]int    `json:"map,omitempty"`
		Raw   json.RawMessage   `json:"raw,omitempty"`
		Tags  map[string]string `json:"tags,omitempty"`
	}
	structured := mcp.NewToolResultStructured(out{
		Name: "a<b>&c \u2028 é \"q\"", Value: "0x1\n\t", Map: map[string]int{"z": 1, "a": 2},
		Raw: json.RawMessage(` { "x" : [1, 2] } `), Tags: map[string]string{"<": ">"},
	}, "text <with> & \x01 control")
	withMeta := mcp.NewToolResultText("t")
	withMeta.Meta = &mcp.Meta{}
	withMeta.Meta.SetMetaField("rrmcp/server_ms", 0.125)
	for _, tc := range []struct {
		name string
		resp mcp.JSONRPCMessage
	}{
		{"structured", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), structured)},
		{"string id", mcp.NewJSONRPCResultResponse(mcp.NewRequestId("a\"b"), *structured)},
		{"error result", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultError("bad <input>"))},
		{"meta", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)), withMeta)},
		{"other result", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(3)), mcp.EmptyResult{})},
		{"error", mcp.NewJSONRPCError(mcp.NewRequestId(int64(4)), mcp.INVALID_PARAMS, "no <such> tool", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.resp)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeReply(tc.resp)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("encodeReply:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestIdle: Idle runs after a call's reply is written, and one that takes
// long does not hold back the next message: reading passes on, as it does
// for a long call.
func TestIdle(t *testing.T) {
	idled := make(chan struct{}, 10)
	release := make(chan struct{})
	var blocked atomic.Bool
	o := Options{Idle: func(ctx context.Context) {
		idled <- struct{}{}
		if blocked.CompareAndSwap(false, true) {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}}
	c := serve(t, testServer(nil), o)
	// initialize's reply is written before Idle runs; drain what it left.
	for len(idled) > 0 {
		<-idled
	}
	c.call(1, "quick")
	if r := c.reply(1); r["result"] == nil {
		t.Fatalf("quick call: %v", r)
	}
	select {
	case <-idled:
	case <-time.After(20 * time.Second):
		t.Fatal("Idle was not called after the reply")
	}
	// The first Idle may still be waiting on release; the next call is
	// answered meanwhile.
	for !blocked.Load() {
		c.call(2, "quick")
		c.reply(2)
		<-idled
	}
	c.call(3, "quick")
	if r := c.reply(3); r["result"] == nil {
		t.Fatalf("a call behind a long Idle: %v", r)
	}
	close(release)
}
