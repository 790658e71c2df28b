// Command rrmcp-demo runs a scripted MCP session against the rrmcp server
// binary, the way an agent would use it, and prints every tool call and
// its result. It debugs testprogs' list_corrupt (a linked list corrupted by
// an earlier bad removal) down to the root cause named in the program's
// header comment.
//
// With rr usable on this machine (hardware PMU), it records the crash and
// replays it, going backwards from the crash to the bad removal. Without
// rr it says so and uses the live backend (the program under gdbserver):
// the crash is inspected, and a second run stops in the removal.
//
//	rrmcp-demo -server bin/rrmcp          (what `make demo` runs)
//	rrmcp-demo -server bin/rrmcp -backend live
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/rr"
)

func main() {
	server := flag.String("server", "bin/rrmcp", "path of the rrmcp binary")
	prog := flag.String("prog", "", "program to debug (default: testprogs/build/list_corrupt next to the server's bin/)")
	backend := flag.String("backend", "auto", "auto (rr if it can record here, else live), rr or live")
	flag.Parse()
	if err := run(*server, *prog, *backend); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type demo struct {
	c    *client.Client
	ctx  context.Context
	step int
}

func run(server, prog, backend string) error {
	server, err := filepath.Abs(server)
	if err != nil {
		return err
	}
	root := filepath.Dir(filepath.Dir(server))
	if prog == "" {
		prog = filepath.Join(root, "testprogs", "build", "list_corrupt")
	}
	src := filepath.Join(filepath.Dir(filepath.Dir(prog)), "src", "list_corrupt.c")
	want, err := rootCause(src)
	if err != nil {
		return fmt.Errorf("read the expected root cause: %w (build the test programs: make testprogs)", err)
	}
	useRR := false
	switch backend {
	case "rr":
		useRR = true
	case "live":
	case "auto":
		if err := probeRR(); err != nil {
			fmt.Printf("rr cannot record on this machine: %v\n", err)
			fmt.Printf("=> using the live backend (the program under gdbserver): forward debugging only.\n\n")
		} else {
			useRR = true
			fmt.Printf("rr can record here => recording and replaying with rr (reverse execution).\n\n")
		}
	default:
		return fmt.Errorf("-backend %q: want auto, rr or live", backend)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := client.NewStdioMCPClient(server, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "rrmcp-demo", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	fmt.Printf("Connected to %s %s over stdio: %d tools.\n", res.ServerInfo.Name, res.ServerInfo.Version, len(tools.Tools))
	fmt.Printf("Program: %s\nBug to find: a SIGSEGV in count_duplicates(); the header of %s names the root cause.\n\n", prog, filepath.Base(src))

	d := &demo{c: c, ctx: ctx}
	var got string
	if useRR {
		got, err = d.withRR(prog)
	} else {
		got, err = d.live(prog)
	}
	if err != nil {
		return err
	}
	fmt.Printf("\n==> Root cause: %s\n    %s\n", got, sourceLine(src, got))
	if got != want {
		return fmt.Errorf("the session ended at %s, but the program's header says the root cause is %s", got, want)
	}
	fmt.Printf("    (matches the program's header comment: Root cause: %s)\n", want)
	return nil
}

// call invokes a tool, printing the call and its text result.
func (d *demo) call(name string, args map[string]any) (string, map[string]any, error) {
	d.step++
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if args == nil {
		args = map[string]any{}
	}
	enc.Encode(args)
	a := strings.TrimSpace(buf.String())
	fmt.Printf("[%d] -> %s %s\n", d.step, name, a)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	t0 := time.Now()
	res, err := d.c.CallTool(d.ctx, req)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	mark := "<-"
	if res.IsError {
		mark = "<- (tool error)"
	}
	fmt.Printf("    %s %s\n", mark, time.Since(t0).Round(time.Microsecond))
	for _, l := range strings.Split(text, "\n") {
		fmt.Printf("    | %s\n", l)
	}
	fmt.Println()
	var data map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &data)
	}
	if res.IsError {
		return text, data, errToolFailed
	}
	return text, data, nil
}

var errToolFailed = errors.New("tool error")

// must is call for steps the demo cannot continue without.
func (d *demo) must(name string, args map[string]any, want ...string) (string, map[string]any, error) {
	text, data, err := d.call(name, args)
	if err != nil {
		return text, data, fmt.Errorf("%s failed: %s", name, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			return text, data, fmt.Errorf("%s: expected %q in the result", name, w)
		}
	}
	return text, data, nil
}

func say(format string, args ...any) { fmt.Printf("# "+format+"\n\n", args...) }

// stopLine returns "file:line" of the stop in a result.
func stopLine(data map[string]any) string {
	st, _ := data["stop"].(map[string]any)
	fr, _ := st["frame"].(map[string]any)
	file, _ := fr["file"].(string)
	line, _ := fr["line"].(float64)
	return fmt.Sprintf("%s:%d", filepath.Base(file), int(line))
}

func (d *demo) withRR(prog string) (string, error) {
	dir, err := os.MkdirTemp("", "rrmcp-demo-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	trace := filepath.Join(dir, "trace")
	say("Record the failing program once; everything after this replays the same execution.")
	if _, _, err := d.must("rr_record", map[string]any{"command": []string{prog}, "trace_dir": trace}); err != nil {
		return "", err
	}
	if _, _, err := d.must("rr_replay_start", map[string]any{"trace_dir": trace}, "reverse execution"); err != nil {
		return "", err
	}
	say("Run to the crash.")
	if _, _, err := d.must("rr_continue", nil, "SIGSEGV"); err != nil {
		return "", err
	}
	say("One call for the crash report: signal, faulting instruction and operands, backtrace with arguments, locals.")
	d.must("rr_triage", nil, "SIGSEGV")
	say("n->next is garbage: the node n was freed and its memory reused.")
	d.must("rr_evaluate", map[string]any{"expression": "*n"})
	say("Who wrote over n->next? One call runs backwards to the write.")
	d.must("rr_last_write", map[string]any{"expression": "n->next"}, "written in")
	d.must("rr_backtrace", map[string]any{"max_depth": 4}, "log_line")
	say("log_line() reused a freed chunk, so the list still points at a freed node. Why was it not unlinked? Go back to the removal.")
	d.must("rr_source_lines", map[string]any{"file": "list_corrupt.c", "line": 40, "count": 9})
	say("Line 40 unlinks a node that has a predecessor. Stop there, going backwards in time.")
	d.must("rr_breakpoint_set", map[string]any{"location": "list_corrupt.c:40"})
	_, data, err := d.must("rr_continue", map[string]any{"reverse": true}, "list_corrupt.c:40")
	if err != nil {
		return "", err
	}
	return d.atUnlink(data)
}

// atUnlink is called stopped at the line of list_remove() that should
// unlink the node: it executes the line and shows that the list still
// points at the node that is freed next. It returns the line's file:line.
func (d *demo) atUnlink(data map[string]any) (string, error) {
	bug := stopLine(data)
	d.must("rr_evaluate", map[string]any{"expression": "n->name"})
	d.must("rr_evaluate", map[string]any{"expression": "prev->next == n"}, "= 1")
	say("Execute this line; afterwards the predecessor must no longer point at n.")
	if _, _, err := d.must("rr_next", nil); err != nil {
		return "", err
	}
	text, _, err := d.must("rr_evaluate", map[string]any{"expression": "(*head)->next->next == n"})
	if err != nil {
		return "", err
	}
	if !strings.Contains(text, "= 1") {
		return "", errors.New("the list no longer points at the removed node: no bug found")
	}
	d.must("rr_evaluate", map[string]any{"expression": "prev == n->next"}, "= 1")
	say("The list still points at n, which is freed next: %s assigned the local `prev` instead of `prev->next`.", bug)
	return bug, nil
}

func (d *demo) live(prog string) (string, error) {
	if _, _, err := d.must("rr_live_start", map[string]any{"command": []string{prog}}, "live"); err != nil {
		return "", err
	}
	say("Run to the crash.")
	if _, _, err := d.must("rr_continue", nil, "SIGSEGV"); err != nil {
		return "", err
	}
	say("One call for the crash report: signal, faulting instruction and operands, backtrace with arguments, locals.")
	d.must("rr_triage", nil, "SIGSEGV", "keeps no history")
	say("n->next is garbage: the node n was freed and its memory reused (its name now holds log text).")
	d.must("rr_evaluate", map[string]any{"expression": "n->next"})
	d.must("rr_evaluate", map[string]any{"expression": "*n"})
	say("With rr, rr_last_write would now run backwards to the write of n->next. The live backend cannot, and says why:")
	d.call("rr_last_write", map[string]any{"expression": "n->next"})
	d.call("rr_continue", map[string]any{"reverse": true})
	say("So run the program again and stop where nodes are removed from the list.")
	d.must("rr_replay_stop", nil)
	if _, _, err := d.must("rr_live_start", map[string]any{"command": []string{prog}}); err != nil {
		return "", err
	}
	d.must("rr_source_lines", map[string]any{"file": "list_corrupt.c", "line": 40, "count": 9})
	say("Line 40 unlinks a node that has a predecessor. Stop there.")
	d.must("rr_breakpoint_set", map[string]any{"location": "list_corrupt.c:40"})
	_, data, err := d.must("rr_continue", nil, "list_corrupt.c:40")
	if err != nil {
		return "", err
	}
	got, err := d.atUnlink(data)
	if err == nil {
		d.must("rr_replay_stop", nil)
	}
	return got, err
}

var rootRE = regexp.MustCompile(`Root cause:\s+(\S+:\d+)`)

func rootCause(src string) (string, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	m := rootRE.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s has no \"Root cause: file:line\" header", src)
	}
	return string(m[1]), nil
}

func sourceLine(src, fileLine string) string {
	_, ls, _ := strings.Cut(fileLine, ":")
	n, _ := strconv.Atoi(ls)
	f, err := os.Open(src)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return strings.TrimSpace(sc.Text())
		}
	}
	return ""
}

// probeRR checks that rr can record here (internal/rr's probe: rr on
// PATH, a hardware PMU, perf_event_paranoid, a trial recording).
func probeRR() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return rr.Probe(ctx)
}
