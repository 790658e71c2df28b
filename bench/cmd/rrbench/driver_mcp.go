package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/tools"
)

// mcpDriver drives rrmcp through a real MCP client: over stdio against the
// built binary (the measured path), or in-process (for CPU profiles).
type mcpDriver struct {
	c    *client.Client // mcp-go's client, or
	lean *leanClient    // the raw JSON-RPC one
	// serverMs sums the server time rrmcp reported in _meta (-1: none).
	serverMs float64
	cmd      *exec.Cmd        // the rrmcp process (stdio only)
	m        *session.Manager // in-process only

	heapProfile string // in-process: write a heap profile here before ending a session

	// Profile runs: the target runs under a gdbserver started here and
	// rrmcp attaches with rr_connect through a packet-counting proxy.
	pc  *packetCounter
	srv *proc.Process

	args  []string // the target's arguments
	agent bool     // rr_live_start with in_process_agent
}

// newMCP spawns bin and initializes an MCP session with it.
func newMCP(ctx context.Context, bin string) (*mcpDriver, error) {
	d := &mcpDriver{}
	env0 := []string{"RRMCP_DEBUG_TIMING=1"}
	spawn := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		d.cmd = cmd
		return cmd, nil
	}
	// The transport's context must outlive this call: the server runs
	// until Close.
	tr := transport.NewStdioWithOptions(bin, env0, nil, transport.WithCommandFunc(spawn))
	if err := tr.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	d.c = client.NewClient(tr)
	return d, d.init(ctx)
}

// newLean spawns bin and drives it with the raw JSON-RPC client.
func newLean(ctx context.Context, bin string) (*mcpDriver, error) {
	c, err := startLean(ctx, bin)
	if err != nil {
		return nil, err
	}
	return &mcpDriver{lean: c, cmd: c.cmd}, nil
}

// newMCPInProcess serves rrmcp's tools in this process (no stdio).
func newMCPInProcess(ctx context.Context) (*mcpDriver, error) {
	m := session.NewManager(session.Config{})
	c, err := client.NewInProcessClient(tools.New(m, tools.Options{}))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	d := &mcpDriver{c: c, m: m}
	return d, d.init(ctx)
}

func (d *mcpDriver) init(ctx context.Context) error {
	_, err := d.c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.ProtocolVersion20251125, // what current clients negotiate
		ClientInfo:      mcp.Implementation{Name: "rrbench", Version: "1"},
	}})
	if err != nil {
		d.close()
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

func (d *mcpDriver) name() string { return "rrmcp" }

func (d *mcpDriver) pid() int {
	if d.cmd == nil || d.cmd.Process == nil {
		return os.Getpid()
	}
	return d.cmd.Process.Pid
}

// call invokes a tool and decodes its structured result into out.
func (d *mcpDriver) call(ctx context.Context, tool string, args map[string]any, out any) error {
	if d.lean != nil {
		b, ms, err := d.lean.callTool(ctx, tool, args)
		d.addServerMs(ms)
		if err != nil || out == nil {
			return err
		}
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s: decode result: %w", tool, err)
		}
		return nil
	}
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := d.c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	ms := -1.0
	if res.Meta != nil {
		if v, ok := res.Meta.AdditionalFields[tools.ServerTimeMetaKey].(float64); ok {
			ms = v
		}
	}
	d.addServerMs(ms)
	if res.IsError {
		return fmt.Errorf("%s: tool error: %s", tool, resultText(res))
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", tool, err)
	}
	return nil
}

func (d *mcpDriver) addServerMs(ms float64) {
	if ms >= 0 {
		d.serverMs += ms
	}
}

// serverTime is the server time rrmcp reported so far, in ms.
func (d *mcpDriver) serverTime() float64 { return d.serverMs }

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

type mcpStop struct {
	Stop *session.Stop `json:"stop"`
}

func (s mcpStop) info() stopInfo {
	if s.Stop == nil {
		return stopInfo{}
	}
	si := stopInfo{reason: s.Stop.Reason}
	if s.Stop.Frame != nil {
		si.function = s.Stop.Frame.Function
		si.line = s.Stop.Frame.Line
	}
	return si
}

func (d *mcpDriver) start(ctx context.Context, exe string) error {
	if d.pc == nil {
		args := map[string]any{"command": append([]string{exe}, d.args...)}
		if d.agent {
			args["in_process_agent"] = true
		}
		return d.call(ctx, "rr_live_start", args, nil)
	}
	srv, addr, err := proc.StartGDBServer(ctx, exe, d.args, "", nil)
	if err != nil {
		return err
	}
	d.srv = srv
	if addr, err = d.pc.through(addr); err != nil {
		return err
	}
	return d.call(ctx, "rr_connect", map[string]any{"address": addr, "program": exe}, nil)
}

func (d *mcpDriver) packets() int64 { return d.pc.packets() }

func (d *mcpDriver) setBreak(ctx context.Context, loc, cond string) error {
	args := map[string]any{"location": loc}
	if cond != "" {
		args["condition"] = cond
	}
	return d.call(ctx, "rr_breakpoint_set", args, nil)
}

func (d *mcpDriver) move(ctx context.Context, tool string) (stopInfo, error) {
	var out mcpStop
	err := d.call(ctx, tool, map[string]any{}, &out)
	return out.info(), err
}

func (d *mcpDriver) cont(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "rr_continue") }
func (d *mcpDriver) step(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "rr_step") }
func (d *mcpDriver) next(ctx context.Context) (stopInfo, error)   { return d.move(ctx, "rr_next") }
func (d *mcpDriver) finish(ctx context.Context) (stopInfo, error) { return d.move(ctx, "rr_finish") }

func (d *mcpDriver) backtrace(ctx context.Context, max int) (int, error) {
	var out struct {
		Frames []session.Frame `json:"frames"`
	}
	err := d.call(ctx, "rr_backtrace", map[string]any{"max_depth": max}, &out)
	return len(out.Frames), err
}

func (d *mcpDriver) locals(ctx context.Context) (int, error) {
	var out struct {
		Locals []session.Value `json:"locals"`
	}
	err := d.call(ctx, "rr_locals", map[string]any{}, &out)
	return len(out.Locals), err
}

func (d *mcpDriver) eval(ctx context.Context, expr string) (string, error) {
	var out struct {
		Result session.EvalResult `json:"result"`
	}
	err := d.call(ctx, "rr_evaluate", map[string]any{"expression": expr}, &out)
	return out.Result.Value, err
}

func (d *mcpDriver) readMem(ctx context.Context, addr string, n int) (int, error) {
	var out struct {
		Memory session.Memory `json:"memory"`
	}
	err := d.call(ctx, "rr_read_memory", map[string]any{"address": addr, "count": n}, &out)
	return out.Memory.Count, err
}

func (d *mcpDriver) regs(ctx context.Context, names []string) (int, error) {
	var out struct {
		Registers []session.Register `json:"registers"`
	}
	err := d.call(ctx, "rr_registers", map[string]any{"register_names": names}, &out)
	return len(out.Registers), err
}

func (d *mcpDriver) noop(ctx context.Context) error {
	if d.lean != nil {
		var r leanReply
		return d.lean.request(ctx, "ping", `{}`, &r)
	}
	return d.c.Ping(ctx)
}

func (d *mcpDriver) endSession(ctx context.Context) error {
	if d.heapProfile != "" {
		if err := writeHeapProfile(d.heapProfile); err != nil {
			return err
		}
	}
	err := d.call(ctx, "rr_replay_stop", map[string]any{}, nil)
	stopTarget(&d.srv, d.pc)
	return err
}

func (d *mcpDriver) close() error {
	if d.lean != nil {
		return d.lean.close()
	}
	err := d.c.Close()
	if d.m != nil {
		d.m.Close()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // rrmcp exits by signal when the transport gives up waiting
	}
	return err
}
