package rsp

import (
	"context"
	"slices"
)

// A signal can stop a step over a breakpoint before the instruction ran:
// it was pending when the thread was resumed, and a stepping thread
// reports every signal, even one the server passes silently. The caller
// then continues with the signal delivered (the breakpoint is back in
// place); when the handler returns, the thread executes the breakpoint it
// never left and traps there again. Like GDB's step-resume breakpoint
// (infrun.c, "signal arrived while stepping over breakpoint"), the client
// remembers where the step over stopped, and when a thread next traps at
// the same pc with the same stack pointer (the handler returned; a deeper
// call of the same function has a lower one) it finishes the step over
// and goes on instead of reporting a second hit. The thread is not
// compared: the stack is the execution's identity, and a runtime may move
// it to another thread meanwhile (Go's preemption signal, SIGURG, does).

// maxUnfinished bounds the interrupted step overs remembered.
const maxUnfinished = 64

// unfinishedStep is a step over a breakpoint that a signal interrupted.
type unfinishedStep struct {
	pc, sp uint64
}

// noteInterruptedStepOver records st, the stop of a step over the
// breakpoint at pc, when a signal stopped it before the instruction ran.
func (c *Client) noteInterruptedStepOver(ctx context.Context, st Stop, t Thread, pc uint64) {
	if st.Kind != StopSignal || st.Signal == SIGTRAP || st.Signal == Sig0 || st.Interrupted {
		return
	}
	if st.Thread != (Thread{}) && st.Thread != t {
		return
	}
	st.Thread = t
	if now, err := c.readPC(ctx, st); err != nil || now != pc {
		return // it ran (a system call that returned into the signal)
	}
	sp, err := c.readSP(ctx, st)
	if err != nil {
		return
	}
	if len(c.unfinished) == maxUnfinished { // handlers that never returned (longjmp)
		c.unfinished = c.unfinished[1:]
	}
	c.unfinished = append(c.unfinished, unfinishedStep{pc: pc, sp: sp})
}

// finishedStepOver forgets the interrupted step overs at (pc, sp): the
// thread has just stepped over that breakpoint from there with no handler
// in between (a step that did not deliver the signal, e.g. rr_stepi after
// the signal stop), so no return to it is owed. Kept, it would take the
// next hit at the same place — a loop's next call of the same function —
// for that return and go on past it.
func (c *Client) finishedStepOver(pc, sp uint64) {
	c.unfinished = slices.DeleteFunc(c.unfinished, func(u unfinishedStep) bool { return u.pc == pc && u.sp == sp })
}

// ForgetInterruptedStepOver forgets the step over at (pc, sp) that a
// signal interrupted: the caller brings the thread back there itself (a
// step-resume breakpoint of its own) and wants that stop.
func (c *Client) ForgetInterruptedStepOver(pc, sp uint64) { c.finishedStepOver(pc, sp) }

// backAtStepOver reports whether st is the trap of a thread returning to
// a step over that a signal interrupted (and forgets that step over).
func (c *Client) backAtStepOver(ctx context.Context, st Stop) bool {
	if len(c.unfinished) == 0 || st.Kind != StopSignal || st.Signal != SIGTRAP || st.Watch != WatchNone ||
		st.Direction != Forward || st.Thread == (Thread{}) {
		return false
	}
	if c.g.exited {
		c.unfinished = nil
		return false
	}
	pc, err := c.readPC(ctx, st)
	if err != nil {
		return false
	}
	sp, err := c.readSP(ctx, st)
	if err != nil {
		return false
	}
	for i, u := range c.unfinished {
		if u.pc == pc && u.sp == sp {
			c.unfinished = append(c.unfinished[:i], c.unfinished[i+1:]...)
			return true
		}
	}
	return false
}

// goOn finishes what a forward continue's stop st leaves to the client:
// pending hits of removed breakpoints and the returns to step overs that
// a signal interrupted are not stops anybody asked for.
func (c *Client) goOn(ctx context.Context, st Stop, err error) (Stop, error) {
	for err == nil {
		switch {
		case c.backAtStepOver(ctx, st):
			var stepped bool
			st, stepped, err = c.stepOver(ctx)
			if err != nil || (stepped && !plainStep(st)) {
				return st, err
			}
		case c.moribundHit(ctx, st):
		default:
			return st, nil
		}
		st, _, err = c.resume(ctx, c.contPacket(), Forward, false)
	}
	return st, err
}
