package tools_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// server is cmd/rrmcp, built once per test binary (TestMain removes it).
var server testenv.Shared[string]

// serverBin builds cmd/rrmcp once per test binary.
func serverBin(t testing.TB) string {
	t.Helper()
	return server.Get(t, func(dir string) (string, error) {
		bin := filepath.Join(dir, "rrmcp")
		var flags []string
		if os.Getenv("RRMCP_TEST_RACE") != "" {
			flags = append(flags, "-race") // race-check the server itself
		}
		return bin, testenv.GoBuild(bin, "./cmd/rrmcp", flags...)
	})
}

// initialize starts c and runs the MCP handshake as a client speaking the
// given protocol version.
func initialize(t testing.TB, ctx context.Context, c *client.Client, protocol string) {
	t.Helper()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = protocol
	req.Params.ClientInfo = mcp.Implementation{Name: "rrmcp-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// mcpClient is an MCP client talking to a freshly started rrmcp over stdio.
type mcpClient struct {
	t *testing.T
	c *client.Client
}

func startServer(t *testing.T, env ...string) *mcpClient {
	t.Helper()
	bin := serverBin(t)
	c, err := client.NewStdioMCPClient(bin, append([]string{"RRMCP_DEBUG=1"}, env...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	initialize(t, ctx, c, mcp.LATEST_PROTOCOL_VERSION)
	stderr, _ := client.GetStderr(c)
	t.Cleanup(func() {
		t0 := time.Now()
		c.Close()
		if testing.Verbose() && stderr != nil {
			b, _ := io.ReadAll(stderr)
			t.Logf("server closed in %v; stderr:\n%s", time.Since(t0), b)
		}
	})
	return &mcpClient{t: t, c: c}
}

// startLive starts a server and a live session (gdbserver) of the test
// program prog on it.
func startLive(t *testing.T, prog string) *mcpClient {
	t.Helper()
	testenv.NeedTool(t, "gdbserver")
	exe := testenv.Prog(t, prog)
	c := startServer(t)
	c.ok("rr_live_start", map[string]any{"command": []string{exe}})
	return c
}

// progress returns the parameters of every progress notification the
// client hears from now on.
func (m *mcpClient) progress() <-chan map[string]any {
	got := make(chan map[string]any, 100)
	m.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			got <- n.Params.AdditionalFields
		}
	})
	return got
}

type result struct {
	text  string
	isErr bool
	data  map[string]any
}

// call invokes a tool; a protocol error fails the test.
func (m *mcpClient) call(name string, args map[string]any) result {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(m.t.Context(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	t0 := time.Now()
	res, err := m.c.CallTool(ctx, req)
	el := time.Since(t0)
	if err != nil {
		m.t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	var r result
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	r.isErr = res.IsError
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &r.data)
	}
	if testing.Verbose() {
		m.t.Logf("%s %v (%v) ->\n%s", name, args, el.Round(time.Microsecond), r.text)
	}
	return r
}

// ok calls a tool that must succeed and whose text must contain every want.
func (m *mcpClient) ok(name string, args map[string]any, want ...string) result {
	m.t.Helper()
	r := m.call(name, args)
	if r.isErr {
		m.t.Fatalf("%s(%v) failed:\n%s", name, args, r.text)
	}
	for _, w := range want {
		if !strings.Contains(r.text, w) {
			m.t.Fatalf("%s(%v): result lacks %q:\n%s", name, args, w, r.text)
		}
	}
	return r
}

// fails calls a tool that must return isError with every want in its text.
func (m *mcpClient) fails(name string, args map[string]any, want ...string) result {
	m.t.Helper()
	r := m.call(name, args)
	figures.Lock()
	figures.tried++
	figures.Unlock()
	if len(r.text) > 10<<10 {
		m.t.Fatalf("%s: the error is %d bytes; errors must cut echoed input short:\n%.300s", name, len(r.text), r.text)
	}
	if !r.isErr {
		m.t.Fatalf("%s(%v) succeeded, want an error:\n%s", name, args, r.text)
	}
	for _, w := range want {
		if !strings.Contains(r.text, w) {
			m.t.Fatalf("%s(%v): error lacks %q:\n%s", name, args, w, r.text)
		}
	}
	if strings.Contains(r.text, "goroutine ") || strings.Contains(r.text, "panic") {
		m.t.Fatalf("%s: error leaks Go internals:\n%s", name, r.text)
	}
	figures.Lock()
	figures.clear++
	figures.Unlock()
	return r
}

type args = map[string]any
