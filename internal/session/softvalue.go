package session

import (
	"context"
	"fmt"

	"github.com/rrmcp/rrmcp/rsp"
)

// A watchpoint on a value that is not in memory (a variable the compiler
// keeps in a register, as -O2 code does; a constant; an expression of
// them) is watched as GDB watches it: by its value, single-stepping the
// program and evaluating the expression after each instruction while its
// frame is the innermost one (GDB's software watchpoint on a register
// value). In a callee the value cannot change: a register variable has
// no address a callee could write through, and the callee gives back the
// registers it saves. The frame is the one the watchpoint was set in
// (CFA and function entry, as watchscope.go keeps it); when it returns the
// watchpoint is deleted, as in GDB. Only a live program can be stepped
// this way (gdbserver).

// valueCost is what a value watchpoint's note says it costs.
const valueCost = "while it is set, continue, next, step and finish run the program one instruction at a time " +
	"(a few round trips each, callees included), like GDB's software watchpoints: hundreds of times slower than a free run"

// byValue reports whether b is a watchpoint on a value not in memory.
func (b *breakpoint) byValue() bool { return b.lv != nil && b.lv.inReg }

// valueWatch makes the watchpoint on expr, whose value lv is not in
// memory (see above).
func (s *Session) valueWatch(ctx context.Context, expr string, lv *lvalue, typ rsp.BreakpointType) (*breakpoint, error) {
	if typ != rsp.WriteWatchpoint {
		return nil, argErrorf("access", "%s is not in memory (a register or computed value): only its changes can be watched (access \"write\"), by its value, as in GDB", expr)
	}
	if _, ok := s.softRegs(); !ok || s.kind != KindLive || s.c.Dialect() != rsp.DialectGDBServer {
		return nil, argErrorf("expression", "%s is not in memory (a register or computed value); watching its value needs a live program under gdbserver (rr_live_start), which is stepped one instruction at a time; here watch a variable in memory, a member or *ADDRESS", expr)
	}
	if lv.size > maxSoftWatch {
		return nil, argErrorf("expression", "%s is %d bytes; a value watchpoint compares at most %d", expr, lv.size, maxSoftWatch)
	}
	sc := s.watchScopeOf(ctx, expr)
	if sc == nil {
		return nil, argErrorf("expression", "%s is not in memory and uses no variable of the selected frame: nothing can change it; watch a variable, member or *ADDRESS", expr)
	}
	b := &breakpoint{typ: typ, spec: expr, addrs: []uint64{0}, size: lv.size, enabled: true, lv: lv, soft: true, scope: sc}
	b.old = s.valueIn(ctx, b, s.frame)
	b.note = fmt.Sprintf("software watchpoint: %s is not in memory (the compiler keeps it in a register, or it is computed), so its value is watched; %s", expr, valueCost)
	if err := s.insertScope(ctx, b); err != nil {
		return nil, err
	}
	return b, nil
}

// watchNow returns the bytes b watches now: memory at its address, or a
// value watchpoint's value when its frame is the innermost one (nil
// otherwise, and where the value cannot be read).
func (s *Session) watchNow(ctx context.Context, b *breakpoint) []byte {
	if !b.byValue() {
		return s.watchedAt(ctx, b, b.addrs[0])
	}
	level, where := s.watchScopeNow(ctx, b, false)
	if where != scopeIn {
		return nil // a callee, most steps there
	}
	return s.valueIn(ctx, b, level)
}

// valueIn evaluates b's expression in frame n and returns its bytes (nil
// where it cannot: optimized out at this pc, say).
func (s *Session) valueIn(ctx context.Context, b *breakpoint, n int) []byte {
	v, _ := s.valueAt(ctx, b, n)
	return v
}

// valueAt evaluates b's expression in frame n and returns its bytes, or
// why it cannot.
func (s *Session) valueAt(ctx context.Context, b *breakpoint, n int) ([]byte, error) {
	defer func(f int) { s.frame = f }(s.frame)
	s.frame = n
	o, fs, _, err := s.evalObject(ctx, b.spec)
	switch {
	case err != nil:
		return nil, err
	case o.Err != nil:
		return nil, o.Err
	case o.Type == nil || int(o.Type.Size()) != b.size:
		return nil, fmt.Errorf("%s is no longer a value of %d bytes", b.spec, b.size)
	}
	v, err := fs.Values().Bytes(o)
	if err == nil && len(v) != b.size {
		err = fmt.Errorf("%s is no longer a value of %d bytes", b.spec, b.size)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// callOutcome is how callOver ended.
type callOutcome int

const (
	callStepped  callOutcome = iota // not run over: single-step into it
	callReturned                    // the call returned to ret; the thread is there
	callStopped                     // something else stopped the program: the stop to report
)

// callOver runs the call at thread t's pc (last: the stop there, for its
// stack pointer) to its return at ret with a
// temporary breakpoint there, for value watchpoints alone (a callee
// cannot change a value that is not in memory): one resume where
// single-stepping the callee is one per instruction. A deeper recursion
// returning to ret goes on (the stack pointer is below the call's). A
// breakpoint of the table at ret leaves the call to single steps, whose
// arrival there reports it.
func (s *Session) callOver(ctx context.Context, t rsp.Thread, ret uint64, regs softRegSet, last rsp.Stop) (rsp.Stop, callOutcome, error) {
	if s.breakAt(ret) {
		return rsp.Stop{}, callStepped, nil
	}
	if last.Thread != (rsp.Thread{}) && last.Thread != t {
		last = rsp.Stop{} // another thread's registers
	}
	sp0, err := regs.stopSP(ctx, s.c, last, t)
	if err != nil {
		return rsp.Stop{}, callStepped, nil
	}
	if err := s.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, ret, 0); err != nil {
		return rsp.Stop{}, callStepped, nil
	}
	defer s.c.RemoveBreakpoint(context.WithoutCancel(ctx), rsp.SoftwareBreakpoint, ret, 0) //nolint:errcheck // gone with the process
	for {
		st, err := s.c.Continue(ctx)
		if err != nil {
			return st, callStopped, err
		}
		if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGTRAP || st.Watch != rsp.WatchNone ||
			st.Thread != (rsp.Thread{}) && st.Thread != t {
			return st, callStopped, nil
		}
		pc, err := regs.stopPC(ctx, s.c, st, t)
		if err != nil {
			return st, callStopped, err
		}
		if pc != ret {
			return st, callStopped, nil // a breakpoint in the callee
		}
		sp, err := regs.stopSP(ctx, s.c, st, t)
		if err != nil {
			return st, callStopped, err
		}
		if sp >= sp0 {
			return st, callReturned, nil
		}
	}
}
