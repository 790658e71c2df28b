package session

import (
	"context"
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/linespec"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// Source-level stepping: step and next as GDB does them with inlined
// calls (GDB's step range, step frame id and skipped inline frames),
// forward by ranges and calls, backward one instruction at a time; the
// finish of an inlined frame in either direction; range stepping within
// a line.

// Step steps n source lines, entering functions that have line info.
func (s *Session) Step(ctx context.Context, n int, rev bool) (*Stop, error) {
	return s.lineStep(ctx, n, rev, true)
}

// Next steps n source lines, stepping over calls.
func (s *Session) Next(ctx context.Context, n int, rev bool) (*Stop, error) {
	return s.lineStep(ctx, n, rev, false)
}

func (s *Session) lineStep(ctx context.Context, n int, rev, into bool) (*Stop, error) {
	ctx = naming(ctx, moveName(map[bool]string{true: "step", false: "next"}[into], rev), false)
	var out *Stop
	err := s.do(ctx, s.limit(rev), func(ctx context.Context) error {
		if err := s.canMove(rev); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			s.halt = ""
			t := s.inf.Cur
			st, err := s.stepLine(ctx, rev, into)
			if err != nil {
				return err
			}
			var again bool
			out, again = s.finishStop(ctx, st)
			if s.halt != "" {
				out.Message = strings.TrimSpace(out.Message + " " + s.halt)
				return nil
			}
			for again {
				if out.Reason == "breakpoint" && (st.Thread == t || st.Thread == (rsp.Thread{})) {
					// The step ended, by its own rule, where a breakpoint's
					// condition is false (the step goes on past such a
					// breakpoint: steppedTo): a completed step, as GDB's.
					out.Reason, out.Breakpoint = "step", 0
					break
				}
				// Something the step does not stop for (a signal passed,
				// a value written unchanged, another thread's breakpoint
				// whose condition is false): a step again, of the thread
				// stepped (a goroutine may have moved to another thread).
				if out.Reason == "breakpoint" && !s.goProgram() {
					s.inf.Cur = t
				}
				st, err = s.stepLine(ctx, rev, into)
				if err != nil {
					return err
				}
				out, again = s.finishStop(ctx, st)
			}
			if out.Reason != "step" {
				return nil
			}
		}
		return nil
	})
	return s.asStop(ctx, out, err)
}

// stepLine performs one source-level step.
func (s *Session) stepLine(ctx context.Context, rev, into bool) (rsp.Stop, error) {
	if !rev && s.pending != 0 {
		if st, done, err := s.stepIntoHandler(ctx); err != nil || done {
			return st, err
		}
	}
	start, err := s.where(ctx)
	if err != nil {
		return rsp.Stop{}, err
	}
	if !start.hasLine {
		// No line info here: finish out of this function, like GDB's step
		// in code without debug info.
		if !rev {
			if st, ok, err := s.stepOutNoLines(ctx); err != nil || !ok {
				return st, err
			}
		}
		return s.stepInsn(ctx, rev)
	}
	return s.stepLineDir(ctx, start, into, rev)
}

// stepFrameID is GDB's frame_id of the frame a step is in (infrun.c's
// step_frame_id): the real frame's CFA (0: unknown), the entry of the
// frame's code (the innermost inlined call shown, else the function; file
// addresses) and how many inlined calls deep it is.
type stepFrameID struct {
	cfa, code uint64
	depth     int
}

func (a stepFrameID) eq(b stepFrameID) bool {
	return a.code == b.code && a.depth == b.depth && (a.cfa == b.cfa || a.cfa == 0 || b.cfa == 0)
}

// inlineView is the frame a stepping stop at h is in, as GDB sees it: the
// inlined calls active at the pc (outermost first), how many of the
// innermost are hidden because they start there (skip_inline_frames),
// and the frame's id.
type inlineView struct {
	chain  []dwarf.InlineFrame
	hidden int
	id     stepFrameID
}

func (s *Session) inlineView(ctx context.Context, h *here) inlineView {
	var v inlineView
	if h.fn == nil {
		v.id = stepFrameID{cfa: h.cfa, code: h.entry - h.bias}
		return v
	}
	fpc := h.pc - h.bias
	v.chain = h.fn.InlineChain(fpc)
	v.hidden = s.hiddenInline(ctx, v.chain, h.pc, fpc)
	v.id = v.frameID(h, len(v.chain)-v.hidden)
	return v
}

// frameID is the id of the frame depth inlined calls deep at h (0: the
// function's own frame).
func (v inlineView) frameID(h *here, depth int) stepFrameID {
	code := h.fn.Entry
	if depth > 0 {
		code = v.chain[depth-1].Entry
	}
	return stepFrameID{cfa: h.cfa, code: code, depth: depth}
}

// steppedInFrom reports whether the frame id is one of the frames the
// visible frame at h was inlined into (GDB's stepped_in_from).
func (v inlineView) steppedInFrom(h *here, id stepFrameID) bool {
	for d := len(v.chain) - v.hidden - 1; d >= 0; d-- {
		if v.frameID(h, d).eq(id) {
			return true
		}
	}
	return false
}

// stepState is what a forward step steps from (GDB's step range,
// step_frame_id and current_line).
type stepState struct {
	id     stepFrameID
	file   string
	line   int    // 0 after a row that is no statement, in another frame
	lo, hi uint64 // the step range, runtime addresses
}

// cfaHere works out h's CFA from the thread's registers (h is where the
// selected thread is), where h has an image to read the CFI of.
func (s *Session) cfaHere(ctx context.Context, h *here) {
	if h.img == nil {
		return
	}
	if regs, err := s.inf.Regs(ctx, s.inf.Cur); err == nil {
		h.cfa = s.cfa(ctx, h.img, h.bias, regs)
	}
}

// lineStepState is the step state GDB's prepare_one_step sets up for a
// step or next from start, in either direction: the line's row as the step range, the
// frame and line stepped from; where an inlined call starting at the pc is
// hidden, its call site's line, and the range cut at the call's end.
func (s *Session) lineStepState(start here, v inlineView) stepState {
	st := stepState{id: v.id, file: start.line.File, line: start.line.Line, lo: start.line.Addr + start.bias, hi: start.line.End + start.bias}
	if v.hidden > 0 {
		call := v.chain[len(v.chain)-v.hidden]
		st.file, st.line = call.CallFile, call.CallLine
		if end := call.End(); end != 0 && end+start.bias < st.hi {
			st.hi = end + start.bias // GDB: gcc's missing rows make the row too long (PR gcc/98780)
		}
	}
	return st
}

// stepLineDir is one "step" or "next" from start (which has a line), in
// either direction, as GDB does it (infcmd.c prepare_one_step, infrun.c
// process_event_stop_test), inlined calls included: a call whose first
// instruction is the pc is not entered yet, and the line stepped from is
// its call site's. "step" there goes into it without running; otherwise
// the thread moves, forward by ranges and over or into calls (stepFrom,
// forwardDone), backward one instruction at a time, running back out of
// the callees a "next" steps into (stepBackFrom, backwardDone). "next"
// steps over inlined calls made on the line it steps from, stops at one
// made on another line (at its call site), and goes through the rest of
// an inlined call it is inside of.
func (s *Session) stepLineDir(ctx context.Context, start here, into, rev bool) (rsp.Stop, error) {
	v := s.inlineView(ctx, &start)
	if into && v.hidden > 0 {
		s.stepIn++
		return rsp.Stop{Kind: rsp.StopSignal, Signal: rsp.SIGTRAP, Thread: s.inf.Cur}, nil
	}
	if rev {
		return s.stepBackFrom(ctx, start, s.lineStepState(start, v), into)
	}
	return s.stepFrom(ctx, start, s.lineStepState(start, v), into)
}

// stepBackFrom is the loop of a backward step from start in state st.
// base is the frame the step is in (GDB's step_stack_frame_id): start's,
// then the frame a refresh of st moved it to (a caller returned into).
func (s *Session) stepBackFrom(ctx context.Context, start here, st stepState, into bool) (rsp.Stop, error) {
	var last rsp.Stop
	base, cur := start, start
	for i := 0; i < maxSteps; i++ {
		stop, err := s.stepInsn(ctx, true)
		if err == nil && plainStep(stop) && !into {
			stop, err = s.backOutOfCallee(ctx, stop, cur)
		}
		h, end, err := s.steppedTo(ctx, stop, err)
		if end {
			return stop, err
		}
		last = stop
		done, moved := s.backwardDone(ctx, base, &h, &st, into)
		if done {
			return stop, nil
		}
		if moved {
			if h.cfa == 0 {
				s.cfaHere(ctx, &h)
			}
			base = h
		}
		cur = h
	}
	return last, fmt.Errorf("gave up after %d instructions without reaching a new line", maxSteps)
}

// steppedTo is where a move of a source-level step's loop (stop, err)
// left the thread, unless the step ends there (end): at an error, at a
// stop that is no plain step, or on a breakpoint (a loop back to the
// line's own start, a jump to a breakpoint, in either direction): like
// GDB (bpstat_stop_status on the step's SIGTRAP), that is a hit, which
// makeStop reports and finishStop checks the condition of.
func (s *Session) steppedTo(ctx context.Context, stop rsp.Stop, err error) (h here, end bool, _ error) {
	if err != nil || !plainStep(stop) {
		return here{}, true, err
	}
	if h, err = s.whereCFA(ctx, false); err != nil {
		return here{}, true, err
	}
	// A watchpoint's scope breakpoint, its frame returned: GDB stops there.
	scope := stop.Direction != rsp.Reverse && s.scopeReturned(h.pc, h.sp)
	// A breakpoint whose condition is false there is no stop: the step's
	// own rule decides (GDB's process_event_stop_test after a bpstat
	// that does not stop).
	return h, scope || s.halt != "" || s.bpStopsHere(ctx, h.pc), nil
}

// finishInline runs until the inlined frame level levels out from the
// innermost one returns into its caller, as GDB's finish of an inlined
// frame does (infcmd.c finish_command): a "next" whose frame is the
// caller, from no line and an empty range, so that it goes through the
// rest of the inlined call and stops where the caller goes on.
func (s *Session) finishInline(ctx context.Context, level int, rev bool) (rsp.Stop, error) {
	start, err := s.where(ctx)
	if err != nil {
		return rsp.Stop{}, err
	}
	if start.fn == nil {
		return rsp.Stop{}, fmt.Errorf("no debug information at %#x to find the inlined call's end: %w", start.pc, ErrNoDebugInfo)
	}
	v := s.inlineView(ctx, &start)
	depth := len(v.chain) - v.hidden - level // the selected frame's
	if depth < 1 {
		return rsp.Stop{}, fmt.Errorf("frame %d is not an inlined call at the stop: %w", level, ErrUnsupported)
	}
	st := stepState{id: v.frameID(&start, depth-1), lo: start.pc, hi: start.pc}
	if rev {
		return s.stepBackFrom(ctx, start, st, false)
	}
	return s.stepFrom(ctx, start, st, false)
}

// stepFrom is the loop of a forward step from start in state st.
func (s *Session) stepFrom(ctx context.Context, start here, st stepState, into bool) (rsp.Stop, error) {
	var last rsp.Stop
	base, cur := start, start
	for i := 0; i < maxSteps; i++ {
		var stop rsp.Stop
		var err error
		in, ierr := s.inf.Insn(ctx, cur.pc)
		switch {
		case ierr == nil && x86code.IsCall(in):
			stop, err = s.stepCall(ctx, cur, in, into)
		default:
			hi := s.rangeEnd(ctx, cur)
			inRange := st.lo <= cur.pc && cur.pc < st.hi
			if inRange && hi > st.hi {
				hi = st.hi
			}
			if end, inside := s.inlineRangeEnd(ctx, cur, st); !into && !inRange && inside {
				// (in the step range the step goes on whatever it
				// reaches, an inlined call that starts there included,
				// as GDB's "stepping inside range") Through the call,
				// to its end and no further, though the row goes on:
				// past it, back in the frame stepped in, GDB looks at
				// the first instruction, which may be in the middle of
				// another line's row, and steps on from that line
				// (set_step_info).
				hi = end
			}
			if hi > cur.pc+uint64(in.Len) {
				stop, err = s.rangeStep(ctx, cur.pc, hi)
			} else {
				stop, err = s.stepInsn(ctx, false)
			}
		}
		if err == nil && s.unchangedWrite(ctx, stop) {
			// Like GDB, a write watchpoint stops only where the value
			// changes: the step goes on from here.
			stop.Watch, stop.WatchAddr, stop.SWBreak, stop.HWBreak = rsp.WatchNone, 0, false, false
		}
		h, end, err := s.steppedTo(ctx, stop, err)
		if end {
			return stop, err
		}
		last = stop
		done, moved := s.forwardDone(ctx, base, &h, &st, into)
		if done {
			return stop, nil
		}
		if moved {
			base = h // GDB's step_frame_id, refreshed (set_step_info)
		}
		cur = h
	}
	return last, fmt.Errorf("gave up after %d instructions without reaching a new line", maxSteps)
}

// forwardDone decides whether a forward step in the frame of base,
// stepping from st, has finished now that the thread is at h, in GDB's
// order (process_event_stop_test): a callee entered by "step", the step
// range, then inlineOrLineDone. moved says st moved into another frame
// (a caller returned into), which is then the step's frame: the frame
// the next stops are compared with, as GDB's step_frame_id.
func (s *Session) forwardDone(ctx context.Context, base here, h *here, st *stepState, into bool) (done, moved bool) {
	sameFrame, deeper := s.frameFrom(ctx, base, h)
	if !h.hasLine && h.img != nil && h.img.InSignalTrampoline(h.pc-h.bias) {
		// a handler returned into its signal trampoline: GDB steps on
		// through it ("stepped into signal trampoline") to the code the
		// signal interrupted
		return false, false
	}
	if !h.hasLine {
		// In the frame stepped in, a pc without a line (a function's
		// cold part whose first instruction has no row) ends the step,
		// as GDB's "no line number info" stop; so does a return into a
		// caller without line info (e.g. libc's __libc_start_call_main).
		return sameFrame || h.sp > base.sp && base.cfa != 0 && h.sp >= base.cfa, false
	}
	atRowStart := h.pc-h.bias == h.line.Addr
	if deeper {
		// A callee with lines, entered by "step" (stepCall): stop at the
		// start of a line.
		return into && atRowStart, false
	}
	if sameFrame && st.lo <= h.pc && h.pc < st.hi {
		return false, false
	}
	done, refreshed := s.inlineOrLineDone(ctx, h, s.inlineView(ctx, h), st, sameFrame, into)
	return done, refreshed && !sameFrame
}

// inlineOrLineDone is what steps in both directions decide alike once h
// is out of the step range, in GDB's order (process_event_stop_test): at
// the start of an inlined call of the frame stepped in (part one: "step"
// stops, going into a call made on the line it steps from; "next" stops
// where the call's line is another), inside an inlined call made from
// that frame (part two: "step" stops, "next" goes through), at the start
// of a statement of another line. Otherwise st moves to h's row
// (set_step_info), unless h starts a row that is no statement in the same
// frame; refreshed says st took h's frame and line.
func (s *Session) inlineOrLineDone(ctx context.Context, h *here, v inlineView, st *stepState, sameFrame, into bool) (done, refreshed bool) {
	if sameFrame && v.hidden > 0 && v.id.eq(st.id) {
		call := v.chain[len(v.chain)-v.hidden]
		sameLine := call.CallLine == st.line && call.CallFile == st.file
		if !into {
			return !sameLine, false // next: over a call made on the line; stop at another line's
		}
		if sameLine {
			s.stepIn = 1 // step: into a call made on the line
		}
		return true, false
	}
	if sameFrame && len(v.chain)-v.hidden > 0 && !v.id.eq(st.id) && v.steppedInFrom(h, st.id) {
		return into, false
	}
	refresh, line := true, h.line.Line
	if h.pc-h.bias == h.line.Addr && (h.line.Line != st.line || h.line.File != st.file) {
		if h.line.IsStmt {
			return true, false
		}
		if v.id.eq(st.id) {
			refresh = false // a row that is no statement: step on, from the same line
		} else {
			line = 0 // in another frame: from no line
		}
	}
	st.lo, st.hi = h.line.Addr+h.bias, h.line.End+h.bias
	if refresh {
		st.id, st.file, st.line = v.id, h.line.File, line
	}
	return false, refresh
}

// frameFrom tells where h is against start's frame: the same frame (the
// same function, and its CFA where only the CFA tells recursion apart),
// or a deeper one (a callee). It fills h's CFA where it had to work it
// out.
func (s *Session) frameFrom(ctx context.Context, start here, h *here) (same, deeper bool) {
	sameFn := h.fn != nil && start.fn != nil && h.fn.Entry == start.fn.Entry && h.img == start.img
	switch {
	case h.cfa == 0 && start.cfa != 0 && (sameFn && h.sp != start.sp || h.sp < start.sp) && h.img != nil:
		// Recursion or a deeper frame: only the CFA tells frames apart.
		s.cfaHere(ctx, h)
	case sameFn && h.cfa == 0 && h.sp == start.sp:
		h.cfa = start.cfa
	}
	same = sameFn && (h.cfa == start.cfa || h.cfa == 0 || start.cfa == 0)
	return same, !same && h.sp < start.sp && (start.cfa == 0 || h.cfa < start.cfa)
}

// backwardDone decides whether a backward step in the frame of base,
// stepping from st, has finished now that the thread is at h, in GDB's
// order (process_event_stop_test, run backward): a callee stepped back
// into by "step" stops at the start of a row (handle_step_into_function_
// backward); no line stops; inside the step range of the same frame, the
// step stops at the range's start, unless that is the function's entry
// (then it goes on back to the call); then inlineOrLineDone, as forward.
// moved says st moved into another frame (a caller returned into
// backward).
func (s *Session) backwardDone(ctx context.Context, base here, h *here, st *stepState, into bool) (done, moved bool) {
	sameFrame, deeper := s.frameFrom(ctx, base, h)
	atRowStart := h.hasLine && h.pc-h.bias == h.line.Addr
	if deeper {
		// Only "step" gets here with lines: "next" ran back out of the
		// callee (backOutOfCallee). Stop at the start of its last line.
		return into && atRowStart, false
	}
	if !h.hasLine {
		return true, false
	}
	v := s.inlineView(ctx, h)
	if sameFrame && v.id.eq(st.id) && st.lo <= h.pc && h.pc < st.hi {
		return h.pc == st.lo && h.pc != h.entry, false
	}
	done, refreshed := s.inlineOrLineDone(ctx, h, v, st, sameFrame, into)
	return done, refreshed && !sameFrame
}

// stepCall handles a call instruction at cur.pc during a forward step.
func (s *Session) stepCall(ctx context.Context, cur here, in x86asm.Inst, into bool) (rsp.Stop, error) {
	ret := cur.pc + uint64(in.Len)
	if !into {
		st, _, err := s.stepResume(ctx, ret, cur.sp)
		return st, err
	}
	st, err := s.stepInsn(ctx, false)
	if err != nil || !plainStep(st) {
		return st, err
	}
	h, err := s.where(ctx)
	if err != nil {
		return st, err
	}
	if s.bpStopsHere(ctx, h.pc) {
		return st, nil // stepped onto a breakpoint at the callee's entry: a hit (stepLine)
	}
	if h.fn == nil || !h.hasLine {
		// No debug info in the callee: run back to the caller; where the
		// callee is a PLT stub whose function has lines (a shared
		// library's, built with -g), on to that function as GDB does
		// (its step skips the trampoline: the run stops at the
		// function's first line or back at the caller, whichever comes
		// first, as through the lazy binder or an IFUNC it may not come).
		for _, a := range s.pltTargets(ctx, h.pc) {
			defer s.tempBP(ctx, a)()
		}
		t := s.inf.Cur
		for {
			st, done, err := s.stepResume(ctx, ret, cur.sp)
			if err != nil || done || s.halt != "" || st.Kind != rsp.StopSignal {
				return st, err
			}
			pc, sp, err := s.inf.PCSP(ctx, s.inf.Cur)
			if err != nil || pc == ret || s.temps[pc] == 0 || s.bpStopsHere(ctx, pc) {
				return st, err // something else stopped the step
			}
			if s.inf.Cur == t && sp < cur.sp {
				st.SWBreak, st.HWBreak = false, false // in the function: a completed step
				return st, nil
			}
			// the function reached by another thread, or outside this
			// call: go on, with the stepping thread's view
			s.inf.Cur = t
		}
	}
	// Run to the end of the callee's prologue.
	a := h.img.StepIntoAddr(h.fn) + h.bias
	if a == h.pc {
		return st, nil
	}
	calleeSP := h.sp
	st, _, err = s.runTo(ctx, a, false, func(sp uint64) bool { return sp <= calleeSP })
	return st, err
}

// stepOutNoLines runs to the return address of a function without line
// info. ok is false when the stop is something else.
func (s *Session) stepOutNoLines(ctx context.Context) (rsp.Stop, bool, error) {
	fr, err := s.unwindTo(ctx, 0)
	if err != nil || len(fr) < 2 {
		return rsp.Stop{}, true, nil
	}
	return s.stepResume(ctx, fr[1].PC, fr[0].CFA)
}

// rangeEnd returns where range stepping from h.pc may run to: the end of
// the pc's line-table row (where the next row of any file starts, not
// the line's end, which may lie past rows of other files that a step
// outside its range must look at), or the first call instruction before
// it (calls are stepped over or into by stepCall). 0 means
// "single-step": the server has no range stepping (only gdbserver is
// trusted with vCont;r: rr exits on packets it does not know) or there
// is no row.
func (s *Session) rangeEnd(ctx context.Context, h here) uint64 {
	if !h.hasLine || h.line.RowEnd <= h.line.Addr || h.pc < h.line.Addr+h.bias {
		return 0
	}
	return s.rangeEndBefore(ctx, h, h.line.RowEnd+h.bias, 4096)
}

// inlineRangeEnd returns where range stepping from h.pc may run to when a
// "next" or a finish (st) goes through an inlined call deeper than the
// frame it steps in: the end of that call's range holding the pc (or the
// first call instruction before it), where no line or frame change can
// end the step (GDB keeps going there: "stepping through inlined
// function"), 0 for a single step; inside is false where h is not inside
// such a call. A loop in an inlined call is then one range step, not one
// per line and iteration.
func (s *Session) inlineRangeEnd(ctx context.Context, h here, st stepState) (end uint64, inside bool) {
	if h.fn == nil || st.id.code == 0 {
		return 0, false
	}
	fpc := h.pc - h.bias
	chain := h.fn.InlineChain(fpc)
	d := st.id.depth
	if d >= len(chain) || !(inlineView{chain: chain}).frameID(&h, d).eq(st.id) {
		return 0, false
	}
	e := chain[d].RangeEnd(fpc)
	if e == 0 {
		return 0, false
	}
	return s.rangeEndBefore(ctx, h, e+h.bias, 1<<16), true
}

// rangeEndBefore returns where range stepping from h.pc may run to on the
// way to end (at most limit bytes on): end, or the first call instruction
// before it (calls are stepped over or into by stepCall); 0 means
// "single-step": the server has no range stepping (only gdbserver is
// trusted with vCont;r: rr exits on packets it does not know).
func (s *Session) rangeEndBefore(ctx context.Context, h here, end, limit uint64) uint64 {
	if s.c.Dialect() != rsp.DialectGDBServer || h.pc >= end || end-h.pc > limit {
		return 0
	}
	atBP := s.breakAt(h.pc)
	for a := h.pc; a < end; {
		in, err := s.inf.Insn(ctx, a)
		if err != nil {
			return a
		}
		if x86code.IsCall(in) {
			return a
		}
		if atBP && x86code.MayBranchTo(in, a, h.pc) {
			// The range step takes the breakpoint here out for the run
			// (rsp.Client.RangeStep): it must not miss the breakpoint's
			// next hit. The client's single-step steps over it instead.
			return 0
		}
		a += uint64(in.Len)
	}
	return end
}

// rangeStep runs the selected thread while its pc stays in [lo, hi)
// (vCont;r), out of a breakpoint where it sits on one (rangeEnd checked
// that nothing in the range leads back there). The stop looks like the
// end of a single-step.
func (s *Session) rangeStep(ctx context.Context, lo, hi uint64) (rsp.Stop, error) {
	if len(s.softWatches()) > 0 {
		return s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.softRun(ctx, s.inf.Cur, lo, hi) })
	}
	if exits, ok := s.rangeExits(ctx, lo, hi); ok {
		// One trap where the thread leaves the range instead of the
		// server's single-step per instruction.
		st, _, err := s.runToAny(ctx, exits, false, true, nil)
		return st, err
	}
	return s.stepDelivering(ctx, func(ctx context.Context) (rsp.Stop, error) {
		// Made again after a delivered signal from where it was
		// interrupted, still inside [lo, hi), by the thread the
		// interrupted code runs on now: in Go, where the handler's
		// return (a goroutine preempted by SIGURG) may have moved it to
		// another thread (runToAny follows the goroutine).
		t := s.inf.Cur
		if s.othersRun() {
			return s.othersRunStep(ctx, t, func(ctx context.Context) (rsp.Stop, error) { return s.c.RangeStepOthersRunning(ctx, t, lo, hi) })
		}
		return s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.RangeStep(ctx, t, lo, hi) })
	})
}

// boundPLTTarget reads the GOT slot of the PLT stub sl: bound is true
// where the dynamic linker has bound it (the slot holds an address in
// another module), and a is then where a step into the function stops:
// past the prologue of the function the slot holds, where it has lines;
// 0 where it has none.
func (s *Session) boundPLTTarget(ctx context.Context, as *symbols.AddressSpace, sl symbols.Location) (a uint64, bound bool) {
	if sl.Symbol.Slot == 0 {
		return 0, false
	}
	b := make([]byte, s.inf.PtrSize())
	if n, err := s.inf.ReadMem(ctx, sl.Symbol.Slot+sl.Module.Bias, b); err != nil || n != len(b) {
		return 0, false
	}
	v := s.inf.Layout().Word(b)
	// Unbound, the slot leads back into the PLT, in the stub's own module
	// (to the lazy binder); bound, to the function in another module.
	if l, err := as.Lookup(v); v == 0 || err != nil || l.Module.Path == sl.Module.Path {
		return 0, false
	}
	img, bias, ok := s.inf.Module(ctx, v)
	if !ok || img == nil {
		return 0, true
	}
	fn := img.FuncAt(v - bias)
	if fn == nil || fn.Entry != v-bias {
		return 0, true
	}
	if _, ok := img.PCToLine(v - bias); !ok {
		return 0, true
	}
	return img.StepIntoAddr(fn) + bias, true
}

// pltTargets returns where a step into the PLT stub at pc stops when
// the function the stub calls has line information: past that
// function's prologue, in the program or a loaded library (nil: it has
// none, or pc is no PLT stub).
func (s *Session) pltTargets(ctx context.Context, pc uint64) []uint64 {
	// (read again: the library the stub leads to may be loaded since)
	as := s.inf.ReloadAddressSpace(ctx)
	if as == nil {
		return nil
	}
	sl, err := as.Lookup(pc)
	if err != nil {
		return nil
	}
	// A C++ thunk (a virtual call through a virtual base or a second
	// base adjusts this, then jumps to the function): on to the function,
	// as GDB's gnuv3_skip_trampoline.
	if d := symbols.Demangle(sl.Symbol.Name); strings.HasPrefix(d, "virtual thunk to ") || strings.HasPrefix(d, "non-virtual thunk to ") {
		_, fn, _ := strings.Cut(d, " thunk to ")
		if r, err := linespec.ResolveFunction(ctx, s.inf, "", fn); err == nil {
			return r.Addrs
		}
		return nil
	}
	if !strings.HasSuffix(sl.Symbol.Name, "@plt") {
		return nil
	}
	// Bound already: the stub jumps to what its GOT slot holds (the
	// function an IFUNC's resolver chose, strlen's __strlen_avx2).
	if a, bound := s.boundPLTTarget(ctx, as, sl); bound {
		if a == 0 {
			return nil
		}
		return []uint64{a}
	}
	name, _ := symbols.SplitVersion(strings.TrimSuffix(sl.Symbol.Name, "@plt"))
	r, err := linespec.ResolveFunction(ctx, s.inf, "", name)
	if err != nil {
		return nil
	}
	// GDB single-steps through the lazy binder to the function. Where
	// that is a longjmp function whose first line starts at its entry,
	// GDB's longjmp breakpoint there takes the stop (it goes on one
	// instruction), and the step-resume breakpoint GDB then puts at the
	// function's start is behind the pc: it runs on (longjmp.go).
	lj := s.longjmpEntries(ctx)
	r.Addrs = slices.DeleteFunc(slices.Clone(r.Addrs), func(a uint64) bool { return slices.Contains(lj, a) })
	// An IFUNC's symbol is its resolver, which the dynamic linker calls
	// on the way to binding the stub: not where the call goes (GDB goes
	// on to the function the resolver returns; rrmcp steps over this
	// first call).
	if ls, err := as.LookupName(name); err == nil {
		for _, l := range ls {
			if l.Symbol.Type == elf.STT_GNU_IFUNC {
				return nil
			}
		}
	}
	var out []uint64
	for _, a := range r.Addrs {
		// lines there: the function's DWARF, or an alias's (libc's puts
		// is _IO_puts in its debug file)
		if img, bias, ok := s.inf.Module(ctx, a); ok && img != nil && img.FuncAt(a-bias) != nil {
			if _, ok := img.PCToLine(a - bias); ok {
				out = append(out, a)
			}
		}
	}
	return out
}
