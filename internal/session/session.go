package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
	"github.com/rrmcp/rrmcp/dwarf/eval"
	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/inferior"
	"github.com/rrmcp/rrmcp/internal/outlog"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/sources"
	"github.com/rrmcp/rrmcp/rsp"
)

// Session is one debugging session: a connection to a debug server plus
// the symbols of the debuggee. Its methods are safe for concurrent use;
// operations are serialized, and each is bounded by its RR_MCP_TIMEOUT_*.
type Session struct {
	id   string
	m    *Manager
	kind Kind
	caps Caps
	addr string        // the server's address; "" with conn
	conn net.Conn      // the connection to a server started on a socket pair (live gdbserver)
	srv  *proc.Process // gdbserver; nil for rr and connect
	// ipa is the in-process agent preloaded into a live program (its
	// path; "" without), ipaSyms that gdbserver was told its symbols
	// (qSymbol; fasttrace.go), ipaAsked how many it asked for.
	ipa        string
	ipaSyms    bool
	ipaAsked   int
	replay     *rr.Replay // rr replay; nil for live and connect
	program    string
	traceDir   string
	pid        int
	group      proc.Group // the process group the live program leads (what it forks is in it); ID 0: none of ours
	attached   bool       // live session attached to an existing process
	serverNote string     // why the debug server is not the usual one (an i386 program under qemu-i386)
	// registersNote: what the debug server does to the program's
	// registers on this processor and what was done about it
	// (hwdebug.ZMM); "" where nothing.
	registersNote string
	out           *outlog.Log // the program's stdout/stderr (live sessions that started it)
	// cancelled is where the last command the client cancelled left the
	// program (its result may never reach the client); cleared by the
	// next command.
	cancelled atomic.Pointer[Stop]
	to        Timeouts

	c        *rsp.Client
	sem      chan struct{} // one operation at a time
	running  atomic.Bool   // a resume is in flight (Interrupt may be sent); set with setRunning
	runMu    sync.Mutex    // guards resuming
	resuming chan struct{} // closed when a resume starts (see running.go)
	gone     atomic.Bool   // closed
	// unanswered: the last operation ended at its limit with replies
	// owed (the server did not answer); Info says unresponsive
	unanswered atomic.Bool
	pkts       *rsp.PacketRing // this session's packet log (resources)
	core       func()          // closes the served core dump and its relay (KindCore)

	// Everything below is guarded by sem.
	inf *inferior.Inferior // the process: registers, memory, images; nil until open
	src sources.Cache      // source files by path, read once (Rules: Config.SourceMap)

	threads []rsp.Thread // nil = not read since the last stop
	frame   int          // selected frame level (of inf.Cur)
	frames  []*dwarf.Frame
	framesT rsp.Thread // thread frames belong to
	framesI int        // the stepIn frames were unwound with
	// framesAll: frames holds the whole stack (unwindTo may stop short)
	framesAll bool
	// framesStop: why the unwinder ended the stack there, where that is
	// no normal end (Backtrace's stopped)
	framesStop string
	// stepIn is how many of the inlined calls that start at the selected
	// thread's stop pc a "step" went into without running (GDB's
	// step_into_inline_frame): shown where GDB hides them (frame 0, the
	// stop's location). Any resume, and selecting another thread, resets
	// it.
	stepIn int
	// entry is which inlined calls starting at the stop's pc the stop
	// shows (inlineEntryAt), decided when the stop is made from the
	// breakpoints there then, as GDB decides once per stop from its
	// bpstat: removing the breakpoint afterwards changes nothing until
	// the thread moves. Any resume resets it.
	entry *inlineEntry
	// halt, set during a step, next or nexti, ends it where the thread
	// is, with this message: GDB's longjmp breakpoint could not follow
	// the longjmp (longjmp.go). Each move clears it.
	halt string
	// lj caches the longjmp functions' entries in the modules key names
	// (longjmpEntries).
	lj struct {
		key   string
		addrs []uint64
	}

	bps     []*breakpoint
	nextBP  int
	exited  *rsp.Stop                     // set once the process is gone
	pending rsp.Signal                    // signal to deliver on the next continue (live)
	sigs    map[rsp.Signal]SignalHandling // signal policy changes (signals.go)
	sigSeen []string                      // signals passed without a stop but printed, for the next stop
	handing bool                          // a signal is being delivered with a return to where it came (stepsignal.go)
	gdb     *gdbFallback
	conds   map[condAt]cexpr.Expr // breakpoint conditions parsed (condTrue)
	vars    eval.Vars             // GDB's convenience variables ($name), kept across stops
	// pastSafe: per pc, whether the code from it returns without coming
	// back to it (returnsWithout), kept across stops
	pastSafe map[uint64]bool
	passed   passedSignals // passedMask's answer for the signal handling now

	tconds map[uint64]string // conditional Z0 installed per address
	temps  map[uint64]int    // temporary breakpoints (finish, next) per address
}

// acquire takes the session's operation lock, honouring ctx.
func (s *Session) acquire(ctx context.Context) error {
	if s.gone.Load() {
		return fmt.Errorf("session %s was stopped: %w", s.id, ErrNoSession)
	}
	// Short operations wait their turn; while a resume (continue, step,
	// finish…) is running, fail at once instead of waiting for it.
	for acquired := false; !acquired; {
		resumed := s.resumeStarted() // before the check: a resume starting after it closes this
		if s.running.Load() {
			return fmt.Errorf("session %s is running a command (continue, step, …); wait for it or call rr_interrupt: %w", s.id, ErrNotStopped)
		}
		select {
		case s.sem <- struct{}{}:
			acquired = true
		case <-resumed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.gone.Load() {
		<-s.sem
		return fmt.Errorf("session %s was stopped: %w", s.id, ErrNoSession)
	}
	return nil
}

func (s *Session) release() { <-s.sem }

// do runs fn under the session lock with the given time limit.
func (s *Session) do(ctx context.Context, limit time.Duration, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	s.cancelled.Store(nil)
	var err error
	if s.serverGone() && s.c.Dead() == nil {
		// gdbserver died under the program (killed, crashed): the
		// connection is dead whether or not a read has found it yet,
		// and nothing cached is to be answered from.
		s.c.Close()
	}
	if s.c != nil && !s.running.Load() {
		// A reply lost to an earlier time limit must be known before fn
		// answers from the stop's caches.
		err = s.c.Settle(ctx)
	}
	if err == nil {
		err = fn(ctx)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		s.noteCancelled(ctx, err)
	}
	if err == nil && ctx.Err() != nil {
		// The limit passed under a call that tolerated the failed reads:
		// its answer may be partial; do not keep it.
		s.invalidate()
		err = context.Cause(ctx)
	}
	if err == nil && s.c != nil && s.c.Dead() != nil {
		// The connection died under a call that tolerated the failed
		// reads (an unwind stops at unreadable memory): say so, instead
		// of answering from what was cached.
		err = fmt.Errorf("rsp: %w", s.c.Dead())
	}
	if s.c != nil && s.c.Owed() == 0 {
		s.unanswered.Store(false)
	}
	switch {
	case err == nil:
	case s.c != nil && s.c.Dead() != nil:
		err = s.deadError(err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && s.c != nil && s.c.Owed() > 0:
		s.unanswered.Store(true)
		// Not a slow answer: none (the limit passed with replies owed).
		err = fmt.Errorf("%w after %v: the debug server has not answered (%d replies owed); the session cannot be used until it does, and rrmcp declares it dead if no reply comes within %v in all: %w",
			ErrTimeout, limit, s.c.Owed(), s.to.Interrupt, err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		err = fmt.Errorf("%w after %v: %w", ErrTimeout, limit, err)
	case errors.Is(err, rsp.ErrClosed):
		err = &goneError{msg: fmt.Sprintf("the connection to the debug server is gone (%s)%s", s.serverState(), s.serverOutput()), err: err}
	default:
		err = s.resumeError(err)
	}
	return err
}

// serverGone reports whether the debug server the session started
// (gdbserver, or rr replay) has exited while the program had not
// (killed, crashed): gdbserver --once also exits after the program's
// end, which the client has seen then.
func (s *Session) serverGone() bool {
	if s.c == nil || s.c.Exited() {
		return false
	}
	var done <-chan struct{}
	switch {
	case s.srv != nil:
		done = s.srv.Done()
	case s.replay != nil:
		done = s.replay.Done()
	default:
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// goneError replaces the wire-level text of a lost connection with what
// happened to the server; it still matches rsp.ErrClosed.
type goneError struct {
	msg string
	err error
}

func (e *goneError) Error() string { return e.msg }
func (e *goneError) Unwrap() error { return e.err }

// serverState says whether the backend's process is still there.
func (s *Session) serverState() string {
	switch {
	case s.srv != nil:
		select {
		case <-s.srv.Done():
			if code := s.srv.ExitCode(); code >= 0 {
				return fmt.Sprintf("gdbserver exited with status %d", code)
			}
			return "gdbserver was killed"
		case <-time.After(200 * time.Millisecond):
			return "gdbserver is still running"
		}
	case s.replay != nil:
		select {
		case <-s.replay.Done():
			return "rr exited"
		case <-time.After(200 * time.Millisecond):
			return "rr is still running"
		}
	}
	return s.serverName()
}

// serverName names the debug server for messages.
func (s *Session) serverName() string {
	if s.addr == "" {
		return "server (gdbserver, on a socket pair)"
	}
	return "server at " + s.addr
}

// serverOutput is the last lines the backend printed, if any.
func (s *Session) serverOutput() string {
	var out string
	switch {
	case s.srv != nil:
		out = s.srv.Tail(5)
	case s.replay != nil:
		out = s.replay.Output(5)
	}
	if out = strings.TrimSpace(out); out == "" {
		return ""
	}
	return "; its last output:\n" + out
}

// idle does, between calls, what the next call would do first: it reads
// the replies the server sent to the requests a stop made ahead
// (PrefetchStop), so that the first look at the stop (its locals, a
// memory read) finds them decoded. It does nothing where the session is
// busy, running or closed.
func (s *Session) idle(ctx context.Context) {
	if s.gone.Load() || s.running.Load() {
		return
	}
	select {
	case s.sem <- struct{}{}:
	default:
		return // a call holds the session: it settles what it needs
	}
	defer s.release()
	if s.c == nil || s.running.Load() || !s.c.Prefetched() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.to.Eval)
	defer cancel()
	s.c.Settle(ctx) //nolint:errcheck // a failure shows in the next call, which settles again
}

// ID returns the session id ("s1", "s2", …).
func (s *Session) ID() string { return s.id }

// Caps returns what the session's backend can do.
func (s *Session) Caps() Caps { return s.caps }

// Info summarizes the session.
func (s *Session) Info() Info {
	state := "stopped"
	switch {
	case s.gone.Load():
		state = "closed"
	case s.running.Load():
		state = "running"
	case s.c != nil && (s.c.Dead() != nil || s.serverGone()):
		state = "dead" // the connection to the server is lost
	case s.unanswered.Load():
		state = "unresponsive" // the server has not answered what it was asked
	case s.c != nil && s.c.Exited():
		state = "exited"
	}
	addr := s.addr
	if addr == "" && s.srv != nil {
		addr = fmt.Sprintf("gdbserver pid %d, on a socket pair", s.srv.Pid())
	}
	return Info{ID: s.id, Backend: s.kind, Address: addr, Program: s.program,
		TraceDir: s.traceDir, PID: s.pid, Caps: s.caps, State: state, Attached: s.attached, Watchpoints: s.hardwareNote(), Server: s.serverNote, Registers: s.registersNote,
		Cancelled: s.cancelled.Load()}
}

// hardware is the verdict of the hardware debug register probe on
// gdbserver (whether hardware watchpoints and breakpoints work;
// softwatch.go), the zero verdict elsewhere; waited for while ctx allows
// (the probe began when the session opened).
func (s *Session) hardware(ctx context.Context) hwdebug.Verdict {
	if s.c == nil || s.c.Dialect() != rsp.DialectGDBServer {
		return hwdebug.Verdict{}
	}
	return s.m.hw.Get(ctx, s.m.cfg.Env)
}

// hardwareNote is the probe's verdict in a sentence for the session's
// description, without waiting: "" where no probe applies.
func (s *Session) hardwareNote() string {
	if s.c == nil || s.c.Dialect() != rsp.DialectGDBServer {
		return ""
	}
	v, ok := s.m.hw.Known(s.m.cfg.Env)
	if !ok {
		return "the hardware debug register probe is still running (it decides between hardware and software watchpoints)"
	}
	return v.Reason
}

// Interrupt stops a running resume (like Ctrl-C). It does not wait for
// the session lock. sent is false when nothing was running.
func (s *Session) Interrupt() (sent bool, err error) {
	if s.gone.Load() {
		return false, fmt.Errorf("session %s was stopped: %w", s.id, ErrNoSession)
	}
	if !s.running.Load() {
		return false, nil
	}
	if err := s.c.Interrupt(); err != nil {
		return false, err
	}
	return true, nil
}

// close ends the session: interrupt a running resume, say goodbye to the
// server, stop its processes. It is idempotent.
func (s *Session) close(ctx context.Context) {
	if s.gone.Swap(true) {
		return
	}
	if s.running.Load() {
		s.c.Interrupt() //nolint:errcheck
	}
	// Wait briefly for the in-flight operation to return.
	got := false
	select {
	case s.sem <- struct{}{}:
		got = true
	case <-time.After(3 * time.Second):
	case <-ctx.Done():
	}
	t0 := time.Now()
	if s.gdb != nil {
		s.gdb.close()
		s.m.logf("session %s: gdb closed in %v", s.id, time.Since(t0))
	}
	if s.c != nil {
		kctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		switch {
		case !got || s.c.Exited():
			// Nothing to kill; closing the connection ends gdbserver --once.
		case s.kind == KindConnect || s.kind == KindCore || s.attached:
			// Not ours to kill: leave the program running.
			s.c.Detach(kctx) //nolint:errcheck
		default:
			s.c.Kill(kctx) //nolint:errcheck
		}
		cancel()
		s.c.Close()
	}
	s.m.logf("session %s: server connection closed after %v", s.id, time.Since(t0))
	if s.srv != nil {
		s.srv.Stop(2 * time.Second) //nolint:errcheck
	}
	// What the program forked and the debugger did not follow (gdbserver
	// leaves a forked child running on its own) is in the program's
	// process group: it ends with the session, whether the program is
	// still there or has exited.
	s.group.Kill()
	if s.replay != nil {
		s.replay.Stop() //nolint:errcheck
	}
	s.m.logf("session %s: stopped after %v", s.id, time.Since(t0))
	if s.core != nil {
		s.core()
	}
	s.inf.Close()
	if s.out != nil {
		s.out.Close()
	}
	if got {
		<-s.sem
	}
}

// invalidate drops every per-stop cache; called on resume and write.
func (s *Session) invalidate() {
	if s.inf != nil {
		s.inf.Invalidate()
	}
	s.threads = nil
	s.frames = nil
	s.frame = 0
}
