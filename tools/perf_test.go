package tools_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// benchClient is an in-process MCP client on a live session of counter
// stopped at hit(): the tools path without stdio framing.
type benchClient struct {
	b *testing.B
	c *client.Client
}

func newBenchClient(b *testing.B) *benchClient {
	b.Helper()
	testenv.NeedTool(b, "gdbserver")
	prog := testenv.Prog(b, "counter")
	return stopAtHit(b, inProcess(b), prog)
}

// stopAtHit starts a live session of prog (counter) on c and runs it to
// hit().
func stopAtHit(b *testing.B, c *client.Client, prog string) *benchClient {
	b.Helper()
	bc := &benchClient{b: b, c: c}
	bc.call("rr_live_start", map[string]any{"command": []string{prog}})
	bc.call("rr_breakpoint_set", map[string]any{"location": "hit"})
	bc.call("rr_continue", nil)
	return bc
}

func (bc *benchClient) call(name string, args map[string]any) *mcp.CallToolResult {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := bc.c.CallTool(context.Background(), req)
	if err != nil {
		bc.b.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		bc.b.Fatalf("%s: %v", name, res.Content)
	}
	return res
}

// benchTool times one tool call per iteration on a fresh stop at hit(),
// as the benchmark driver does; after is untimed (e.g. back to hit()).
func benchTool(b *testing.B, name string, args map[string]any, after string) {
	bc := newBenchClient(b)
	for b.Loop() {
		b.StopTimer()
		res := bc.call("rr_continue", nil)
		if !containsHit(res) {
			bc = newBenchClient(b) // the program ran to its end
		}
		b.StartTimer()
		bc.call(name, args)
		if after != "" {
			b.StopTimer()
			bc.call(after, nil)
			b.StartTimer()
		}
	}
}

func containsHit(res *mcp.CallToolResult) bool {
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			return len(tc.Text) > 0 && !strings.Contains(tc.Text, "exited")
		}
	}
	return false
}

func BenchmarkToolReadMemory(b *testing.B) {
	benchTool(b, "rr_read_memory", map[string]any{"address": "&bytes", "count": 64}, "")
}

func BenchmarkToolRegisters(b *testing.B) {
	benchTool(b, "rr_registers", map[string]any{}, "")
}

func BenchmarkToolLocals(b *testing.B) { benchTool(b, "rr_locals", map[string]any{}, "") }

func BenchmarkToolEvaluate(b *testing.B) {
	benchTool(b, "rr_evaluate", map[string]any{"expression": "list->next->name"}, "")
}

func BenchmarkToolStep(b *testing.B) { benchTool(b, "rr_step", map[string]any{}, "") }

func BenchmarkToolNext(b *testing.B) { benchTool(b, "rr_next", map[string]any{}, "") }

func BenchmarkToolFinish(b *testing.B) { benchTool(b, "rr_finish", map[string]any{}, "") }

// newStdioBenchClient is newBenchClient over stdio with the built rrmcp:
// the end-to-end path the benchmark driver measures.
func newStdioBenchClient(b *testing.B) *benchClient {
	b.Helper()
	testenv.NeedTool(b, "gdbserver")
	prog := testenv.Prog(b, "counter")
	c, err := client.NewStdioMCPClient(serverBin(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	initialize(b, ctx, c, mcp.LATEST_PROTOCOL_VERSION)
	return stopAtHit(b, c, prog)
}

// BenchmarkStdio times tool calls over stdio on a fresh stop at hit().
func BenchmarkStdio(b *testing.B) {
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"rr_session_list", map[string]any{}},
		{"rr_registers", map[string]any{}},
		{"rr_read_memory", map[string]any{"address": "&bytes", "count": 64}},
		{"rr_locals", map[string]any{}},
		{"rr_evaluate", map[string]any{"expression": "list->next->name"}},
		{"rr_step", map[string]any{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			bc := newStdioBenchClient(b)
			for b.Loop() {
				b.StopTimer()
				if !containsHit(bc.call("rr_continue", nil)) {
					bc = newStdioBenchClient(b)
				}
				b.StartTimer()
				bc.call(c.name, c.args)
			}
		})
	}
}

// BenchmarkStdioRaw times rr_session_list over stdio with a minimal
// line-based client: the server's own framing cost per call.
func BenchmarkStdioRaw(b *testing.B) {
	cmd := exec.Command(serverBin(b))
	stdin, stdout := testenv.StartPiped(b, cmd)
	b.Cleanup(func() { stdin.Close(); cmd.Wait() }) //nolint:errcheck
	r := bufio.NewReader(stdout)
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	recv := func() string {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	for b.Loop() {
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"rr_session_list","arguments":{}}}`, id))
		recv()
	}
}
