package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// maxSteps bounds the single-steps of one source-level step.
const maxSteps = 200000

// canMove checks that the target can be resumed in the given direction.
func (s *Session) canMove(rev bool) error {
	if s.kind == KindCore {
		return s.coreCannotMove()
	}
	if rev && !s.caps.Reverse {
		switch s.kind {
		case KindLive:
			return fmt.Errorf("reverse execution needs an rr recording; this is a live gdbserver session — record with rr_record on a machine with a PMU: %w", ErrNoReverse)
		default:
			return fmt.Errorf("the server at %s does not offer reverse execution (no ReverseContinue+ in qSupported): %w", s.addr, ErrNoReverse)
		}
	}
	if s.exited != nil {
		if s.caps.Seek {
			return s.exitedErr("go back with rr_run_to_event or rr_checkpoint_restore")
		}
		return s.exitedErr("stop the session (rr_replay_stop) and start a new one")
	}
	return nil
}

func (s *Session) limit(rev bool) time.Duration {
	if rev {
		return s.to.Reverse
	}
	return s.to.Forward
}

// run executes a resume primitive with the running flag set and caches
// dropped. If ctx ends during the resume, the client has interrupted the
// target; the error then says where it stopped.
func (s *Session) run(ctx context.Context, f func(ctx context.Context) (rsp.Stop, error)) (rsp.Stop, error) {
	var pc0 uint64
	if len(s.tconds) > 0 {
		pc0 = s.pcOr0(ctx)
	}
	s.invalidate()
	s.stepIn, s.entry = 0, nil
	s.setRunning(true)
	st, err := atHistoryStart(f(ctx))
	s.setRunning(false)
	s.invalidate()
	if _, ok := s.tconds[pc0]; ok {
		// A step-over of the breakpoint at pc0 re-inserted it plain.
		delete(s.tconds, pc0)
	}
	if err != nil && ctx.Err() != nil {
		return st, s.interruptedAt(ctx, st, err)
	}
	return st, err
}

// resumeError explains a resume that gdbserver refused because its own
// ptrace call was interrupted: it says "resuming thread: Interrupted
// system call" and answers E01 (gdbserver 13 on a loaded machine), and
// afterwards may misread the next bytes it is sent (it leaves its SIGIO
// handler armed). The result matches errServerResumeEINTR and still
// wraps the server's error. Other errors are returned as they are.
// Session.do applies it to every operation's error, so that each resume
// is covered, whichever path sent it (a query's steps off a jump pad
// included).
func (s *Session) resumeError(err error) error {
	var re *rsp.Error
	if s.srv == nil || !errors.As(err, &re) || !re.Resume || !strings.Contains(s.srv.Tail(20), gdbserverResumeEINTR) {
		return err
	}
	return fmt.Errorf("%w (it said %q, a failure of gdbserver seen on loaded machines), and it may misread what it is sent next: stop this session (rr_replay_stop) and start it again: %w", errServerResumeEINTR, gdbserverResumeEINTR, err)
}

// errServerResumeEINTR is the kind of resumeError's explanation.
var errServerResumeEINTR = errors.New("gdbserver could not resume the program: its own ptrace call was interrupted")

// gdbserverResumeEINTR is what gdbserver prints when its resume's ptrace
// call is interrupted (linux-low.cc, "resuming thread").
const gdbserverResumeEINTR = "resuming thread: Interrupted system call"

func (s *Session) cont(ctx context.Context, rev bool) (rsp.Stop, error) {
	return s.contPast(ctx, rev, false)
}

// contPast is cont; past: the breakpoints at the current pc may stay out
// of the server for the whole continue (rsp.Client.ContinuePast), because
// the caller proved the thread cannot come back to the pc before the next
// stop (returnsWithout).
func (s *Session) contPast(ctx context.Context, rev, past bool) (rsp.Stop, error) {
	if !rev && s.pending != 0 && !s.handing && len(s.softWatches()) > 0 && s.c.Dialect() != rsp.DialectRR {
		// A continue delivering a signal would run unchecked: deliver it
		// and come back here, then continue with the checks.
		if st, done, err := s.deliverAndReturn(ctx, s.inf.Cur, s.pending); err != nil || !done {
			return st, err
		}
	}
	sig, t := s.pending, s.inf.Cur
	s.pending = 0
	var pc0 uint64
	condAtPC := false
	if !rev && sig == 0 && s.anyTargetCond() {
		pc0 = s.pcOr0(ctx)
		condAtPC = s.condPacket(pc0) != "" && s.temps[pc0] == 0
	}
	return s.run(ctx, func(ctx context.Context) (rsp.Stop, error) {
		switch {
		case rev:
			st, err := s.c.ReverseContinue(ctx)
			if err == nil {
				st = s.explainReverseStop(ctx, st)
			}
			return st, err
		case sig != 0:
			// Like GDB, continuing after a signal stop delivers the
			// signal: the handler runs, or a SIGSEGV kills the program.
			return s.c.ContinueWithSignal(ctx, t, sig)
		}
		if condAtPC {
			// Step over the breakpoint here first: the client's
			// step-over re-inserts it plain, and its condition must be
			// back in place before the continue.
			st, err := s.c.Step(ctx, t)
			delete(s.tconds, pc0)
			if err != nil || !plainStep(st) {
				return st, err
			}
		}
		if !rev && sig == 0 && (s.anyTargetCond() || len(s.tconds) > 0) {
			s.syncConds(ctx)
		}
		if len(s.softWatches()) > 0 {
			return s.softRun(ctx, t, 0, 0)
		}
		if past && !condAtPC {
			return s.c.ContinuePast(ctx)
		}
		return s.c.Continue(ctx)
	})
}

func (s *Session) stepInsn(ctx context.Context, rev bool) (rsp.Stop, error) {
	t := s.inf.Cur
	if !rev && len(s.softWatches()) == 0 {
		return s.stepDelivering(ctx, func(ctx context.Context) (rsp.Stop, error) {
			// The thread to step is read at each step: a delivered
			// signal's handler may have returned on another thread (a
			// Go goroutine preempted by SIGURG resumes wherever the
			// scheduler puts it; runToAny follows it there).
			t := s.inf.Cur
			if s.othersRun() {
				return s.othersRunStep(ctx, t, func(ctx context.Context) (rsp.Stop, error) { return s.c.StepOthersRunning(ctx, t) })
			}
			return s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.Step(ctx, t) })
		})
	}
	return s.run(ctx, func(ctx context.Context) (rsp.Stop, error) {
		if rev {
			return s.c.ReverseStep(ctx, t)
		}
		if len(s.softWatches()) > 0 {
			// One instruction, checked: [pc, pc+1) ends after it.
			if pc, err := s.inf.PC(ctx, t); err == nil {
				return s.softRun(ctx, t, pc, pc+1)
			}
		}
		return s.c.Step(ctx, t)
	})
}

// othersRun says whether the other threads run while a thread steps, as
// GDB runs them (scheduler-locking off): on gdbserver. A spin-wait on
// another thread's flag then ends, and another thread's breakpoint is hit
// during the step. rr replays its threads one at a time, and QEMU's
// stubs step the one thread.
func (s *Session) othersRun() bool { return s.c.Dialect() == rsp.DialectGDBServer }

// othersRunStep makes one step of thread t with the other threads running
// (do: a single step or a range step of t). Another thread's trap that is
// no stop for the user (a temporary breakpoint of an earlier move that it
// reached, its own step pending in the server) does not end t's step: t
// is stepped again, as GDB switches back to the thread it steps. Another
// thread's user breakpoint, signal or exit is the stop.
func (s *Session) othersRunStep(ctx context.Context, t rsp.Thread, do func(ctx context.Context) (rsp.Stop, error)) (rsp.Stop, error) {
	for i := 0; ; i++ {
		st, err := s.run(ctx, do)
		if err != nil || i == 64 || st.Thread == (rsp.Thread{}) || st.Thread == t || st.Kind != rsp.StopSignal ||
			st.Signal != rsp.SIGTRAP || st.Watch != rsp.WatchNone {
			return st, err
		}
		pc, _, perr := s.inf.PCSP(ctx, st.Thread)
		if perr != nil || s.scopeNeeds(pc, nil) {
			return st, err
		}
		if s.bpAt(pc) != nil {
			s.inf.Cur = st.Thread
			if s.bpStopsHere(ctx, pc) {
				return st, err // another thread's breakpoint: a stop, as GDB's
			}
			// its condition is false there: t's step goes on (the
			// other thread is stepped past it at the next resume)
		}
		s.inf.Cur = t
	}
}

// plainStep reports whether st is the ordinary completion of a single-step.
func plainStep(st rsp.Stop) bool {
	return st.Kind == rsp.StopSignal && (st.Signal == rsp.SIGTRAP || st.Signal == rsp.Sig0) &&
		st.Watch == rsp.WatchNone && !st.AtHistoryStart && !st.AboutToExit && !st.Interrupted &&
		!st.SWBreak && !st.HWBreak
}

// finishStop converts st, accounts breakpoint hits and applies temporary
// breakpoints. It reports whether a conditional breakpoint said "go on".
// The stop that ends the move (not one it goes on from: a passed signal, a
// false condition, an unchanged watched value) tells which print-only
// signals arrived on the way.
func (s *Session) finishStop(ctx context.Context, st rsp.Stop) (*Stop, bool) {
	out, again := s.judgeStop(ctx, st)
	if !again {
		s.noteSignalsSeen(out)
	}
	return out, again
}

// judgeStop is finishStop without the signal note.
func (s *Session) judgeStop(ctx context.Context, st rsp.Stop) (*Stop, bool) {
	out := s.makeStop(ctx, st)
	if s.signalGoesOn(out, st) {
		return out, true
	}
	if s.judgeScope(ctx, out, st) {
		return out, true // a deeper call returned past a watchpoint's frame's caller
	}
	s.relocateWatches(ctx)
	if out.Reason == "watchpoint" && out.Watch != nil && !(st.Direction == rsp.Reverse && s.c.Dialect() == rsp.DialectQEMU) {
		// Like GDB, a write watchpoint reports only writes that change
		// the value. Not on QEMU in reverse: its stop is right after the
		// write (docs/peers.md §2.4), whose previous value is not known
		// there. (rr stops before the write when going backwards.)
		if b, err := s.findBP(out.Watch.Number); err == nil && (b.typ == rsp.WriteWatchpoint && !b.changed || b.readAsAccess && b.changed) {
			// (and a read watchpoint set as an access one reports no
			// write, GDB's bpstat_check_watchpoint)
			b.hits--
			if bp := s.watchTrapAtBP(ctx, out); bp != nil {
				// the breakpoint at the pc the trap left still stops
				out.Reason, out.Breakpoint, out.Watch, out.Message = "breakpoint", bp.num, nil, ""
				s.refreshWatches(ctx)
				return out, false
			}
			return out, true
		}
	}
	if out.Reason == "watchpoint" && out.Watch != nil {
		if bp := s.watchTrapAtBP(ctx, out); bp != nil {
			out.AlsoBreakpoint = bp.num
		}
	}
	if out.Reason != "breakpoint" || out.Breakpoint == 0 {
		s.refreshWatches(ctx)
		return out, false
	}
	b, err := s.findBP(out.Breakpoint)
	if err != nil {
		return out, false
	}
	if b.cond != "" {
		ok, err := s.condTrue(ctx, b.cond)
		if err == nil {
			s.noteCondHit(ctx, b, ok)
		}
		if err == nil && !ok {
			// Another breakpoint at this address may still want the stop.
			other := s.otherBPAt(ctx, b)
			if other == nil {
				return out, true
			}
			b = other
			out.Breakpoint = b.num
		}
		if err != nil {
			out.Message = fmt.Sprintf("Condition %q could not be evaluated (%v); stopped anyway.", b.cond, err)
		}
	}
	b.hits++
	if b.temp {
		s.deleteBP(ctx, b) //nolint:errcheck
	}
	s.refreshWatches(ctx)
	return out, false
}

// watchTrapAtBP is, at the stop out of a watchpoint's trap, the
// breakpoint at the pc the trap left (the instruction after the write)
// whose condition is absent or true, counted as hit, or nil: GDB's stop
// holds every breakpoint whose location matches, and a trap there is a
// SIGTRAP at the breakpoint's address (bpstat_stop_status). Resuming from
// that pc would pass the breakpoint without a stop.
func (s *Session) watchTrapAtBP(ctx context.Context, out *Stop) *breakpoint {
	if out.Frame == nil || s.stepIn != 0 {
		return nil
	}
	b := s.otherBPAt(ctx, nil)
	if b == nil {
		return nil
	}
	b.hits++
	if b.temp {
		s.deleteBP(ctx, b) //nolint:errcheck
	}
	return b
}

// otherBPAt returns another enabled breakpoint at b's hit address whose
// condition is absent or true, or nil (any such breakpoint at the pc,
// where b is nil).
func (s *Session) otherBPAt(ctx context.Context, b *breakpoint) *breakpoint {
	pc := s.pcOr0(ctx)
	for _, o := range s.bps {
		if o == b || !o.enabled || o.isWatch() || !slices.Contains(o.addrs, pc) {
			continue
		}
		if o.cond == "" {
			return o
		}
		if ok, err := s.condTrue(ctx, o.cond); err != nil || ok {
			return o
		}
	}
	return nil
}

// bpStopsHere reports whether the user breakpoints at pc, where the
// selected thread is, stop it: one without a condition, or whose
// condition is true or cannot be evaluated (GDB's
// bpstat_check_breakpoint_conditions). Where every condition there is
// false the thread is as if no breakpoint were there: a step it is
// making goes on, or ends there by its own rule, and another thread's
// step is not ended by it.
func (s *Session) bpStopsHere(ctx context.Context, pc uint64) bool {
	if s.bpAt(pc) == nil {
		return false
	}
	s.invalidate() // the condition reads the thread's frame at pc
	return s.otherBPAt(ctx, nil) != nil
}

// Continue resumes forward (or backward) until a breakpoint, watchpoint,
// signal, exit or the start of the recording.
func (s *Session) Continue(ctx context.Context, rev bool) (*Stop, error) {
	ctx = naming(ctx, moveName("continue", rev), false)
	var out *Stop
	err := s.do(ctx, s.limit(rev), func(ctx context.Context) error {
		if err := s.canMove(rev); err != nil {
			return err
		}
		var note string
		if !rev && s.hasPending() {
			st, done, n, err := s.runToLibsLoaded(ctx)
			if err != nil {
				return err
			}
			note = n
			if !done || s.bpAt(s.pcOr0(ctx)) != nil {
				out, _ = s.finishStop(ctx, st)
				out.Message = strings.TrimSpace(out.Message + " " + note)
				return nil
			}
		}
		for {
			st, err := s.cont(ctx, rev)
			if err != nil {
				return err
			}
			var again bool
			out, again = s.finishStop(ctx, st)
			if !again && out.Reason == "step" && len(out.WatchScope) > 0 {
				out.Reason = "watchpoint-scope" // its scope breakpoint stopped the run
			}
			if !again {
				if note != "" {
					out.Message = strings.TrimSpace(out.Message + " Note: " + note + ".")
				}
				return nil
			}
		}
	})
	return s.asStop(ctx, out, err)
}

// StepInstruction steps n machine instructions; over steps over calls.
func (s *Session) StepInstruction(ctx context.Context, n int, over, rev bool) (*Stop, error) {
	ctx = naming(ctx, moveName(map[bool]string{true: "nexti", false: "stepi"}[over], rev), false)
	var out *Stop
	err := s.do(ctx, s.limit(rev), func(ctx context.Context) error {
		if err := s.canMove(rev); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			var st rsp.Stop
			var err error
			s.halt = ""
			stepped := false
			if !rev {
				// from a signal stop whose signal is passed: one
				// instruction with the signal, which GDB's stepi and
				// nexti alike end on the handler's entry
				st, stepped, err = s.stepWithSignal(ctx)
			}
			switch {
			case stepped:
			case over:
				st, err = s.nextInsn(ctx, rev)
			default:
				st, err = s.stepInsn(ctx, rev)
			}
			if err != nil {
				return err
			}
			if s.halt != "" {
				out, _ = s.finishStop(ctx, st)
				out.Message = strings.TrimSpace(out.Message + " " + s.halt)
				return nil
			}
			if !plainStep(st) || i == n-1 {
				var again bool
				out, again = s.finishStop(ctx, st)
				if again {
					out.Reason, out.Watch, out.Breakpoint = "step", nil, 0
					if i < n-1 {
						continue
					}
				}
				if out.Reason != "step" {
					return nil
				}
			}
		}
		return nil
	})
	return s.asStop(ctx, out, err)
}

// here is where the selected thread is, as stepping needs it.
type here struct {
	pc, sp, cfa uint64
	img         *dwarf.Image
	bias        uint64
	fn          *dwarf.Function // nil without DWARF
	entry       uint64          // runtime function entry (0 = unknown)
	line        dwarf.LineEntry
	hasLine     bool
}

func (s *Session) where(ctx context.Context) (here, error) { return s.whereCFA(ctx, true) }

// whereCFA is where; the CFA (an unwind step) only when withCFA. The pc,
// the stack pointer and, where frame 0's CFA rule is on one of them, the
// CFA come from the registers the stop reply carried: a step that ends
// here is reported without reading all registers (they are read ahead,
// PrefetchStop).
func (s *Session) whereCFA(ctx context.Context, withCFA bool) (here, error) {
	var (
		h   here
		err error
	)
	if h.pc, h.sp, err = s.inf.PCSP(ctx, s.inf.Cur); err != nil {
		return here{}, err
	}
	img, bias, ok := s.inf.Module(ctx, h.pc)
	if !ok {
		return h, nil
	}
	h.img, h.bias = img, bias
	fpc := h.pc - bias
	if f := img.FuncAt(fpc); f != nil {
		h.fn, h.entry = f, f.Entry+bias
		if le, ok := img.PCToLine(fpc); ok && le.Line > 0 {
			h.line, h.hasLine = le, true
		}
	} else if _, off, ok := img.SymbolAt(fpc); ok {
		h.entry = h.pc - off
	}
	if !withCFA {
		return h, nil
	}
	if regs, ok := s.inf.StopRegs(s.inf.Cur); ok && regs.PC() == h.pc {
		if reg, off, ok := img.CFARule(fpc); ok {
			if v, ok := regs.Get(reg); ok {
				h.cfa = v + uint64(off)
				return h, nil
			}
		}
	}
	regs, err := s.inf.Regs(ctx, s.inf.Cur)
	if err != nil {
		return here{}, err
	}
	h.cfa = s.cfa(ctx, img, bias, regs)
	return h, nil
}

// cfa returns the canonical frame address of the innermost frame, 0 if
// unknown.
func (s *Session) cfa(ctx context.Context, img *dwarf.Image, bias uint64, regs dwarf.Regs) uint64 {
	// Frame 0's CFA is its CFI rule applied to the registers: no stack
	// read. Unwinding is the fallback (no FDE, an expression rule).
	if reg, off, ok := img.CFARule(regs.PC() - bias); ok {
		if v, ok := regs.Get(reg); ok {
			return v + uint64(off)
		}
	}
	// Not past main (that opens the C library's debug information):
	// main's own CFA comes from its CFI rule.
	if bt, err := img.Unwind(ctx, s.inf.Target(ctx), regs, bias, dwarf.UnwindOptions{MaxFrames: 8}); err == nil && len(bt.Frames) > 0 {
		s.fillCFA(bt.Frames)
		return bt.Frames[0].CFA
	}
	return 0
}

// tempBP inserts an internal breakpoint at a and returns its remover. A
// user breakpoint already there is left alone.
func (s *Session) tempBP(ctx context.Context, a uint64) func() {
	if s.temps == nil {
		s.temps = map[uint64]int{}
	}
	s.temps[a]++
	if _, ok := s.tconds[a]; ok {
		// A user breakpoint with a target-side condition is there: make
		// it plain (syncConds) so that this stop is reported.
		s.syncConds(ctx)
	}
	untemp := func() {
		if s.temps[a]--; s.temps[a] <= 0 {
			delete(s.temps, a)
		}
	}
	for _, e := range s.c.Breakpoints() {
		if e.Type == rsp.SoftwareBreakpoint && e.Addr == a {
			return untemp
		}
	}
	// Both go to the server with the resumes around them, in the same
	// writes: a temporary breakpoint costs no round trip of its own.
	s.c.InsertBreakpointLater(rsp.SoftwareBreakpoint, a, 0)
	return func() {
		untemp()
		if s.exited == nil {
			s.c.RemoveBreakpointLater(rsp.SoftwareBreakpoint, a, 0) //nolint:errcheck // not in the table: a failed insertion took it out
		}
	}
}

// runTo continues (forward or backward) until the thread reaches addr with
// a stack pointer satisfying ok. Any other stop (user breakpoint, signal,
// exit) is returned with done=false.
func (s *Session) runTo(ctx context.Context, addr uint64, rev bool, ok func(sp uint64) bool) (rsp.Stop, bool, error) {
	return s.runToPast(ctx, addr, rev, false, ok)
}

// runToPast is runTo; past: the first continue may leave the breakpoints
// at the current pc out (contPast).
func (s *Session) runToPast(ctx context.Context, addr uint64, rev, past bool, ok func(sp uint64) bool) (rsp.Stop, bool, error) {
	return s.runToAny(ctx, []uint64{addr}, rev, past, ok)
}

// runToAny is runToPast to whichever of addrs the thread reaches first.
// Only the thread it runs counts (GDB's step-resume breakpoint is the
// stepping thread's): another thread reaching one of addrs is stepped
// past it and the run goes on. In Go, where a goroutine moves between
// threads (a channel send parks it, another thread resumes it), the
// goroutine counts, by its stack: ok's stack pointer test.
func (s *Session) runToAny(ctx context.Context, addrs []uint64, rev, past bool, ok func(sp uint64) bool) (rsp.Stop, bool, error) {
	for _, a := range addrs {
		defer s.tempBP(ctx, a)()
	}
	stepping := s.inf.Cur
	g0, hi0, goStep := uint64(0), uint64(0), false
	if s.goProgram() {
		stepping = rsp.Thread{}
		g0, hi0, goStep = s.goroutine(ctx, s.inf.Cur)
	}
	for {
		st, err := s.contPast(ctx, rev, past)
		past = false
		if err != nil {
			return st, false, err
		}
		if !rev && s.unchangedWrite(ctx, st) {
			continue // a write that left the watched value as it was
		}
		if !rev && s.passedDuringStep(st) {
			// A signal passed silently (Go's SIGURG) stopped the step
			// over the breakpoint here: deliver it and go on, as a
			// continue does (the client finishes the step over when
			// the handler returns).
			s.pending, s.inf.Cur, past = st.Signal, st.Thread, false
			continue
		}
		if st.Kind != rsp.StopSignal || st.Watch != rsp.WatchNone || st.AtHistoryStart || st.AboutToExit {
			return st, false, nil
		}
		if st.Thread != (rsp.Thread{}) {
			s.inf.Cur = st.Thread
		}
		// The stop reply's pc and stack pointer (read if it has none): the
		// stop that ends the step is reported without the other
		// registers (makeStop reads them ahead).
		pc, sp, err := s.inf.PCSP(ctx, s.inf.Cur)
		if err != nil {
			return st, false, err
		}
		if !slices.Contains(addrs, pc) {
			if s.scopeOnlyAt(pc, sp) {
				continue // a watchpoint's scope breakpoint, reached by a deeper call
			}
			// A user breakpoint whose condition is false does not stop
			// a step or finish.
			if s.bpAt(pc) != nil && !s.bpStopsHere(ctx, pc) {
				continue
			}
			return st, false, nil // something else stopped us
		}
		other := stepping != (rsp.Thread{}) && s.inf.Cur != stepping
		if goStep {
			// the goroutine's frame: its offset from its stack's top,
			// which a stack grown (copied) since keeps
			g, hi, ok := s.goroutine(ctx, s.inf.Cur)
			other = !ok || g != g0
			sp += hi0 - hi
		}
		if other {
			if s.bpStopsHere(ctx, pc) {
				return st, false, nil // a user breakpoint at the same place
			}
			continue // another thread's: stepped past by the next resume
		}
		if ok == nil || ok(sp) {
			// Our own breakpoint: to the caller this is a completed step.
			st.SWBreak, st.HWBreak = false, false
			return st, true, nil
		}
		if s.bpStopsHere(ctx, pc) {
			return st, false, nil // a user breakpoint at the same place
		}
	}
}

// goroutine is the goroutine thread t runs, where it runs Go code: g,
// in r14 (Go's register ABI on x86-64), and the top of its stack
// (g.stack.hi). ok is false elsewhere (C code, i386).
func (s *Session) goroutine(ctx context.Context, t rsp.Thread) (g, hi uint64, ok bool) {
	if s.inf.Img == nil || s.inf.I386() {
		return 0, 0, false
	}
	r, err := s.inf.Regs(ctx, t)
	if err != nil {
		return 0, 0, false
	}
	if pc := r.PC(); pc < s.inf.Bias {
		return 0, 0, false
	} else if fn := s.inf.Img.FuncAt(pc - s.inf.Bias); fn == nil || fn.Lang() != dwarf.LangGo {
		return 0, 0, false
	}
	g, ok = r.Get(regnum.AMD64_R14)
	if !ok || g == 0 {
		return 0, 0, false
	}
	var b [8]byte
	if n, err := s.inf.ReadMem(ctx, g+8, b[:]); err != nil || n != 8 {
		return 0, 0, false
	}
	return g, binary.LittleEndian.Uint64(b[:]), true
}

// goProgram says whether the program is built by Go (its goroutines
// move between threads): it has Go's build information section.
func (s *Session) goProgram() bool {
	return s.inf.Img != nil && s.inf.Img.ELF() != nil && s.inf.Img.ELF().Section(".go.buildinfo") != nil
}

// returnedTo says whether a thread at a return address, with stack
// pointer sp, is back in the frame that made the call, whose stack
// pointer was base before the call (a finish: the CFA of the frame it
// leaves): sp is base, or a little above it (a callee that pops its
// arguments: i386's struct return, ret $4). A thread of the same code on
// another stack (a goroutine's) or deeper in a recursion is not, as
// GDB's frame id says. A base of 0 (unknown) accepts any.
func returnedTo(base uint64) func(sp uint64) bool {
	return func(sp uint64) bool { return base == 0 || sp >= base && sp-base <= maxCalleePop }
}

// maxCalleePop bounds the bytes a callee pops besides its return address.
const maxCalleePop = 256

// nextInsn steps one instruction, over a call.
func (s *Session) nextInsn(ctx context.Context, rev bool) (rsp.Stop, error) {
	if !rev {
		h, err := s.where(ctx)
		if err != nil {
			return rsp.Stop{}, err
		}
		in, err := s.inf.Insn(ctx, h.pc)
		if err != nil || !x86code.IsCall(in) {
			return s.stepInsn(ctx, false)
		}
		st, _, err := s.stepResume(ctx, h.pc+uint64(in.Len), h.sp)
		return st, err
	}
	before, err := s.where(ctx)
	if err != nil {
		return rsp.Stop{}, err
	}
	st, err := s.stepInsn(ctx, true)
	if err != nil || !plainStep(st) {
		return st, err
	}
	return s.backOutOfCallee(ctx, st, before)
}

// backOutOfCallee: after a reverse single-step, if the thread is now at
// the return instruction of a function called from before's frame, go
// back to the call instruction.
func (s *Session) backOutOfCallee(ctx context.Context, st rsp.Stop, before here) (rsp.Stop, error) {
	h, err := s.where(ctx)
	if err != nil || h.sp >= before.sp {
		return st, err
	}
	in, err := s.inf.Insn(ctx, h.pc)
	if err != nil || !x86code.IsReturn(in) || h.entry == 0 {
		return st, nil
	}
	spAtRet := h.sp
	st, _, err = s.backOntoCall(ctx, h.entry, func(sp uint64) bool { return sp == spAtRet })
	return st, err
}

// backOntoCall runs backward to entry, a function's first instruction,
// until atEntry holds of the stack pointer there (the call being undone),
// then steps back once more onto the call instruction. done says entry
// was reached; a user breakpoint at entry is then a hit, as GDB's, and
// the thread stays there.
func (s *Session) backOntoCall(ctx context.Context, entry uint64, atEntry func(sp uint64) bool) (st rsp.Stop, done bool, err error) {
	st, done, err = s.runTo(ctx, entry, true, atEntry)
	if err != nil || !done || s.bpStopsHere(ctx, entry) {
		return st, done, err
	}
	st, err = s.stepInsn(ctx, true)
	return st, done, err
}

// Finish runs until the selected frame returns (or, in reverse, back to
// its call site).
func (s *Session) Finish(ctx context.Context, rev bool) (*Stop, error) {
	ctx = naming(ctx, moveName("finish", rev), false)
	var out *Stop
	err := s.do(ctx, s.limit(rev), func(ctx context.Context) error {
		if err := s.canMove(rev); err != nil {
			return err
		}
		// The selected frame and its caller, past the frames of tail
		// calls (finishFrame).
		fr, err := s.unwindUntil(ctx, s.frame, func(fr []*dwarf.Frame) bool {
			up := s.frame + 1
			for up < len(fr) && fr[up].TailCall {
				up++
			}
			return up < len(fr)
		})
		if err != nil {
			return err
		}
		sel := s.frame
		if sel >= len(fr) {
			sel = 0
		}
		if fr[sel].Inlined {
			// A frame inlined into the physical frame of a caller (frame
			// 0 is a real call below it): return from the real frame
			// below it first, then step out of the inlined calls, as
			// GDB's finish from a selected inlined frame steps over the
			// calls below it until it is out.
			below := -1
			for i := sel - 1; i >= 0; i-- {
				if !fr[i].Inlined {
					below = i
					break
				}
			}
			if below >= 0 {
				name := fr[sel].Name
				out, err = s.finishFrame(ctx, fr, below, rev)
				if err != nil || out.Reason != "finish" {
					return err
				}
				if fr, err = s.unwind(ctx); err != nil {
					return err
				}
				sel -= below + 1
				if sel >= len(fr) || !fr[sel].Inlined || fr[sel].Name != name {
					// The return left the inlined call too (its code
					// ended at the call): a finish of the inlined call,
					// which has no value of its own.
					out.ReturnValue = ""
					out.Message = fmt.Sprintf("Returned from inlined %s.", name)
					if rev {
						out.Message = fmt.Sprintf("Back at the call of inlined %s.", name)
					}
					return nil
				}
			}
		}
		out, err = s.finishFrame(ctx, fr, sel, rev)
		return err
	})
	return s.asStop(ctx, out, err)
}

// finishFrame is Finish of frame sel of the frames fr of the current
// stop.
func (s *Session) finishFrame(ctx context.Context, fr []*dwarf.Frame, sel int, rev bool) (*Stop, error) {
	if fr[sel].Inlined {
		// An inlined frame returns into its caller in the same
		// physical frame (GDB steps out of it, in either
		// direction).
		st, err := s.finishInline(ctx, sel, rev)
		if err != nil {
			return nil, err
		}
		out, _ := s.finishStop(ctx, st)
		if out.Reason == "step" {
			out.Reason = "finish"
			out.Message = fmt.Sprintf("Returned from inlined %s.", fr[sel].Name)
			if rev {
				out.Message = fmt.Sprintf("Back at the call of inlined %s.", fr[sel].Name)
			}
		}
		return out, nil
	}
	// A function that tail-called the frame below has no return
	// address of its own (its frame is gone: found from call-site
	// information): the frame returns to the first caller above the
	// tail calls, as GDB's finish does.
	up := sel + 1
	for up < len(fr) && fr[up].TailCall && !rev {
		up++
	}
	if up >= len(fr) {
		return nil, fmt.Errorf("%q is the outermost frame; there is no caller to return to: %w", fr[sel].Name, ErrUnsupported)
	}
	callee, caller := fr[sel], fr[up]
	fnName := callee.Name
	var (
		st   rsp.Stop
		done bool
		err  error
	)
	if !rev {
		cfa := callee.CFA
		past := sel == 0 && s.returnsWithout(ctx, callee)
		st, done, err = s.runToPast(ctx, caller.PC, false, past, returnedTo(cfa))
	} else {
		entry := uint64(0)
		if callee.Function != nil {
			entry = callee.Function.Entry + callee.Bias
		} else if name, off, ok := callee.Image.SymbolAt(callee.PC - callee.Bias); ok && name != "" {
			entry = callee.PC - off
		}
		if entry == 0 {
			return nil, fmt.Errorf("cannot find where %q starts: %w", fnName, ErrNoDebugInfo)
		}
		cfa := callee.CFA
		// At the entry, sp = CFA - the return address just pushed.
		ra := uint64(s.inf.PtrSize())
		st, done, err = s.backOntoCall(ctx, entry, func(sp uint64) bool { return cfa == 0 || sp == cfa-ra })
	}
	if err != nil {
		return nil, err
	}
	out, _ := s.finishStop(ctx, st)
	if done && out.Reason == "step" || done && out.Reason == "breakpoint" && !rev {
		out.Reason = "finish"
		if rev {
			out.Message = fmt.Sprintf("Back at the call of %s.", fnName)
		} else {
			msg := fmt.Sprintf("Returned from %s.", fnName)
			if callee.Function != nil && callee.Function.NoCall() {
				// GDB: "does not follow the target calling convention,
				// cannot determine its returned value"
				msg += fmt.Sprintf(" %s does not follow the target calling convention (the compiler marked it DW_CC_nocall): its returned value cannot be determined.", fnName)
			} else if rv, n := s.returnValue(ctx, callee); rv != "" {
				if n > 0 {
					msg += fmt.Sprintf(" Value returned is $%d = %s", n, rv)
				} else {
					msg += " Value returned: " + rv
				}
				out.ReturnValue, out.ReturnHistory = rv, n
			}
			// (after what the stop said: a watchpoint its return deleted)
			out.Message = strings.TrimSpace(out.Message + " " + msg)
		}
	}
	return out, nil
}

var errNoValue = errors.New("no return value")

// runToLibsLoaded runs to main, where the dynamic linker has loaded the
// program's libraries, and resolves pending breakpoints there. done is
// false when something else stopped the program first.
func (s *Session) runToLibsLoaded(ctx context.Context) (rsp.Stop, bool, string, error) {
	fns := s.inf.Img.FuncsByName("main")
	a, _ := s.inf.Img.BreakpointAddr(fns[0])
	st, done, err := s.runTo(ctx, a+s.inf.Bias, false, nil)
	if err != nil || !done {
		return st, done, "", err
	}
	return st, true, s.resolvePending(ctx), nil
}

func (s *Session) pcOr0(ctx context.Context) uint64 {
	pc, _ := s.inf.PC(ctx, s.inf.Cur)
	return pc
}
