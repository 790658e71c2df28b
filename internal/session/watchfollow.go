package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
	"github.com/rrmcp/rrmcp/dwarf/eval"
	"github.com/rrmcp/rrmcp/rsp"
)

// A watchpoint on an expression whose address depends on memory (j->a
// on j, a[i] on i, *p on p) follows it as GDB's does (update_watchpoint's
// value chain): the memory read to find the watched object is watched
// too, for writes, and a write there re-evaluates the expression,
// moves the watchpoint to the object it names now, and stops where that
// changed the expression's value (Old: the value before; New: the new
// object's). An intermediate value the compiler keeps in a register is
// followed by a software watchpoint, as GDB's (below: regVar).

// watchLoc is a range of memory a watchpoint's server entry covers.
type watchLoc struct {
	addr uint64
	size int
}

// maxChain bounds the entries of a watchpoint's chain: x86 has four
// debug registers, one of them the watched object's.
const maxChain = 3

// watchChain evaluates expr in the selected frame logging the memory it
// reads to find the object (not the object itself, at lv), and returns
// those reads as aligned pieces a debug register covers; read-only data
// (what never changes) is left out. nil where the address depends on no
// memory, or on more than the debug registers can watch.
func (s *Session) watchChain(ctx context.Context, expr string, lv *lvalue) []watchLoc {
	f, err := s.curFrame(ctx)
	if err != nil || f.Image == nil {
		return nil
	}
	var reads []watchLoc
	logged := func(ctx context.Context, addr uint64, buf []byte) (int, error) {
		n, err := s.inf.ReadMem(ctx, addr, buf)
		if n > 0 && s.inf.ReadOnlySection(addr) == nil {
			reads = append(reads, watchLoc{addr, n})
		}
		return n, err
	}
	// (for its type and address: the object itself may not be readable)
	o, err := eval.EvalType(ctx, s.evalScope(s.frameScopeMem(ctx, f, logged)), expr)
	if a, ok := o.Addr(); err != nil || !ok || a != lv.addr {
		return nil
	}
	var out []watchLoc
	for _, r := range reads {
		for _, p := range alignedPieces(r, maxChain) {
			if overlaps(p.addr, p.size, lv.addr, max(lv.size, 1)) {
				continue // the watched object's own bytes
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(out) > maxChain {
		return nil
	}
	return out
}

// alignedPieces splits r into naturally aligned pieces of 1, 2, 4 or 8
// bytes, what one x86 debug register watches, stopping past limit
// pieces (more than limit: too many). It counts the bytes left, not an
// end address, which wraps at the top of the address space.
func alignedPieces(r watchLoc, limit int) []watchLoc {
	var out []watchLoc
	a, left := r.addr, uint64(r.size)
	for left > 0 && len(out) <= limit {
		n := uint64(8)
		for n > 1 && (a%n != 0 || n > left) {
			n /= 2
		}
		out = append(out, watchLoc{a, int(n)})
		a += n
		left -= n
	}
	return out
}

// overlaps reports whether [a, a+n) and [b, b+m) meet, n and m > 0,
// without computing an end (at the top of the address space it wraps).
func overlaps(a uint64, n int, b uint64, m int) bool {
	return a-b < uint64(m) || b-a < uint64(n)
}

// followNow re-evaluates b's expression where b was set (its frame, for
// an expression of a frame's variables) and, where the object it names
// moved, moves b's server entries there; it returns the expression's
// value (nil where it cannot be evaluated).
func (s *Session) followNow(ctx context.Context, b *breakpoint) []byte {
	level, ok := s.watchFrame(ctx, b)
	if !ok {
		return nil
	}
	defer func(f int) { s.frame = f }(s.frame)
	s.frame = level
	lv, err := s.lvalueOf(ctx, b.spec)
	if err != nil || lv.inReg || lv.size != b.lv.size {
		return nil
	}
	if chain := s.watchChain(ctx, b.spec, lv); lv.addr != b.addrs[0] || !slices.Equal(chain, b.chain) {
		s.moveWatch(ctx, b, lv.addr, chain)
	}
	return s.watchedAt(ctx, b, lv.addr)
}

// watchFrame is the level of the frame b's expression is evaluated in:
// its scope's frame, the innermost one for an expression of globals.
func (s *Session) watchFrame(ctx context.Context, b *breakpoint) (int, bool) {
	if b.scope == nil {
		return 0, true
	}
	level, found, _ := s.scopeFrame(ctx, b.scope)
	return level, found
}

// moveWatch moves b's server entries to the object at addr and the
// chain that finds it; where the server refuses them (its debug
// registers taken), b watches the object alone, no longer following.
func (s *Session) moveWatch(ctx context.Context, b *breakpoint, addr uint64, chain []watchLoc) {
	s.uninsert(ctx, b) //nolint:errcheck // a stale entry left behind only stops for nothing
	b.addrs[0], b.chain = addr, chain
	if err := s.insert(ctx, b); err != nil && len(chain) > 0 {
		b.chain = nil
		b.note = fmt.Sprintf("no longer follows %s: the server refused to watch what its address depends on (%v)", b.spec, err)
		s.insert(ctx, b) //nolint:errcheck // b's hits show whether it is in
	}
}

// chainNote says what a following watchpoint watches besides the object.
func chainNote(b *breakpoint) string {
	if len(b.chain) == 0 {
		return ""
	}
	var parts []string
	for _, l := range b.chain {
		parts = append(parts, fmt.Sprintf("%d bytes at %#x", l.size, l.addr))
	}
	return fmt.Sprintf("follows %s as GDB does: also watches the memory its address is read from (%s) for writes, and moves to the object the expression names after one", b.spec, strings.Join(parts, ", "))
}

// inChain reports whether addr lies in one of b's chain entries.
func (b *breakpoint) inChain(addr uint64) bool {
	return slices.ContainsFunc(b.chain, func(l watchLoc) bool { return addr-l.addr < uint64(l.size) })
}

// A watchpoint whose address is read through a variable the compiler
// keeps in a register (p->a with p in rax, at -O2) cannot follow it with
// a debug register. GDB makes it a software watchpoint
// (can_use_hardware_watchpoint refuses an lval_register in the value
// chain) and evaluates the expression again after each step: it moves
// with p, and where p is no longer known (past the last use, its
// location list ends) the evaluation fails and GDB deletes the
// watchpoint there ("Error evaluating expression for watchpoint N").
// rrmcp does the same on the software path (softRun): the expression is
// evaluated again after each instruction of its frame, and once at the
// entry of each call the frame makes (the caller's variables as the
// callee sees them); in callees the register cannot change what the
// frame sees, and the object's memory is compared after each
// instruction.

// registerVar names a variable of the selected frame that expr reads
// and the compiler keeps in a register at this pc ("this" for a member
// named alone), or "".
func (s *Session) registerVar(ctx context.Context, expr string) string {
	fs, err := s.scope(ctx)
	if err != nil {
		return ""
	}
	e, err := eval.Parse(ctx, s.evalScope(fs), expr)
	if err != nil {
		return ""
	}
	names := cexpr.Names(e)
	if _, err := fs.Local(ctx, "this"); err == nil {
		for _, n := range names {
			if _, err := fs.Local(ctx, n); err != nil {
				if _, err := fs.Global(ctx, n); err != nil {
					names = append(names, "this") // a member through this
					break
				}
			}
		}
	}
	for _, n := range names {
		if o, err := fs.Local(ctx, n); err == nil && inRegister(o.Loc) {
			return n
		}
	}
	return ""
}

// inRegister reports whether l is a register or has a register piece.
func inRegister(l dwarf.Location) bool {
	if l.Kind == dwarf.LocPieces {
		return slices.ContainsFunc(l.Pieces, func(p dwarf.Piece) bool { return inRegister(p.Loc) })
	}
	return l.Kind == dwarf.LocRegister
}

// softFollows reports whether a software watchpoint can evaluate its
// expression again as the program runs: a live program under gdbserver
// on x86 (softRun).
func (s *Session) softFollows(ctx context.Context) bool {
	_, ok := s.softRegs()
	return ok && s.c.Dialect() == rsp.DialectGDBServer
}

// scopeState is where a software watchpoint's frame is after a step.
type scopeState int

const (
	scopeIn     scopeState = iota // in the innermost physical frame
	scopeCallee                   // further out: a callee runs
	scopeGone                     // not on the stack any more
)

// watchScopeNow says where b's frame is after a step: from the pc and
// its CFA rule alone while the frame is in the innermost physical one
// (level: the inlined frames above it); where the step (wasIn: the last
// one was in the frame) left it, by unwinding, as GDB's frame_find_by_id
// after each step of a software watchpoint: a call's entry (the frame's
// level there), or a return, a tail jump, the end of its inlined call
// (gone).
func (s *Session) watchScopeNow(ctx context.Context, b *breakpoint, wasIn bool) (int, scopeState) {
	if b.scope == nil {
		return 0, scopeIn // an expression of globals: the innermost frame
	}
	// From the stop's pc first: outside the frame's function (a callee,
	// most steps there) the registers are not read.
	inFunc := false
	if pc, err := s.inf.PC(ctx, s.inf.Cur); err == nil {
		if img, bias, ok := s.inf.Module(ctx, pc); ok && img != nil {
			fn := img.FuncAt(pc - bias)
			inFunc = fn != nil && fn.Entry+bias == b.scope.entry
		}
	}
	if inFunc {
		f, chain := s.quickPhysFrame(ctx)
		switch {
		case f == nil:
			// The CFA rule here is no register plus offset (i386's
			// realigned main): by unwinding.
			if level, where, ok := s.unwoundScope(ctx, b.scope); ok {
				return level, where
			}
		case f.CFA == b.scope.cfa && f.Function.Entry+f.Bias == b.scope.entry:
			// (the inlined calls the pc starts are not frames yet, as
			// in the backtrace)
			chain = chain[:len(chain)-s.hiddenInline(ctx, chain, f.PC, f.PC-f.Bias)]
			if level, ok := b.scope.level(chain); ok {
				return level, scopeIn
			}
			return 0, scopeGone // its inlined call has ended
		}
	}
	if !wasIn {
		return 0, scopeCallee
	}
	if level, ok := s.watchFrame(ctx, b); ok {
		return level, scopeCallee
	}
	return 0, scopeGone
}

// unwoundScope is watchScopeNow's answer from an unwinding, in the
// function of sc's frame: in it (the frames above it inlined ones), or
// gone (the innermost physical frame is sc's, without its inlined call);
// ok is false where neither is known.
func (s *Session) unwoundScope(ctx context.Context, sc *watchScope) (int, scopeState, bool) {
	frames, err := s.unwindUntil(ctx, 0, func(fr []*dwarf.Frame) bool {
		return len(fr) == 0 || !fr[len(fr)-1].Inlined
	})
	if err != nil || len(frames) == 0 {
		return 0, scopeCallee, false
	}
	if i := slices.IndexFunc(frames, sc.frame); i >= 0 {
		return i, scopeIn, true
	}
	phys := frames[len(frames)-1]
	if sc.inline != 0 && phys.CFA == sc.cfa && phys.Function != nil && phys.Function.Entry+phys.Bias == sc.entry {
		return 0, scopeGone, true // its inlined call has ended
	}
	return 0, scopeCallee, false
}

// regVarAddr evaluates b's expression again in frame level (regVar):
// the address of the object it names now, or why it cannot be evaluated.
func (s *Session) regVarAddr(ctx context.Context, b *breakpoint, level int) (uint64, error) {
	lv, err := s.lvalueAt(ctx, b.spec, level)
	switch {
	case err != nil:
		return 0, err
	case lv.inReg || lv.size != b.lv.size:
		return 0, fmt.Errorf("%s is no longer an object in memory of %d bytes", b.spec, b.lv.size)
	}
	return lv.addr, nil
}

// followRegVar evaluates b's expression again (regVar) where the step
// just made may have changed its address: in its frame, and at the
// first step out of it (a call's entry, where the frame's pc is the
// return address). It moves b to the object the expression names now;
// the caller compares that object's bytes with the last ones. It
// reports false where the stop must say what became of b: its
// expression cannot be evaluated any more (b.evalErr), or its frame is
// gone (b.gone; GDB deletes the watchpoint for either).
func (s *Session) followRegVar(ctx context.Context, b *breakpoint, wasIn *bool) bool {
	level, where := s.watchScopeNow(ctx, b, *wasIn)
	was := *wasIn
	*wasIn = where == scopeIn
	switch {
	case where == scopeGone:
		b.gone = true
		return false
	case where == scopeCallee && !was:
		return true // deeper in a callee: what the frame sees is as it was
	}
	addr, err := s.regVarAddr(ctx, b, level)
	switch {
	case err != nil:
		b.evalErr = evalErrText(err)
		return false
	case addr != b.addrs[0]:
		b.addrs[0] = addr
	}
	return true
}

// evalErrText is why a watchpoint's expression cannot be evaluated, as
// GDB says it after "Error evaluating expression for watchpoint N".
func evalErrText(err error) string {
	if errors.Is(err, dwarf.ErrOptimizedOut) {
		return "value has been optimized out"
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // (without the expression exprError puts first)
	}
	return err.Error()
}

// relocateWatches evaluates again, at a stop, the expressions of the
// hardware watchpoints on a frame's variables, as GDB's update_watchpoint
// does each time it inserts them: a local whose location list puts it in
// a register here (msgpack's pack_rec len, in $eax after a stack slot)
// becomes a software watchpoint on its value, checked after each step
// (its frame ending where the pc leaves it); one at another address now
// is moved there.
func (s *Session) relocateWatches(ctx context.Context) {
	for _, b := range s.bps {
		if !b.isWatch() || !b.enabled || b.soft || b.scope == nil || b.lv == nil || b.lv.inReg || b.lv.bitSize > 0 || len(b.chain) > 0 {
			continue
		}
		level, found := s.watchFrame(ctx, b)
		if !found {
			continue
		}
		lv, err := s.lvalueAt(ctx, b.spec, level)
		switch {
		case err != nil || lv.size != b.lv.size:
		case lv.inReg && b.typ == rsp.WriteWatchpoint && s.softFollows(ctx) && s.kind == KindLive:
			s.uninsert(ctx, b) //nolint:errcheck // a stale entry only stops for nothing
			b.lv, b.soft, b.addrs[0], b.size = lv, true, 0, lv.size
			b.note = strings.TrimSpace(b.note + fmt.Sprintf(" At a later stop %s was in a register (its location list moved it there): watched by its value from then on, a software watchpoint, as GDB converts it; %s", b.spec, valueCost))
		case !lv.inReg && lv.addr != b.addrs[0]:
			s.moveWatch(ctx, b, lv.addr, nil)
		}
	}
}
