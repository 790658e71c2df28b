package rsp

import (
	"context"
	"errors"
	"fmt"
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

// A thread that stopped at a hardware breakpoint on x86 needs no step
// over: when an instruction breakpoint fires, the kernel sets the resume
// flag (RF) in the thread's flags, and RF keeps the debug registers from
// firing on the next instruction. gdbserver resumes the thread with the
// flags it stopped with, so a plain resume runs the instruction under the
// breakpoint and goes on, the breakpoint still in place: one resume where
// the remove/step/insert dance is two, and two round trips (a breakpoint
// condition rrmcp evaluates, false at every hit, costs one round trip a
// hit less). rr and QEMU implement breakpoints themselves (no RF), and a
// software breakpoint is an int3 the thread would execute again.

// resumeFlagPasses reports whether the thread of last, stopped at the
// breakpoints hits at its pc, resumes past them by itself: the server is
// gdbserver on x86, last is the report of a hardware breakpoint firing
// (a step that only landed on the pc has no RF), every breakpoint at the
// pc is a hardware one, and no register was written since the stop (a P
// or G writes the flags too: RF is not ours to know afterwards).
func (c *Client) resumeFlagPasses(last Stop, hits []Breakpoint) bool {
	if c.g.dialect != DialectGDBServer || !c.x86 || !last.HWBreak || c.regsWritten {
		return false
	}
	for _, b := range hits {
		if b.Type != HardwareBreakpoint {
			return false
		}
	}
	return true
}

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

// Stepping over a breakpoint costs no round trips of its own: the z that
// takes it out goes in the same write as the single-step, and the Z that
// puts it back in the same write as the next resume, whatever that is (a
// continue, the range step of a next, another step over). Until then the
// breakpoint is owed: still in the table (the program cannot reach it
// without a resume), out of the server. The server handles the requests
// in the order they came, so the step runs without it and the resume
// after with it, as in GDB's remove/step/insert dance.
//
// InsertBreakpointLater and RemoveBreakpointLater use the same write: a
// breakpoint inserted later is owed from the start, and one removed
// later is doomed, out of the table and still in the server until the
// next resume's z.

// bpRequest is a Z or z request sent ahead of a resume, and what its
// reply does to the table.
type bpRequest struct {
	pkt    string
	insert bool
	// done applies the reply (err is its error, nil for OK) and returns
	// the error to report, if any.
	done func(err error) error
}

// breakpointPrefix returns the requests to send before a resume that
// steps over zs (nil for other resumes): the removal of the doomed
// breakpoints, the insertion of the owed ones, except those zs keeps out,
// and the removal of zs from the server, except those already out. zs
// are owed from then on.
func (c *Client) breakpointPrefix(zs []Breakpoint) []bpRequest {
	var out []bpRequest
	for _, b := range c.doomed {
		out = append(out, removal(b, "remove"))
	}
	c.doomed = nil
	for _, b := range c.owed {
		if slices.Contains(zs, b) {
			continue // stays out for this step
		}
		out = append(out, bpRequest{pkt: b.packet('Z'), insert: true, done: func(err error) error {
			if err != nil {
				c.delBP(b)
				if c.dropFresh(b) {
					return fmt.Errorf("insert %v at %#x (sent with the resume): %w", b.Type, b.Addr, err)
				}
				return fmt.Errorf("re-insert %v at %#x after stepping over it: %w", b.Type, b.Addr, err)
			}
			c.dropFresh(b)
			return nil
		}})
	}
	for _, b := range zs {
		if slices.Contains(c.owed, b) {
			continue // already out
		}
		out = append(out, removal(b, "step over breakpoint: remove"))
	}
	c.owed = slices.Clone(zs)
	return out
}

// removal is the request that takes b out of the server; what names it
// in the error.
func removal(b Breakpoint, what string) bpRequest {
	return bpRequest{pkt: b.packet('z'), done: func(err error) error {
		var re *Error
		if err == nil || errors.As(err, &re) {
			// Out. (An error reply: the server did not have it, as when
			// an earlier z's reply was lost to a cancellation.)
			return nil
		}
		return fmt.Errorf("%s %v at %#x: %w", what, b.Type, b.Addr, err)
	}}
}

// dropFresh forgets b as inserted with InsertBreakpointLater and not yet
// sent; it reports whether it was.
func (c *Client) dropFresh(b Breakpoint) bool { return drop(&c.fresh, b) }

// undoom puts b, removed with RemoveBreakpointLater but still in the
// server, back in the table; it reports whether b was such a breakpoint.
func (c *Client) undoom(b Breakpoint) bool {
	if !drop(&c.doomed, b) {
		return false
	}
	c.addBP(b)
	delete(c.moribund, b.Addr)
	return true
}

// dropOwed forgets b as owed (the client removes it from the table, or
// the server got it back another way); it reports whether b was owed.
func (c *Client) dropOwed(b Breakpoint) bool { return drop(&c.owed, b) }

// drop deletes b from *list and reports whether it was there.
func drop(list *[]Breakpoint, b Breakpoint) bool {
	i := slices.Index(*list, b)
	if i >= 0 {
		*list = slices.Delete(*list, i, i+1)
	}
	return i >= 0
}
