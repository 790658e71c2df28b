package session

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/agentexpr"
	"github.com/rrmcp/rrmcp/rsp"
)

// Target-side breakpoint conditions.
//
// A breakpoint condition is compiled to GDB agent bytecode
// (agentexpr.CompileCondition: integers, pointers, members, arithmetic,
// comparisons, logic) and sent with the breakpoint (`Z0,addr,1;Xlen,bytes`),
// so gdbserver evaluates it and reports only the hits where it is true, as
// GDB does by default. Everything else, and every reported hit, is still
// evaluated by the host: the bytecode only filters, it never decides alone
// that a stop happened.
//
// Compilation needs the frame at the breakpoint, so it happens at the
// first hit, which the host evaluates. A variable must be addressed the
// same way at every hit of that address: in a register, at a fixed
// address, or in the frame (DW_OP_fbreg with a DW_OP_call_frame_cfa frame
// base, and a CFA rule reg+offset read from the image's CFI). The code is
// then run here on the live registers and memory (agentexpr.Eval), and it
// is used only where it gives the host's answer.

// targetCondsOK reports whether the server evaluates agent bytecode
// conditions that rrmcp sends: gdbserver (ConditionalBreakpoints+).
func (s *Session) targetCondsOK() bool {
	return s.c != nil && s.c.Dialect() == rsp.DialectGDBServer && s.c.Supports("ConditionalBreakpoints")
}

// compileCond compiles cond for the breakpoint address of frame f (frame
// 0, stopped at that address), where the host has just found it want. ok
// is false where it does not compile, or where the code run on this stop
// does not give want.
func (s *Session) compileCond(ctx context.Context, cond string, f *dwarf.Frame, want bool) ([]byte, bool) {
	if f == nil || f.Inlined || f.Function == nil || f.Image == nil || s.c.Target() == nil {
		return nil, false
	}
	fs, err := s.scope(ctx)
	if err != nil {
		return nil, false
	}
	e, err := s.parsedCond(ctx, fs, cond)
	if err != nil {
		return nil, false
	}
	sc := agentexpr.Scope{PtrSize: s.inf.PtrSize(), Var: func(name string) (agentexpr.Var, error) {
		return s.axVar(ctx, fs, f, name)
	}}
	code, err := agentexpr.CompileCondition(e, sc)
	if err != nil {
		return nil, false
	}
	got, err := agentexpr.Eval(code, s.axMachine(ctx, f))
	return code, err == nil && (got != 0) == want
}

// axMachine is the live target as agentexpr.Eval reads it: frame f's
// registers (by the target's register numbers) and memory.
func (s *Session) axMachine(ctx context.Context, f *dwarf.Frame) agentexpr.Machine {
	td := s.c.Target()
	return agentexpr.Machine{
		Reg: func(n int) (uint64, error) {
			for d := range 17 {
				if r, ok := td.Lookup(s.inf.RegName(d)); ok && r.Regnum == n {
					if v, ok := f.Regs.Get(d); ok {
						return v, nil
					}
				}
			}
			return 0, fmt.Errorf("register %d unknown in the frame", n)
		},
		Mem: func(addr uint64, p []byte) error {
			n, err := s.inf.ReadMem(ctx, addr, p)
			if err == nil && n < len(p) {
				err = fmt.Errorf("%d of %d bytes at %#x", n, len(p), addr)
			}
			return err
		},
	}
}

// axVar resolves a name of a condition in frame f as the host does
// (eval's ident: a local or parameter, a global, an enumerator), to
// where it is at every hit of f's address.
func (s *Session) axVar(ctx context.Context, fs *dwarf.FrameScope, f *dwarf.Frame, name string) (agentexpr.Var, error) {
	var none agentexpr.Var
	if strings.Contains(name, "::") {
		return none, fmt.Errorf("qualified name %s: %w", name, agentexpr.ErrUnsupported)
	}
	if obj, err := fs.Local(ctx, name); err == nil {
		for _, v := range append(f.Params(ctx), f.Locals(ctx)...) {
			if v.Name == name && !v.Shadowed && v.Location.Kind == obj.Loc.Kind && v.Location.Addr == obj.Loc.Addr {
				return s.axLocal(v, f)
			}
		}
		return none, fmt.Errorf("local %s: %w", name, agentexpr.ErrUnsupported)
	} else if !errors.Is(err, dwarf.ErrNotFound) {
		return none, err
	}
	if _, err := fs.Local(ctx, "this"); err == nil {
		return none, fmt.Errorf("%s may be a member of this: %w", name, agentexpr.ErrUnsupported)
	}
	obj, err := fs.Global(ctx, name)
	if err == nil {
		return s.axGlobal(obj, name, f)
	}
	if !errors.Is(err, dwarf.ErrNotFound) {
		return none, err
	}
	if tr := s.inf.Types(f.Image); tr != nil {
		if et, v, ok := tr.Enumerator(name); ok {
			return agentexpr.Var{Type: et, Const: true, Value: v}, nil
		}
	}
	return none, err
}

// axLocal addresses a parameter or local: in a register, or at CFA
// register + offset.
func (s *Session) axLocal(v dwarf.Variable, f *dwarf.Frame) (agentexpr.Var, error) {
	none := agentexpr.Var{}
	unsupported := func(why string) (agentexpr.Var, error) {
		return none, fmt.Errorf("%s %s: %w", v.Name, why, agentexpr.ErrUnsupported)
	}
	if v.Image != f.Image || v.TypeOff == 0 {
		return unsupported("has no type")
	}
	tr := s.inf.Types(v.Image)
	if tr == nil {
		return unsupported("has no type")
	}
	t, err := tr.Type(v.TypeOff)
	if err != nil {
		return none, err
	}
	td := s.c.Target()
	gdbReg := func(dw int) (int, bool) {
		name := s.inf.RegName(dw)
		if name == "" {
			return 0, false
		}
		r, ok := td.Lookup(name)
		return r.Regnum, ok
	}
	switch v.Location.Kind {
	case dwarf.LocRegister:
		n, ok := gdbReg(v.Location.Reg)
		if !ok {
			return unsupported("is in a register the server does not name")
		}
		return agentexpr.Var{Type: t, InReg: true, Reg: n}, nil
	case dwarf.LocAddress:
	default:
		return unsupported("is not in memory or a register")
	}
	fbOff, ok := v.CFAOffset(f.Function)
	if !ok {
		return unsupported("is not addressed from the frame base")
	}
	reg, cfaOff, ok := f.Image.CFARule(f.PC - f.Bias)
	if !ok {
		return unsupported("is in a frame whose CFA is not register + offset")
	}
	n, ok := gdbReg(reg)
	if !ok {
		return unsupported("is in a frame whose CFA register the server does not name")
	}
	// Cross-check with the host's answer at this very stop.
	rv, ok := f.Regs.Get(reg)
	if !ok || rv+uint64(cfaOff+fbOff) != v.Location.Addr || f.CFA != 0 && rv+uint64(cfaOff) != f.CFA {
		return unsupported("is not where its frame base says")
	}
	return agentexpr.Var{Type: t, Reg: n, Off: cfaOff + fbOff}, nil
}

// axGlobal addresses a global: a constant (LocValue), or an object of the
// main program at its symbol's fixed address (not thread-local storage,
// whose address differs per thread).
func (s *Session) axGlobal(obj dwarf.Object, name string, f *dwarf.Frame) (agentexpr.Var, error) {
	none := agentexpr.Var{}
	if obj.Loc.Kind == dwarf.LocValue && len(obj.Loc.Bytes) <= 8 && obj.Type != nil {
		b := make([]byte, 8)
		copy(b, obj.Loc.Bytes)
		return agentexpr.Var{Type: obj.Type, Const: true, Value: int64(binary.LittleEndian.Uint64(b))}, nil
	}
	a, ok := obj.Addr()
	if !ok || obj.Type == nil || s.inf.Syms == nil || f.Image != s.inf.Img || a < s.inf.Bias {
		return none, fmt.Errorf("global %s: %w", name, agentexpr.ErrUnsupported)
	}
	sym, off, err := s.inf.Syms.LookupAddr(a - s.inf.Bias)
	if err != nil || off != 0 || sym.Name != name || sym.Type != elf.STT_OBJECT {
		return none, fmt.Errorf("global %s is not at its symbol: %w", name, agentexpr.ErrUnsupported)
	}
	return agentexpr.Var{Type: obj.Type, Reg: -1, Off: int64(a)}, nil
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
// first time b is hit there (the host has just found it want); where it
// does not compile (or the server takes no conditions), it tries moving
// b to a debug register (hwpass.go).
func (s *Session) noteCondHit(ctx context.Context, b *breakpoint, want bool) {
	b.evaluated = true
	if b.typ != rsp.SoftwareBreakpoint || s.frame != 0 || s.c.Dialect() != rsp.DialectGDBServer {
		return // (compiled conditions and the debug registers are gdbserver's)
	}
	if pc, err := s.inf.PC(ctx, s.inf.Cur); err == nil && b.ttried[pc] {
		return // tried at this address: no frame to unwind at every hit
	}
	f, err := s.curFrame(ctx)
	if err != nil || !slices.Contains(b.addrs, f.PC) || b.ttried[f.PC] {
		return
	}
	if b.ttried == nil {
		b.ttried, b.tcode = map[uint64]bool{}, map[uint64][]byte{}
	}
	b.ttried[f.PC] = true
	if s.targetCondsOK() {
		if code, ok := s.compileCond(ctx, b.cond, f, want); ok {
			b.tcode[f.PC] = code
			return
		}
	}
	s.passByHardware(ctx, b) // once per address, as the compiling
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
