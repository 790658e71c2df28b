package session

import (
	"context"
	stddwarf "debug/dwarf"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
	"github.com/rrmcp/rrmcp/dwarf/eval"
	"github.com/rrmcp/rrmcp/rsp"
)

// A watchpoint on an expression that uses a variable of a frame (a
// local, a parameter, this, or a member through this) watches stack
// slots that belong to that call only: like GDB (breakpoint.c's
// watchpoint_scope breakpoint and watchpoint_check), it is deleted when
// the frame returns, and the program stops there saying so. A
// breakpoint at the return address in the caller sees the return; the
// frame of a watchpoint that triggers is checked as well (a reverse run
// reaches writes from before the call).

// watchScope is the frame a watchpoint's expression uses.
type watchScope struct {
	cfa   uint64 // the physical frame's CFA
	entry uint64 // its function's entry (runtime address): with cfa, GDB's frame id
	// inline: the inlined call whose frame it is (its
	// DW_TAG_inlined_subroutine), 0 for the physical frame: GDB's frame
	// id of an inlined frame names its block
	inline stddwarf.Offset
	ret    uint64 // the return address in its caller, where a breakpoint is inserted (0: none)
}

// frame reports whether f is sc's frame, GDB's frame_find_by_id: its CFA
// and function, the inlined call or the physical frame itself, and not a
// frame synthesized for a tail call (another id: a frame that ended in a
// jump to its callee is gone).
func (sc *watchScope) frame(f *dwarf.Frame) bool {
	if f == nil || f.CFA != sc.cfa || f.Function == nil || f.Function.Entry+f.Bias != sc.entry || f.TailCall {
		return false
	}
	if sc.inline != 0 {
		return f.Inlined && f.Inline != nil && f.Inline.Offset == sc.inline
	}
	return !f.Inlined
}

// level is where sc's frame is in the innermost physical frame, whose
// inlined calls at the pc are chain (outermost first): the number of
// inlined frames above it; ok is false where the chain has left sc's
// inlined call.
func (sc *watchScope) level(chain []dwarf.InlineFrame) (int, bool) {
	if sc.inline == 0 {
		return len(chain), true
	}
	for i, c := range chain {
		if c.Offset == sc.inline {
			return len(chain) - 1 - i, true
		}
	}
	return 0, false
}

// watchScopeOf returns the scope of expr in the selected frame, nil
// where expr uses no variable of the frame.
func (s *Session) watchScopeOf(ctx context.Context, expr string) *watchScope {
	fs, err := s.scope(ctx)
	if err != nil {
		return nil
	}
	e, err := eval.Parse(ctx, s.evalScope(fs), expr)
	if err != nil {
		return nil
	}
	_, thisErr := fs.Local(ctx, "this")
	uses := false
	for _, n := range cexpr.Names(e) {
		if fs.NeedsFrame(n) {
			// (a local whose location needs no frame, a constant or an
			// address, is no reason for a scope: GDB's innermost block
			// records only symbols that read the frame)
			uses = true
			break
		}
		if _, err := fs.Local(ctx, n); err == nil {
			continue // a local of no frame
		}
		if thisErr == nil {
			if _, err := fs.Global(ctx, n); err != nil {
				uses = true // a member through this
				break
			}
		}
	}
	if !uses {
		return nil
	}
	frames, err := s.unwindUntil(ctx, s.frame, func(fr []*dwarf.Frame) bool {
		_, caller := physicalAt(fr, s.frame)
		return caller
	})
	if err != nil || s.frame >= len(frames) {
		return nil
	}
	// The physical frame holding the selected one (an inlined call's
	// variables live in the frame it is inlined into), and its caller.
	i, _ := physicalAt(frames, s.frame)
	f := frames[i]
	if f.CFA == 0 || f.Function == nil {
		return nil
	}
	sc := &watchScope{cfa: f.CFA, entry: f.Function.Entry + f.Bias}
	if sel := frames[s.frame]; sel.Inlined && sel.Inline != nil {
		// a variable of an inlined call: its frame ends where the pc
		// leaves the call (GDB's frame id of the inlined frame)
		sc.inline = sel.Inline.Offset
	}
	switch {
	case i+1 < len(frames):
		sc.ret = frames[i+1].PC
	case f.IsMain():
		// The backtrace ends at main (GDB's backtrace past-main off),
		// but main returns to the C library as any function returns:
		// to the address in the word below its CFA (x86's call).
		ws := 8
		if s.inf.I386() {
			ws = 4
		}
		if b := s.peek(ctx, f.CFA-uint64(ws), ws); b != nil {
			sc.ret = dwarf.DecodeUint(b)
		}
	}
	return sc
}

// insertScope puts b's scope breakpoint in the server's table.
func (s *Session) insertScope(ctx context.Context, b *breakpoint) error {
	if b.scope == nil || b.scope.ret == 0 {
		return nil
	}
	if err := s.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, b.scope.ret, 0); err != nil {
		return fmt.Errorf("insert the breakpoint at %#x that sees the frame of %s return: %w", b.scope.ret, b.spec, err)
	}
	return nil
}

// scopeNeeds reports whether an enabled watchpoint other than except
// has its scope breakpoint at a.
func (s *Session) scopeNeeds(a uint64, except *breakpoint) bool {
	for _, o := range s.bps {
		if o != except && o.enabled && o.scope != nil && o.scope.ret == a {
			return true
		}
	}
	return false
}

// removeScope takes b's scope breakpoint out of the server's table unless
// a user breakpoint or another watchpoint's scope needs it.
func (s *Session) removeScope(ctx context.Context, b *breakpoint) error {
	if b.scope == nil || b.scope.ret == 0 {
		return nil
	}
	return s.removeServerEntry(ctx, rsp.SoftwareBreakpoint, b.scope.ret, 0, b)
}

// anyScope reports whether an enabled watchpoint has a scope: where none
// has, a stop has nothing for judgeScope to look at.
func (s *Session) anyScope() bool {
	for _, b := range s.bps {
		if b.enabled && b.scope != nil {
			return true
		}
	}
	return false
}

// scopeReturned reports whether a thread at pc with stack pointer sp is
// at a watchpoint's scope breakpoint having returned from its frame.
func (s *Session) scopeReturned(pc, sp uint64) bool {
	for _, b := range s.bps {
		if b.enabled && b.scope != nil && b.scope.ret == pc && returnedTo(b.scope.cfa)(sp) {
			return true
		}
	}
	return false
}

// scopeOnlyAt reports whether what is at pc is scope breakpoints alone,
// of frames that have not returned (a deeper call of the same function
// returning there): a stop there is no stop for the user.
func (s *Session) scopeOnlyAt(pc, sp uint64) bool {
	if s.bpAt(pc) != nil || s.scopeReturned(pc, sp) {
		return false
	}
	return s.scopeNeeds(pc, nil)
}

// frameAlive reports whether the frame of sc is on the current thread's
// stack (where the stack cannot be read, it keeps the watchpoint).
func (s *Session) frameAlive(ctx context.Context, sc *watchScope) bool {
	_, found, err := s.scopeFrame(ctx, sc)
	return found || err != nil
}

// scopeFrame finds the frame of sc on the current thread's stack: its
// level. The stack grows down: past a frame whose CFA is above sc's, it
// is not further out; frames inlined into it share its CFA, so the
// unwinding goes on past them.
func (s *Session) scopeFrame(ctx context.Context, sc *watchScope) (level int, found bool, err error) {
	frames, err := s.unwindUntil(ctx, 0, func(fr []*dwarf.Frame) bool {
		return len(fr) == 0 || fr[len(fr)-1].CFA > sc.cfa || slices.ContainsFunc(fr, sc.frame)
	})
	if err != nil {
		return 0, false, err
	}
	i := slices.IndexFunc(frames, sc.frame)
	return i, i >= 0, nil
}

// judgeScope deletes the watchpoints whose frame this stop has left: at
// their scope breakpoint in the caller, or at a trigger of the
// watchpoint outside its frame. It says so in out, and reports whether
// the stop is only a scope breakpoint of a frame that has not returned
// (go on).
func (s *Session) judgeScope(ctx context.Context, out *Stop, st rsp.Stop) (goOn bool) {
	if out.Frame == nil || st.Kind != rsp.StopSignal || !s.anyScope() {
		return false
	}
	var left []*breakpoint
	pc, sp, err := s.inf.PCSP(ctx, s.inf.Cur)
	if err != nil {
		return false
	}
	trap := st.Signal == rsp.SIGTRAP || st.SWBreak
	for _, b := range s.bps {
		switch {
		case b.scope == nil || !b.enabled:
		case b.gone:
			left = append(left, b) // a step left its frame (softRun)
		case out.Watch != nil && out.Watch.Number == b.num, b.soft && out.Watch != nil:
			// a trigger, or a software watchpoint's stop (GDB checks
			// every software watchpoint's frame after each step)
			if !s.frameAlive(ctx, b.scope) {
				left = append(left, b)
			}
		case trap && b.scope.ret == pc && returnedTo(b.scope.cfa)(sp) && st.Direction != rsp.Reverse:
			left = append(left, b)
		}
	}
	if len(left) == 0 {
		return trap && out.Reason == "step" && st.SWBreak && s.scopeOnlyAt(pc, sp)
	}
	var msgs []string
	for _, b := range left {
		out.WatchScope = append(out.WatchScope, b.num)
		msgs = append(msgs, fmt.Sprintf("Watchpoint %d deleted because the program has left the block in which its expression is valid.", b.num))
		s.deleteBP(ctx, b) //nolint:errcheck // the message says it is gone
	}
	if out.Watch != nil && slices.Contains(out.WatchScope, out.Watch.Number) {
		// GDB does not report the change of a watchpoint out of scope.
		out.Reason, out.Watch, out.Breakpoint = "watchpoint-scope", nil, 0
	}
	out.Message = strings.TrimSpace(strings.Join(msgs, " ") + " " + out.Message)
	return false
}
