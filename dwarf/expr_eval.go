package dwarf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// EvalScope is what the expression evaluator needs from a stopped frame.
// The core's Frame provides one; tests use fakes.
type EvalScope interface {
	// Values gives memory, types and symbols for reading objects.
	Values() *ValueEnv
	// Lang is the language of the frame's compile unit.
	Lang() Lang
	// Local finds a local variable or parameter visible at the frame's
	// pc (innermost block first). It returns an error wrapping
	// ErrNotFound when there is none.
	Local(ctx context.Context, name string) (Object, error)
	// Global finds a file-static or global variable, or a function (as
	// an object of *FuncType at the function's entry), by plain or
	// qualified name ("g", "geo::Shape::count_"). Error wraps
	// ErrNotFound when there is none.
	Global(ctx context.Context, name string) (Object, error)
	// Register returns a register of the frame by GDB name ("rip",
	// "eax", "xmm0"), typed as GDB types it.
	Register(name string) (Object, error)
	// LookupType finds a type by name ("node", "struct node",
	// "geo::Circle", "uint32_t"); error wraps ErrNotFound.
	LookupType(name string) (Type, error)
}

// EvalExpr parses and evaluates src in scope s. Errors: *cexpr.SyntaxError
// for bad syntax, ErrUnsupportedExpr (wrapped) for what the evaluator
// cannot do, ErrNotFound (wrapped) for unknown names, and GDB-worded
// errors for the rest ("Division by zero", "Cannot access memory at
// address 0x0").
func EvalExpr(ctx context.Context, s EvalScope, src string) (Object, error) {
	isType := func(name string) bool {
		if s == nil {
			return false
		}
		if _, err := s.Local(ctx, name); err == nil {
			return false
		}
		t, err := s.LookupType(name)
		if err != nil {
			return false
		}
		if s.Lang() == LangC {
			// a bare struct/union/enum tag is not a type name in C
			switch t.(type) {
			case *StructType, *EnumType:
				return false
			}
		}
		return true
	}
	e, err := cexpr.Parse(src, isType)
	if err != nil {
		return Object{}, err
	}
	return Eval(ctx, s, e)
}

// EvalCondition evaluates a breakpoint condition: true when the value is
// non-zero.
func EvalCondition(ctx context.Context, s EvalScope, src string) (bool, error) {
	o, err := EvalExpr(ctx, s, src)
	if err != nil {
		return false, err
	}
	ev := newEvaluator(ctx, s)
	return ev.truth(o)
}

// Eval evaluates a parsed expression. It never panics: a panic in the
// evaluator is turned into an error.
func Eval(ctx context.Context, s EvalScope, e cexpr.Expr) (o Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = Object{}, fmt.Errorf("evaluate expression: internal error: %v", r)
		}
	}()
	ev := newEvaluator(ctx, s)
	o, err = ev.eval(e)
	if nd, ok := o.Type.(*NoDebugType); ok && err == nil {
		return Object{}, noDebugError(nd)
	}
	if err == nil && o.Err != nil && !errors.Is(o.Err, ErrOptimizedOut) {
		// An optimized-out result is a value (GDB prints <optimized
		// out>); using it in an operation is the error.
		err = o.Err
	}
	if err == nil {
		err = ev.fetch(o)
	}
	return o, err
}

// maxFetch bounds the read that checks a result in memory.
const maxFetch = 1 << 20

// fetch reads a result that lives in memory, as GDB does before printing
// it: an unreadable object is an error ("Cannot access memory at address
// 0x..."), not a value full of <error: ...> members.
func (ev *evaluator) fetch(o Object) error {
	a, ok := o.Addr()
	if !ok {
		return nil
	}
	switch Resolve(o.Type).(type) {
	case *FuncType, *VoidType:
		return nil
	}
	size := sizeOf(o.Type)
	if size <= 0 || size > maxFetch {
		return nil
	}
	_, err := ev.env.read(a, int(size))
	return err
}

type evaluator struct {
	ctx   context.Context
	s     EvalScope
	env   *ValueEnv
	lang  Lang
	types map[string]*BaseType
	steps int
}

func newEvaluator(ctx context.Context, s EvalScope) *evaluator {
	ev := &evaluator{ctx: ctx, s: s, types: map[string]*BaseType{}}
	if s != nil {
		ev.env = s.Values()
		ev.lang = s.Lang()
	}
	if ev.env == nil {
		ev.env = &ValueEnv{}
	}
	return ev
}

// maxEvalSteps bounds evaluation work.
const maxEvalSteps = 100000

var baseSpecs = map[string]struct {
	size int64
	enc  int64
}{
	"char": {1, ateSignedChar}, "signed char": {1, ateSignedChar}, "unsigned char": {1, ateUnsignedChr},
	"short": {2, ateSigned}, "unsigned short": {2, ateUnsigned}, "int": {4, ateSigned},
	"unsigned int": {4, ateUnsigned}, "long": {8, ateSigned}, "unsigned long": {8, ateUnsigned},
	"long long": {8, ateSigned}, "unsigned long long": {8, ateUnsigned}, "bool": {1, ateBoolean},
	"_Bool": {1, ateBoolean}, "float": {4, ateFloat}, "double": {8, ateFloat}, "long double": {16, ateFloat},
	"wchar_t": {4, ateSigned}, "char16_t": {2, ateUTF}, "char32_t": {4, ateUTF}, "char8_t": {1, ateUTF},
	"__int128": {16, ateSigned}, "unsigned __int128": {16, ateUnsigned},
}

// base returns a synthetic base type by canonical name.
func (ev *evaluator) base(name string) *BaseType {
	if t, ok := ev.types[name]; ok {
		return t
	}
	sp, ok := baseSpecs[name]
	if !ok {
		sp = baseSpecs["int"]
	}
	if name == "long" || name == "unsigned long" {
		sp.size = int64(ev.ptrSize()) // ILP32 on i386, LP64 on x86-64
	}
	t := &BaseType{CommonType: CommonType{Name: name, ByteSize: sp.size, Lang: ev.lang}, Encoding: sp.enc}
	ev.types[name] = t
	return t
}

// ptrSize is the size of a pointer (and of long) of the target.
func (ev *evaluator) ptrSize() int64 {
	if ev.env != nil && ev.env.PtrSize > 0 {
		return int64(ev.env.PtrSize)
	}
	return 8
}

func (ev *evaluator) boolType() *BaseType {
	if ev.lang == LangCPlusPlus {
		return ev.base("bool")
	}
	return ev.base("int")
}

func (ev *evaluator) step() error {
	ev.steps++
	if ev.steps > maxEvalSteps {
		return errors.New("expression too complex")
	}
	if ev.ctx != nil && ev.steps%64 == 0 {
		if err := ev.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (ev *evaluator) eval(e cexpr.Expr) (Object, error) {
	if err := ev.step(); err != nil {
		return Object{}, err
	}
	switch e := e.(type) {
	case *cexpr.IntLit:
		return ev.intLiteral(e), nil
	case *cexpr.FloatLit:
		if e.Float {
			return ev.makeFloat(ev.base("float"), e.Val), nil
		}
		return ev.makeFloat(ev.base("double"), e.Val), nil
	case *cexpr.CharLit:
		t := ev.base("char")
		switch e.Prefix {
		case "L":
			t = ev.base("wchar_t")
		case "u":
			t = ev.base("char16_t")
		case "U":
			t = ev.base("char32_t")
		}
		return ev.makeInt(t, e.Val), nil
	case *cexpr.StringLit:
		ct := ev.base("char")
		b := make([]byte, len(e.Val)+1)
		for i, c := range e.Val {
			b[i] = byte(c)
		}
		at := &ArrayType{CommonType: CommonType{ByteSize: int64(len(b)), Lang: ev.lang}, Elem: ct, Count: int64(len(b))}
		return BytesObject(at, b), nil
	case *cexpr.Ident:
		return ev.ident(e.Name)
	case *cexpr.This:
		if ev.s == nil {
			return Object{}, noSymbol("this")
		}
		o, err := ev.s.Local(ev.ctx, "this")
		if err != nil {
			return Object{}, noSymbol("this")
		}
		return o, nil
	case *cexpr.Register:
		if ev.s == nil {
			return Object{}, fmt.Errorf("register $%s: %w", e.Name, ErrNotFound)
		}
		return ev.s.Register(e.Name)
	case *cexpr.Unary:
		return ev.unary(e)
	case *cexpr.Binary:
		return ev.binary(e)
	case *cexpr.Conditional:
		c, err := ev.eval(e.C)
		if err != nil {
			return Object{}, err
		}
		ok, err := ev.truth(c)
		if err != nil {
			return Object{}, err
		}
		if ok {
			return ev.eval(e.X)
		}
		return ev.eval(e.Y)
	case *cexpr.Member:
		x, err := ev.eval(e.X)
		if err != nil {
			return Object{}, err
		}
		return ev.member(x, e.Name, e.Arrow)
	case *cexpr.Index:
		return ev.index(e)
	case *cexpr.Call:
		if f, ok := e.Fn.(*cexpr.ConvFunc); ok {
			return ev.convCall(f, e.Args)
		}
		if m, ok := e.Fn.(*cexpr.Member); ok {
			recv, err := ev.eval(m.X)
			if err != nil {
				return Object{}, err
			}
			if m.Arrow {
				if recv, err = ev.deref(recv); err != nil {
					return Object{}, err
				}
			}
			return ev.xmethodCall(recv, m.Name, e.Args)
		}
		return Object{}, unsupported("function calls")
	case *cexpr.Cast:
		t, err := ev.resolveTypeSpec(e.Type)
		if err != nil {
			return Object{}, err
		}
		x, err := ev.eval(e.X)
		if err != nil {
			return Object{}, err
		}
		return ev.cast(x, t)
	case *cexpr.Sizeof:
		var t Type
		if e.Type != nil {
			var err error
			if t, err = ev.resolveTypeSpec(e.Type); err != nil {
				return Object{}, err
			}
		} else {
			x, err := ev.eval(e.X)
			if err != nil {
				return Object{}, err
			}
			t = x.Type
			if r, ok := Resolve(t).(*ReferenceType); ok {
				t = r.Elem
			}
		}
		if nd, ok := t.(*NoDebugType); ok {
			return Object{}, noDebugError(nd)
		}
		n := sizeOf(t)
		if n < 0 {
			return Object{}, fmt.Errorf("sizeof of incomplete type %s", typeString(t))
		}
		return ev.makeInt(ev.base("unsigned long"), n), nil
	case *cexpr.Unsupported:
		return Object{}, unsupported(e.What)
	case *cexpr.ConvFunc:
		return Object{}, fmt.Errorf("$%s is a function: call it", e.Name)
	}
	return Object{}, unsupported(fmt.Sprintf("expression %T", e))
}

func noSymbol(name string) error {
	return fmt.Errorf("No symbol %q in current context: %w", name, ErrNotFound)
}

func (ev *evaluator) intLiteral(e *cexpr.IntLit) Object {
	switch e.Long {
	case -1:
		return ev.makeInt(ev.boolType(), int64(e.Val))
	case -2:
		return ev.makeInt(ev.base("long"), 0)
	}
	hexOct := e.Long >= 8
	long := e.Long % 8
	v := e.Val
	var name string
	switch {
	case long == 0 && !e.Unsigned && v <= math.MaxInt32:
		name = "int"
	case long == 0 && (e.Unsigned || hexOct) && v <= math.MaxUint32:
		name = "unsigned int"
	case !e.Unsigned && v <= math.MaxInt64:
		name = "long"
		if long >= 2 {
			name = "long long"
		}
	default:
		name = "unsigned long"
		if long >= 2 {
			name = "unsigned long long"
		}
	}
	return ev.makeInt(ev.base(name), int64(v))
}

func (ev *evaluator) makeInt(t Type, v int64) Object {
	size := sizeOf(t)
	if size <= 0 || size > 16 {
		size = 8
	}
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(v))
	if v < 0 {
		binary.LittleEndian.PutUint64(b[8:], ^uint64(0))
	}
	return BytesObject(t, b[:size])
}

func (ev *evaluator) makeFloat(t *BaseType, f float64) Object {
	switch t.ByteSize {
	case 4:
		return BytesObject(t, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))))
	case 8:
		return BytesObject(t, binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)))
	}
	return BytesObject(t, float64ToX87(f))
}

// float64ToX87 encodes f as an 80-bit x87 value in 16 bytes.
func float64ToX87(f float64) []byte {
	b := make([]byte, 16)
	if f == 0 {
		if math.Signbit(f) {
			b[9] = 0x80
		}
		return b
	}
	bits := math.Float64bits(f)
	sign := uint16(bits>>63) << 15
	exp := int((bits >> 52) & 0x7ff)
	mant := bits & (1<<52 - 1)
	var e16 uint16
	var m64 uint64
	switch {
	case exp == 0x7ff:
		e16, m64 = 0x7fff, 1<<63|mant<<11
	case exp == 0: // subnormal double: normalize
		fr, ex := math.Frexp(math.Abs(f))
		m64 = uint64(fr * (1 << 64))
		e16 = uint16(ex - 1 + 16383)
	default:
		e16 = uint16(exp - 1023 + 16383)
		m64 = 1<<63 | mant<<11
	}
	binary.LittleEndian.PutUint64(b, m64)
	binary.LittleEndian.PutUint16(b[8:], sign|e16)
	return b
}

// ident resolves a name: locals, then members of this, then globals,
// then enumerators and static members by qualified name.
func (ev *evaluator) ident(name string) (Object, error) {
	if ev.s == nil {
		return Object{}, noSymbol(name)
	}
	global := strings.HasPrefix(name, "::")
	name = strings.TrimPrefix(name, "::")
	if !global && !strings.Contains(name, "::") {
		if o, err := ev.s.Local(ev.ctx, name); err == nil {
			return o, nil
		} else if !errors.Is(err, ErrNotFound) {
			return Object{}, err
		}
		if this, err := ev.s.Local(ev.ctx, "this"); err == nil {
			if o, err := ev.member(this, name, true); err == nil {
				return o, nil
			}
		}
	}
	o, err := ev.s.Global(ev.ctx, name)
	if err == nil {
		return o, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Object{}, err
	}
	hint := ""
	var nse *NoSymbolError
	if errors.As(err, &nse) {
		hint = nse.Hint
	}
	if tr := ev.env.Types; tr != nil {
		if et, v, ok := tr.Enumerator(name); ok {
			return ev.makeInt(et, v), nil
		}
	}
	if i := strings.LastIndex(name, "::"); i > 0 {
		if t, err := ev.s.LookupType(name[:i]); err == nil {
			if st, ok := Resolve(t).(*StructType); ok {
				if sm, ok := st.StaticByName(name[i+2:]); ok {
					return ev.env.staticObject(sm), nil
				}
			}
		}
	}
	if _, err := ev.s.LookupType(name); err == nil {
		return Object{}, fmt.Errorf("attempt to use a type name as an expression")
	}
	return Object{}, fmt.Errorf("No symbol %q in current context%s: %w", name, hint, ErrNotFound)
}

// rvalue strips references: the referenced object.
func (ev *evaluator) deref0(o Object) (Object, error) {
	for i := 0; i < 4; i++ {
		r, ok := Resolve(o.Type).(*ReferenceType)
		if !ok {
			return o, nil
		}
		if o.Loc.Kind == LocImplicitPointer {
			t, err := ev.env.implicitTarget(o, r.Elem)
			if err != nil {
				return Object{}, err
			}
			o = t
			continue
		}
		a, err := ev.env.Uint(o)
		if err != nil {
			return Object{}, err
		}
		o = MemObject(r.Elem, a)
	}
	return o, nil
}

// scalar is an arithmetic or pointer value.
type scalar struct {
	t        Type // resolved: *BaseType, *EnumType, *PointerType
	isFloat  bool
	isPtr    bool
	f        float64
	i        int64
	unsigned bool
	size     int64
	// big holds an x87 long double exactly (64-bit mantissa).
	big *big.Float
}

// bigOf returns the scalar as a 64-bit-mantissa float.
func (s scalar) bigOf() *big.Float {
	if s.big != nil {
		return s.big
	}
	f := new(big.Float).SetPrec(64)
	switch {
	case s.isFloat:
		f.SetFloat64(s.f)
	case s.unsigned:
		f.SetUint64(uint64(s.i))
	default:
		f.SetInt64(s.i)
	}
	return f
}

func (ev *evaluator) scalarOf(o Object) (scalar, error) {
	o, err := ev.deref0(o)
	if err != nil {
		return scalar{}, err
	}
	switch t := Resolve(o.Type).(type) {
	case *BaseType:
		b, err := ev.env.Bytes(o)
		if err != nil {
			return scalar{}, err
		}
		if t.IsFloat() {
			f, _, ok := floatValue(b)
			if !ok {
				return scalar{}, unsupported("floating-point type of size " + strconv.Itoa(len(b)))
			}
			_, bf, _ := floatValue(b)
			return scalar{t: t, isFloat: true, f: f, big: bf, size: t.ByteSize}, nil
		}
		if t.Encoding == ateComplex || len(b) > 8 {
			return scalar{}, unsupported("arithmetic on " + t.Name)
		}
		return scalar{t: t, i: bytesToInt(b, t.IsSigned()), unsigned: !t.IsSigned(), size: t.ByteSize}, nil
	case *EnumType:
		v, err := ev.env.Int(o)
		if err != nil {
			return scalar{}, err
		}
		return scalar{t: t, i: v, unsigned: t.Unsigned, size: t.ByteSize}, nil
	case *PointerType:
		v, err := ev.env.Uint(o)
		if err != nil {
			return scalar{}, err
		}
		return scalar{t: o.Type, isPtr: true, i: int64(v), unsigned: true, size: 8}, nil
	case *ArrayType:
		a, ok := o.Addr()
		if !ok {
			return scalar{}, errors.New("only values in memory can be used as pointers")
		}
		pt := &PointerType{CommonType: CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t.Elem}
		return scalar{t: pt, isPtr: true, i: int64(a), unsigned: true, size: 8}, nil
	case *FuncType:
		a, ok := o.Addr()
		if !ok {
			return scalar{}, errors.New("function not in memory")
		}
		pt := &PointerType{CommonType: CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: o.Type}
		return scalar{t: pt, isPtr: true, i: int64(a), unsigned: true, size: 8}, nil
	case *StructType:
		return scalar{}, unsupported("overloaded operator on " + typeString(o.Type))
	case *PtrToMemberType:
		return scalar{}, unsupported("arithmetic on pointers to members")
	}
	return scalar{}, fmt.Errorf("value of type %s is not a number", typeString(o.Type))
}

func (ev *evaluator) truth(o Object) (bool, error) {
	sc, err := ev.scalarOf(o)
	if err != nil {
		return false, err
	}
	if sc.isFloat {
		return sc.f != 0, nil
	}
	return sc.i != 0, nil
}

// promote applies the integer promotions.
func (ev *evaluator) promote(sc scalar) scalar {
	if sc.isFloat || sc.isPtr {
		return sc
	}
	if sc.size < 4 {
		sc.t, sc.size, sc.unsigned = ev.base("int"), 4, false
		return sc
	}
	if _, ok := sc.t.(*EnumType); ok || isBool(sc.t) {
		if sc.size <= 4 {
			if sc.unsigned {
				sc.t = ev.base("unsigned int")
			} else {
				sc.t = ev.base("int")
			}
			sc.size = 4
		} else {
			sc.t = ev.base(map[bool]string{true: "unsigned long", false: "long"}[sc.unsigned])
		}
	}
	return sc
}

func isBool(t Type) bool {
	b, ok := Resolve(t).(*BaseType)
	return ok && b.IsBool()
}

// arith returns the common type of two promoted arithmetic operands.
func (ev *evaluator) common(a, b scalar) (Type, bool) {
	if a.isFloat || b.isFloat {
		size := int64(0)
		if a.isFloat {
			size = a.size
		}
		if b.isFloat && b.size > size {
			size = b.size
		}
		switch {
		case size > 8:
			return ev.base("long double"), true
		case size == 8 || !a.isFloat || !b.isFloat:
			if size == 4 {
				return ev.base("float"), true
			}
			return ev.base("double"), true
		}
		return ev.base("float"), true
	}
	switch {
	case a.size > b.size:
		return a.t, false
	case b.size > a.size:
		return b.t, false
	case a.unsigned:
		return a.t, false
	}
	return b.t, false
}
