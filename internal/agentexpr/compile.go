package agentexpr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// Scope resolves the names a condition uses, in the frame of the address
// the condition is compiled for.
type Scope struct {
	// PtrSize is the size of a pointer, and of long: 8, or 4 on i386.
	PtrSize int
	// Var resolves an identifier to where its value is at that address.
	Var func(name string) (Var, error)
}

// Var is what Scope.Var finds for a name: a variable, or an enumerator.
type Var struct {
	Type dwarf.Type
	// Const: an enumerator (or any constant) of value Value.
	Const bool
	Value int64
	// InReg: the value is in register Reg (a register number of the
	// target's g packet). Otherwise the object is in memory at Reg + Off,
	// or at Off when Reg < 0.
	InReg bool
	Reg   int
	Off   int64
}

// MaxCode bounds the bytecode of one condition: gdbserver's jumps are
// 16-bit offsets, and a condition that long is better left to the host.
const MaxCode = 4096

// maxDepth bounds the agent's stack use: gdbserver's stack holds 100
// entries (ax.cc STACK_MAX) and nothing checks a push against it.
const maxDepth = 64

// CompileCondition compiles a breakpoint condition to agent bytecode that
// leaves a nonzero value exactly where the host's evaluator (package
// dwarf/eval) finds the condition true, following its rules for integer
// promotion, the common type of two operands and wrapping at the type's
// width.
//
// It compiles integers, enumerations, booleans and pointers: literals,
// variables (in memory or in a register), enumerators, the arithmetic,
// bitwise, shift, comparison and logical operators, ?:, unary - + ~ ! *
// &, members (. and ->, not bit-fields), subscripts of arrays and
// pointers, and casts to the C integer types. Floating point, calls,
// strings, bit-fields, references and registers named with $ are
// ErrUnsupported: the host evaluates those.
//
// Where the host would fail (a read through a pointer below 4096, a
// division by zero), the code leaves 1, so that the hit is reported and
// the host decides.
func CompileCondition(e cexpr.Expr, sc Scope) ([]byte, error) {
	if sc.PtrSize != 4 && sc.PtrSize != 8 {
		return nil, fmt.Errorf("pointer size %d: %w", sc.PtrSize, ErrUnsupported)
	}
	c := &compiler{sc: sc}
	// A scalar's truth is "nonzero", as gdbserver tests it.
	if _, err := c.scalar(e); err != nil {
		return nil, err
	}
	c.op(opEnd)
	if len(c.report) > 0 {
		at := len(c.code)
		c.code = append(c.code, opConst8, 1, opEnd)
		for _, p := range c.report {
			binary.BigEndian.PutUint16(c.code[p:], uint16(at))
		}
	}
	if len(c.code) > MaxCode {
		return nil, fmt.Errorf("%d bytes of bytecode: %w", len(c.code), ErrUnsupported)
	}
	if d, err := maxStack(c.code); err != nil || d > maxDepth {
		return nil, fmt.Errorf("the code needs %d values on the agent's stack (%v): %w", d, err, ErrUnsupported)
	}
	return c.code, nil
}

// compiler emits one condition's bytecode.
type compiler struct {
	sc     Scope
	code   []byte
	report []int // offsets of jump targets to patch with the report exit
}

// val is what the code so far leaves on the agent's stack: the address
// of an object of type t (addr), or a scalar value. A scalar integer is
// kept canonical: its 64 bits are the value sign-extended (signed) or
// zero-extended from size bytes; a pointer is zero-extended.
type val struct {
	addr   bool
	t      dwarf.Type // addr: the object's type
	ptr    bool       // a pointer to elem
	elem   dwarf.Type
	size   int // integer: its size in bytes
	signed bool
}

func intVal(size int, signed bool) val { return val{size: size, signed: signed} }

func (c *compiler) op(b ...byte) { c.code = append(c.code, b...) }

// constant pushes v in the shortest constant opcode (they zero-extend).
func (c *compiler) constant(v uint64) {
	switch {
	case v <= math.MaxUint8:
		c.op(opConst8, byte(v))
	case v <= math.MaxUint16:
		c.op(opConst16, byte(v>>8), byte(v))
	case v <= math.MaxUint32:
		c.op(opConst32)
		c.code = binary.BigEndian.AppendUint32(c.code, uint32(v))
	default:
		c.op(opConst64)
		c.code = binary.BigEndian.AppendUint64(c.code, v)
	}
}

// jump emits a jump opcode (if_goto or goto) and returns where its target
// goes, to be patched by land.
func (c *compiler) jump(op byte) int {
	c.op(op, 0, 0)
	return len(c.code) - 2
}

// land makes the jump at p go to the next opcode.
func (c *compiler) land(p int) {
	binary.BigEndian.PutUint16(c.code[p:], uint16(len(c.code)))
}

// reportIf pops the top and, when it is nonzero, ends the condition true.
func (c *compiler) reportIf() {
	c.report = append(c.report, c.jump(opIfGoto))
}

// norm makes the top canonical for an integer of size bytes.
func (c *compiler) norm(size int, signed bool) {
	if size >= 8 {
		return
	}
	if signed {
		c.op(opExt, byte(8*size))
	} else {
		c.op(opZeroExt, byte(8*size))
	}
}

// guardPointer reports the hit when the address on top is below
// minPointer, where the host's read would fail (a NULL pointer and its
// members); gdbserver would read garbage there instead of failing.
func (c *compiler) guardPointer() {
	c.op(opDup)
	c.constant(minPointer)
	c.op(opLessUnsigned)
	c.reportIf()
}

// intInfo is the size and signedness of an integer-like type: integers,
// characters, booleans and enumerations.
func intInfo(t dwarf.Type) (size int, signed, ok bool) {
	switch tt := dwarf.Resolve(t).(type) {
	case *dwarf.BaseType:
		if tt.IsFloat() || tt.Encoding == dwarf.EncComplex || tt.BitSize != 0 {
			return 0, false, false
		}
		size = int(tt.ByteSize)
		signed = tt.IsSigned()
	case *dwarf.EnumType:
		size, signed = int(tt.ByteSize), !tt.Unsigned
	default:
		return 0, false, false
	}
	switch size {
	case 1, 2, 4, 8:
		return size, signed, true
	}
	return 0, false, false
}

// rvalue loads the value of the object whose address v is (an array
// decays to the address of its first element).
func (c *compiler) rvalue(v val) (val, error) {
	if !v.addr {
		return v, nil
	}
	if size, signed, ok := intInfo(v.t); ok {
		c.ref(size)
		if signed {
			c.norm(size, true)
		}
		return intVal(size, signed), nil
	}
	switch t := dwarf.Resolve(v.t).(type) {
	case *dwarf.PointerType:
		c.ref(c.sc.PtrSize)
		return val{ptr: true, elem: t.Elem}, nil
	case *dwarf.ArrayType:
		return val{ptr: true, elem: t.Elem}, nil
	}
	return val{}, fmt.Errorf("a value of type %s: %w", typeName(v.t), ErrUnsupported)
}

// ref replaces the address on top with the size bytes there, zero-extended.
func (c *compiler) ref(size int) {
	switch size {
	case 1:
		c.op(opRef8)
	case 2:
		c.op(opRef8 + 1)
	case 4:
		c.op(opRef8 + 2)
	default:
		c.op(opRef8 + 3)
	}
}

func typeName(t dwarf.Type) string {
	if t == nil {
		return "?"
	}
	return t.String()
}

// scalar compiles e to a scalar value.
func (c *compiler) scalar(e cexpr.Expr) (val, error) {
	v, err := c.expr(e)
	if err != nil {
		return val{}, err
	}
	return c.rvalue(v)
}

// integer compiles e to a promoted integer.
func (c *compiler) integer(e cexpr.Expr) (val, error) {
	v, err := c.scalar(e)
	if err != nil {
		return val{}, err
	}
	if v.ptr {
		return val{}, fmt.Errorf("a pointer where an integer is needed: %w", ErrUnsupported)
	}
	return promote(v), nil
}

// promote applies the integer promotions (what dwarf/eval's promote does).
func promote(v val) val {
	if !v.ptr && v.size < 4 {
		return intVal(4, true)
	}
	return v
}

// common is the type two promoted integers are converted to, as
// dwarf/eval decides it: the larger, else the unsigned one.
func common(a, b val) val {
	switch {
	case a.size > b.size:
		return a
	case b.size > a.size:
		return b
	case !a.signed:
		return a
	}
	return b
}

// converts says whether a canonical integer of type from needs code to
// become one of type to.
func converts(from, to val) bool {
	return to.size < 8 && (from.size != to.size || from.signed != to.signed)
}

// convert converts the canonical integer on top from type from to type to.
func (c *compiler) convert(from, to val) {
	if converts(from, to) {
		c.norm(to.size, to.signed)
	}
}

// convertBelow converts the integer under the top.
func (c *compiler) convertBelow(from, to val) {
	if converts(from, to) {
		c.op(opSwap)
		c.norm(to.size, to.signed)
		c.op(opSwap)
	}
}

func (c *compiler) expr(e cexpr.Expr) (val, error) {
	switch e := e.(type) {
	case *cexpr.IntLit:
		return c.intLit(e)
	case *cexpr.CharLit:
		if e.Prefix != "" || e.Val < 0 || e.Val > 127 {
			return val{}, fmt.Errorf("character literal %d: %w", e.Val, ErrUnsupported)
		}
		c.constant(uint64(e.Val))
		return intVal(1, true), nil
	case *cexpr.Ident:
		return c.ident(e.Name)
	case *cexpr.Unary:
		return c.unary(e)
	case *cexpr.Binary:
		return c.binary(e)
	case *cexpr.Conditional:
		return c.conditional(e)
	case *cexpr.Member:
		return c.member(e)
	case *cexpr.Index:
		return c.index(e)
	case *cexpr.Cast:
		return c.cast(e)
	}
	return val{}, fmt.Errorf("%T: %w", e, ErrUnsupported)
}

// intLit types a literal as C (and dwarf/eval) types it.
func (c *compiler) intLit(e *cexpr.IntLit) (val, error) {
	if e.Long < -1 {
		return val{}, fmt.Errorf("nullptr: %w", ErrUnsupported)
	}
	name := e.TypeName(c.sc.PtrSize)
	t := intVal(4, !strings.HasPrefix(name, "unsigned"))
	switch strings.TrimPrefix(name, "unsigned ") {
	case "bool":
		t = intVal(1, false)
	case "long":
		t.size = c.sc.PtrSize
	case "long long":
		t.size = 8
	}
	c.constant(e.Val)
	c.norm(t.size, t.signed)
	return t, nil
}

func (c *compiler) ident(name string) (val, error) {
	if c.sc.Var == nil {
		return val{}, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	v, err := c.sc.Var(name)
	if err != nil {
		return val{}, err
	}
	switch {
	case v.Const:
		size, signed, ok := intInfo(v.Type)
		if !ok {
			return val{}, fmt.Errorf("constant %s of type %s: %w", name, typeName(v.Type), ErrUnsupported)
		}
		c.constant(uint64(v.Value))
		c.norm(size, signed)
		return intVal(size, signed), nil
	case v.InReg:
		c.op(opReg, byte(v.Reg>>8), byte(v.Reg))
		if size, signed, ok := intInfo(v.Type); ok {
			c.norm(size, signed)
			return intVal(size, signed), nil
		}
		if p, ok := dwarf.Resolve(v.Type).(*dwarf.PointerType); ok {
			c.norm(c.sc.PtrSize, false)
			return val{ptr: true, elem: p.Elem}, nil
		}
		return val{}, fmt.Errorf("%s, a %s in a register: %w", name, typeName(v.Type), ErrUnsupported)
	}
	if v.Type == nil || dwarf.Resolve(v.Type).Size() <= 0 {
		return val{}, fmt.Errorf("%s has no sized type: %w", name, ErrUnsupported)
	}
	if v.Reg >= 0 {
		c.op(opReg, byte(v.Reg>>8), byte(v.Reg))
		if v.Off != 0 {
			c.constant(uint64(v.Off))
			c.op(opAdd)
		}
	} else {
		c.constant(uint64(v.Off))
	}
	return val{addr: true, t: v.Type}, nil
}

func (c *compiler) unary(e *cexpr.Unary) (val, error) {
	switch e.Op {
	case "&":
		x, err := c.expr(e.X)
		if err != nil {
			return val{}, err
		}
		if !x.addr {
			return val{}, fmt.Errorf("& of a value not in memory: %w", ErrUnsupported)
		}
		return val{ptr: true, elem: x.t}, nil
	case "*":
		x, err := c.scalar(e.X)
		if err != nil {
			return val{}, err
		}
		return c.deref(x)
	case "!":
		if _, err := c.scalar(e.X); err != nil {
			return val{}, err
		}
		c.op(opLogNot)
		return intVal(4, true), nil
	case "-", "+", "~":
		x, err := c.integer(e.X)
		if err != nil {
			return val{}, err
		}
		switch e.Op {
		case "-":
			c.constant(0)
			c.op(opSwap, opSub)
			c.norm(x.size, x.signed)
		case "~":
			c.op(opBitNot)
			c.norm(x.size, x.signed)
		}
		return x, nil
	}
	return val{}, fmt.Errorf("operator %s: %w", e.Op, ErrUnsupported)
}

// deref makes pointer p the address of its object.
func (c *compiler) deref(p val) (val, error) {
	if !p.ptr {
		return val{}, fmt.Errorf("* of a non-pointer: %w", ErrUnsupported)
	}
	if p.elem == nil || dwarf.Resolve(p.elem).Size() <= 0 {
		return val{}, fmt.Errorf("* of a pointer to %s: %w", typeName(p.elem), ErrUnsupported)
	}
	c.guardPointer()
	return val{addr: true, t: p.elem}, nil
}

// shift compiles x << y and x >> y as the host evaluates them (GDB's
// check_valid_shift_count): a count of the promoted left operand's width
// or more, or a negative one, gives 0, where the agent's shift takes the
// count mod 64. The count is compiled first and kept below the shift:
//
//	y  dup  x  swap  63 and  lsh|rsh  norm  swap  W less_unsigned  mul
//
// (a negative count, sign-extended, is no less than W unsigned).
func (c *compiler) shift(e *cexpr.Binary) (val, error) {
	b, err := c.scalar(e.Y)
	if err != nil {
		return val{}, err
	}
	c.op(opDup)
	a, err := c.scalar(e.X)
	if err != nil {
		return val{}, err
	}
	if a.ptr || b.ptr {
		return val{}, fmt.Errorf("shift of a pointer: %w", ErrUnsupported)
	}
	a = promote(a)
	c.op(opSwap)
	c.constant(63)
	c.op(opBitAnd)
	switch {
	case e.Op == "<<":
		c.op(opLsh)
	case a.signed:
		c.op(opRshSigned)
	default:
		c.op(opRshUnsigned)
	}
	c.norm(a.size, a.signed)
	c.op(opSwap)
	c.constant(uint64(8 * a.size))
	c.op(opLessUnsigned)
	c.op(opMul)
	return a, nil
}

// elemSize is the step of pointer arithmetic on p (1 for void *, as GDB).
func elemSize(p val) uint64 {
	if n := dwarf.SizeOf(p.elem); n > 0 {
		return uint64(n)
	}
	return 1
}

func (c *compiler) binary(e *cexpr.Binary) (val, error) {
	switch e.Op {
	case "&&", "||":
		return c.logical(e)
	case "<<", ">>":
		return c.shift(e)
	}
	a, err := c.scalar(e.X)
	if err != nil {
		return val{}, err
	}
	b, err := c.scalar(e.Y)
	if err != nil {
		return val{}, err
	}
	if a.ptr || b.ptr {
		return c.pointerOp(e.Op, a, b)
	}
	a, b = promote(a), promote(b)
	t := common(a, b)
	c.convert(b, t)
	c.convertBelow(a, t)
	switch e.Op {
	case "==", "!=", "<", ">", "<=", ">=":
		c.compare(e.Op, t.signed)
		return intVal(4, true), nil
	case "+":
		c.op(opAdd)
	case "-":
		c.op(opSub)
	case "*":
		c.op(opMul)
	case "&":
		c.op(opBitAnd)
	case "|":
		c.op(opBitOr)
	case "^":
		c.op(opBitXor)
	case "/", "%":
		c.divide(e.Op, t.signed)
	default:
		return val{}, fmt.Errorf("operator %s: %w", e.Op, ErrUnsupported)
	}
	c.norm(t.size, t.signed)
	return t, nil
}

// compare replaces the two values on top with their comparison (1 or 0).
func (c *compiler) compare(op string, signed bool) {
	less := byte(opLessSigned)
	if !signed {
		less = opLessUnsigned
	}
	switch op {
	case "==":
		c.op(opEqual)
	case "!=":
		c.op(opEqual, opLogNot)
	case "<":
		c.op(less)
	case ">": // b < a
		c.op(opSwap, less)
	case "<=": // !(b < a)
		c.op(opSwap, less, opLogNot)
	case ">=": // !(a < b)
		c.op(less, opLogNot)
	}
}

// divide divides (or takes the remainder of) the two values on top. A zero
// divisor reports the hit (the host fails there); a signed division by -1
// is done as the host does it (-a, remainder 0), because gdbserver's
// would trap on the most negative 64-bit value.
func (c *compiler) divide(op string, signed bool) {
	c.op(opDup)
	c.op(opLogNot)
	c.reportIf()
	if !signed {
		if op == "/" {
			c.op(opDivUnsigned)
		} else {
			c.op(opRemUnsigned)
		}
		return
	}
	c.op(opDup)
	c.constant(math.MaxUint64)
	c.op(opEqual)
	minusOne := c.jump(opIfGoto)
	if op == "/" {
		c.op(opDivSigned)
	} else {
		c.op(opRemSigned)
	}
	end := c.jump(opGoto)
	c.land(minusOne)
	c.op(opPop) // the -1
	if op == "/" {
		c.constant(0)
		c.op(opSwap, opSub)
	} else {
		c.op(opPop, opConst8, 0)
	}
	c.land(end)
}

// pointerOp is a binary operator with a pointer operand, as dwarf/eval's
// pointerArith does it.
func (c *compiler) pointerOp(op string, a, b val) (val, error) {
	switch op {
	case "==", "!=", "<", ">", "<=", ">=":
		c.compare(op, false)
		return intVal(4, true), nil
	case "+":
		switch {
		case a.ptr && !b.ptr:
			c.scale(elemSize(a))
		case b.ptr && !a.ptr:
			c.op(opSwap)
			c.scale(elemSize(b))
			a = b
		default:
			return val{}, fmt.Errorf("pointer + pointer: %w", ErrUnsupported)
		}
		c.op(opAdd)
		c.norm(c.sc.PtrSize, false)
		return a, nil
	case "-":
		if !a.ptr {
			return val{}, fmt.Errorf("integer - pointer: %w", ErrUnsupported)
		}
		if b.ptr {
			c.op(opSub)
			if n := elemSize(a); n > 1 {
				c.constant(n)
				c.op(opDivSigned)
			}
			c.norm(c.sc.PtrSize, true)
			return intVal(c.sc.PtrSize, true), nil
		}
		c.scale(elemSize(a))
		c.op(opSub)
		c.norm(c.sc.PtrSize, false)
		return a, nil
	}
	return val{}, fmt.Errorf("operator %s on a pointer: %w", op, ErrUnsupported)
}

// scale multiplies the top by n.
func (c *compiler) scale(n uint64) {
	if n > 1 {
		c.constant(n)
		c.op(opMul)
	}
}

// logical compiles && and ||, evaluating the right side only when the
// left does not decide, as the host does.
func (c *compiler) logical(e *cexpr.Binary) (val, error) {
	if _, err := c.scalar(e.X); err != nil {
		return val{}, err
	}
	if e.Op == "&&" {
		c.op(opLogNot)
	} else {
		c.op(opLogNot, opLogNot)
	}
	decided := c.jump(opIfGoto)
	if _, err := c.scalar(e.Y); err != nil {
		return val{}, err
	}
	c.op(opLogNot, opLogNot)
	end := c.jump(opGoto)
	c.land(decided)
	if e.Op == "&&" {
		c.op(opConst8, 0)
	} else {
		c.op(opConst8, 1)
	}
	c.land(end)
	return intVal(4, true), nil
}

// conditional compiles c ? x : y. The host gives the chosen side as it
// is, so both sides must be of one kind for the result's type to be known
// here.
func (c *compiler) conditional(e *cexpr.Conditional) (val, error) {
	if _, err := c.scalar(e.C); err != nil {
		return val{}, err
	}
	toX := c.jump(opIfGoto)
	y, err := c.scalar(e.Y)
	if err != nil {
		return val{}, err
	}
	end := c.jump(opGoto)
	c.land(toX)
	x, err := c.scalar(e.X)
	if err != nil {
		return val{}, err
	}
	c.land(end)
	switch {
	case x.ptr && y.ptr && typeName(x.elem) == typeName(y.elem):
	case !x.ptr && !y.ptr && promote(x) == promote(y):
		x = promote(x)
	default:
		return val{}, fmt.Errorf("?: with sides of different types: %w", ErrUnsupported)
	}
	return x, nil
}

func (c *compiler) member(e *cexpr.Member) (val, error) {
	x, err := c.expr(e.X)
	if err != nil {
		return val{}, err
	}
	if e.Arrow {
		if x, err = c.rvalue(x); err != nil {
			return val{}, err
		}
		if x, err = c.deref(x); err != nil {
			return val{}, err
		}
	}
	if !x.addr {
		return val{}, fmt.Errorf(".%s of a value not in memory: %w", e.Name, ErrUnsupported)
	}
	st, ok := dwarf.Resolve(x.t).(*dwarf.StructType)
	if !ok || st.Incomplete {
		return val{}, fmt.Errorf(".%s of a %s: %w", e.Name, typeName(x.t), ErrUnsupported)
	}
	f, off, ok := findField(st, e.Name, 0)
	if !ok {
		return val{}, fmt.Errorf("no member %s in %s: %w", e.Name, typeName(x.t), ErrUnsupported)
	}
	if f.BitSize != 0 {
		return val{}, fmt.Errorf("bit-field %s: %w", e.Name, ErrUnsupported)
	}
	if off != 0 {
		c.constant(uint64(off))
		c.op(opAdd)
	}
	return val{addr: true, t: f.Type}, nil
}

// findField finds a data member by name, also inside anonymous struct and
// union members, with its offset in st.
func findField(st *dwarf.StructType, name string, base int64) (dwarf.Field, int64, bool) {
	for _, f := range st.Fields {
		if f.Name == name {
			return f, base + f.ByteOffset, true
		}
	}
	for _, f := range st.Fields {
		if f.Name != "" {
			continue
		}
		if in, ok := dwarf.Resolve(f.Type).(*dwarf.StructType); ok {
			if g, off, ok := findField(in, name, base+f.ByteOffset); ok {
				return g, off, true
			}
		}
	}
	return dwarf.Field{}, 0, false
}

func (c *compiler) index(e *cexpr.Index) (val, error) {
	x, err := c.expr(e.X)
	if err != nil {
		return val{}, err
	}
	var elem dwarf.Type
	if at, ok := dwarf.Resolve(x.t).(*dwarf.ArrayType); ok && x.addr {
		elem = at.Elem
	} else {
		if x, err = c.rvalue(x); err != nil {
			return val{}, err
		}
		if !x.ptr {
			return val{}, fmt.Errorf("subscript of a non-pointer: %w", ErrUnsupported)
		}
		c.guardPointer()
		elem = x.elem
	}
	if n := dwarf.SizeOf(elem); n <= 0 {
		return val{}, fmt.Errorf("subscript of %s elements: %w", typeName(elem), ErrUnsupported)
	}
	if _, err := c.integer(e.Sub); err != nil {
		return val{}, err
	}
	c.scale(uint64(dwarf.SizeOf(elem)))
	c.op(opAdd)
	return val{addr: true, t: elem}, nil
}

// castTypes are the type names a cast compiles to (x86: char is signed).
var castTypes = map[string]val{
	"char": intVal(1, true), "signed char": intVal(1, true), "unsigned char": intVal(1, false),
	"short": intVal(2, true), "unsigned short": intVal(2, false),
	"int": intVal(4, true), "unsigned int": intVal(4, false),
	"long long": intVal(8, true), "unsigned long long": intVal(8, false),
	"int8_t": intVal(1, true), "uint8_t": intVal(1, false),
	"int16_t": intVal(2, true), "uint16_t": intVal(2, false),
	"int32_t": intVal(4, true), "uint32_t": intVal(4, false),
	"int64_t": intVal(8, true), "uint64_t": intVal(8, false),
}

func (c *compiler) cast(e *cexpr.Cast) (val, error) {
	if e.Type == nil || len(e.Type.Ops) != 0 {
		return val{}, fmt.Errorf("cast to %v: %w", e.Type, ErrUnsupported)
	}
	to, ok := castTypes[e.Type.Base]
	switch e.Type.Base {
	case "long", "unsigned long", "size_t", "ssize_t", "intptr_t", "uintptr_t", "ptrdiff_t":
		to, ok = intVal(c.sc.PtrSize, e.Type.Base[0] != 'u' && e.Type.Base != "size_t"), true
	case "bool", "_Bool":
		if _, err := c.scalar(e.X); err != nil {
			return val{}, err
		}
		c.op(opLogNot, opLogNot)
		return intVal(1, false), nil
	}
	if !ok {
		return val{}, fmt.Errorf("cast to %s: %w", e.Type.Base, ErrUnsupported)
	}
	x, err := c.scalar(e.X)
	if err != nil {
		return val{}, err
	}
	if x.ptr {
		x = intVal(c.sc.PtrSize, false)
	}
	c.convert(x, to)
	return to, nil
}

// maxStack is the most values code leaves on the agent's stack on any of
// its paths, for the opcodes CompileCondition emits (jumps go forward
// only).
func maxStack(code []byte) (int, error) {
	// Operand bytes, values taken from the stack and values put back.
	type shape struct{ args, pops, pushes int }
	bin, un := shape{0, 2, 1}, shape{0, 1, 1}
	shapes := map[byte]shape{
		opAdd: bin, opSub: bin, opMul: bin, opDivSigned: bin, opDivUnsigned: bin, opRemSigned: bin,
		opRemUnsigned: bin, opLsh: bin, opRshSigned: bin, opRshUnsigned: bin, opBitAnd: bin,
		opBitOr: bin, opBitXor: bin, opEqual: bin, opLessSigned: bin, opLessUnsigned: bin,
		opLogNot: un, opBitNot: un, opRef8: un, opRef8 + 1: un, opRef8 + 2: un, opRef8 + 3: un,
		opExt: {1, 1, 1}, opZeroExt: {1, 1, 1}, opSwap: {0, 2, 2},
		opConst8: {1, 0, 1}, opConst16: {2, 0, 1}, opConst32: {4, 0, 1}, opConst64: {8, 0, 1},
		opReg: {2, 0, 1}, opDup: {0, 1, 2}, opPop: {0, 1, 0}, opIfGoto: {2, 1, 0}, opGoto: {2, 0, 0},
		opEnd: {0, 1, 1},
	}
	most := 0
	seen := map[int]int{} // pc -> the deepest stack it was reached with
	var walk func(pc, d int) error
	walk = func(pc, d int) error {
		for {
			if prev, ok := seen[pc]; ok && prev >= d {
				return nil
			}
			seen[pc] = d
			if pc >= len(code) {
				return fmt.Errorf("runs off the code at %d", pc)
			}
			op := code[pc]
			sh, ok := shapes[op]
			if !ok || pc+1+sh.args > len(code) {
				return fmt.Errorf("opcode %#x at %d", op, pc)
			}
			if d < sh.pops {
				return fmt.Errorf("stack underflow at %d", pc)
			}
			d += sh.pushes - sh.pops
			most = max(most, d)
			next := pc + 1 + sh.args
			switch op {
			case opEnd:
				return nil
			case opGoto, opIfGoto:
				to := int(binary.BigEndian.Uint16(code[pc+1:]))
				if to <= pc {
					return fmt.Errorf("a backward jump at %d", pc)
				}
				if op == opGoto {
					next = to
				} else if err := walk(to, d); err != nil {
					return err
				}
			}
			pc = next
		}
	}
	err := walk(0, 0)
	return most, err
}
