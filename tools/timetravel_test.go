package tools_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestLiveLastWrite: a live program has no history; rr_last_write says so
// (and what to do instead), rejects bad arguments by name, and the session
// keeps serving.
func TestLiveLastWrite(t *testing.T) {
	c := startLive(t, "list_corrupt")
	c.ok("rr_continue", nil, "SIGSEGV", "list_corrupt.c:61")
	c.fails("rr_last_write", args{"expression": "n->next"}, "needs the program's history", "rr_watchpoint_set")
	c.fails("rr_last_write", args{"expression": "n->next", "count": 99}, "count")
	c.fails("rr_last_write", args{"expression": ""}, "expression")
	c.fails("rr_goto", args{"event": 5}, "no recorded past")
	c.ok("rr_backtrace", nil, "count_duplicates")
	// Bounded lists say what they left out.
	c.ok("rr_locals", args{"limit": 1}, "n = ", "1 more not shown")
	c.ok("rr_thread_list", args{"limit": 1}, "count_duplicates")
	c.fails("rr_locals", args{"limit": -1}, "limit")
}

// gdbCrash runs prog under GDB to its first signal and returns the
// function of each backtrace frame and the faulting instruction's text:
// the oracle for rr_triage.
func gdbCrash(t *testing.T, prog string) (funcs []string, insn string) {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	out, err := exec.Command(gdb, "-nx", "-batch", "-ex", "run", "-ex", "bt", "-ex", "x/i $pc", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	frameRE := regexp.MustCompile(`^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(`)
	for _, l := range strings.Split(string(out), "\n") {
		if m := frameRE.FindStringSubmatch(l); m != nil {
			funcs = append(funcs, m[1])
		}
		if _, after, ok := strings.Cut(l, "=> "); ok {
			if _, text, ok := strings.Cut(after, ":"); ok {
				insn = strings.Join(strings.Fields(text), " ")
			}
		}
	}
	if len(funcs) == 0 || insn == "" {
		t.Fatalf("gdb printed no backtrace or instruction:\n%s", out)
	}
	return funcs, insn
}

// TestLiveTriage: list_corrupt dies of SIGSEGV in count_duplicates; one
// rr_triage call gives the signal, the faulting instruction with the
// unreadable memory operand, the backtrace with arguments (GDB's
// functions, in order), the frame's locals and, live, why there is no
// last writer.
func TestLiveTriage(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "list_corrupt")
	wantFuncs, wantInsn := gdbCrash(t, prog)
	c := startServer(t)
	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_continue", nil, "SIGSEGV")
	r := c.ok("rr_triage", nil, "SIGSEGV", "Segmentation fault", "count_duplicates", "n=", "keeps no history")
	rep := r.data["report"].(map[string]any)
	var funcs []string
	for _, f := range rep["backtrace"].([]any) {
		funcs = append(funcs, f.(map[string]any)["function"].(string))
	}
	if strings.Join(funcs, " ") != strings.Join(wantFuncs, " ") {
		t.Errorf("backtrace %v, GDB says %v", funcs, wantFuncs)
	}
	in := rep["instruction"].(map[string]any)
	// GDB prints AT&T with its own spacing; compare without spaces.
	if got := strings.ReplaceAll(in["text"].(string), " ", ""); got != strings.ReplaceAll(wantInsn, " ", "") {
		t.Errorf("instruction %q, GDB says %q", in["text"], wantInsn)
	}
	faulting := false
	for _, op := range in["operands"].([]any) {
		if m := op.(map[string]any); m["kind"] == "memory" && m["error"] != nil {
			faulting = true
		}
	}
	if !faulting {
		t.Errorf("no unreadable memory operand in %v", in["operands"])
	}
	if args := rep["backtrace"].([]any)[0].(map[string]any)["args"]; args == nil {
		t.Errorf("frame 0 has no arguments: %v", rep["backtrace"])
	}
	c.ok("rr_triage", args{"max_frames": 1}, "more frames")
	c.fails("rr_triage", args{"max_frames": 1000}, "max_frames")
	c.ok("rr_continue", nil, "killed", "SIGSEGV")
	c.fails("rr_triage", nil, "SIGSEGV", "rr_live_start")
}

// TestLiveOutput: the program's stdout and stderr are captured (never on
// the MCP stream), equal to what the program prints run directly, read in
// pieces by offset; the exit stop says exactly how much stdout was
// written; gdbserver's own messages are not in the program's stderr.
func TestLiveOutput(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "counter")
	want, err := exec.Command(prog).Output()
	if err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	c.ok("rr_live_start", args{"command": []string{prog}})
	r := c.ok("rr_continue", nil, "exited", "Program output so far")
	// stdout is a file the program writes itself: exact at every stop.
	if n := r.data["stop"].(map[string]any)["output"].(map[string]any)["stdout"]; n != float64(len(want)) {
		t.Errorf("exit stop says %v bytes of stdout, the program prints %d", n, len(want))
	}
	r = c.ok("rr_output", nil, "stdout")
	if got := r.data["output"].(map[string]any)["text"]; got != string(want) {
		t.Errorf("stdout %q, the program prints %q", got, want)
	}
	r = c.ok("rr_output", args{"limit": 5}, "read on with offset=5")
	if got := r.data["output"].(map[string]any)["text"]; got != string(want[:5]) {
		t.Errorf("first 5 bytes %q, want %q", got, want[:5])
	}
	c.ok("rr_output", args{"offset": 5, "limit": 4}, string(want[5:9]))
	c.ok("rr_output", args{"offset": -5}, string(want[len(want)-5:]))
	c.fails("rr_output", args{"stream": "stdin"}, "stream")

	// stderr: an assertion message, written before the abort.
	prog = testenv.Prog(t, "assert_fail")
	cmd := exec.Command(prog)
	var direct strings.Builder
	cmd.Stderr = &direct
	cmd.Run() //nolint:errcheck // it aborts
	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_continue", nil, "SIGABRT")
	c.ok("rr_continue", nil, "killed")
	r = c.ok("rr_output", args{"stream": "stderr"}, "Assertion")
	got := r.data["output"].(map[string]any)["text"].(string)
	if got != direct.String() {
		t.Errorf("stderr %q, the program prints %q", got, direct.String())
	}
}

// gdbDprintf runs prog under GDB with `dprintf loc,"%d\n",expr` and
// returns the printed values: the oracle for rr_query.
func gdbDprintf(t *testing.T, prog, loc, expr string) []string {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	out, err := exec.Command(gdb, "-nx", "-batch", "-ex", `dprintf `+loc+`,"DP %d\n",`+expr, "-ex", "run", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var vals []string
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "DP "); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		t.Fatalf("gdb printed no dprintf lines:\n%s", out)
	}
	return vals
}

// TestLiveQueryCalls: every call of square with its argument, in pages
// (limit + cursor), equals GDB's dprintf; a condition keeps one row; a
// writes query lists each change of sq.
func TestLiveQueryCalls(t *testing.T) {
	c := startLive(t, "counter")
	prog := testenv.Prog(t, "counter")
	want := gdbDprintf(t, prog, "square", "x")
	var got []string
	rows := func(r result) []any { return r.data["result"].(map[string]any)["rows"].([]any) }
	r := c.ok("rr_query", args{"kind": "calls", "function": "square", "collect": []string{"x"}, "limit": 2}, "#1 square at ", "\n#2 x=", "A row without a location is where the row before it is", "cursor=3")
	for _, row := range rows(r) {
		got = append(got, row.(map[string]any)["values"].(map[string]any)["x"].(string))
	}
	r = c.ok("rr_query", args{"kind": "calls", "function": "square", "collect": []string{"x"}, "cursor": 3, "limit": 100}, "#3", "exited")
	for _, row := range rows(r) {
		got = append(got, row.(map[string]any)["values"].(map[string]any)["x"].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rr_query calls of square: x = %v; GDB dprintf: %v", got, want)
	}

	c.ok("rr_live_start", args{"command": []string{prog}})
	r = c.ok("rr_query", args{"kind": "calls", "function": "square", "collect": []string{"x"}, "at_return": true}, "returned", "exited")
	for i, row := range rows(r) {
		var x int
		fmt.Sscan(want[i], &x)
		if ret := row.(map[string]any)["returned"]; ret != fmt.Sprint(x*x) {
			t.Errorf("call %d of square(%d) returned %v, want %d", i+1, x, ret, x*x)
		}
	}

	c.ok("rr_live_start", args{"command": []string{prog}})
	r = c.ok("rr_query", args{"kind": "calls", "function": "square", "collect": []string{"x"}, "condition": "x == " + want[len(want)-1]}, "exited")
	if n := len(rows(r)); n != 1 {
		t.Errorf("conditional query: %d rows, want 1: %s", n, r.text)
	}

	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_breakpoint_set", args{"location": "counter.c:79"})
	c.ok("rr_continue", nil, "counter.c:79")
	c.ok("rr_breakpoint_remove", args{"breakpoint_number": 1})
	r = c.ok("rr_query", args{"kind": "writes", "expression": "sq", "limit": 3}, "#1", "#3", "->")
	sum := 0
	for i, row := range rows(r) {
		var x int
		fmt.Sscan(want[i+1], &x) // square(0) leaves sq at 0: no change
		sum += x * x
		if nv := row.(map[string]any)["new"]; nv != fmt.Sprint(sum) {
			t.Errorf("write %d of sq: new %v, want %d", i+1, nv, sum)
		}
	}
}

// TestRecordUntilFailure drives rr_record's until_failure loop with a
// fake rr (testdata/fakerr/rr, which behaves like `rr record` from the
// outside; rr itself cannot record on a machine without a PMU) and a
// program that fails on its third run: three chaos-mode attempts, the
// failing trace kept and the passing ones deleted; predicates on output
// and exit code; a predicate never met ends at max_attempts keeping
// nothing.
func TestRecordUntilFailure(t *testing.T) {
	fake, err := filepath.Abs("testdata/fakerr")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	traces := filepath.Join(root, "traces")
	state := filepath.Join(root, "state")
	log := filepath.Join(root, "rr.log")
	c := startServer(t, "PATH="+fake+":"+os.Getenv("PATH"), "_RR_TRACE_DIR="+traces, "FAKE_RR_LOG="+log)
	flaky := filepath.Join(fake, "flaky")
	env := map[string]string{"FLAKY_STATE": state}
	r := c.ok("rr_record", args{"command": []string{flaky}, "env": env, "until_failure": map[string]any{"max_attempts": 5}},
		"Failed on attempt 3", "chaos", "Exit code: 3", "boom")
	loop := r.data["loop"].(map[string]any)
	if loop["attempts"] != 3.0 || len(loop["passed"].([]any)) != 2 {
		t.Errorf("loop %v: want 3 attempts, 2 passed", loop)
	}
	kept := r.data["result"].(map[string]any)["trace_dir"].(string)
	left, _ := os.ReadDir(traces)
	if len(left) != 1 || filepath.Join(traces, left[0].Name()) != kept {
		t.Errorf("traces left %v, want only the failing one %s", left, kept)
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "record chaos=1 "); n != 3 || strings.Contains(string(b), "chaos=0") {
		t.Errorf("rr calls %q: want 3 in chaos mode", b)
	}

	os.Remove(state)
	os.RemoveAll(traces)
	c.ok("rr_record", args{"command": []string{flaky}, "env": env, "until_failure": map[string]any{"output_contains": "run 2"}}, "Failed on attempt 2")
	os.Remove(state)
	c.ok("rr_record", args{"command": []string{flaky}, "env": env, "until_failure": map[string]any{"exit_code": 3}}, "Failed on attempt 3")
	os.Remove(state)
	os.RemoveAll(traces)
	c.ok("rr_record", args{"command": []string{flaky}, "env": env, "until_failure": map[string]any{"signal": "SIGSEGV", "max_attempts": 4}}, "No failure in 4 attempts", "max_attempts")
	if left, _ := os.ReadDir(traces); len(left) != 0 {
		t.Errorf("traces left after no failure: %v", left)
	}
	c.fails("rr_record", args{"command": []string{flaky}, "until_failure": map[string]any{"max_attempts": 5000}}, "max_attempts")
}

// TestQueryProgress: a client that sends a progress token hears of every
// row of rr_query as an MCP progress notification (mcp-go may deliver
// them after the result, so the test waits for them with a deadline).
func TestQueryProgress(t *testing.T) {
	c := startLive(t, "counter")
	got := c.progress()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "rr_query"
	req.Params.Arguments = args{"kind": "calls", "function": "square", "collect": []string{"x"}, "limit": 3}
	req.Params.Meta = &mcp.Meta{ProgressToken: "q1"}
	res, err := c.c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("rr_query: %v %+v", err, res)
	}
	last := 0.0
	for i := 1; i <= 3; {
		select {
		case p := <-got:
			if p["progressToken"] != "q1" || p["progress"].(float64) <= last {
				t.Errorf("progress %v after %v", p, last)
			}
			last = p["progress"].(float64)
			if strings.HasPrefix(p["message"].(string), fmt.Sprintf("row %d ", i)) {
				i++
			}
		case <-ctx.Done():
			t.Fatalf("progress notification for row %d never came", i)
		}
	}
}

// TestContinueProgressCancel: a long rr_continue with a progress token
// sends a heartbeat; the client, having heard it, cancels; the target is
// interrupted and the session answers again.
func TestContinueProgressCancel(t *testing.T) {
	c := startLive(t, "deadlock")
	got := c.progress()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "rr_continue"
	req.Params.Meta = &mcp.Meta{ProgressToken: 7}
	done := make(chan error, 1)
	go func() {
		_, err := c.c.CallTool(ctx, req)
		done <- err
	}()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	select {
	case p := <-got:
		if !strings.Contains(p["message"].(string), "rr_continue still running") {
			t.Errorf("heartbeat %v", p)
		}
	case <-deadline.C:
		t.Fatal("no progress heartbeat from a continue that does not return")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled rr_continue returned no error to the client")
	}
	waitCancelled(t, c, "continue")
	c.ok("rr_backtrace", nil, "#0")
}

// TestCancelContinue: a client that gives up on rr_continue (its context
// ends, so mcp-go sends notifications/cancelled) gets the target
// interrupted; the session stays usable and reports where it stopped.
func TestCancelContinue(t *testing.T) {
	c := startLive(t, "deadlock")
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "rr_continue"
	if _, err := c.c.CallTool(ctx, req); err == nil {
		t.Fatal("rr_continue of a deadlocked program returned before the client gave up")
	}
	// mcp-go's client sends notifications/cancelled after CallTool
	// returns, so a call right after it may still find the continue
	// running; it must end, by the interrupt, within the deadline.
	// rr_session_list does not wait for the session: it shows "running"
	// until the interrupt ended the continue, then (once the command has
	// read where the program stopped) the cancelled stop.
	waitCancelled(t, c, "continue")
	c.ok("rr_thread_list", nil, "Thread")
	if l := c.ok("rr_session_list", nil); l.data["sessions"].([]any)[0].(map[string]any)["cancelled"] != nil {
		t.Errorf("the cancelled stop outlived the next command: %v", l.data)
	}
	c.ok("rr_backtrace", nil, "#0")
	c.ok("rr_interrupt", nil, "already stopped")
}

// waitCancelled waits (rr_session_list does not wait for the session)
// until the cancelled command op has ended, and checks that the session's
// state keeps its structured stop: state stopped, reason cancelled, the
// operation, where the program is, and a message saying so.
func waitCancelled(t *testing.T, c *mcpClient, op string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	var sess map[string]any
	for {
		l := c.ok("rr_session_list", nil)
		sess = l.data["sessions"].([]any)[0].(map[string]any)
		if sess["state"] != "running" && sess["cancelled"] != nil {
			break
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("the cancelled %s never ended: the target was not interrupted", op)
		}
	}
	cancelled, _ := sess["cancelled"].(map[string]any)
	if sess["state"] != "stopped" || cancelled["reason"] != "cancelled" || cancelled["cancelled"] != op || cancelled["frame"] == nil ||
		!strings.Contains(fmt.Sprint(cancelled["message"]), "Cancelled by the client ("+op+")") {
		t.Fatalf("after the cancel the session says %v; want state stopped and a cancelled %s stop with its frame", sess, op)
	}
}

// gdbLineHits runs prog under GDB with a silent, continuing breakpoint on
// each of lines of file and returns GDB's hit count per line: the oracle
// for rr_query kind lines.
func gdbLineHits(t *testing.T, prog, file string, lines []int) map[int]int {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	var script strings.Builder
	for _, n := range lines {
		fmt.Fprintf(&script, "break %s:%d\ncommands\nsilent\ncontinue\nend\n", file, n)
	}
	script.WriteString("run\ninfo breakpoints\n")
	path := filepath.Join(t.TempDir(), "lines.gdb")
	if err := os.WriteFile(path, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gdb, "-nx", "-batch", "-x", path, prog).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	hits := map[int]int{}
	lineRE := regexp.MustCompile(`at \S+:(\d+)$`)
	hitRE := regexp.MustCompile(`breakpoint already hit (\d+) time`)
	cur := 0
	for _, l := range strings.Split(string(out), "\n") {
		if m := lineRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			fmt.Sscan(m[1], &cur)
			hits[cur] += 0
		}
		if m := hitRE.FindStringSubmatch(l); m != nil && cur != 0 {
			var n int
			fmt.Sscan(m[1], &n)
			hits[cur] = n
		}
	}
	return hits
}

// TestLiveQueryLines: per-line hit counts of walk() (a loop over a list)
// equal GDB's breakpoint hit counts for the same lines.
func TestLiveQueryLines(t *testing.T) {
	c := startLive(t, "counter")
	prog := testenv.Prog(t, "counter")
	r := c.ok("rr_query", args{"kind": "lines", "function": "walk"}, "line", "hits", "exited")
	got := map[int]int{}
	var lines []int
	for _, row := range r.data["result"].(map[string]any)["rows"].([]any) {
		m := row.(map[string]any)
		n := int(m["line"].(float64))
		h, _ := m["hits"].(float64)
		got[n] = int(h)
		lines = append(lines, n)
	}
	if len(lines) < 3 {
		t.Fatalf("walk has %d lines with code: %s", len(lines), r.text)
	}
	want := gdbLineHits(t, prog, "counter.c", lines)
	for _, n := range lines {
		if got[n] != want[n] {
			t.Errorf("counter.c:%d: %d hits, GDB says %d", n, got[n], want[n])
		}
	}
	// The query's breakpoints are gone once it ends, at the exit too
	// (they stayed listed there).
	if l := c.ok("rr_breakpoint_list", nil); strings.Contains(l.text, "#") {
		t.Errorf("breakpoints left by the query:\n%s", l.text)
	}
	c.fails("rr_query", args{"kind": "lines"}, "function")
	c.fails("rr_query", args{"kind": "bogus", "function": "walk"}, "kind")
}

// TestLiveQueryBadArg: bad_arg calls price() 20 times and the 14th call
// (known in advance) gets idx == -1. rr_query lists every call with its
// arguments, equal to GDB's dprintf; the row whose idx is -1 is row 14;
// a condition idx < 0 keeps exactly that call.
func TestLiveQueryBadArg(t *testing.T) {
	c := startLive(t, "bad_arg")
	prog := testenv.Prog(t, "bad_arg")
	want := gdbDprintf(t, prog, "price", "idx")
	r := c.ok("rr_query", args{"kind": "calls", "function": "price", "collect": []string{"idx", "qty"}, "limit": 100}, "#14", "idx=-1", "exited")
	var got []string
	bad := 0
	for _, row := range r.data["result"].(map[string]any)["rows"].([]any) {
		m := row.(map[string]any)
		idx := m["values"].(map[string]any)["idx"].(string)
		got = append(got, idx)
		if idx == "-1" {
			bad = int(m["n"].(float64))
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("price() idx per call %v; GDB dprintf: %v", got, want)
	}
	if bad != 14 {
		t.Errorf("the call with idx -1 is row %d, want 14 (order 13)", bad)
	}
	c.ok("rr_live_start", args{"command": []string{prog}})
	r = c.ok("rr_query", args{"kind": "calls", "function": "price", "collect": []string{"qty"}, "condition": "idx < 0"}, "qty=2", "exited")
	if n := len(r.data["result"].(map[string]any)["rows"].([]any)); n != 1 {
		t.Errorf("condition idx < 0: %d rows, want 1", n)
	}
}
