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
func (s *Session) stepDelivering(ctx context.Context, step func(ctx context.Context) (rsp.Stop, error)) (rsp.Stop, error) {
	for n := 0; ; n++ {
		st, err := step(ctx)
		if err != nil || n == maxStepSignals || !s.passedDuringStep(st) {
			return st, err
		}
		pc0, sp0, err := s.pcSP(ctx, st.Thread)
		if err != nil {
			return st, nil
		}
		if s.handling(st.Signal).Print {
			s.sigSeen = append(s.sigSeen, st.Signal.String())
		}
		// This returns the thread to pc0 by itself: the client's own
		// finishing of a step over there must not take its stop.
		s.c.ForgetInterruptedStepOver(pc0, sp0)
		s.pending, s.cur = st.Signal, st.Thread
		back, done, err := s.runTo(ctx, pc0, false, func(sp uint64) bool { return sp == sp0 })
		if err != nil || !done {
			return back, err
		}
	}
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
