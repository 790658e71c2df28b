package gdbmi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// Error is GDB's answer "^error,msg=…" to a command.
type Error struct {
	Command string // the MI command, without its token
	Msg     string
}

func (e *Error) Error() string { return "gdb: " + e.Msg }

// ErrClosed is returned by calls on a GDB that was closed, or that was
// stopped because it died or missed a deadline.
var ErrClosed = errors.New("gdb is not running")

// defaultPath is the gdb executable when Config.Path is empty.
const defaultPath = "gdb"

// Config tunes Start. The zero value is usable.
type Config struct {
	Path string   // gdb executable; "" means "gdb" on PATH
	Env  []string // environment; nil inherits
}

// GDB is one `gdb --interpreter=mi3` process connected to a relay. Calls are
// serialized; each has a deadline from its context.
type GDB struct {
	p     *proc.Process
	stdin *os.File

	mu      sync.Mutex // one command at a time; guards next, threads, dead
	next    int
	threads map[int64]string // target lwp -> GDB thread id
	dead    error            // why the GDB is unusable, once it is

	out      sync.Mutex // guards the fields below, written by onLine
	waiting  string     // token of the command in flight
	resp     chan Record
	streams  []string // console/log text seen while waiting
	wantStop bool     // RunStop waits for a *stopped record
	stops    chan Record
}

// Start runs `gdb --interpreter=mi3 -nx -q exe`, sets it up for a read-only
// target (sysroot /, no confirmations, no paging, and GDB's own may-*
// switches off so it refuses writes and inferior calls before trying) and
// connects it to the relay at relayAddr with `target remote`. ctx bounds the
// whole start-up, symbol loading included.
func (c Config) Start(ctx context.Context, exe, relayAddr string) (*GDB, error) {
	g, err := c.Launch(ctx, exe)
	if err != nil {
		return nil, err
	}
	setup := []string{
		"-gdb-set confirm off",
		"-gdb-set pagination off",
		"-gdb-set width 0",
		"-gdb-set height 0",
		"-gdb-set sysroot /",
		"-gdb-set may-write-memory off",
		"-gdb-set may-write-registers off",
		"-gdb-set may-insert-breakpoints off",
		"-gdb-set may-call-functions off",
		// The relay listens before GDB starts: fail at once, not after
		// GDB's 15 s of connection retries.
		"-gdb-set tcp auto-retry off",
		"-target-select remote " + relayAddr,
	}
	for _, cmd := range setup {
		if _, err := g.Run(ctx, cmd); err != nil {
			g.Close()
			var ge *Error
			if errors.As(err, &ge) {
				return nil, fmt.Errorf("gdbmi: start: %s: %w", cmd, err)
			}
			return nil, err // already says gdbmi and the command
		}
	}
	return g, nil
}

// Launch starts `gdb --interpreter=mi3 -nx -q exe` with no set-up and no
// target: the caller drives it with Run and RunStop. Start uses it; the
// benchmarks use it to drive a GDB that controls a gdbserver itself.
func (c Config) Launch(ctx context.Context, exe string) (*GDB, error) {
	path := c.Path
	if path == "" {
		path = defaultPath
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("gdbmi: %w", err)
	}
	g := &GDB{stdin: w, threads: map[int64]string{}, resp: make(chan Record, 1), stops: make(chan Record, 1)}
	p, err := proc.Start(ctx, proc.Config{
		Path:      path,
		Args:      []string{"--interpreter=mi3", "-nx", "-q", "-iex", "set debuginfod enabled off", exe},
		Env:       c.Env,
		Stdin:     r,
		KeepLines: 200,
		OnLine:    g.onLine,
	})
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("gdbmi: %w", err)
	}
	g.p = p
	return g, nil
}

// onLine receives every output line of gdb (from proc's drain goroutine).
func (g *GDB) onLine(l proc.Line) {
	if l.Stderr {
		return
	}
	rec, err := ParseRecord(l.Text)
	if err != nil {
		return // not MI (the inferior cannot print here; ignore noise)
	}
	g.out.Lock()
	defer g.out.Unlock()
	switch rec.Kind {
	case KindConsole, KindLog:
		if g.waiting != "" {
			g.streams = append(g.streams, rec.Text)
		}
	case KindResult:
		if rec.Token != "" && rec.Token == g.waiting {
			g.waiting = ""
			g.resp <- rec // capacity 1, and only one command waits
		}
	case KindExec:
		if rec.Class == "stopped" && g.wantStop {
			g.wantStop = false
			g.stops <- rec // capacity 1, and only one RunStop waits
		}
	}
}

// RunStop sends an execution command (-exec-continue, -exec-next,
// -exec-finish, …) and waits for its ^running and the *stopped record that
// follows, which it returns. The relay refuses these; RunStop is for a GDB
// started with Launch against a server it may control.
func (g *GDB) RunStop(ctx context.Context, cmd string) (Record, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.out.Lock()
	g.wantStop = true
	g.out.Unlock()
	defer func() {
		g.out.Lock()
		g.wantStop = false
		g.out.Unlock()
	}()
	rec, _, err := g.run(ctx, cmd)
	if err != nil {
		return rec, err
	}
	if rec.Class != "running" {
		return rec, fmt.Errorf("gdbmi: %s: answered ^%s, not ^running", cmd, rec.Class)
	}
	select {
	case st := <-g.stops:
		return st, nil
	case <-g.p.Done():
		return Record{}, g.fail(fmt.Errorf("gdbmi: %s: %w", cmd, g.exitReason(nil)))
	case <-ctx.Done():
		g.fail(fmt.Errorf("gdbmi: %s: gdb was stopped after %w", cmd, ctx.Err()))
		return Record{}, fmt.Errorf("gdbmi: %s: %w (%w: it was stopped)", cmd, ctx.Err(), ErrClosed)
	}
}

// Run sends one MI command and returns its result record (class done,
// connected, running or exit). An ^error reply is returned as *Error. On
// deadline or cancellation GDB is stopped (its state is unknown): the error
// wraps both the context's error and ErrClosed, and later calls fail with
// ErrClosed.
func (g *GDB) Run(ctx context.Context, cmd string) (Record, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rec, _, err := g.run(ctx, cmd)
	return rec, err
}

// run is Run without the lock; it also returns the console text GDB printed.
func (g *GDB) run(ctx context.Context, cmd string) (Record, string, error) {
	if g.dead != nil {
		return Record{}, "", g.dead
	}
	g.next++
	token := strconv.Itoa(g.next)
	g.out.Lock()
	g.waiting, g.streams = token, nil
	g.out.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		g.stdin.SetWriteDeadline(dl)
	}
	if _, err := g.stdin.WriteString(token + cmd + "\n"); err != nil {
		// A write fails when gdb's end of the pipe is closed: gdb is
		// exiting or gone. Give the process a moment to be reaped, so
		// the error can say how it ended.
		t := time.NewTimer(time.Second)
		select {
		case <-g.p.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		return Record{}, "", g.fail(fmt.Errorf("gdbmi: %s: write: %w", cmd, g.exitReason(err)))
	}
	select {
	case rec := <-g.resp:
		g.out.Lock()
		console := strings.Join(g.streams, "")
		g.streams = nil
		g.out.Unlock()
		if rec.Class == "error" {
			return rec, console, &Error{Command: cmd, Msg: rec.String("msg")}
		}
		return rec, console, nil
	case <-g.p.Done():
		select {
		case rec := <-g.resp: // answered just before exiting (-gdb-exit)
			return rec, "", nil
		default:
		}
		return Record{}, "", g.fail(fmt.Errorf("gdbmi: %s: %w", cmd, g.exitReason(nil)))
	case <-ctx.Done():
		g.fail(fmt.Errorf("gdbmi: %s: gdb was stopped after %w", cmd, ctx.Err()))
		return Record{}, "", fmt.Errorf("gdbmi: %s: %w (%w: it was stopped)", cmd, ctx.Err(), ErrClosed)
	}
}

// exitReason describes a dead gdb with its exit status and last output.
func (g *GDB) exitReason(err error) error {
	select {
	case <-g.p.Done():
		return fmt.Errorf("%w: gdb exited with status %d; last output:\n%s", ErrClosed, g.p.ExitCode(), g.p.Tail(10))
	default:
		if err == nil {
			return ErrClosed
		}
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
}

// fail marks the GDB unusable with err and stops the process.
func (g *GDB) fail(err error) error {
	if g.dead == nil {
		g.dead = fmt.Errorf("%w: %v", ErrClosed, err)
	}
	g.stdin.Close()
	g.p.Stop(time.Second)
	return err
}

// Evaluate returns GDB's value of expr in frame (0 = innermost) of the
// target thread tid, given the way the RSP names it ("p1234.1235", "4d3";
// "" means GDB's current thread). GDB's register and memory caches are
// flushed and its library list re-read first, because the target moved
// without GDB seeing it.
func (g *GDB) Evaluate(ctx context.Context, expr string, tid string, frame int) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	opts, err := g.moved(ctx, tid, frame)
	if err != nil {
		return "", err
	}
	rec, _, err := g.run(ctx, "-data-evaluate-expression "+opts+Quote(expr))
	if err != nil {
		return "", err
	}
	v, ok := rec.Field("value")
	if !ok || v.Kind != Const {
		return "", fmt.Errorf("gdbmi: -data-evaluate-expression: %w: no value in %+v", ErrSyntax, rec)
	}
	return v.Str, nil
}

// ConsoleAt runs a CLI command (ptype EXPR) in frame of thread tid, as
// Evaluate evaluates, and returns what it printed.
func (g *GDB) ConsoleAt(ctx context.Context, command, tid string, frame int) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	opts, err := g.moved(ctx, tid, frame)
	if err != nil {
		return "", err
	}
	_, console, err := g.run(ctx, "-interpreter-exec "+opts+"console "+Quote(command))
	return console, err
}

// moved tells GDB the target moved without it: its register and memory
// caches are flushed and its library list read again. It returns the MI
// options that select frame of thread tid ("" for GDB's current thread,
// frame 0); g.mu is held.
func (g *GDB) moved(ctx context.Context, tid string, frame int) (string, error) {
	for _, cmd := range []string{
		`-interpreter-exec console "maintenance flush register-cache"`,
		`-interpreter-exec console "maintenance flush dcache"`,
		// Re-read the library list (one qXfer read): libraries loaded
		// since GDB connected would otherwise have no symbols.
		`-interpreter-exec console "sharedlibrary"`,
	} {
		if _, _, err := g.run(ctx, cmd); err != nil {
			return "", err
		}
	}
	if tid == "" && frame == 0 {
		return "", nil
	}
	id, err := g.threadID(ctx, tid)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("--thread %s --frame %d ", id, frame), nil
}

// Console runs a CLI command through MI and returns what it printed.
func (g *GDB) Console(ctx context.Context, command string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, console, err := g.run(ctx, "-interpreter-exec console "+Quote(command))
	return console, err
}

// threadID maps an RSP thread id to GDB's thread number, refreshing GDB's
// thread list (which it cannot see change) when the thread is unknown.
func (g *GDB) threadID(ctx context.Context, tid string) (string, error) {
	if tid == "" {
		rec, _, err := g.run(ctx, "-thread-list-ids")
		if err != nil {
			return "", err
		}
		if id := rec.String("current-thread-id"); id != "" {
			return id, nil
		}
		return "", fmt.Errorf("gdbmi: gdb has no current thread")
	}
	lwp, err := rspLWP(tid)
	if err != nil {
		return "", err
	}
	if id, ok := g.threads[lwp]; ok {
		return id, nil
	}
	rec, _, err := g.run(ctx, "-thread-info")
	if err != nil {
		return "", err
	}
	list, _ := rec.Field("threads")
	for _, t := range list.Values {
		id := fieldString(t, "id")
		if n, ok := targetLWP(fieldString(t, "target-id")); ok && id != "" {
			g.threads[n] = id
		}
	}
	if id, ok := g.threads[lwp]; ok {
		return id, nil
	}
	return "", fmt.Errorf("gdbmi: gdb does not know thread %s", tid)
}

func fieldString(v Value, name string) string {
	f, ok := v.Field(name)
	if !ok {
		return ""
	}
	return f.Str
}

// rspLWP returns the thread part of an RSP thread id as a number.
func rspLWP(tid string) (int64, error) {
	s := tid
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		_, t, ok := strings.Cut(rest, ".")
		if !ok {
			return 0, fmt.Errorf("gdbmi: thread id %q has no thread part", tid)
		}
		s = t
	}
	n, err := strconv.ParseInt(s, 16, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("gdbmi: bad thread id %q", tid)
	}
	return n, nil
}

// targetLWP reads the kernel thread id out of GDB's target-id for a remote
// thread: "Thread 0x7ffff7d8a740 (LWP 1235)" (thread_db), "Thread 1234.1235"
// (multiprocess), "Thread 1235", or "process 1234".
func targetLWP(s string) (int64, bool) {
	if i := strings.Index(s, "(LWP "); i >= 0 {
		rest := s[i+5:]
		if j := strings.IndexByte(rest, ')'); j >= 0 {
			n, err := strconv.ParseInt(rest[:j], 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	for _, prefix := range []string{"Thread ", "process "} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			if _, t, ok := strings.Cut(rest, "."); ok {
				rest = t
			}
			if f := strings.Fields(rest); len(f) > 0 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// Close disconnects GDB from the relay (it never detaches or kills the
// target), asks it to exit and waits; after a grace period it is killed.
// Close is idempotent.
func (g *GDB) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dead == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		g.run(ctx, "-target-disconnect")
		g.stdin.SetWriteDeadline(time.Now().Add(time.Second))
		g.stdin.WriteString("-gdb-exit\n")
		select {
		case <-g.p.Done():
		case <-ctx.Done():
		}
		cancel()
		g.dead = ErrClosed
	}
	g.stdin.Close()
	return g.p.Stop(time.Second)
}

// Pid returns gdb's process id.
func (g *GDB) Pid() int { return g.p.Pid() }
