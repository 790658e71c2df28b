package session

import (
	"context"

	"github.com/rrmcp/rrmcp/rsp"
)

// maxStepSignals bounds the signals delivered during one forward step; a
// program that is sent a signal at every moment would otherwise never
// finish the step. Past it, the step's signals are not delivered.
const maxStepSignals = 8

// stepDelivering runs one forward step primitive (a single step, a range
// step). A stepping thread reports every signal, even one the policy
// passes without stopping; like GDB (a step-resume breakpoint at the
// place the signal interrupted), the signal is delivered with the step's
// thread continuing until it is back at the same pc and stack pointer —
// the handler runs at full speed, and a breakpoint in it stops the step
// there — and the step is then made again. A signal that is not passed is
// dropped by the step made again; one that stops is the step's stop.
//
// A signal the program stopped with before the step (s.pending: it stops,
// and is passed) is delivered first the same way, so that stepping on
// from a signal stop does not drop it, as continuing does not (where a
// line step begins at such a stop, stepIntoHandler has delivered it).
func (s *Session) stepDelivering(ctx context.Context, step func(ctx context.Context) (rsp.Stop, error)) (rsp.Stop, error) {
	if sig, t := s.pending, s.inf.Cur; sig != 0 && t != (rsp.Thread{}) && s.c.Dialect() != rsp.DialectRR {
		if back, done, err := s.deliverAndReturn(ctx, t, sig); err != nil || !done {
			return back, err
		}
	}
	for n := 0; ; n++ {
		st, err := step(ctx)
		if err != nil || n == maxStepSignals || !s.passedDuringStep(st) {
			return st, err
		}
		if s.handling(st.Signal).Print {
			s.sigSeen = append(s.sigSeen, st.Signal.String())
		}
		if back, done, err := s.deliverAndReturn(ctx, st.Thread, st.Signal); err != nil || !done {
			return back, err
		}
	}
}

// deliverAndReturn delivers sig to thread t and runs until t is back where
// it is now (same pc and stack pointer): the signal's handler has
// returned. The handler runs at full speed, also with software
// watchpoints (a write there is seen at the first check after it). done is false when something else stopped the program first
// (a breakpoint in the handler, the program's end); st is that stop.
// Without the pc it returns done with nothing delivered.
func (s *Session) deliverAndReturn(ctx context.Context, t rsp.Thread, sig rsp.Signal) (st rsp.Stop, done bool, err error) {
	pc0, sp0, err := s.inf.PCSP(ctx, t)
	if err != nil {
		s.pending = 0
		return rsp.Stop{}, true, nil
	}
	// This returns the thread to pc0 by itself: the client's own
	// finishing of a step over there must not take its stop.
	s.c.ForgetInterruptedStepOver(pc0, sp0)
	s.pending, s.inf.Cur = sig, t
	s.handing = true
	defer func() { s.handing = false }()
	return s.runTo(ctx, pc0, false, func(sp uint64) bool { return sp == sp0 })
}

// passedDuringStep reports whether st is a signal that stopped a step and
// that the policy passes to the program without stopping.
func (s *Session) passedDuringStep(st rsp.Stop) bool {
	if st.Kind != rsp.StopSignal || st.Interrupted || st.Watch != rsp.WatchNone || st.Thread == (rsp.Thread{}) ||
		st.Direction != rsp.Forward || s.c.Dialect() == rsp.DialectRR {
		return false
	}
	switch st.Signal {
	case rsp.Sig0, rsp.SIGTRAP, rsp.SIGINT, rsp.SIGKILL, rsp.SIGSTOP:
		return false
	}
	h := s.handling(st.Signal)
	return !h.Stop && h.Pass
}

// stepIntoHandler begins a forward line step from a signal stop whose
// signal is passed (s.pending) as GDB does: the thread is resumed with
// the signal for one instruction; where the program has a handler with
// line information for it, the step ends on the handler's first
// instruction ("If a stepping command is issued after the program stops
// for a signal, and pass is in effect for that signal, GDB steps into
// the signal's handler"). A handler without line information runs to
// its return, as GDB steps over a function without it; without a
// handler the instruction was an ordinary step. done: the step ended
// (st is its stop); else the line step goes on from where the thread
// is.
func (s *Session) stepIntoHandler(ctx context.Context) (st rsp.Stop, done bool, err error) {
	t := s.inf.Cur
	pc0, sp0, err := s.inf.PCSP(ctx, t)
	if err != nil {
		return rsp.Stop{}, false, nil // the step delivers it as before
	}
	st, stepped, err := s.stepWithSignal(ctx)
	if !stepped {
		return rsp.Stop{}, false, nil
	}
	if err != nil || st.Kind != rsp.StopSignal || st.Signal != rsp.SIGTRAP || st.Watch != rsp.WatchNone {
		return st, true, err // the program's end, another signal, a watchpoint: the step's stop
	}
	pc, sp, err := s.inf.PCSP(ctx, t)
	if err != nil {
		return st, true, err
	}
	// The kernel put a signal frame below the red zone and the thread at
	// the handler's entry: far below where it was, elsewhere.
	handler := sp+256 < sp0 && pc != pc0
	if !handler {
		return rsp.Stop{}, false, nil
	}
	if h, werr := s.where(ctx); werr == nil && h.hasLine {
		return st, true, nil
	}
	// a handler without lines: run it back to where it interrupted
	s.c.ForgetInterruptedStepOver(pc0, sp0)
	back, ok, err := s.runTo(ctx, pc0, false, func(sp uint64) bool { return sp == sp0 })
	if err != nil || !ok {
		return back, true, err
	}
	return rsp.Stop{}, false, nil
}

// stepWithSignal makes one instruction step of the selected thread
// delivering the signal it stopped with, where that is passed (s.pending:
// rr replays signals itself): on a handler, Linux ends the step on its
// first instruction. stepped is false where there is none to deliver.
func (s *Session) stepWithSignal(ctx context.Context) (st rsp.Stop, stepped bool, err error) {
	sig, t := s.pending, s.inf.Cur
	if sig == 0 || t == (rsp.Thread{}) || s.c.Dialect() == rsp.DialectRR {
		return rsp.Stop{}, false, nil
	}
	s.pending = 0
	st, err = s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.StepWithSignal(ctx, t, sig) })
	return st, true, err
}
