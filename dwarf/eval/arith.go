package eval

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// Operators of the expression evaluator: unary, binary with C's usual
// arithmetic conversions, pointer arithmetic and GDB's x@n.

func (ev *evaluator) unary(e *cexpr.Unary) (dwarf.Object, error) {
	if ix, ok := e.X.(*cexpr.Index); ok && e.Op == "&" {
		if r, ok := ix.Sub.(*cexpr.Range); ok {
			return ev.rustSlice(ix, r)
		}
	}
	if id, ok := e.X.(*cexpr.Ident); ok && e.Op == "&" {
		if o, ok, err := ev.memberPointer(id.Name); ok {
			return o, err
		}
	}
	if d, ok := e.X.(*cexpr.Unary); ok && e.Op == "&" && d.Op == "*" {
		// &*p of a synthetic pointer is p (GDB's value_addr gives back
		// the pointer its value_ind came from), though what it points
		// to is in no memory
		p, err := ev.eval(d.X)
		if err != nil {
			return dwarf.Object{}, err
		}
		if _, isPtr := dwarf.Resolve(p.Type).(*dwarf.PointerType); isPtr && p.Loc.Kind == dwarf.LocImplicitPointer {
			return p, nil
		}
	}
	x, err := ev.eval(e.X)
	if err != nil {
		return dwarf.Object{}, err
	}
	switch e.Op {
	case "*":
		return ev.deref(x)
	case "&":
		return ev.addressOf(x)
	}
	if isVoid(x) {
		if e.Op == "!" {
			return ev.makeInt(ev.boolType(), 1), nil
		}
		return dwarf.Object{}, voidOperand(e.Op, true)
	}
	sc, err := ev.scalarOf(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	switch e.Op {
	case "!":
		if bt, _ := dwarf.Resolve(sc.t).(*dwarf.BaseType); ev.lang == dwarf.LangRust && !sc.isPtr && (bt == nil || !bt.IsBool()) {
			// Rust's ! is the complement of an integer, in its own type
			// (no promotion); of a bool, its negation (GDB's
			// rust_complement)
			if sc.isFloat {
				return dwarf.Object{}, errors.New("Argument to complement operation not an integer or boolean.")
			}
			return ev.makeInt(sc.t, ^sc.i), nil
		}
		if sc.isFloat {
			return ev.makeInt(ev.boolType(), b2i(sc.f == 0)), nil
		}
		return ev.makeInt(ev.boolType(), b2i(sc.i == 0)), nil
	case "+", "-", "~":
		if sc.isPtr {
			return dwarf.Object{}, errors.New("Argument to arithmetic operation not a number or boolean.")
		}
		sc = ev.promote(sc)
		if sc.isFloat {
			if e.Op == "~" {
				return dwarf.Object{}, errors.New("Argument to complement operation not an integer, boolean.")
			}
			if e.Op == "-" {
				sc.f = -sc.f
				if sc.big != nil {
					return ev.makeBigFloat(sc.t.(*dwarf.BaseType), new(big.Float).Neg(sc.big)), nil
				}
			}
			if sc.big != nil {
				return ev.makeBigFloat(sc.t.(*dwarf.BaseType), sc.big), nil
			}
			return ev.makeFloat(sc.t.(*dwarf.BaseType), sc.f), nil
		}
		switch e.Op {
		case "-":
			sc.i = -sc.i
		case "~":
			sc.i = ^sc.i
		}
		return ev.makeInt(sc.t, sc.i), nil
	}
	return dwarf.Object{}, unsupported("operator " + e.Op)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (ev *evaluator) deref(x dwarf.Object) (dwarf.Object, error) {
	x, err := ev.deref0(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	switch t := dwarf.Resolve(x.Type).(type) {
	case *dwarf.PointerType:
		if _, ok := dwarf.Resolve(t.Elem).(*dwarf.VoidType); ok {
			return dwarf.Object{}, errors.New("Attempt to take contents of a non-pointer value.")
		}
		if x.Loc.Kind == dwarf.LocImplicitPointer {
			return ev.env.ImplicitTarget(x, t.Elem)
		}
		a, err := ev.env.Uint(x)
		if err != nil && ev.onlyType {
			// whatis *p where p is optimized out: the type needs no
			// value (GDB's EVAL_AVOID_SIDE_EFFECTS)
			return dwarf.Object{Type: t.Elem, Err: err}, nil
		}
		if err != nil {
			return dwarf.Object{}, err
		}
		return dwarf.MemObject(t.Elem, a), nil
	case *dwarf.ArrayType:
		return ev.env.Elem(x, 0), nil
	case *dwarf.FuncType:
		return x, nil
	case *dwarf.BaseType:
		if !t.IsFloat() {
			// GDB allows *int: the int is the address of an int
			// (unop_ind), sign-extended (*-1 reads at 0xff…ff).
			v, err := ev.env.AsAddress(x)
			if err != nil {
				return dwarf.Object{}, err
			}
			return dwarf.MemObject(ev.base("int"), v), nil
		}
	case *dwarf.StructType:
		if t.Lang == dwarf.LangRust {
			if o, ok, err := ev.rustDyn(x, t); ok {
				return o, err
			}
		}
		if p, ok := ev.smartPointer(x); ok {
			return ev.deref(p) // (libstdc++'s xmethod: the element itself)
		}
		if o, ok, err := ev.pointee(x); ok {
			if err != nil {
				return dwarf.Object{}, err
			}
			return ev.callResult(x, "operator*", o), nil
		}
		return dwarf.Object{}, unsupported("overloaded operator*")
	}
	return dwarf.Object{}, errors.New("Attempt to take contents of a non-pointer value.")
}

// rustDyn is *x of a Rust trait object x (&dyn T, Box<dyn T>: a struct
// of pointer and vtable): the value it points to, of the concrete type
// its vtable belongs to, as GDB's rust_get_trait_object_pointer. ok is
// false for any other struct.
func (ev *evaluator) rustDyn(x dwarf.Object, t *dwarf.StructType) (dwarf.Object, bool, error) {
	if len(t.Fields) != 2 || ev.env.RustDynType == nil {
		return dwarf.Object{}, false, nil
	}
	p, err1 := ev.env.Member(x, "pointer")
	vt, err2 := ev.env.Member(x, "vtable")
	if err1 != nil || err2 != nil {
		return dwarf.Object{}, false, nil
	}
	va, err := ev.env.Uint(vt)
	if err != nil {
		return dwarf.Object{}, true, err
	}
	concrete, ok := ev.env.RustDynType(va)
	if !ok {
		return dwarf.Object{}, true, fmt.Errorf("the trait object's vtable %#x is none the debug information describes", va)
	}
	pa, err := ev.env.Uint(p)
	if err != nil {
		return dwarf.Object{}, true, err
	}
	return dwarf.MemObject(concrete, pa), true, nil
}

func (ev *evaluator) pointerTo(t dwarf.Type, addr uint64) dwarf.Object {
	pt := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t}
	return dwarf.BytesObject(pt, ev.ptrBytes(addr))
}

func (ev *evaluator) addressOf(x dwarf.Object) (dwarf.Object, error) {
	if r, ok := dwarf.Resolve(x.Type).(*dwarf.ReferenceType); ok {
		if x.Loc.Kind == dwarf.LocImplicitPointer {
			t, err := ev.deref0(x)
			if err != nil {
				return dwarf.Object{}, err
			}
			return ev.addressOf(t)
		}
		a, err := ev.env.Uint(x)
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.pointerTo(r.Elem, a), nil
	}
	a, ok := x.HomeAddr() // (a history value's: where it was read, as GDB's lval; a bit-field's container)
	if !ok {
		return dwarf.Object{}, errors.New("Attempt to take address of value not located in memory.")
	}
	return ev.pointerTo(x.Type, a), nil
}

// memberPointer is &Class::member as GDB evaluates it: for a data
// member a pointer to member (its offset, printed "&Node::val", of type
// int Node::*), for a non-virtual method a pointer to member function
// (its address, of type int (Node::*)(const Node * const)), for a
// virtual one ErrUnsupportedExpr; ok is false
// where name is no non-static member of a class (a static member's
// address is an ordinary pointer).
func (ev *evaluator) memberPointer(name string) (o dwarf.Object, ok bool, err error) {
	name = strings.TrimPrefix(name, "::")
	i := strings.LastIndex(name, "::")
	if i <= 0 || ev.s == nil || ev.lang != dwarf.LangCPlusPlus {
		return dwarf.Object{}, false, nil
	}
	ct, err := ev.s.LookupType(name[:i])
	if err != nil {
		return dwarf.Object{}, false, nil
	}
	st, isClass := dwarf.Resolve(ct).(*dwarf.StructType)
	if !isClass {
		return dwarf.Object{}, false, nil
	}
	member := name[i+2:]
	if f, path, found := st.FieldByName(member); found && len(path) == 0 && f.BitSize == 0 {
		t := &dwarf.PtrToMemberType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: f.Type, Class: ct}
		return dwarf.BytesObject(t, binary.LittleEndian.AppendUint64(nil, uint64(f.ByteOffset))[:ev.ptrSize()]), true, nil
	}
	for _, m := range st.Methods() {
		if m.Name != member || m.Static {
			continue
		}
		if m.Virtual {
			// GDB's value is a vtable slot it prints "&virtual
			// Node::vf(int) const": left to the GDB fallback
			return dwarf.Object{}, true, unsupported("a pointer to a virtual member function")
		}
		fn, err := ev.eval(&cexpr.Ident{Name: name})
		if err != nil {
			return dwarf.Object{}, true, err
		}
		ft, isFunc := dwarf.Resolve(fn.Type).(*dwarf.FuncType)
		a, inMem := fn.Addr()
		if !isFunc || !inMem {
			return dwarf.Object{}, false, nil
		}
		t := &dwarf.PtrToMemberType{CommonType: dwarf.CommonType{ByteSize: 2 * ev.ptrSize(), Lang: ev.lang}, Elem: ft, Class: ct}
		b := binary.LittleEndian.AppendUint64(nil, a)[:ev.ptrSize()]
		return dwarf.BytesObject(t, append(b, make([]byte, ev.ptrSize())...)), true, nil
	}
	return dwarf.Object{}, false, nil
}

// entryValuer is a scope that knows its parameters' values at the
// function's entry (GDB's NAME@entry), from call-site information.
type entryValuer interface {
	EntryValue(ctx context.Context, name string) (dwarf.Object, error)
}

func (ev *evaluator) binary(e *cexpr.Binary) (dwarf.Object, error) {
	switch e.Op {
	case "&&", "||":
		a, err := ev.condition(e.X)
		if err != nil {
			return dwarf.Object{}, err
		}
		if (e.Op == "&&" && !a) || (e.Op == "||" && a) {
			return ev.makeInt(ev.boolType(), b2i(a)), nil
		}
		b, err := ev.condition(e.Y)
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.makeInt(ev.boolType(), b2i(b)), nil
	case ",":
		if ev.lang == dwarf.LangRust {
			// (x, y) is a tuple in Rust, which GDB's Rust parser does
			// not evaluate; there is no comma operator
			return dwarf.Object{}, errors.New("Tuple expressions not supported yet")
		}
		if _, err := ev.eval(e.X); err != nil {
			return dwarf.Object{}, err
		}
		return ev.eval(e.Y)
	}
	x, err := ev.eval(e.X)
	if err != nil {
		return dwarf.Object{}, err
	}
	y, err := ev.eval(e.Y)
	if err != nil {
		return dwarf.Object{}, err
	}
	if e.Op == "@" {
		return ev.artificialArray(x, y)
	}
	if e.Op == "==" || e.Op == "!=" {
		if eq, ok, err := ev.stringsEqual(x, y); ok || err != nil {
			if err != nil {
				return dwarf.Object{}, err
			}
			return ev.makeInt(ev.boolType(), b2i(eq == (e.Op == "=="))), nil
		}
	}
	if isVoid(x) || isVoid(y) {
		return dwarf.Object{}, voidOperand(e.Op, false)
	}
	if o, ok, err := ev.implicitArith(e.Op, x, y); ok || err != nil {
		return o, err
	}
	a, err := ev.scalarOf(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	b, err := ev.scalarOf(y)
	if err != nil {
		return dwarf.Object{}, err
	}
	return ev.scalarOp(e.Op, a, b)
}

// scalarOp applies the binary operator op (not &&, || or ,) to two
// scalars.
func (ev *evaluator) scalarOp(op string, a, b scalar) (dwarf.Object, error) {
	if a.isPtr || b.isPtr {
		return ev.pointerArith(op, a, b)
	}
	a, b = ev.promote(a), ev.promote(b)
	if op == "<<" || op == ">>" {
		if a.isFloat || b.isFloat {
			return dwarf.Object{}, errors.New("Integer only operation.")
		}
		// GDB (check_valid_shift_count): a negative count, or one of
		// at least the promoted left operand's width, gives 0 (with a
		// warning; in Go a negative count is an error).
		width := 8 * dwarf.SizeOf(a.t)
		if width <= 0 || width > 64 {
			width = 64
		}
		dir := map[string]string{"<<": "left", ">>": "right"}[op]
		if !b.unsigned && b.i < 0 {
			if ev.lang == dwarf.LangGo {
				return dwarf.Object{}, fmt.Errorf("%s shift count is negative", dir)
			}
			ev.vars.warn(dir + " shift count is negative")
			return ev.makeInt(a.t, 0), nil
		}
		if uint64(b.i) >= uint64(width) {
			if ev.lang != dwarf.LangGo { // (defined in Go)
				ev.vars.warn(dir + " shift count >= width of type")
			}
			return ev.makeInt(a.t, 0), nil
		}
		n := uint64(b.i)
		v := a.i
		if op == "<<" {
			v <<= n
		} else if a.unsigned {
			v = int64(uint64(v) >> n)
		} else {
			v >>= n
		}
		return ev.makeInt(a.t, v), nil
	}
	ct, isFloat := ev.common(a, b)
	if isFloat {
		if bt := ct.(*dwarf.BaseType); bt.ByteSize > 8 {
			return ev.bigFloatOp(op, bt, a.bigOf(), b.bigOf())
		}
		fa, fb := a.f, b.f
		if !a.isFloat {
			fa = intToFloat(a)
		}
		if !b.isFloat {
			fb = intToFloat(b)
		}
		return ev.floatOp(op, ct.(*dwarf.BaseType), fa, fb)
	}
	unsigned := !dwarf.IsSignedType(ct)
	size := dwarf.SizeOf(ct)
	return ev.intOp(op, ct, a.i, b.i, unsigned, size)
}

func intToFloat(s scalar) float64 {
	if s.unsigned {
		return float64(uint64(s.i))
	}
	return float64(s.i)
}

func (ev *evaluator) floatOp(op string, t *dwarf.BaseType, a, b float64) (dwarf.Object, error) {
	switch op {
	case "+":
		return ev.makeFloat(t, a+b), nil
	case "-":
		return ev.makeFloat(t, a-b), nil
	case "*":
		return ev.makeFloat(t, a*b), nil
	case "/":
		return ev.makeFloat(t, a/b), nil
	case "==", "!=", "<", ">", "<=", ">=":
		return ev.makeInt(ev.boolType(), b2i(compare(op, a, b))), nil
	}
	return dwarf.Object{}, errors.New("Integer only operation.")
}

// compare applies the comparison operator op ("==", "!=", "<", ">", "<="
// or ">=") to a and b; false for any other op.
func compare[T cmp.Ordered](op string, a, b T) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case ">":
		return a > b
	case "<=":
		return a <= b
	case ">=":
		return a >= b
	}
	return false
}

func (ev *evaluator) intOp(op string, t dwarf.Type, a, b int64, unsigned bool, size int64) (dwarf.Object, error) {
	truncate := func(v int64) int64 {
		if size >= 8 {
			return v
		}
		m := int64(1)<<(8*size) - 1
		v &= m
		if !unsigned && v&(1<<(8*size-1)) != 0 {
			v |= ^m
		}
		return v
	}
	a, b = truncate(a), truncate(b)
	ua, ub := uint64(a), uint64(b)
	var r int64
	switch op {
	case "+":
		r = a + b
	case "-":
		r = a - b
	case "*":
		r = a * b
	case "/", "%":
		if b == 0 {
			return dwarf.Object{}, errors.New("Division by zero")
		}
		switch {
		case unsigned && op == "/":
			r = int64(ua / ub)
		case unsigned:
			r = int64(ua % ub)
		case b == -1:
			if op == "/" {
				r = -a
			}
		case op == "/":
			r = a / b
		default:
			r = a % b
		}
	case "&":
		r = a & b
	case "|":
		r = a | b
	case "^":
		r = a ^ b
	case "==", "!=", "<", ">", "<=", ">=":
		c := compare(op, a, b)
		if unsigned {
			c = compare(op, ua, ub)
		}
		return ev.makeInt(ev.boolType(), b2i(c)), nil
	default:
		return dwarf.Object{}, unsupported("operator " + op)
	}
	return ev.makeInt(t, truncate(r)), nil
}

// implicitArith is p + n, n + p or p - n where p is a synthetic
// pointer (an optimized-away one, DW_OP_implicit_pointer); ok is false
// for anything else.
func (ev *evaluator) implicitArith(op string, x, y dwarf.Object) (o dwarf.Object, ok bool, err error) {
	if op != "+" && op != "-" {
		return dwarf.Object{}, false, nil
	}
	if op == "+" && y.Loc.Kind == dwarf.LocImplicitPointer {
		x, y = y, x
	}
	if x.Loc.Kind != dwarf.LocImplicitPointer || y.Loc.Kind == dwarf.LocImplicitPointer {
		return dwarf.Object{}, false, nil
	}
	n, err := ev.scalarOf(y)
	if err != nil || n.isPtr || n.isFloat {
		return dwarf.Object{}, false, nil
	}
	if op == "-" {
		n.i = -n.i
	}
	o, ok = implicitAdvance(x, n.i)
	return o, ok, nil
}

// implicitAdvance is p + n of a synthetic pointer p: the same pointee,
// n elements on, as GDB's value_ptradd keeps the pointer's location and
// indirect_pieced_value adds the offset; ok is false where p is no
// synthetic pointer.
func implicitAdvance(p dwarf.Object, n int64) (dwarf.Object, bool) {
	pt, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType)
	if !ok || p.Loc.Kind != dwarf.LocImplicitPointer {
		return p, false
	}
	es := dwarf.SizeOf(pt.Elem)
	if es <= 0 {
		es = 1 // void *: by bytes, as GDB steps it
	}
	p.Type = dwarf.StripTypedefs(p.Type)
	p.Loc.PtrOffset += n * es
	return p, true
}

func (ev *evaluator) pointerArith(op string, a, b scalar) (dwarf.Object, error) {
	elemSize := func(s scalar) int64 {
		p, ok := dwarf.Resolve(s.t).(*dwarf.PointerType)
		if !ok {
			return 1
		}
		n := dwarf.SizeOf(p.Elem)
		if n <= 0 {
			return 1 // void * and function pointers step by 1 as GDB does
		}
		return n
	}
	switch op {
	case "+":
		if b.isPtr && !a.isPtr {
			a, b = b, a
		}
		if b.isPtr || b.isFloat {
			return dwarf.Object{}, errors.New("Argument to arithmetic operation not a number or boolean.")
		}
		// the pointer's type without typedefs (GDB's value_ptradd:
		// check_typedef): top - 2 is an SV *, not a StkId
		return ev.makeInt(dwarf.StripTypedefs(a.t), a.i+b.i*elemSize(a)), nil
	case "-":
		if a.isPtr && b.isPtr {
			return ev.makeInt(ev.base("long"), (a.i-b.i)/elemSize(a)), nil
		}
		if a.isPtr && !b.isFloat {
			return ev.makeInt(dwarf.StripTypedefs(a.t), a.i-b.i*elemSize(a)), nil
		}
	case "==", "!=", "<", ">", "<=", ">=":
		if a.isFloat || b.isFloat {
			break
		}
		return ev.intOp(op, ev.base("unsigned long"), a.i, b.i, true, 8)
	case "&", "|", "^":
		if !a.isFloat && !b.isFloat {
			return ev.intOp(op, ev.base("long"), a.i, b.i, true, 8)
		}
	}
	return dwarf.Object{}, errors.New("Argument to arithmetic operation not a number or boolean.")
}

// artificialArray is GDB's x@n: n objects of x's type starting at x.
func (ev *evaluator) artificialArray(x, y dwarf.Object) (dwarf.Object, error) {
	x, err := ev.deref0(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	n, err := ev.scalarOf(y)
	if err != nil {
		return dwarf.Object{}, err
	}
	if n.isFloat || n.isPtr {
		return dwarf.Object{}, errors.New("Only values in memory can be extended with '@'.")
	}
	switch {
	case n.i > math.MaxInt32 || n.i < math.MinInt32:
		return dwarf.Object{}, errors.New("Value out of range.") // GDB's count is an int
	case n.i <= 0:
		return dwarf.Object{}, fmt.Errorf("Invalid number %d of repetitions.", n.i) // GDB's value_repeat
	}
	a, ok := x.HomeAddr()
	if !ok {
		return dwarf.Object{}, errors.New("Only values in memory can be extended with '@'.")
	}
	es := dwarf.SizeOf(x.Type)
	if es <= 0 {
		return dwarf.Object{}, errors.New("Only values in memory can be extended with '@'.")
	}
	if n.i > 1<<24/es {
		// (rrmcp's bound, 16 MiB; GDB's max-value-size is 64 KiB)
		return dwarf.Object{}, fmt.Errorf("value requires %d bytes, which is more than max-value-size", n.i*es)
	}
	at := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: es * n.i, Lang: ev.lang}, Elem: x.Type, Count: n.i}
	return dwarf.MemObject(at, a), nil
}

// bigFloatOp does long double arithmetic with a 64-bit mantissa, as the
// x87 does (GDB computes long doubles natively).
func (ev *evaluator) bigFloatOp(op string, t *dwarf.BaseType, a, b *big.Float) (dwarf.Object, error) {
	r := new(big.Float).SetPrec(64)
	switch op {
	case "+":
		r.Add(a, b)
	case "-":
		r.Sub(a, b)
	case "*":
		r.Mul(a, b)
	case "/":
		if b.Sign() == 0 {
			fa, _ := a.Float64()
			return ev.makeFloat(t, fa/0), nil
		}
		r.Quo(a, b)
	case "==", "!=", "<", ">", "<=", ">=":
		return ev.makeInt(ev.boolType(), b2i(compare(op, a.Cmp(b), 0))), nil
	default:
		return dwarf.Object{}, errors.New("Integer only operation.")
	}
	return ev.makeBigFloat(t, r), nil
}

// makeBigFloat encodes f as an x87 80-bit long double in t's bytes, or
// as IEEE binary128 where t is that.
func (ev *evaluator) makeBigFloat(t *dwarf.BaseType, f *big.Float) dwarf.Object {
	if dwarf.IsFloat128(t) {
		return dwarf.BytesObject(t, dwarf.EncodeFloat128(f))
	}
	b := make([]byte, max(t.ByteSize, 10))
	if f.IsInf() {
		fv, _ := f.Float64()
		return dwarf.BytesObject(t, float64ToX87(fv)[:len(b)])
	}
	var sign uint16
	if f.Signbit() {
		sign = 0x8000
	}
	if f.Sign() != 0 {
		m := new(big.Float)
		exp := f.MantExp(m) // f = m * 2^exp, 0.5 <= |m| < 1
		m.Abs(m)
		m.SetMantExp(m, 64)
		u, _ := m.Uint64()
		e := exp - 1 + 16383
		if e <= 0 || e >= 0x7fff {
			fv, _ := f.Float64()
			return dwarf.BytesObject(t, float64ToX87(fv)[:len(b)])
		}
		binary.LittleEndian.PutUint64(b, u)
		binary.LittleEndian.PutUint16(b[8:], sign|uint16(e))
	} else {
		binary.LittleEndian.PutUint16(b[8:], sign)
	}
	return dwarf.BytesObject(t, b)
}
