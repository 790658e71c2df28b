package session

import (
	"context"
	stddwarf "debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/agentexpr"
	"github.com/rrmcp/rrmcp/rsp"
)

// Target-side breakpoint conditions.
//
// A breakpoint condition of the simple form `a OP b` (OP one of < <= > >=
// == !=; a and b integer literals, or integer/pointer variables: a
// parameter or local of the function addressed from the frame base, or a
// global) is compiled to GDB agent bytecode and sent with the breakpoint
// (`Z0,addr,1;Xlen,bytes`), so gdbserver evaluates it and reports only
// the hits where it is true — as GDB does by default. Everything else, and
// every reported hit, is still evaluated by the host: the bytecode only
// filters, it never decides alone that a stop happened.
//
// Compilation needs the frame at the breakpoint, so it happens at the
// first hit (evaluated by the host). The frame base of a local must be
// DW_OP_call_frame_cfa and the CFA rule at the address reg+offset, read
// from the image's .eh_frame.

// targetCondsOK reports whether the server evaluates agent bytecode
// conditions that rrmcp sends: gdbserver (ConditionalBreakpoints+).
func (s *Session) targetCondsOK() bool {
	return s.c != nil && s.c.Dialect() == rsp.DialectGDBServer && s.c.Supports("ConditionalBreakpoints")
}

// compileCond compiles b's condition for the breakpoint address of frame
// f (frame 0, stopped at that address). ok is false when the condition is
// not of the simple form or a variable is not simply addressed.
func (s *Session) compileCond(ctx context.Context, cond string, f *dwarf.Frame) ([]byte, bool) {
	ta, op, tb, ok := agentexpr.ParseSimple(cond)
	if !ok || f == nil || f.Inlined || f.Function == nil || f.Image == nil {
		return nil, false
	}
	a, ok := s.axOperandOf(ctx, ta, f)
	if !ok {
		return nil, false
	}
	b, ok := s.axOperandOf(ctx, tb, f)
	if !ok {
		return nil, false
	}
	code, err := agentexpr.Compile(a, op, b)
	return code, err == nil
}

// axOperandOf resolves a literal or a variable name in frame f.
func (s *Session) axOperandOf(ctx context.Context, tok string, f *dwarf.Frame) (agentexpr.Operand, bool) {
	if agentexpr.IsLiteral(tok) {
		o, err := agentexpr.Literal(tok)
		return o, err == nil
	}
	// A variable: a parameter or local in scope, else a global.
	var vars []dwarf.Variable
	vars = append(vars, f.Params(ctx)...)
	vars = append(vars, f.Locals(ctx)...)
	for _, v := range vars {
		if v.Name != tok || v.Shadowed {
			continue
		}
		return s.axLocal(v, f)
	}
	return s.axGlobal(ctx, tok, f)
}

// axLocal addresses a frame-base-relative variable as CFA-register +
// offset.
func (s *Session) axLocal(v dwarf.Variable, f *dwarf.Frame) (agentexpr.Operand, bool) {
	var o agentexpr.Operand
	size, signed, ok := s.axType(v.Image, v.TypeOff)
	if !ok || v.Location.Kind != dwarf.LocAddress || v.Image != f.Image {
		return o, false
	}
	fbOff, ok := v.CFAOffset(f.Function)
	if !ok {
		return o, false
	}
	reg, cfaOff, ok := s.cfaRule(f.Image, f.PC-f.Bias)
	if !ok {
		return o, false
	}
	name := s.regName(reg)
	td := s.c.Target()
	if td == nil || name == "" {
		return o, false
	}
	r, ok := td.Lookup(name)
	if !ok {
		return o, false
	}
	// Cross-check with the host's answer at this very stop.
	rv, ok := f.Regs.Get(reg)
	if !ok || rv+uint64(cfaOff+fbOff) != v.Location.Addr || f.CFA != 0 && rv+uint64(cfaOff) != f.CFA {
		return o, false
	}
	o, err := agentexpr.Integer(size, signed, r.Regnum, cfaOff+fbOff)
	return o, err == nil
}

// axGlobal addresses a global variable of static storage.
func (s *Session) axGlobal(ctx context.Context, name string, f *dwarf.Frame) (agentexpr.Operand, bool) {
	var none agentexpr.Operand
	fs, err := s.scope(ctx)
	if err != nil {
		return none, false
	}
	obj, err := fs.Global(ctx, name)
	if err != nil {
		return none, false
	}
	a, ok := obj.Addr()
	if !ok || obj.Type == nil {
		return none, false
	}
	// Only an object of the main program at its symbol's fixed address
	// (not thread-local storage, whose address differs per thread).
	if s.syms == nil || f.Image != s.img || a < s.bias {
		return none, false
	}
	sym, off, err := s.syms.LookupAddr(a - s.bias)
	if err != nil || off != 0 || sym.Name != name || sym.Type != elf.STT_OBJECT {
		return none, false
	}
	size, signed, ok := axTypeOf(obj.Type)
	if !ok {
		return none, false
	}
	o, err := agentexpr.Integer(size, signed, -1, int64(a))
	return o, err == nil
}

// axType is axTypeOf for the type DIE at off of img.
func (s *Session) axType(img *dwarf.Image, off stddwarf.Offset) (size int, signed, ok bool) {
	tr := s.types(img)
	if tr == nil || off == 0 {
		return 0, false, false
	}
	t, err := tr.Type(off)
	if err != nil {
		return 0, false, false
	}
	return axTypeOf(t)
}

// axTypeOf gives the size and signedness of an integer, boolean,
// character or pointer type (through typedefs and qualifiers).
func axTypeOf(t dwarf.Type) (size int, signed, ok bool) {
	for {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Elem
			continue
		case *dwarf.QualType:
			t = tt.Elem
			continue
		}
		break
	}
	switch tt := t.(type) {
	case *dwarf.PointerType:
		if n := tt.Size(); n == 4 || n == 8 {
			return int(n), false, true // DW_AT_byte_size: 4 on i386
		}
		return 8, false, true
	case *dwarf.BaseType:
		switch tt.Encoding {
		case 0x5, 0x6: // DW_ATE_signed, signed_char
			signed = true
		case 0x2, 0x7, 0x8: // boolean, unsigned, unsigned_char
		default:
			return 0, false, false
		}
		if tt.BitSize != 0 {
			return 0, false, false
		}
		return int(tt.Size()), signed, true
	}
	return 0, false, false
}

// cfaRule returns the CFA rule (DWARF register + offset) at file address
// pc of img, from its call frame information.
func (s *Session) cfaRule(img *dwarf.Image, pc uint64) (reg int, off int64, ok bool) {
	return img.CFARule(pc)
}

// condPacket is the Z0 packet that installs addr with the conditions of
// every breakpoint there, or "" when any of them has none compiled (then
// the breakpoint must be plain: every hit is reported).
func (s *Session) condPacket(addr uint64) string {
	var codes [][]byte
	for _, b := range s.bps {
		if !b.enabled || b.pending || b.typ != rsp.SoftwareBreakpoint || !slices.Contains(b.addrs, addr) {
			continue
		}
		code := b.tcode[addr]
		if b.cond == "" && !b.serverOnly || code == nil || s.temps[addr] > 0 {
			return ""
		}
		codes = append(codes, code)
	}
	if len(codes) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Z0,%x,1;", addr)
	for _, c := range codes {
		fmt.Fprintf(&sb, "X%x,%s", len(c), hex.EncodeToString(c))
	}
	return sb.String()
}

// syncConds makes the server's conditions match the breakpoints: sends
// the conditional Z0 where one is due and a plain Z0 (which drops the
// conditions) where conditions were installed but no longer apply.
// A failure leaves the breakpoint plain: the host evaluates every hit.
func (s *Session) syncConds(ctx context.Context) {
	if !s.targetCondsOK() {
		return
	}
	want := map[uint64]string{}
	for _, b := range s.bps {
		for a := range b.tcode {
			if _, done := want[a]; !done {
				want[a] = s.condPacket(a)
			}
		}
	}
	inserted := map[uint64]bool{}
	for _, bp := range s.c.Breakpoints() {
		if bp.Type == rsp.SoftwareBreakpoint {
			inserted[bp.Addr] = true
		}
	}
	if s.tconds == nil {
		s.tconds = map[uint64]string{}
	}
	for a := range s.tconds {
		if _, ok := want[a]; !ok {
			want[a] = ""
		}
	}
	for a, pkt := range want {
		if s.tconds[a] == pkt || !inserted[a] {
			if !inserted[a] {
				delete(s.tconds, a)
			}
			continue
		}
		send := pkt
		if send == "" {
			// gdbserver keeps the conditions of a breakpoint that is
			// inserted again without any: remove it first.
			if r, err := s.c.Exchange(ctx, fmt.Sprintf("z0,%x,1", a), false); err != nil || r != "OK" {
				continue
			}
			send = fmt.Sprintf("Z0,%x,1", a)
		}
		if r, err := s.c.Exchange(ctx, send, false); err != nil || r != "OK" {
			// Back to plain if we can; the host evaluates every hit.
			if pkt != "" {
				s.c.Exchange(ctx, fmt.Sprintf("Z0,%x,1", a), false) //nolint:errcheck
			}
			for _, b := range s.bps {
				delete(b.tcode, a)
			}
			delete(s.tconds, a)
			continue
		}
		if pkt == "" {
			delete(s.tconds, a)
		} else {
			s.tconds[a] = pkt
		}
	}
}

// noteCondHit compiles b's condition for the address of frame 0 the
// first time b is hit there (the host has just evaluated it).
func (s *Session) noteCondHit(ctx context.Context, b *breakpoint) {
	if !s.targetCondsOK() || b.typ != rsp.SoftwareBreakpoint || s.frame != 0 {
		return
	}
	f, err := s.curFrame(ctx)
	if err != nil || !slices.Contains(b.addrs, f.PC) || b.ttried[f.PC] {
		return
	}
	if b.ttried == nil {
		b.ttried, b.tcode = map[uint64]bool{}, map[uint64][]byte{}
	}
	b.ttried[f.PC] = true
	if code, ok := s.compileCond(ctx, b.cond, f); ok {
		b.tcode[f.PC] = code
	}
}

// anyTargetCond reports whether some breakpoint has a compiled condition.
func (s *Session) anyTargetCond() bool {
	for _, b := range s.bps {
		if len(b.tcode) > 0 {
			return true
		}
	}
	return false
}
