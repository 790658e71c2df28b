package gdbmi

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/relay"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

var shapes testenv.Shared[string]

// buildShapes compiles testdata/shapes.cc once per test binary.
func buildShapes(t *testing.T) string {
	t.Helper()
	testenv.NeedTool(t, "g++")
	src := filepath.Join(testenv.Root(t), "internal", "gdbmi", "testdata", "shapes.cc")
	return shapes.Get(t, func(dir string) (string, error) {
		exe := filepath.Join(dir, "shapes")
		return exe, testenv.CompileDebug("g++", src, exe)
	})
}

func TestMain(m *testing.M) { os.Exit(shapes.Run(m)) }

// target is a gdbserver-run program driven by an rsp.Client, with the
// session-style lock that orders the test's and the relay's use of it.
type target struct {
	c  *rsp.Client
	mu sync.Mutex
}

// runTo continues to the next call of the function at addr.
func (tg *target) runTo(t *testing.T, ctx context.Context, addr uint64) {
	t.Helper()
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if err := tg.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, addr, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tg.c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, addr, 1); err != nil {
		t.Fatal(err)
	}
}

func (tg *target) regs(t *testing.T, ctx context.Context) string {
	t.Helper()
	tg.mu.Lock()
	defer tg.mu.Unlock()
	r, err := tg.c.Exchange(ctx, "g", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func startTarget(t *testing.T, ctx context.Context, exe string) *target {
	t.Helper()
	_, addr := testenv.GDBServer(t, ctx, exe)
	c, err := rsp.Dial(ctx, addr, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &target{c: c}
}

// relayConfig is the configuration of a relay to the target: it forwards
// to the target's client, reports its last stop and its multiprocess mode.
func (tg *target) relayConfig() relay.Config {
	stop := func() string {
		tg.mu.Lock()
		defer tg.mu.Unlock()
		return tg.c.LastStop().Raw
	}
	return relay.Config{Forward: relay.ClientForward(tg.c, &tg.mu), Stop: stop, Multiprocess: tg.c.Multiprocess()}
}

// startOverRelay starts GDB on exe connected to a relay r with cfg; done
// closes GDB, then the relay.
func startOverRelay(t *testing.T, ctx context.Context, exe string, cfg relay.Config) (g *GDB, r *relay.Relay, done func()) {
	t.Helper()
	r, err := relay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err = Config{}.Start(ctx, exe, r.Addr())
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	return g, r, func() { g.Close(); r.Close() }
}

// TestEvaluateThroughRelay evaluates C++ expressions with real GDB through
// the relay against a gdbserver target, checks that GDB sees the target
// move (caches flushed), that writes and calls come back as clear errors
// without reaching the target, and that Close leaves no gdb behind.
func TestEvaluateThroughRelay(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildShapes(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	tg := startTarget(t, ctx, exe)
	stopHere := testenv.Symbol(t, exe, "_Z9stop_herePK5Shape").Value
	tg.runTo(t, ctx, stopHere)
	before := tg.regs(t, ctx)

	g, r, done := startOverRelay(t, ctx, exe, tg.relayConfig())
	defer done()
	tg.mu.Lock()
	tid := tg.c.LastStop().Thread.String()
	tg.mu.Unlock()

	evals := []struct {
		expr   string
		tid    string
		frame  int
		want   string // exact, or a prefix when it ends in "…"
		reason string
	}{
		{"sizeof(std::string)", "", 0, "32", "a type GDB knows from DWARF"},
		{"(char)65", "", 0, "65 'A'", "a cast"},
		{"sp->name", tid, 1, `"disk"`, "libstdc++ pretty printer through a base pointer"},
		{"c.name", tid, 1, `"disk"`, "a local in the caller's frame"},
		{"v", tid, 1, "std::vector of length 3, capacity 3 = {1, 2, 3}", "container pretty printer"},
		{"v[1]", tid, 1, "2", "operator[] through a libstdc++ xmethod, no inferior call"},
		{"m", "", 1, `std::map with 2 elements = {["one"] = 1, ["two"] = 2}`, "current thread, frame 1"},
		{"p.x + p.y", tid, 1, "7", "arithmetic on members"},
		{"((const Circle*)sp)->r", tid, 1, "2", "a C++ downcast"},
		{"depth", tid, 1, "7", "an argument"},
	}
	for _, e := range evals {
		got, err := g.Evaluate(ctx, e.expr, e.tid, e.frame)
		if err != nil {
			t.Errorf("Evaluate(%q, %q, %d) (%s): %v", e.expr, e.tid, e.frame, e.reason, err)
			continue
		}
		if got != e.want {
			t.Errorf("Evaluate(%q, %q, %d) (%s) = %q, want %q", e.expr, e.tid, e.frame, e.reason, got, e.want)
		}
	}

	refusals := []struct{ expr, msg string }{
		{"c.area()", "Cannot call functions in the program: may-call-functions is off"},
		{"p + p", "Cannot call functions in the program: may-call-functions is off"},
		{"p.x = 5", "Writing to memory is not allowed"},
		{"$rax = 1", "Writing to registers is not allowed"},
		{"nosuchvar", `No symbol "nosuchvar" in current context`},
	}
	for _, e := range refusals {
		_, err := g.Evaluate(ctx, e.expr, tid, 1)
		var ge *Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Msg, e.msg) {
			t.Errorf("Evaluate(%q) error = %v, want a gdb error containing %q", e.expr, err, e.msg)
		}
	}
	if out, err := g.Console(ctx, "info sharedlibrary"); err != nil || !strings.Contains(out, "libstdc++") {
		t.Errorf("Console(info sharedlibrary) = %q, %v; want the libstdc++ line", out, err)
	}
	if after := tg.regs(t, ctx); after != before {
		t.Errorf("registers changed while GDB evaluated:\nbefore %s\nafter  %s", before, after)
	}
	if st := r.Stats(); st.Refused != 0 {
		t.Errorf("relay refused %d packets (last %q): GDB's may-* switches should have stopped them first", st.Refused, st.LastRefused)
	}

	// The session moves the target; GDB must see the new state.
	tg.runTo(t, ctx, stopHere)
	if got, err := g.Evaluate(ctx, "c.r", tid, 1); err != nil || got != "5" {
		t.Errorf("after the target moved: c.r = %q, %v; want 5 (stale cache?)", got, err)
	}

	pid := g.Pid()
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("gdb (pid %d) still exists after Close: kill(0) = %v", pid, err)
	}
	if kids := childrenNamed(t, "gdb"); len(kids) > 0 {
		t.Errorf("gdb processes left behind after Close: %v", kids)
	}
	if _, err := g.Evaluate(ctx, "1", "", 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Evaluate after Close: %v, want ErrClosed", err)
	}

	// GDB detached nothing: the target runs to its normal end.
	tg.mu.Lock()
	defer tg.mu.Unlock()
	end, err := tg.c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !end.Exited() || end.ExitCode != 14 {
		t.Errorf("target ended with %v, want exit status 14", end)
	}
}

// TestDeadGDB kills gdb under a live GDB and checks the next call says so.
func TestDeadGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildShapes(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tg := startTarget(t, ctx, exe)
	g, _, done := startOverRelay(t, ctx, exe, relay.Config{Forward: relay.ClientForward(tg.c, &tg.mu)})
	defer done()
	syscall.Kill(g.Pid(), syscall.SIGKILL)
	_, err := g.Evaluate(ctx, "sizeof(int)", "", 0)
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "gdb exited") {
		t.Fatalf("Evaluate on a killed gdb: %v; want ErrClosed saying gdb exited", err)
	}
	if _, err := g.Evaluate(ctx, "1", "", 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("second call: %v, want ErrClosed", err)
	}
}

// TestStartDeadline: a backend that never answers makes Start fail at its
// deadline, and gdb is stopped rather than left behind.
func TestStartDeadline(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildShapes(t)
	hang := func(ctx context.Context, pkt string) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	r, err := relay.New(relay.Config{Forward: hang})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	t0 := time.Now()
	g, err := Config{}.Start(ctx, exe, r.Addr())
	if err == nil {
		g.Close()
		t.Fatal("Start succeeded against a backend that never answers")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrClosed) {
		t.Fatalf("Start: %v, want a deadline error saying gdb is not running", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("Start took %v after a 2 s deadline", d)
	}
	if kids := childrenNamed(t, "gdb"); len(kids) > 0 {
		t.Fatalf("gdb processes left behind after a failed Start: %v", kids)
	}
}

// childrenNamed lists this process's children whose command is name.
func childrenNamed(t *testing.T, name string) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 || s[open+1:close] != name {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == os.Getpid() {
			pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
			out = append(out, pid)
		}
	}
	return out
}

// TestLaunchRunStop drives a GDB that controls gdbserver itself (the
// benchmarks' GDB side): break, continue, finish.
func TestLaunchRunStop(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildShapes(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, addr := testenv.GDBServer(t, ctx, exe)
	g, err := Config{}.Launch(ctx, exe)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, cmd := range []string{"-gdb-set sysroot /", "-target-select remote " + addr, "-break-insert stop_here"} {
		if _, err := g.Run(ctx, cmd); err != nil {
			t.Fatal(err)
		}
	}
	st, err := g.RunStop(ctx, "-exec-continue")
	if err != nil {
		t.Fatal(err)
	}
	frame, _ := st.Field("frame")
	if st.String("reason") != "breakpoint-hit" || fieldString(frame, "func") != "stop_here" {
		t.Fatalf("continue stopped with %+v", st)
	}
	st, err = g.RunStop(ctx, "-exec-finish")
	if err != nil {
		t.Fatal(err)
	}
	frame, _ = st.Field("frame")
	if st.String("reason") != "function-finished" || fieldString(frame, "func") != "inspect" {
		t.Fatalf("finish stopped with %+v", st)
	}
	if _, err := g.RunStop(ctx, "-data-evaluate-expression 1"); err == nil {
		t.Fatal("RunStop of a command that does not run succeeded")
	}
}

// TestEvaluateThreads stops the multi-threaded race program in a worker
// thread and checks that Evaluate reads registers of the thread it is
// given (GDB thread numbers mapped from RSP thread ids).
func TestEvaluateThreads(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := testenv.Prog(t, "race")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tg := startTarget(t, ctx, exe)

	// PIE: the run-time address of bump is its link-time address plus the
	// load bias, which AT_ENTRY in the auxiliary vector gives away.
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	entry := f.Entry
	f.Close()
	auxv, err := tg.c.Auxv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	av, err := symbols.ParseAuxv(auxv, 8, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	bias := av[symbols.AT_ENTRY] - entry
	bump := bias + testenv.Symbol(t, exe, "bump").Value
	tg.runTo(t, ctx, bump)

	tg.mu.Lock()
	worker := tg.c.LastStop().Thread
	threads, err := tg.c.Threads(ctx)
	tg.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(threads) < 2 || worker.Tid == worker.Pid {
		t.Fatalf("stopped in thread %v of %v; want a worker thread of several", worker, threads)
	}
	main := worker
	main.Tid = worker.Pid

	g, _, done := startOverRelay(t, ctx, exe, tg.relayConfig())
	defer done()

	pc := func(tid string, frame int) uint64 {
		t.Helper()
		v, err := g.Evaluate(ctx, "(unsigned long)$pc", tid, frame)
		if err != nil {
			t.Fatalf("$pc of %s frame %d: %v", tid, frame, err)
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("$pc of %s = %q", tid, v)
		}
		return n
	}
	// Read the main thread first: GDB then believes the server has the
	// main thread selected when it reads the worker's registers next.
	if got := pc(main.String(), 0); got == bump {
		t.Errorf("main thread %s: $pc is bump's address; thread selection ignored", main)
	}
	// The session moves the server's thread selection behind GDB's back.
	tg.mu.Lock()
	if err := tg.c.SelectThread(ctx, 'g', main); err != nil {
		t.Fatal(err)
	}
	tg.mu.Unlock()
	if got := pc(worker.String(), 0); got != bump {
		t.Errorf("worker %s: $pc = %#x, want bump at %#x", worker, got, bump)
	}
	if fn, err := g.Evaluate(ctx, "$pc", worker.String(), 1); err != nil || !strings.Contains(fn, "<worker+") {
		t.Errorf("worker frame 1: $pc = %q, %v; want inside worker()", fn, err)
	}
	if _, err := g.Evaluate(ctx, "1", "p1.7fffffff", 0); err == nil || !strings.Contains(err.Error(), "does not know thread") {
		t.Errorf("unknown thread: err = %v", err)
	}
}

// TestStartNoRelay: nothing listens at the address; the error says which
// command failed and why, and no gdb is left.
func TestStartNoRelay(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildShapes(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port that just stopped listening
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	g, err := Config{}.Start(ctx, exe, addr)
	if err == nil {
		g.Close()
		t.Fatal("Start succeeded with no relay listening")
	}
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "-target-select remote "+addr) || !strings.Contains(ge.Msg, "refused") {
		t.Fatalf("Start: %v; want gdb's connection-refused error naming -target-select", err)
	}
	if kids := childrenNamed(t, "gdb"); len(kids) > 0 {
		t.Fatalf("gdb processes left behind: %v", kids)
	}
}
