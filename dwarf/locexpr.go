package dwarf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	stddwarf "debug/dwarf"
)

// DWARF expression opcodes used by the evaluator (DWARF 5 §7.7.1, plus
// the GNU extensions gcc emits).
const (
	opAddr              = 0x03
	opDeref             = 0x06
	opConst1u           = 0x08
	opConst1s           = 0x09
	opConst2u           = 0x0a
	opConst2s           = 0x0b
	opConst4u           = 0x0c
	opConst4s           = 0x0d
	opConst8u           = 0x0e
	opConst8s           = 0x0f
	opConstu            = 0x10
	opConsts            = 0x11
	opDup               = 0x12
	opDrop              = 0x13
	opOver              = 0x14
	opPick              = 0x15
	opSwap              = 0x16
	opRot               = 0x17
	opXderef            = 0x18
	opAbs               = 0x19
	opAnd               = 0x1a
	opDiv               = 0x1b
	opMinus             = 0x1c
	opMod               = 0x1d
	opMul               = 0x1e
	opNeg               = 0x1f
	opNot               = 0x20
	opOr                = 0x21
	opPlus              = 0x22
	opPlusUconst        = 0x23
	opShl               = 0x24
	opShr               = 0x25
	opShra              = 0x26
	opXor               = 0x27
	opBra               = 0x28
	opEq                = 0x29
	opGe                = 0x2a
	opGt                = 0x2b
	opLe                = 0x2c
	opLt                = 0x2d
	opNe                = 0x2e
	opSkip              = 0x2f
	opLit0              = 0x30
	opLit31             = 0x4f
	opReg0              = 0x50
	opReg31             = 0x6f
	opBreg0             = 0x70
	opBreg31            = 0x8f
	opRegx              = 0x90
	opFbreg             = 0x91
	opBregx             = 0x92
	opPiece             = 0x93
	opDerefSize         = 0x94
	opXderefSize        = 0x95
	opNop               = 0x96
	opPushObjectAddress = 0x97
	opCall2             = 0x98
	opCall4             = 0x99
	opCallRef           = 0x9a
	opFormTLSAddress    = 0x9b
	opCallFrameCFA      = 0x9c
	opBitPiece          = 0x9d
	opImplicitValue     = 0x9e
	opStackValue        = 0x9f
	opImplicitPointer   = 0xa0
	opAddrx             = 0xa1
	opConstx            = 0xa2
	opEntryValue        = 0xa3
	opConstType         = 0xa4
	opRegvalType        = 0xa5
	opDerefType         = 0xa6
	opXderefType        = 0xa7
	opConvert           = 0xa8
	opReinterpret       = 0xa9
	opGNUPushTLSAddress = 0xe0
	opGNUUninit         = 0xf0
	opGNUImplicitPtr    = 0xf2
	opGNUEntryValue     = 0xf3
	opGNUConstType      = 0xf4
	opGNURegvalType     = 0xf5
	opGNUDerefType      = 0xf6
	opGNUConvert        = 0xf7
	opGNUReinterpret    = 0xf9
	opGNUParameterRef   = 0xfa
	opGNUAddrIndex      = 0xfb
	opGNUConstIndex     = 0xfc
	opGNUVariableValue  = 0xfd
)

// Limits on expression evaluation (untrusted input).
const (
	maxExprSteps = 10000
	maxExprStack = 1024
)

// exprEnv is what evaluating a location expression may consult. Any
// function may be nil; an expression that needs it then fails.
type exprEnv struct {
	// ctx is the context of the one call this environment serves (an
	// exprEnv never outlives it); memory reads run within it.
	ctx  context.Context
	regs *Regs
	mem  ReadMemoryFunc
	// arch numbers the registers and sizes addresses (nil: amd64).
	arch *arch
	// cfa of the frame, if known
	cfa    uint64
	hasCFA bool
	// frameBase evaluates the function's DW_AT_frame_base.
	frameBase func() (uint64, error)
	// bias is added to DW_OP_addr/addrx operands (file -> runtime).
	bias uint64
	// addrx returns entry idx of the unit's .debug_addr contribution.
	addrx func(idx uint64) (uint64, error)
	// tls turns a TLS offset of this module into an address.
	tls func(off uint64) (uint64, error)
	// entryValue evaluates an expression as it was at function entry.
	entryValue func(expr []byte) (uint64, error)
	// parameterRef returns the value the caller passed for the formal
	// parameter at a unit-relative DIE offset (DW_OP_GNU_parameter_ref).
	parameterRef func(off uint64) (uint64, error)
	// baseType returns the byte size and DW_ATE encoding of the base type
	// at a unit-relative offset (typed stack operations).
	baseType func(off uint64) (size int, enc int64, err error)
	// initStack is pushed before evaluation (CFA for DW_CFA_expression).
	initStack []uint64
	// entryPC is the entry (file address) of the frame's function, not of
	// an inlined call (GDB's block_linkage_function): an empty range of a
	// location list there counts (loclistExpr).
	entryPC    uint64
	hasEntryPC bool
}

// exprReader decodes operands without panicking on truncated input.
type exprReader struct {
	b   []byte
	pos int
	err error
}

func (r *exprReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated %s at byte %d", what, r.pos)
	}
}

func (r *exprReader) u8() uint8 {
	if r.pos >= len(r.b) {
		r.fail("operand")
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

func (r *exprReader) fixed(n int) uint64 {
	if n > 8 || r.pos+n > len(r.b) {
		r.fail("operand")
		r.pos = len(r.b)
		return 0
	}
	var buf [8]byte
	copy(buf[:], r.b[r.pos:r.pos+n])
	r.pos += n
	return binary.LittleEndian.Uint64(buf[:])
}

func (r *exprReader) uleb() uint64 { return r.leb(false) }

func (r *exprReader) sleb() int64 { return int64(r.leb(true)) }

// leb reads a LEB128 operand, sign-extended when signed.
func (r *exprReader) leb(signed bool) uint64 {
	u, shift, n, last, ok := leb128(r.b[r.pos:])
	r.pos += n
	switch {
	case !ok && signed:
		r.fail("SLEB128")
		return 0
	case !ok:
		r.fail("ULEB128")
		return 0
	case signed && shift < 64 && last&0x40 != 0:
		u |= ^uint64(0) << shift
	}
	return u
}

func (r *exprReader) block(n uint64) []byte {
	if n > uint64(len(r.b)-r.pos) {
		r.fail("block")
		r.pos = len(r.b)
		return nil
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b
}

var errStackUnderflow = errors.New("stack underflow")

// evalLocation evaluates a DWARF location expression and returns where the
// object lives. An empty expression means optimized out.
func evalLocation(expr []byte, env *exprEnv) (Location, error) {
	if len(expr) == 0 {
		return Location{Kind: LocOptimizedOut}, nil
	}
	m := &exprMachine{env: env, r: exprReader{b: expr}}
	m.stack = append(m.stack, env.initStack...)
	loc, err := m.run()
	if err != nil {
		return Location{}, err
	}
	return loc, nil
}

// evalValue evaluates a DWARF expression that computes a value (the
// frame base, a CFA expression, a call_value): the result is the top of
// the stack, or a register's contents for DW_OP_regN.
func evalValue(expr []byte, env *exprEnv) (uint64, error) {
	loc, err := evalLocation(expr, env)
	if err != nil {
		return 0, err
	}
	switch loc.Kind {
	case LocAddress:
		return loc.Addr, nil
	case LocRegister, LocValue:
		if len(loc.Bytes) == 0 {
			return 0, fmt.Errorf("register %d: %w", loc.Reg, ErrOptimizedOut)
		}
		var b [8]byte
		copy(b[:], loc.Bytes)
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	return 0, fmt.Errorf("value of %v: %w", loc, ErrOptimizedOut)
}

type exprMachine struct {
	env    *exprEnv
	r      exprReader
	stack  []uint64
	pieces []Piece
	// cur is the location the last operation described when it is not
	// "address on the stack" (register, implicit value, implicit pointer).
	cur    *Location
	biased bool // top of stack came from DW_OP_addr/addrx (biased)
}

func (m *exprMachine) push(v uint64) error {
	if len(m.stack) >= maxExprStack {
		return errors.New("expression stack overflow")
	}
	m.stack = append(m.stack, v)
	m.biased = false
	return nil
}

func (m *exprMachine) pop() (uint64, error) {
	if len(m.stack) == 0 {
		return 0, errStackUnderflow
	}
	v := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	return v, nil
}

func (m *exprMachine) regValue(reg int) (uint64, error) {
	v, ok := m.env.regs.Get(reg)
	if !ok {
		return 0, fmt.Errorf("register %s: %w", regLabel(reg), ErrOptimizedOut)
	}
	return v, nil
}

func regLabel(reg int) string {
	if n := RegName(reg); n != "" {
		return "$" + n
	}
	return fmt.Sprintf("#%d", reg)
}

func (m *exprMachine) readMem(addr uint64, size int) (uint64, error) {
	if m.env.mem == nil {
		return 0, ErrNoMemory
	}
	if size < 1 || size > 8 {
		return 0, fmt.Errorf("deref size %d: %w", size, ErrUnsupported)
	}
	var b [8]byte
	n, err := m.env.mem(m.env.ctx, addr, b[:size])
	if err == nil && n < size {
		err = errors.New("short read")
	}
	if err != nil {
		return 0, fmt.Errorf("read %d bytes at %#x: %w", size, addr, err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

func (m *exprMachine) run() (Location, error) {
	for steps := 0; m.r.pos < len(m.r.b); steps++ {
		if steps > maxExprSteps {
			return Location{}, errors.New("expression: too many steps")
		}
		at := m.r.pos
		op := m.r.u8()
		if err := m.step(op); err != nil {
			if errors.Is(err, ErrOptimizedOut) {
				return Location{}, err // says what is missing; GDB: <optimized out>
			}
			return Location{}, fmt.Errorf("DW_OP %#x at byte %d: %w", op, at, err)
		}
		if m.r.err != nil {
			return Location{}, m.r.err
		}
	}
	if m.pieces != nil {
		if m.cur != nil || len(m.stack) > 0 {
			return Location{}, errors.New("expression: trailing operations after last piece")
		}
		return Location{Kind: LocPieces, Pieces: m.pieces}, nil
	}
	return m.finish()
}

// finish turns the machine state into a single location.
func (m *exprMachine) finish() (Location, error) {
	if m.cur != nil {
		return *m.cur, nil
	}
	if len(m.stack) == 0 {
		return Location{Kind: LocOptimizedOut}, nil
	}
	return Location{Kind: LocAddress, Addr: m.stack[len(m.stack)-1]}, nil
}

func (m *exprMachine) step(op byte) error {
	if m.cur != nil {
		// after a register/implicit location only a piece may follow
		switch op {
		case opPiece, opBitPiece, opGNUUninit, opNop:
		default:
			return errors.New("operation after a location description")
		}
	}
	r := &m.r
	switch {
	case op >= opLit0 && op <= opLit31:
		return m.push(uint64(op - opLit0))
	case op >= opReg0 && op <= opReg31:
		m.setReg(m.env.arch.reg(int(op - opReg0)))
		return nil
	case op >= opBreg0 && op <= opBreg31:
		off := r.sleb()
		v, err := m.regValue(m.env.arch.reg(int(op - opBreg0)))
		if err != nil {
			return err
		}
		return m.push(v + uint64(off))
	}
	switch op {
	case opAddr:
		v := r.fixed(m.env.arch.ptr())
		if err := m.push(v + m.env.bias); err != nil {
			return err
		}
		m.biased = true
	case opAddrx, opGNUAddrIndex, opConstx, opGNUConstIndex:
		idx := r.uleb()
		if m.env.addrx == nil {
			return fmt.Errorf("no .debug_addr: %w", ErrUnsupported)
		}
		v, err := m.env.addrx(idx)
		if err != nil {
			return err
		}
		if op == opAddrx || op == opGNUAddrIndex {
			if err := m.push(v + m.env.bias); err != nil {
				return err
			}
			m.biased = true
			return nil
		}
		return m.push(v)
	case opDeref:
		a, err := m.pop()
		if err != nil {
			return err
		}
		v, err := m.readMem(a, m.env.arch.ptr())
		if err != nil {
			return err
		}
		return m.push(v)
	case opDerefSize:
		n := int(r.u8())
		a, err := m.pop()
		if err != nil {
			return err
		}
		v, err := m.readMem(a, n)
		if err != nil {
			return err
		}
		return m.push(v)
	case opDerefType, opGNUDerefType:
		n := int(r.u8())
		t := r.uleb()
		a, err := m.pop()
		if err != nil {
			return err
		}
		v, err := m.readMem(a, n)
		if err != nil {
			return err
		}
		if err := m.push(v); err != nil {
			return err
		}
		return m.typed(t)
	case opConst1u:
		return m.push(r.fixed(1))
	case opConst1s:
		return m.push(uint64(int64(int8(r.fixed(1)))))
	case opConst2u:
		return m.push(r.fixed(2))
	case opConst2s:
		return m.push(uint64(int64(int16(r.fixed(2)))))
	case opConst4u:
		return m.push(r.fixed(4))
	case opConst4s:
		return m.push(uint64(int64(int32(r.fixed(4)))))
	case opConst8u, opConst8s:
		return m.push(r.fixed(8))
	case opConstu:
		return m.push(r.uleb())
	case opConsts:
		return m.push(uint64(r.sleb()))
	case opDup:
		if len(m.stack) < 1 {
			return errStackUnderflow
		}
		return m.push(m.stack[len(m.stack)-1])
	case opDrop:
		_, err := m.pop()
		return err
	case opOver:
		if len(m.stack) < 2 {
			return errStackUnderflow
		}
		return m.push(m.stack[len(m.stack)-2])
	case opPick:
		i := int(r.u8())
		if i >= len(m.stack) {
			return errStackUnderflow
		}
		return m.push(m.stack[len(m.stack)-1-i])
	case opSwap:
		if len(m.stack) < 2 {
			return errStackUnderflow
		}
		n := len(m.stack)
		m.stack[n-1], m.stack[n-2] = m.stack[n-2], m.stack[n-1]
	case opRot:
		if len(m.stack) < 3 {
			return errStackUnderflow
		}
		n := len(m.stack)
		m.stack[n-1], m.stack[n-2], m.stack[n-3] = m.stack[n-2], m.stack[n-3], m.stack[n-1]
	case opAbs, opNeg, opNot:
		v, err := m.pop()
		if err != nil {
			return err
		}
		switch op {
		case opAbs:
			if int64(v) < 0 {
				v = -v
			}
		case opNeg:
			v = -v
		case opNot:
			v = ^v
		}
		return m.push(v)
	case opPlusUconst:
		v, err := m.pop()
		if err != nil {
			return err
		}
		return m.push(v + r.uleb())
	case opAnd, opDiv, opMinus, opMod, opMul, opOr, opPlus, opShl, opShr, opShra, opXor,
		opEq, opGe, opGt, opLe, opLt, opNe:
		return m.binary(op)
	case opSkip, opBra:
		off := int16(r.fixed(2))
		if op == opBra {
			v, err := m.pop()
			if err != nil {
				return err
			}
			if v == 0 {
				return nil
			}
		}
		to := r.pos + int(off)
		if to < 0 || to > len(r.b) {
			return fmt.Errorf("branch to %d out of range", to)
		}
		r.pos = to
	case opRegx:
		m.setReg(m.env.arch.reg(int(min(r.uleb(), 1<<20))))
	case opBregx:
		reg := r.uleb()
		off := r.sleb()
		v, err := m.regValue(m.env.arch.reg(int(min(reg, 1<<20))))
		if err != nil {
			return err
		}
		return m.push(v + uint64(off))
	case opFbreg:
		off := r.sleb()
		if m.env.frameBase == nil {
			return fmt.Errorf("frame base: %w", ErrUnsupported)
		}
		fb, err := m.env.frameBase()
		if err != nil {
			return fmt.Errorf("frame base: %w", err)
		}
		return m.push(fb + uint64(off))
	case opCallFrameCFA:
		if !m.env.hasCFA {
			return fmt.Errorf("CFA unknown: %w", ErrOptimizedOut)
		}
		return m.push(m.env.cfa)
	case opPiece:
		return m.piece(int(min(r.uleb(), 1<<20)), 0, 0)
	case opBitPiece:
		size := int(min(r.uleb(), 1<<20))
		off := int(min(r.uleb(), 1<<20))
		return m.piece((size+7)/8, size, off)
	case opNop, opGNUUninit:
	case opImplicitValue:
		n := r.uleb()
		b := r.block(n)
		m.cur = &Location{Kind: LocValue, Bytes: append([]byte(nil), b...)}
	case opStackValue:
		v, err := m.pop()
		if err != nil {
			return err
		}
		m.cur = &Location{Kind: LocValue, Bytes: binary.LittleEndian.AppendUint64(nil, v)}
	case opImplicitPointer, opGNUImplicitPtr:
		die := r.fixed(4) // offset size 4 (DWARF 32-bit)
		off := r.sleb()
		m.cur = &Location{Kind: LocImplicitPointer, PtrDIE: stddwarf.Offset(die), PtrOffset: off}
	case opFormTLSAddress, opGNUPushTLSAddress:
		biased := m.biased
		v, err := m.pop()
		if err != nil {
			return err
		}
		if biased {
			v -= m.env.bias // a DW_OP_addr operand here is a TLS offset
		}
		if m.env.tls == nil {
			return fmt.Errorf("thread-local storage: %w", ErrUnsupported)
		}
		a, err := m.env.tls(v)
		if err != nil {
			return err
		}
		return m.push(a)
	case opEntryValue, opGNUEntryValue:
		n := r.uleb()
		sub := r.block(n)
		if r.err != nil {
			return r.err
		}
		if m.env.entryValue == nil {
			return fmt.Errorf("the value at the function's entry (DW_OP_entry_value) is not known here: %w", ErrOptimizedOut)
		}
		v, err := m.env.entryValue(sub)
		if err != nil {
			if errors.Is(err, ErrOptimizedOut) {
				return fmt.Errorf("the value at the function's entry (DW_OP_entry_value): %w", err)
			}
			// GDB (NO_ENTRY_VALUE_ERROR): a value whose entry value
			// cannot be found is <optimized out>, whatever the reason.
			return fmt.Errorf("the value at the function's entry (DW_OP_entry_value): %v: %w", err, ErrOptimizedOut)
		}
		return m.push(v)
	case opConstType, opGNUConstType:
		t := r.uleb()
		n := r.u8()
		b := r.block(uint64(n))
		var buf [8]byte
		copy(buf[:], b)
		_ = t
		return m.push(binary.LittleEndian.Uint64(buf[:]))
	case opRegvalType, opGNURegvalType:
		reg := r.uleb()
		t := r.uleb()
		v, err := m.regValue(m.env.arch.reg(int(min(reg, 1<<20))))
		if err != nil {
			return err
		}
		if err := m.push(v); err != nil {
			return err
		}
		return m.typed(t)
	case opConvert, opGNUConvert, opReinterpret, opGNUReinterpret:
		t := r.uleb()
		if len(m.stack) == 0 {
			return errStackUnderflow
		}
		if op == opReinterpret || op == opGNUReinterpret {
			return nil
		}
		return m.convert(t)
	case opGNUParameterRef:
		off := r.fixed(4)
		if r.err != nil {
			return r.err
		}
		if m.env.parameterRef == nil {
			return fmt.Errorf("DW_OP_GNU_parameter_ref: %w", ErrOptimizedOut)
		}
		v, err := m.env.parameterRef(off)
		if err != nil {
			return fmt.Errorf("DW_OP_GNU_parameter_ref: %w", err)
		}
		return m.push(v)
	case opXderef, opXderefSize, opXderefType, opPushObjectAddress, opCall2, opCall4, opCallRef, opGNUVariableValue:
		return fmt.Errorf("opcode %#x: %w", op, ErrUnsupported)
	default:
		return fmt.Errorf("invalid opcode %#x: %w", op, ErrUnsupported)
	}
	return nil
}

func (m *exprMachine) setReg(reg int) {
	loc := Location{Kind: LocRegister, Reg: reg}
	if b, ok := m.env.regs.Bytes(reg); ok {
		loc.Bytes = b
	}
	m.cur = &loc
}

// typed gives the top of the stack the base type at unit offset t
// (DW_OP_regval_type, DW_OP_deref_type): integers are truncated and
// extended to the type's size; floating-point values keep their bits.
func (m *exprMachine) typed(t uint64) error {
	if t == 0 || m.env.baseType == nil {
		return nil
	}
	if _, enc, err := m.env.baseType(t); err == nil && enc == EncFloat {
		return nil
	}
	return m.convert(t)
}

// convert truncates or extends the top of the stack to the base type at
// unit offset t (0: the generic type); conversions to or from floating
// point are not supported.
func (m *exprMachine) convert(t uint64) error {
	if t == 0 {
		return nil
	}
	if m.env.baseType == nil {
		return fmt.Errorf("typed stack: %w", ErrUnsupported)
	}
	size, enc, err := m.env.baseType(t)
	if err != nil {
		return err
	}
	if enc == EncFloat {
		return fmt.Errorf("floating-point DWARF stack: %w", ErrUnsupported)
	}
	if size <= 0 || size >= 8 {
		return nil
	}
	v := m.stack[len(m.stack)-1]
	bits := uint(size * 8)
	v &= 1<<bits - 1
	if (enc == EncSigned || enc == EncSignedChar) && v&(1<<(bits-1)) != 0 {
		v |= ^uint64(0) << bits
	}
	m.stack[len(m.stack)-1] = v
	return nil
}

func (m *exprMachine) binary(op byte) error {
	b, err := m.pop()
	if err != nil {
		return err
	}
	a, err := m.pop()
	if err != nil {
		return err
	}
	var v uint64
	switch op {
	case opAnd:
		v = a & b
	case opOr:
		v = a | b
	case opXor:
		v = a ^ b
	case opPlus:
		v = a + b
	case opMinus:
		v = a - b
	case opMul:
		v = a * b
	case opDiv:
		if b == 0 {
			return errors.New("division by zero")
		}
		if int64(a) == math.MinInt64 && int64(b) == -1 {
			v = a
		} else {
			v = uint64(int64(a) / int64(b))
		}
	case opMod:
		if b == 0 {
			return errors.New("modulo by zero")
		}
		v = a % b
	case opShl:
		if b < 64 {
			v = a << b
		}
	case opShr:
		if b < 64 {
			v = a >> b
		}
	case opShra:
		if b >= 64 {
			b = 63
		}
		v = uint64(int64(a) >> b)
	case opEq:
		v = b2u(a == b)
	case opNe:
		v = b2u(a != b)
	case opGe:
		v = b2u(int64(a) >= int64(b))
	case opGt:
		v = b2u(int64(a) > int64(b))
	case opLe:
		v = b2u(int64(a) <= int64(b))
	case opLt:
		v = b2u(int64(a) < int64(b))
	}
	return m.push(v)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// piece closes the current piece of a composite location.
func (m *exprMachine) piece(size, bitSize, bitOff int) error {
	p := Piece{Size: size, BitSize: bitSize, BitOffset: bitOff}
	switch {
	case m.cur != nil:
		p.Loc = *m.cur
		if p.Loc.Kind == LocValue && len(p.Loc.Bytes) > size && bitSize == 0 {
			p.Loc.Bytes = p.Loc.Bytes[:size]
		}
	case len(m.stack) > 0:
		p.Loc = Location{Kind: LocAddress, Addr: m.stack[len(m.stack)-1]}
	default:
		p.Loc = Location{Kind: LocOptimizedOut}
	}
	if len(m.pieces) > 1<<12 {
		return errors.New("too many pieces")
	}
	m.pieces = append(m.pieces, p)
	m.cur = nil
	m.stack = m.stack[:0]
	return nil
}
