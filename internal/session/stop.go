package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/rsp"
)

// makeStop turns a stop reply into a Stop with the top frame, its source
// line, watchpoint values and, for rr, the position. It also moves the
// session's selection to the stopped thread and frame 0.
func (s *Session) makeStop(ctx context.Context, st rsp.Stop) *Stop {
	// The resume that led here dropped the per-stop caches (run); what was
	// read since (the registers and stack block of the stop, by a command
	// that looked before making its stop) is still good.
	s.threads, s.frames, s.frame = nil, nil, 0
	s.pending = 0
	out := &Stop{}
	if s.out != nil {
		out.Output = s.out.Trim() // a program printing without end must not fill the disk
	}
	if s.srv != nil {
		s.srv.Trim() // gdbserver's messages: a file that a long run must not let fill the disk
	}
	if st.Thread != (rsp.Thread{}) {
		s.inf.Cur = st.Thread
		out.Thread = st.Thread.String()
	}
	switch {
	case st.Kind == rsp.StopExited:
		out.Reason = "exited"
		code := st.ExitCode
		out.ExitCode = &code
		out.Message = s.exitMessage()
		s.exited = &st
		s.setExitVars(st)
		return out
	case st.Kind == rsp.StopTerminated:
		out.Reason = "killed"
		out.Signal = st.Signal.String()
		out.SignalMeaning = st.Signal.Meaning()
		s.exited = &st
		s.setExitVars(st)
		return out
	case st.Kind == rsp.StopNoResumed:
		out.Reason = "no-threads"
		return out
	}
	s.exited = nil
	switch {
	case st.AboutToExit:
		out.Reason = "history-end"
		out.Message = "The process is about to exit (end of the recording); reverse execution still works."
	case st.AtHistoryStart:
		out.Reason = "history-start"
		out.Message = "Reached the beginning of the recording."
	case st.Watch != rsp.WatchNone:
		out.Reason = "watchpoint"
	case st.Interrupted && (st.Signal == rsp.Sig0 || st.Signal == rsp.SIGINT || st.Signal == rsp.SIGTRAP):
		out.Reason = "interrupted"
	case st.Signal == rsp.SIGTRAP || st.Signal == rsp.Sig0:
		out.Reason = "step"
	default:
		out.Reason = "signal"
		out.Signal = st.Signal.String()
		out.SignalMeaning = st.Signal.Meaning()
		if s.c.Dialect() != rsp.DialectRR { // a replay's signals are replayed anyway
			s.pending = st.Signal
			out.Message = "Continuing delivers " + out.Signal + " to the program."
		}
		switch st.Signal {
		case rsp.SIGSEGV, rsp.SIGBUS, rsp.SIGABRT, rsp.SIGFPE, rsp.SIGILL:
			if s.caps.Reverse {
				out.Message = strings.TrimSpace(out.Message + " To find the cause: rr_backtrace and rr_locals here, then rr_watchpoint_set on the bad value and rr_continue reverse=true to reach the write that produced it.")
			} else {
				out.Message = strings.TrimSpace(out.Message + " To find the cause: rr_backtrace and rr_locals here; to look earlier, start a new run (rr_live_start) with breakpoints or watchpoints before this point.")
			}
		}
	}
	// The pc the stop reply carried (gdbserver sends rip, rsp and rbp
	// with every stop) is enough for the stop: all registers and the top
	// of the stack, which nearly every stop's next look at the frame needs,
	// are asked for at the end and read by that look (PrefetchStop), so
	// the stop is reported without waiting for them. Without the pc in the
	// reply (rr and QEMU send none) they are read now.
	pc, _, prefetch := s.inf.StopPCSP(s.inf.Cur)
	ok := prefetch
	if !ok {
		regs, err := s.inf.RegsAtStop(ctx)
		pc, ok = regs.PC(), err == nil
	}
	if ok {
		s.freezeInlineEntry(pc)
		out.Frame = &Frame{Level: 0, Location: s.locate(ctx, pc)}
		// A step into an inlined call at the pc did not run (stepIn): no
		// breakpoint was hit, whatever breakpoint is there.
		if bp := s.bpAt(pc); bp != nil && s.stepIn == 0 && (out.Reason == "step" || st.SWBreak || st.HWBreak) && (st.SWBreak || st.HWBreak || st.Signal == rsp.SIGTRAP) {
			out.Reason = "breakpoint"
			out.Breakpoint = bp.num
		}
	}
	if st.Watch != rsp.WatchNone {
		out.Watch = s.watchHit(ctx, st)
		if out.Watch != nil {
			out.Breakpoint = out.Watch.Number
			if w := out.Watch; w.Error != "" {
				// GDB's watchpoint_check: "Error evaluating expression
				// for watchpoint N", and the watchpoint is deleted.
				out.Message = fmt.Sprintf("Error evaluating expression for watchpoint %d: %s. Watchpoint %d deleted.", w.Number, w.Error, w.Number)
				if b, err := s.findBP(w.Number); err == nil {
					s.deleteBP(ctx, b) //nolint:errcheck // the message says it is gone
				}
			}
		}
	}
	if s.caps.Events {
		if p, err := s.position(ctx); err == nil {
			out.Position = &p
		}
	}
	if prefetch {
		s.inf.PrefetchStop(ctx)
	}
	return out
}

// position reads rr's event number and tick count.
func (s *Session) position(ctx context.Context) (Position, error) {
	ev, err := s.c.When(ctx)
	if err != nil {
		return Position{}, err
	}
	t, err := s.c.WhenTicks(ctx)
	if err != nil {
		return Position{}, err
	}
	return Position{Event: ev, Ticks: t}, nil
}

// exitedErr says how the program ended and what that means for the request.
func (s *Session) exitedErr(what string) error {
	how := "the program has exited"
	if e := s.exited; e != nil {
		if e.Kind == rsp.StopTerminated {
			how = "the program was killed by " + e.Signal.String()
		} else {
			how = fmt.Sprintf("the program exited with code %d", e.ExitCode)
		}
	}
	return fmt.Errorf("%s; %s: %w", how, what, ErrExited)
}
