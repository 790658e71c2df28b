package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/tools"
)

// leanClient is the smallest MCP client that works: newline-delimited
// JSON-RPC over the server's stdin and stdout, one request at a time, as an
// automation agent written without an MCP library would do it. It is the
// benchmark's primary rrmcp column; mcp-go's client is the second one.
type leanClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
	buf []byte
}

// leanReply is the part of a tools/call reply the benchmark reads.
type leanReply struct {
	ID     int `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
		Meta map[string]any `json:"_meta"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startLean spawns bin with server timing on and runs the MCP handshake.
func startLean(ctx context.Context, bin string) (*leanClient, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "RRMCP_DEBUG_TIMING=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &leanClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	var r leanReply
	if err := c.request(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rrbench-lean","version":"1"}}`, &r); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// request writes one request and reads lines until the reply with its id
// (server notifications in between are skipped). The context bounds the
// wait by closing the pipe when it ends.
func (c *leanClient) request(ctx context.Context, method, params string, r *leanReply) error {
	c.id++
	c.buf = fmt.Appendf(c.buf[:0], `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	stop := context.AfterFunc(ctx, func() { c.cmd.Process.Kill() })
	defer stop()
	if _, err := c.in.Write(c.buf); err != nil {
		return err
	}
	for {
		line, err := c.out.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long reply: copy what the buffer holds before reading on.
			head := append([]byte(nil), line...)
			var rest []byte
			rest, err = c.out.ReadBytes('\n')
			line = append(head, rest...)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("read reply: %w", err)
		}
		*r = leanReply{}
		if err := json.Unmarshal(line, r); err != nil {
			return fmt.Errorf("decode reply: %w", err)
		}
		if r.ID != c.id {
			continue // a notification or a stale reply
		}
		if r.Error != nil {
			return fmt.Errorf("json-rpc error %d: %s", r.Error.Code, r.Error.Message)
		}
		return nil
	}
}

// callTool calls a tool; it returns the structured content and the server
// time from _meta (-1 when absent).
func (c *leanClient) callTool(ctx context.Context, tool string, args map[string]any) (json.RawMessage, float64, error) {
	a, err := json.Marshal(args)
	if err != nil {
		return nil, -1, err
	}
	var r leanReply
	params := fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, a)
	if err := c.request(ctx, "tools/call", params, &r); err != nil {
		return nil, -1, fmt.Errorf("%s: %w", tool, err)
	}
	if r.Result == nil {
		return nil, -1, fmt.Errorf("%s: reply without result", tool)
	}
	serverMs := -1.0
	if v, ok := r.Result.Meta[tools.ServerTimeMetaKey].(float64); ok {
		serverMs = v
	}
	if r.Result.IsError {
		var parts []string
		for _, t := range r.Result.Content {
			parts = append(parts, t.Text)
		}
		return nil, serverMs, fmt.Errorf("%s: tool error: %s", tool, strings.Join(parts, " "))
	}
	return r.Result.StructuredContent, serverMs, nil
}

func (c *leanClient) close() error {
	c.in.Close() // EOF on stdin: rrmcp stops its sessions and exits
	t := time.AfterFunc(10*time.Second, func() { c.cmd.Process.Kill() })
	defer t.Stop()
	err := c.cmd.Wait()
	if _, ok := err.(*exec.ExitError); ok {
		return nil
	}
	return err
}

// transportFloor times JSON-RPC pings through bin with the lean client:
// the round trip every lean row pays before any tool runs (the pipes,
// the server's read, dispatch and write; no session, no JSON of a
// result).
func transportFloor(ctx context.Context, bin string, n int) (stats, error) {
	c, err := startLean(ctx, bin)
	if err != nil {
		return stats{}, err
	}
	defer c.close()
	var ds []time.Duration
	for i := range n + 20 {
		var r leanReply
		t0 := time.Now()
		if err := c.request(ctx, "ping", `{}`, &r); err != nil {
			return stats{}, fmt.Errorf("ping: %w", err)
		}
		if i >= 20 { // warm-up
			ds = append(ds, time.Since(t0))
		}
	}
	return summarize(millis(ds)), nil
}
