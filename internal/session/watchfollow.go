package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/eval"
)

// A watchpoint on an expression whose address depends on memory (j->a
// on j, a[i] on i, *p on p) follows it as GDB's does (update_watchpoint's
// value chain): the memory read to find the watched object is watched
// too, for writes, and a write there re-evaluates the expression,
// moves the watchpoint to the object it names now, and stops where that
// changed the expression's value (Old: the value before; New: the new
// object's). Intermediate values the compiler keeps in registers are not
// followed (GDB falls back to a software watchpoint then).

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
	return s.peek(ctx, lv.addr, b.size)
}

// watchFrame is the level of the frame b's expression is evaluated in:
// its scope's frame, the innermost one for an expression of globals.
func (s *Session) watchFrame(ctx context.Context, b *breakpoint) (int, bool) {
	if b.scope == nil {
		return 0, true
	}
	frames, err := s.unwindUntil(ctx, 0, func(fr []*dwarf.Frame) bool {
		return slices.ContainsFunc(fr, func(f *dwarf.Frame) bool { return f.CFA == b.scope.cfa })
	})
	if err != nil {
		return 0, false
	}
	for i, f := range frames {
		if f.CFA == b.scope.cfa && f.Function != nil && f.Function.Entry+f.Bias == b.scope.entry {
			return i, true
		}
	}
	return 0, false
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
