package session

import (
	"context"
	"slices"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// Resumes made one where GDB makes two or many, because the code proves
// that nothing can meet what the shortcut leaves out: a finish that keeps
// its breakpoint out (returnsWithout), and a line step that runs straight
// to a breakpoint at its end instead of single-stepping (straight).
//
// A finish from a breakpoint has to step off it before continuing to the
// return address, and put it back before the continue: GDB's
// remove/step/insert dance, two resumes and two round trips. The
// breakpoint can stay out for the whole continue when nothing can execute
// its pc before the function returns; then the step off it and the
// continue are one resume (rsp.Client.ContinuePast), and the breakpoint
// goes back with the next resume. returnsWithout proves that, and
// TestFinishPast checks both that the proof is taken where it holds and
// that a breakpoint the program does reach again still stops the finish.
// TestStepFromBreakpointMatchesGDB holds straight's steps to GDB's.

// returnsWithout reports whether, finishing callee (the innermost frame,
// stopped at a breakpoint), no thread can execute callee's pc before the
// function returns. It holds when
//   - the program is a local live process (gdbserver; its /proc readable)
//     with one thread, so no other thread runs the code, and no signal the
//     server passes silently has a handler (a handler would run inside the
//     continue, and could call the function);
//   - from the pc, the function's code reaches its returns without coming
//     back to the pc, calling anything (which could recurse), making a
//     system call (which could make a thread) or jumping indirectly or out
//     of the function: control flow by direct jumps only, decoded from the
//     program's file.
//
// The threads and handlers are read at each finish (one small /proc
// file, no round trip); the code is walked once per pc.
func (s *Session) returnsWithout(ctx context.Context, callee *dwarf.Frame) bool {
	if s.kind != KindLive || s.pid <= 0 || s.exited != nil || s.c.Dialect() != rsp.DialectGDBServer ||
		callee.Function == nil || callee.Image != s.inf.Img || callee.Inlined {
		return false
	}
	pc := callee.PC
	at := false
	for _, b := range s.c.Breakpoints() {
		if b.Addr == pc && (b.Type == rsp.SoftwareBreakpoint || b.Type == rsp.HardwareBreakpoint) {
			at = true
		}
	}
	if !at {
		return false // a plain continue is one resume already
	}
	safe, ok := s.pastSafe[pc]
	if !ok {
		safe = s.codeReturnsWithout(ctx, callee)
		if s.pastSafe == nil || len(s.pastSafe) > 1<<12 {
			s.pastSafe = map[uint64]bool{}
		}
		s.pastSafe[pc] = safe
	}
	return safe && s.aloneWithoutPassedHandlers()
}

// rangeExits returns where a range step over [lo, hi) can end, when a
// continue to breakpoints there may stand in for it: hi, where the thread
// runs off the range's end, and the targets outside the range of its
// direct jumps (a loop inside the range runs on). ok is false unless
// every instruction that transfers control is such a jump (no call,
// return, indirect jump, system call or trap), no breakpoint of the table
// lies past lo up to hi (the stops at the exits are ours), no signal is
// to be delivered, and, as for returnsWithout, the live process has one
// thread and no handler for a silently passed signal (nobody else runs
// the code meanwhile). The server single-steps a range step one
// instruction at a time, a round of ptrace each; this is one trap.
func (s *Session) rangeExits(ctx context.Context, lo, hi uint64) (exits []uint64, ok bool) {
	if s.kind != KindLive || s.exited != nil || s.pending != 0 || s.c.Dialect() != rsp.DialectGDBServer {
		return nil, false
	}
	exits = []uint64{hi}
	for a := lo; a < hi; { // at most 64 KiB (rangeEndBefore)
		in, err := s.inf.Insn(ctx, a)
		if err != nil {
			return nil, false
		}
		if x86code.TransfersControl(in) {
			t, direct := x86code.DirectTarget(in, a)
			if !direct {
				return nil, false
			}
			if (t < lo || t >= hi) && !slices.Contains(exits, t) {
				exits = append(exits, t)
			}
		}
		a += uint64(in.Len)
	}
	for _, b := range s.c.Breakpoints() {
		if b.Addr > lo && b.Addr <= hi {
			return nil, false
		}
	}
	return exits, s.aloneWithoutPassedHandlers()
}

// codeReturnsWithout is returnsWithout's walk of the code from f's pc,
// in the range of its function that holds it.
func (s *Session) codeReturnsWithout(ctx context.Context, f *dwarf.Frame) bool {
	fc, why := s.functionCode(ctx, f.Function, f.Bias)
	if why != "" {
		return false
	}
	mode := 64
	if r, ok := s.softRegs(); ok {
		mode = r.mode
	}
	for _, r := range fc {
		if f.PC >= r.Addr && f.PC < r.Addr+uint64(len(r.Code)) {
			return x86code.ReturnsWithout(r.Code, r.Addr, f.PC, mode)
		}
	}
	return false
}

// aloneWithoutPassedHandlers reports whether the live process has one
// thread and no handler for a signal the server passes without stopping.
func (s *Session) aloneWithoutPassedHandlers() bool {
	st, ok := s.procStat()
	if !ok || st.Threads != 1 {
		return false
	}
	passed, ok := s.passedMask()
	return ok && st.SigCatch&passed == 0
}

// procStat reads the live process's /proc/PID/stat (its number of
// threads, the signals below 32 it catches).
func (s *Session) procStat() (proc.Stat, bool) {
	if s.kind != KindLive || s.pid <= 0 || s.exited != nil {
		return proc.Stat{}, false
	}
	return proc.ReadStat(s.pid)
}

// passedMask is the set of Linux signals the server passes without
// stopping (passList), as a bit mask (bit n-1 for signal n); ok false
// when one of them is 32 or above. GDB's signals that Linux does not have
// (SIGLWP, SIGWAITING, ...) never come. It is worked out once per change
// of the signal handling (applySignals forgets it): finishes and steps
// ask at every move.
func (s *Session) passedMask() (mask uint64, ok bool) {
	if s.passed.known {
		return s.passed.mask, s.passed.ok
	}
	ok = true
	for _, sig := range s.passList() {
		n := sig.Linux()
		if n > 31 {
			mask, ok = 0, false
			break
		}
		if n >= 1 {
			mask |= 1 << (n - 1)
		}
	}
	s.passed = passedSignals{known: true, mask: mask, ok: ok}
	return mask, ok
}

// passedSignals is passedMask's answer, kept.
type passedSignals struct {
	known, ok bool
	mask      uint64
}
