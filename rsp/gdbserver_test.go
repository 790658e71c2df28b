package rsp_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// Integration tests against real GNU gdbserver (`gdbserver --once`), the
// forward peer of rr-rsp.md §14 and peers.md §1.

type gsTarget struct {
	t    *testing.T
	c    *rsp.Client
	srv  *proc.Process
	exe  string
	elf  *elf.File
	bias uint64 // load bias of the PIE, from auxv AT_ENTRY
	sent *gsWatch
}

// gsWatch is the packet log writer of a test: it keeps the log and closes
// seen when a line containing the armed text is written.
type gsWatch struct {
	mu   sync.Mutex
	buf  *bytes.Buffer
	want string
	seen chan struct{}
}

func (w *gsWatch) arm(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want, w.seen = s, make(chan struct{})
}

func (w *gsWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.want != "" && bytes.Contains(p, []byte(w.want)) {
		close(w.seen)
		w.want = ""
	}
	return w.buf.Write(p)
}

func (w *gsWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func gsStart(t *testing.T, prog string, args ...string) *gsTarget {
	t.Helper()
	return gsStartOpts(t, rsp.Options{}, prog, args...)
}

func gsStartOpts(t *testing.T, opts rsp.Options, prog string, args ...string) *gsTarget {
	t.Helper()
	exe := testenv.Prog(t, prog)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	srv, addr := testenv.GDBServer(t, ctx, exe, args...)
	log := &gsWatch{buf: new(bytes.Buffer)}
	opts.PacketLog = log
	c, err := rsp.Dial(ctx, addr, opts)
	if err != nil {
		t.Fatalf("dial: %v\n%s", err, srv.Tail(20))
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("packet log (tail):\n%s", gsTail(log.String(), 30))
		}
	})
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	tg := &gsTarget{t: t, c: c, srv: srv, exe: exe, elf: f, sent: log}
	auxv, err := c.Auxv(ctx)
	if err != nil {
		t.Fatalf("auxv: %v", err)
	}
	if av, err := symbols.ParseAuxv(auxv, 8, binary.LittleEndian); err == nil {
		if e, ok := av[symbols.AT_ENTRY]; ok {
			tg.bias = e - f.Entry
		}
	}
	if tg.bias == 0 && f.Type == elf.ET_DYN {
		t.Fatalf("no AT_ENTRY in auxv")
	}
	return tg
}

func gsTail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// sym returns the run-time address of a symbol.
func (tg *gsTarget) sym(name string) uint64 {
	tg.t.Helper()
	syms, err := tg.elf.Symbols()
	if err != nil {
		tg.t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value + tg.bias
		}
	}
	tg.t.Fatalf("no symbol %q in %s", name, tg.exe)
	return 0
}

func (tg *gsTarget) reg(ctx context.Context, name string) uint64 {
	tg.t.Helper()
	v, err := tg.c.ReadRegisterUint(ctx, rsp.AnyThread, name)
	if err != nil {
		tg.t.Fatalf("read %s: %v", name, err)
	}
	return v
}

func (tg *gsTarget) u32(ctx context.Context, addr uint64) uint32 {
	tg.t.Helper()
	var b [4]byte
	if _, err := tg.c.ReadMemory(ctx, addr, b[:]); err != nil {
		tg.t.Fatalf("read memory %#x: %v", addr, err)
	}
	return binary.LittleEndian.Uint32(b[:])
}

// breakAt inserts a software breakpoint at the symbol name and returns its
// run-time address.
func (tg *gsTarget) breakAt(ctx context.Context, name string) uint64 {
	tg.t.Helper()
	addr := tg.sym(name)
	if err := tg.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, addr, 0); err != nil {
		tg.t.Fatal(err)
	}
	return addr
}

// runTo inserts a software breakpoint at the symbol name and continues: the
// program must stop on it (swbreak). It returns the address and the stop.
func (tg *gsTarget) runTo(ctx context.Context, name string) (uint64, rsp.Stop) {
	tg.t.Helper()
	addr := tg.breakAt(ctx, name)
	st, err := tg.c.Continue(ctx)
	if err != nil || !st.SWBreak {
		tg.t.Fatalf("continue to %s: %v, %v", name, st, err)
	}
	return addr, st
}

func gsCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestGDBServerHandshake(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	if c.Dialect() != rsp.DialectGDBServer {
		t.Errorf("dialect = %v, want gdbserver", c.Dialect())
	}
	if !c.NoAckMode() {
		t.Error("no-ack mode not negotiated")
	}
	if !c.Multiprocess() {
		t.Error("multiprocess not negotiated")
	}
	if c.PacketSize() != 0x47ff {
		t.Errorf("PacketSize = %#x, want 0x47ff (hex parse of gdbserver's 47ff)", c.PacketSize())
	}
	if f := c.Features(); f["qXfer:libraries-svr4:read"] != "+" {
		t.Errorf("features lack qXfer:libraries-svr4:read+: %v", f)
	}
	td := c.Target()
	if td == nil {
		t.Fatal("no target description")
	}
	if td.Architecture != "i386:x86-64" {
		t.Errorf("architecture = %q", td.Architecture)
	}
	for name, num := range map[string]int{"rax": 0, "rbp": 6, "rsp": 7, "rip": 16, "eflags": 17} {
		r, ok := td.Lookup(name)
		if !ok || r.Regnum != num {
			t.Errorf("Lookup(%s) = %+v, %v; want regnum %d", name, r, ok, num)
		}
	}
	if r, _ := td.Lookup("rip"); r.Offset != 16*8 {
		t.Errorf("rip offset = %d, want 128", r.Offset)
	}
	// The initial stop carries expedited rsp (07) and rip (10); they must
	// agree with the g layout computed from target.xml.
	st := c.LastStop()
	if st.Signal != rsp.SIGTRAP || st.Thread.Pid == 0 {
		t.Fatalf("initial stop = %+v", st)
	}
	g, err := c.ReadRegisters(ctx, rsp.AnyThread)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != td.Size {
		t.Errorf("g is %d bytes, target description says %d", len(g), td.Size)
	}
	for name, num := range map[string]int{"rsp": 7, "rip": 16} {
		v, err := td.Value(g, name)
		if err != nil {
			t.Fatal(err)
		}
		if exp := st.Registers[num]; !bytes.Equal(v, exp) {
			t.Errorf("%s from g = %x, expedited = %x", name, v, exp)
		}
	}
	exe, err := c.ExecFile(ctx, c.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(exe, "/counter") {
		t.Errorf("exec file = %q", exe)
	}
	ths, err := c.Threads(ctx)
	if err != nil || len(ths) != 1 || ths[0] != st.Thread {
		t.Errorf("threads = %v, %v; want [%v]", ths, err, st.Thread)
	}
	if cur, err := c.CurrentThread(ctx); err != nil || cur != st.Thread {
		t.Errorf("qC = %v, %v", cur, err)
	}
	if !strings.Contains(tg.sent.String(), "-> qSupported:multiprocess+") {
		t.Errorf("packet log lacks the qSupported request:\n%s", tg.sent.String())
	}
}

func TestGDBServerBreakpointMemory(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	hit, hits := tg.breakAt(ctx, "hit"), tg.sym("hits")
	for i := range 3 {
		st, err := c.Continue(ctx)
		if err != nil {
			t.Fatalf("continue %d: %v", i, err)
		}
		if st.Signal != rsp.SIGTRAP || !st.SWBreak {
			t.Fatalf("stop %d = %v, want SIGTRAP swbreak", i, st)
		}
		if pc := tg.reg(ctx, "rip"); pc != hit {
			t.Fatalf("stop %d: pc = %#x, want hit at %#x", i, pc, hit)
		}
		// hit(i): the argument is in rdi and the global counts earlier calls,
		// which also proves the client stepped over the breakpoint each time.
		if rdi := tg.reg(ctx, "rdi"); rdi != uint64(i) {
			t.Errorf("stop %d: rdi = %d", i, rdi)
		}
		if n := tg.u32(ctx, hits); n != uint32(i) {
			t.Errorf("stop %d: hits = %d", i, n)
		}
	}
	// Memory: read a string, write it, read it back; a large read spans
	// several m packets (PacketSize 0x47ff → ~9 KiB per packet).
	greeting := tg.sym("greeting")
	buf := make([]byte, 5)
	if _, err := c.ReadMemory(ctx, greeting, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("greeting = %q, %v", buf, err)
	}
	if err := c.WriteMemory(ctx, greeting, []byte("H$#}*")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadMemory(ctx, greeting, buf); err != nil || string(buf) != "H$#}*" {
		t.Fatalf("after write greeting = %q, %v", buf, err)
	}
	bytesAddr := tg.sym("bytes")
	// The first three read-only/text segments are mapped from file offset 0
	// at vaddr == offset: 12 KiB, more than one m packet (PacketSize 0x47ff
	// holds ~9 KiB), and memory must equal the file (gdbserver hides int3s).
	const span = 0x3000
	want := make([]byte, span)
	raw, err := os.ReadFile(tg.exe)
	if err != nil {
		t.Fatal(err)
	}
	copy(want, raw)
	big := make([]byte, span)
	if n, err := c.ReadMemory(ctx, tg.bias, big); err != nil || n != span {
		t.Fatalf("read first %#x bytes of the image: %d, %v", span, n, err)
	}
	if !bytes.Equal(big, want) {
		t.Errorf("memory of the image differs from the ELF file")
	}
	if !strings.Contains(tg.sent.String(), "-> m"+strconv.FormatUint(tg.bias+uint64((c.PacketSize()-32)/2), 16)) {
		t.Errorf("the %#x-byte read was not split by packet size", span)
	}
	var arr [64]byte
	if _, err := c.ReadMemory(ctx, bytesAddr, arr[:]); err != nil {
		t.Fatal(err)
	}
	for i, b := range arr {
		if int(b) != i {
			t.Fatalf("bytes[%d] = %d (RLE-decoded reply wrong?)", i, b)
		}
	}
	// Unreadable memory is an *rsp.Error.
	var e *rsp.Error
	if _, err := c.ReadMemory(ctx, 0, buf); !errors.As(err, &e) {
		t.Errorf("read at 0: %v, want *rsp.Error", err)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, hit, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, hit, 0); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("second remove: %v, want ErrRefused", err)
	}
	st, err := c.Continue(ctx)
	if err != nil || st.Kind != rsp.StopExited || st.ExitCode != 0 || st.Pid != c.Pid() {
		t.Fatalf("run to end = %+v, %v", st, err)
	}
	if _, err := c.Continue(ctx); !errors.Is(err, rsp.ErrExited) {
		t.Errorf("continue after exit: %v, want ErrExited", err)
	}
}

func TestGDBServerStep(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	square, _ := tg.runTo(ctx, "square")
	sp0 := tg.reg(ctx, "rsp")
	// square starts with push %rbp (a one-byte instruction): one step moves
	// the pc by one and the stack pointer by 8.
	st, err := c.Step(ctx, rsp.AnyThread)
	if err != nil {
		t.Fatal(err)
	}
	if st.Signal != rsp.SIGTRAP || st.SWBreak {
		t.Errorf("step stop = %v", st)
	}
	if pc := tg.reg(ctx, "rip"); pc != square+1 {
		t.Errorf("after step pc = %#x, want %#x", pc, square+1)
	}
	if sp := tg.reg(ctx, "rsp"); sp != sp0-8 {
		t.Errorf("after step rsp = %#x, want %#x", sp, sp0-8)
	}
}

// hwVerdict is the hardware debug register probe's verdict, once per
// test binary.
var hwVerdict = sync.OnceValue(func() hwdebug.Verdict {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return hwdebug.Probe(ctx)
})

// insertProbed inserts a Z1-Z4 point and reports whether the caller should
// go on to check that it fires. Where the probe says the debug registers
// do not fire (fires false), it proves that claim instead: the insert is
// refused as refusedDebugRegister describes, or the program runs to its
// end without a stop.
func (tg *gsTarget) insertProbed(ctx context.Context, typ rsp.BreakpointType, addr uint64, kind int, fires bool, what, reason string) bool {
	t := tg.t
	t.Helper()
	err := tg.c.InsertBreakpoint(ctx, typ, addr, kind)
	if !fires {
		t.Logf("proving: %s do not fire here (%s)", what, reason)
		if err != nil {
			if !refusedDebugRegister(err) {
				t.Fatal(err)
			}
			return false // refused, as the probe saw
		}
		st, err := tg.c.Continue(ctx)
		if err != nil || st.Kind != rsp.StopExited {
			t.Fatalf("probe says %s do not fire, but continue stopped with %v, %v", what, st, err)
		}
		return false
	}
	t.Logf("proving: %s fire (%s)", what, reason)
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// TestGDBServerWatchpoint: where the probe says the debug registers fire,
// Z2 and Z4 stop at the writes; where it says they do not (VMs that
// ignore them), the watchpoint is accepted and the program runs to its
// end without a stop, which is what the probe claimed (the session then
// uses software watchpoints, proven in tools' TestLiveWatchpointPaths).
func TestGDBServerWatchpoint(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	total := tg.sym("total")
	v := hwVerdict()
	if !tg.insertProbed(ctx, rsp.WriteWatchpoint, total, 8, v.Watch, "hardware watchpoints", v.Reason) {
		return
	}
	// hit(0) adds 0 (x86 debug registers still fire on the store), so
	// accept the first or second store, then check the value changed.
	for range 3 {
		st, err := c.Continue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Watch != rsp.WatchWrite || st.WatchAddr != total {
			t.Fatalf("stop = %v, want watch at %#x", st, total)
		}
	}
	var b [8]byte
	if _, err := c.ReadMemory(ctx, total, b[:]); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint64(b[:]); v != 0+1+2 {
		t.Errorf("total after three watch stops = %d, want 3", v)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.WriteWatchpoint, total, 8); err != nil {
		t.Fatal(err)
	}
	if err := c.InsertBreakpoint(ctx, rsp.AccessWatchpoint, total, 8); err != nil {
		t.Fatal(err)
	}
	st, err := c.Continue(ctx)
	if err != nil || st.Watch == rsp.WatchNone || st.WatchAddr != total {
		t.Fatalf("access watch stop = %v, %v", st, err)
	}
}

func TestGDBServerThreads(t *testing.T) {
	tg := gsStart(t, "race")
	ctx := gsCtx(t)
	c := tg.c
	bump, st := tg.runTo(ctx, "bump")
	ths, err := c.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ths) < 2 {
		t.Fatalf("threads = %v, want main and at least one worker", ths)
	}
	found := false
	for _, th := range ths {
		if th.Pid != c.Pid() {
			t.Errorf("thread %v not in process %x", th, c.Pid())
		}
		found = found || th == st.Thread
		// Each thread's registers can be read through Hg.
		if _, err := c.ReadRegisters(ctx, th); err != nil {
			t.Errorf("registers of %v: %v", th, err)
		}
	}
	if !found {
		t.Errorf("stopped thread %v not in %v", st.Thread, ths)
	}
	if st.Thread.Tid == st.Thread.Pid {
		t.Errorf("breakpoint in bump reported for the main thread %v", st.Thread)
	}
	pc, err := c.ReadRegisterUint(ctx, st.Thread, "rip")
	if err != nil || pc != bump {
		t.Errorf("worker pc = %#x, %v; want %#x", pc, err, bump)
	}
}

func TestGDBServerExitStatus(t *testing.T) {
	tg := gsStart(t, "off_by_one")
	ctx := gsCtx(t)
	st, err := tg.c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != rsp.StopExited || st.ExitCode != 1 || st.Pid != tg.c.Pid() || !tg.c.Exited() {
		t.Fatalf("stop = %+v, want exit code 1 of %x", st, tg.c.Pid())
	}
}

func TestGDBServerSignal(t *testing.T) {
	tg := gsStart(t, "null_deref")
	ctx := gsCtx(t)
	st, err := tg.c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGSEGV || st.Signal.String() != "SIGSEGV" {
		t.Fatalf("stop = %v, want SIGSEGV", st)
	}
	// Deliver the signal: the process dies with X0b.
	st, err = tg.c.ContinueWithSignal(ctx, st.Thread, st.Signal)
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != rsp.StopTerminated || st.Signal != rsp.SIGSEGV {
		t.Fatalf("stop = %+v, want terminated by SIGSEGV", st)
	}
}

func TestGDBServerInterrupt(t *testing.T) {
	tg := gsStart(t, "deadlock")
	c := tg.c
	ctx, cancel := context.WithTimeout(gsCtx(t), 300*time.Millisecond)
	defer cancel()
	st, err := c.Continue(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("continue = %v, %v; want deadline exceeded", st, err)
	}
	if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGINT || !st.Interrupted {
		t.Fatalf("stop = %+v, want SIGINT after interrupt", st)
	}
	// The stream is in sync: ordinary requests work.
	ctx2 := gsCtx(t)
	ths, err := c.Threads(ctx2)
	if err != nil || len(ths) != 3 {
		t.Fatalf("threads = %v, %v; want 3 (main + 2 deadlocked)", ths, err)
	}
	if _, err := c.ReadRegisters(ctx2, rsp.AnyThread); err != nil {
		t.Fatal(err)
	}
	// Interrupt from another goroutine, once the packet log shows the
	// resume went out.
	tg.sent.arm("-> vCont;c")
	go func() {
		select {
		case <-tg.sent.seen:
			c.Interrupt()
		case <-ctx2.Done():
		}
	}()
	st, err = c.Continue(ctx2)
	if err != nil || st.Signal != rsp.SIGINT {
		t.Fatalf("second continue = %v, %v", st, err)
	}
	// An interrupt while stopped (the race a cancel can lose) must not
	// desynchronise the stream.
	if err := c.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if ths, err := c.Threads(ctx2); err != nil || len(ths) != 3 {
		t.Fatalf("threads after a stray interrupt = %v, %v", ths, err)
	}
	pid := int(c.Pid())
	if err := c.Kill(ctx2); err != nil {
		t.Fatalf("kill: %v", err)
	}
	gsWaitGone(t, tg.srv, pid)
}

// waitGone checks that gdbserver exited and the inferior is gone.
func gsWaitGone(t *testing.T, srv *proc.Process, pid int) {
	t.Helper()
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("gdbserver still running")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		// A zombie reaped late still answers; check /proc state.
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); len(b) > 0 && !bytes.Contains(b, []byte(") Z")) {
			t.Errorf("inferior %d still alive: %s", pid, b)
		}
	}
}

func TestGDBServerDetach(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	pid := int(tg.c.Pid())
	if err := tg.c.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	// After a detach the program runs to completion by itself.
	gsWaitGone(t, tg.srv, pid)
	if !strings.Contains(tg.srv.Tail(10), "done") {
		t.Errorf("program output after detach lacks 'done':\n%s", tg.srv.Tail(10))
	}
	if _, err := tg.c.Threads(ctx); !errors.Is(err, rsp.ErrClosed) {
		t.Errorf("request after detach: %v, want ErrClosed", err)
	}
}

func TestGDBServerLibrariesVFile(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	tg.runTo(ctx, "main")
	doc, err := c.ReadXfer(ctx, "libraries-svr4", "")
	if err != nil {
		t.Fatal(err)
	}
	// the whole document, joined from its chunks: libc and the main
	// program's link map
	if d := string(doc); !strings.HasPrefix(d, "<library-list-svr4") || !strings.Contains(d, "libc.so") ||
		!strings.Contains(d, `main-lm="0x`) || !strings.HasSuffix(strings.TrimSpace(d), "</library-list-svr4>") {
		t.Errorf("libraries-svr4 = %q, want a whole list with libc and main-lm", d)
	}
	if err := c.VFileSetFS(ctx, 0); err != nil {
		t.Fatal(err)
	}
	data, err := c.ReadFile(ctx, tg.exe, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(tg.exe)
	if !bytes.Equal(data, want) {
		t.Errorf("vFile read %d bytes, file has %d (escapes/RLE in binary replies?)", len(data), len(want))
	}
	var fe *rsp.FileError
	if _, err := c.VFileOpen(ctx, "/nonexistent/file", 0, 0); !errors.As(err, &fe) || fe.Errno != 2 {
		t.Errorf("open missing file: %v, want FileError errno 2", err)
	}
	help, err := c.Monitor(ctx, "help")
	if err != nil || !strings.Contains(help, "monitor commands") {
		t.Errorf("monitor help = %q, %v", help, err)
	}
	if err := c.PassSignals(ctx, rsp.SIGALRM, rsp.SIGCHLD); err != nil {
		t.Errorf("QPassSignals: %v", err)
	}
	// A raw monitor command: its O packets are output, read to the
	// final OK, so the next request reads its own reply (the first O
	// packet was taken for the reply, and every later reply was the one
	// before it).
	reply, out, err := c.ExchangeOutput(ctx, "qRcmd,"+hex.EncodeToString([]byte("help")), false)
	if err != nil || reply != "OK" || string(out) != help {
		t.Errorf("ExchangeOutput(qRcmd help) = %q, output %q, %v; want OK and Monitor's %q", reply, out, err, help)
	}
	if r, err := c.Exchange(ctx, "qRcmd,"+hex.EncodeToString([]byte("help")), false); err != nil || r != "OK" {
		t.Errorf("Exchange(qRcmd help) = %q, %v; want OK", r, err)
	}
	if r, err := c.Exchange(ctx, "qC", false); err != nil || !strings.HasPrefix(r, "QC") {
		t.Errorf("Exchange(qC) after the monitor commands = %q, %v; want its own QC reply", r, err)
	}
	// Exchange refuses resumes unless asked.
	if _, err := c.Exchange(ctx, "vCont;c", false); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("Exchange(vCont;c) = %v, want ErrRefused", err)
	}
	if r, err := c.Exchange(ctx, "p10", false); err != nil || r != "" {
		t.Errorf("Exchange(p10) = %q, %v; gdbserver x86-64 has no p", r, err)
	}
	// gdbserver has no p; ReadRegister falls back to the g layout.
	if b, err := c.ReadRegister(ctx, rsp.AnyThread, 16); err != nil || binary.LittleEndian.Uint64(b) != tg.sym("main") {
		t.Errorf("ReadRegister(16) = %x, %v", b, err)
	}
	if _, err := c.ReverseContinue(ctx); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("bc on gdbserver = %v, want ErrRefused (not advertised)", err)
	}
}

// TestGDBServerHardwareBreakpoint: Z1 stops with hwbreak where the probe
// says hardware breakpoints fire; elsewhere the program runs past it, as
// the probe claimed (rrmcp's breakpoints are Z0 software breakpoints).
func TestGDBServerHardwareBreakpoint(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	square := tg.sym("square")
	v := hwVerdict()
	if !tg.insertProbed(ctx, rsp.HardwareBreakpoint, square, 0, v.Break, "hardware breakpoints", v.Reason) {
		return
	}
	// stop waits for square(i) at its hardware breakpoint.
	stop := func(i int) {
		t.Helper()
		st, err := c.Continue(ctx)
		if err != nil || !st.HWBreak || st.SWBreak {
			t.Fatalf("stop %d = %v, %v; want hwbreak", i, st, err)
		}
		if pc := tg.reg(ctx, "rip"); pc != square {
			t.Fatalf("stop %d: pc %#x, want %#x", i, pc, square)
		}
		if rdi := tg.reg(ctx, "rdi"); rdi != uint64(i) {
			t.Errorf("stop %d: square(%d), want square(%d)", i, rdi, i)
		}
	}
	// removals counts the z1 packets sent so far: each is one
	// remove/step/insert dance.
	removals := func() int { return strings.Count(tg.sent.String(), fmt.Sprintf("-> z1,%x,", square)) }
	stop(0)
	stop(1)
	stop(2)
	// From a hardware breakpoint's own stop the resume flag passes it:
	// the continues were plain resumes, no dance.
	if n := removals(); n != 0 {
		t.Errorf("%d removals of the hardware breakpoint to resume from it, want none (the resume flag passes it):\n%s", n, tg.sent.String())
	}
	// A register written since the stop may have cleared the flag: the
	// dance, and still the next call, not this one again.
	rdi := tg.reg(ctx, "rdi")
	if err := c.WriteRegister(ctx, rsp.AnyThread, 5, binary.LittleEndian.AppendUint64(nil, rdi)); err != nil {
		t.Fatal(err)
	}
	stop(3)
	if n := removals(); n != 1 {
		t.Errorf("%d removals after a register write, want 1 (the dance)", n)
	}
	// A single-step that lands on a hardware breakpoint is no hit of it
	// (no resume flag): resuming from there must step over it, not
	// report it again. The step from square lands on its second
	// instruction, where a second hardware breakpoint waits.
	code := make([]byte, 16)
	if _, err := c.ReadMemory(ctx, square, code); err != nil {
		t.Fatal(err)
	}
	in, err := x86code.Decode(code, 64)
	if err != nil {
		t.Fatal(err)
	}
	second := square + uint64(in.Len)
	if err := c.InsertBreakpoint(ctx, rsp.HardwareBreakpoint, second, 1); err != nil {
		t.Skipf("a second hardware breakpoint: %v", err)
	}
	if st, err := c.Step(ctx, rsp.Thread{}); err != nil || st.HWBreak {
		t.Fatalf("step onto the second breakpoint: %v, %v; want a plain step stop", st, err)
	}
	if pc := tg.reg(ctx, "rip"); pc != second {
		t.Fatalf("step: pc %#x, want %#x", pc, second)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.HardwareBreakpoint, square, 1); err != nil {
		t.Fatal(err)
	}
	st, err := c.Continue(ctx)
	if err != nil || !st.HWBreak {
		t.Fatalf("continue from the step's stop: %v, %v", st, err)
	}
	if rdi := tg.reg(ctx, "rdi"); rdi != 4 {
		t.Errorf("after the step onto the second breakpoint the continue stopped in square(%d), want square(4) (the same call reported twice?)", rdi)
	}
}

// The ack path against a real server: gdbserver verifies checksums and
// expects '+' for each of its packets when no-ack mode is not negotiated.
func TestGDBServerAckMode(t *testing.T) {
	tg := gsStartOpts(t, rsp.Options{KeepAckMode: true}, "counter")
	ctx := gsCtx(t)
	c := tg.c
	if c.NoAckMode() {
		t.Fatal("no-ack mode negotiated despite KeepAckMode")
	}
	tg.breakAt(ctx, "hit")
	for i := range 2 {
		if st, err := c.Continue(ctx); err != nil || !st.SWBreak {
			t.Fatalf("continue %d: %v, %v", i, st, err)
		}
	}
	if n := tg.u32(ctx, tg.sym("hits")); n != 1 {
		t.Errorf("hits = %d, want 1", n)
	}
	if err := c.WriteMemory(ctx, tg.sym("greeting"), []byte("}*$#")); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	if _, err := c.ReadMemory(ctx, tg.sym("greeting"), b[:]); err != nil || string(b[:]) != "}*$#" {
		t.Fatalf("greeting = %q, %v", b, err)
	}
	if strings.Contains(tg.sent.String(), "retransmit") || strings.Contains(tg.sent.String(), "NAK") {
		t.Errorf("retransmissions in the log:\n%s", tg.sent.String())
	}
}

// gdbserver on x86-64 has neither p nor P: WriteRegister falls back to a
// g/G read-modify-write, and the value sticks.
func TestGDBServerWriteRegister(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	rax, _ := c.Target().Lookup("rax")
	val := []byte{0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0}
	if err := c.WriteRegister(ctx, rsp.AnyThread, rax.Regnum, val); err != nil {
		t.Fatal(err)
	}
	if v := tg.reg(ctx, "rax"); v != 0xdeadbeef {
		t.Errorf("rax = %#x after write", v)
	}
	if !strings.Contains(tg.sent.String(), "-> G") {
		t.Errorf("no G fallback in the packet log")
	}
	// The stop reply's value of a written register is not offered as the
	// register's any more (a stop's pc is read from it).
	rbp, _ := c.Target().Lookup("rbp")
	if _, ok := c.LastStop().Register(rbp); !ok {
		t.Fatalf("the stop reply carried no rbp: %+v", c.LastStop())
	}
	if err := c.WriteRegister(ctx, rsp.AnyThread, rbp.Regnum, binary.LittleEndian.AppendUint64(nil, 0x1234)); err != nil {
		t.Fatal(err)
	}
	if v, ok := c.LastStop().Register(rbp); ok {
		t.Errorf("after a write of rbp the stop reply still says %#x", v)
	}
}

// refusedDebugRegister reports whether err is gdbserver saying it could not
// give a Z1-Z4 request a hardware debug register, which it says in exactly
// two ways (server.c, the Z/z case): an empty reply when the target has no
// such point type (insert_point returned 1) and E01 (write_enn) when
// inserting failed, e.g. all four x86 debug registers taken or a VM whose
// ptrace refuses DR7. Any other error, an "E.text" included, is a failure.
func refusedDebugRegister(err error) bool {
	var e *rsp.Error
	return errors.Is(err, rsp.ErrUnsupported) || errors.As(err, &e) && e.Code == 1 && e.Text == ""
}

// gsAtHitAgain starts counter with opts, runs it to hit() and, after
// reading its stack pointer there, to hit() once more, so that no
// registers are cached: the stop, and that stack pointer (the frame is
// the same).
func gsAtHitAgain(t *testing.T, opts rsp.Options) (*gsTarget, context.Context, rsp.Stop, uint64) {
	t.Helper()
	tg := gsStartOpts(t, opts, "counter")
	ctx := gsCtx(t)
	tg.runTo(ctx, "hit")
	sp := tg.reg(ctx, "rsp") // reads g, which is then cached: resume to drop it
	st, err := tg.c.Continue(ctx)
	if err != nil || !st.SWBreak {
		t.Fatalf("continue: %v, %v", st, err)
	}
	return tg, ctx, st, sp
}

// TestGDBServerReadRegistersMemory: the registers and a block of stack
// read together equal what ReadRegisters and ReadMemory read apart; in
// no-ack mode the requests go out in one batch (one round trip: the log
// marks the memory request "pipelined"), with acks one after the other.
func TestGDBServerReadRegistersMemory(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      rsp.Options
		pipelined bool
	}{{"noack", rsp.Options{}, true}, {"ack", rsp.Options{KeepAckMode: true}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			tg, ctx, st, sp := gsAtHitAgain(t, tc.opts)
			c := tg.c
			mark := len(tg.sent.String())
			both, data := make([]byte, 512), make([]byte, 64)
			dataAddr := tg.sym("bytes")
			reads := []rsp.MemRead{{Addr: sp, P: both}, {Addr: dataAddr, P: data}}
			g, err := c.ReadRegistersMemory(ctx, st.Thread, reads)
			if err != nil || reads[0].Err != nil || reads[0].N != len(both) || reads[1].Err != nil || reads[1].N != len(data) {
				t.Fatalf("ReadRegistersMemory: %+v, %v", reads, err)
			}
			log := tg.sent.String()[mark:]
			if strings.Contains(log, "(pipelined)") != tc.pipelined {
				t.Errorf("pipelined %v wanted; packet log:\n%s", tc.pipelined, log)
			}
			apart, dataApart := make([]byte, 512), make([]byte, 64)
			if _, err := c.ReadMemory(ctx, sp, apart); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ReadMemory(ctx, dataAddr, dataApart); err != nil || !bytes.Equal(data, dataApart) {
				t.Errorf("the second read of the batch: %x, apart %x (%v)", data, dataApart, err)
			}
			g2, err := c.ReadRegisters(ctx, st.Thread)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g, g2) || !bytes.Equal(both, apart) {
				t.Errorf("read together: registers %x, memory %x\nread apart: %x, %x", g, both, g2, apart)
			}
			// An unreadable block: the registers still come, the memory
			// read fails alone.
			if st, err = c.Continue(ctx); err != nil || !st.SWBreak {
				t.Fatalf("continue: %v, %v", st, err)
			}
			reads = []rsp.MemRead{{Addr: 0, P: both[:64]}, {Addr: sp, P: both[64:128]}}
			g3, err := c.ReadRegistersMemory(ctx, st.Thread, reads)
			var re *rsp.Error
			if err != nil || len(g3) != len(g) || !errors.As(reads[0].Err, &re) || reads[1].Err != nil || reads[1].N != 64 {
				t.Errorf("unreadable block: %d register bytes, reads %+v, error %v; want registers, an *rsp.Error, then the good read", len(g3), reads, err)
			}
			if _, err := c.ReadMemory(ctx, sp, apart[:8]); err != nil {
				t.Errorf("the connection after the batch: %v", err)
			}
		})
	}
}

// TestGDBServerPrefetch: a prefetch sends the registers' and the reads'
// requests together and returns at once; the next request reads their
// replies first (the registers are then cached: no second g), and done
// gets what a ReadRegistersMemory would have; a resume after a prefetch
// reads its replies before resuming; an unreadable block fails alone. With
// acks there is no prefetch.
func TestGDBServerPrefetch(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts rsp.Options
		ok   bool
	}{{"noack", rsp.Options{}, true}, {"ack", rsp.Options{KeepAckMode: true}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			tg, ctx, st, sp := gsAtHitAgain(t, tc.opts)
			c := tg.c
			mark := len(tg.sent.String())
			stack, data := make([]byte, 256), make([]byte, 64)
			dataAddr := tg.sym("bytes")
			var (
				calls int
				gotG  []byte
				got   []rsp.MemRead
				gotE  error
			)
			done := func(g []byte, reads []rsp.MemRead, err error) { calls, gotG, got, gotE = calls+1, g, reads, err }
			ok := c.Prefetch(ctx, st.Thread, []rsp.MemRead{{Addr: sp, P: stack}, {Addr: dataAddr, P: data}}, done)
			if ok != tc.ok {
				t.Fatalf("Prefetch = %v, want %v", ok, tc.ok)
			}
			log := tg.sent.String()[mark:]
			if !tc.ok {
				if log != "" {
					t.Errorf("a refused prefetch sent:\n%s", log)
				}
				return
			}
			if !strings.Contains(log, "(pipelined)") || calls != 0 {
				t.Fatalf("after Prefetch: done called %d times; packet log:\n%s", calls, log)
			}
			g, err := c.ReadRegisters(ctx, st.Thread)
			if err != nil || calls != 1 || gotE != nil || !bytes.Equal(g, gotG) {
				t.Fatalf("ReadRegisters after the prefetch: %v; done called %d times, %v, registers equal %v", err, calls, gotE, bytes.Equal(g, gotG))
			}
			if n := strings.Count(tg.sent.String()[mark:], "-> g\n"); n != 1 {
				t.Errorf("g sent %d times, want once (the prefetch's):\n%s", n, tg.sent.String()[mark:])
			}
			apart, dataApart := make([]byte, 256), make([]byte, 64)
			if _, err := c.ReadMemory(ctx, sp, apart); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ReadMemory(ctx, dataAddr, dataApart); err != nil {
				t.Fatal(err)
			}
			if got[0].N != len(stack) || got[1].N != len(data) || !bytes.Equal(stack, apart) || !bytes.Equal(data, dataApart) {
				t.Errorf("prefetched %+v: stack %x data %x; read apart %x %x", got, stack, data, apart, dataApart)
			}
			// A resume right after a prefetch: its replies are read first.
			if st, err = c.Continue(ctx); err != nil || !st.SWBreak { // the registers are read: drop them
				t.Fatalf("continue: %v, %v", st, err)
			}
			calls = 0
			if !c.Prefetch(ctx, st.Thread, []rsp.MemRead{{Addr: 0, P: make([]byte, 64)}, {Addr: sp, P: stack[:64]}}, done) {
				t.Fatal("second Prefetch refused")
			}
			st2, err := c.Continue(ctx)
			if err != nil || !st2.SWBreak || calls != 1 {
				t.Fatalf("continue after a prefetch: %v, %v; done called %d times", st2, err, calls)
			}
			var re *rsp.Error
			if gotE != nil || !errors.As(got[0].Err, &re) || got[1].Err != nil || got[1].N != 64 {
				t.Errorf("unreadable block: reads %+v, error %v; want an *rsp.Error, then the good read", got, gotE)
			}
			if _, err := c.ReadMemory(ctx, sp, apart[:8]); err != nil {
				t.Errorf("the connection after the prefetch: %v", err)
			}
		})
	}
}
