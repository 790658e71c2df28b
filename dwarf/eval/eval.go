package eval

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/errkind"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// EvalScope is what the expression evaluator needs from a stopped frame.
// The core's Frame provides one; tests use fakes.
type EvalScope interface {
	// Values gives memory, types and symbols for reading objects.
	Values() *dwarf.ValueEnv
	// Lang is the language of the frame's compile unit.
	Lang() dwarf.Lang
	// Local finds a local variable or parameter visible at the frame's
	// pc (innermost block first). It returns an error wrapping
	// ErrNotFound when there is none.
	Local(ctx context.Context, name string) (dwarf.Object, error)
	// Global finds a file-static or global variable, or a function (as
	// an object of *FuncType at the function's entry), by plain or
	// qualified name ("g", "geo::Shape::count_"). Error wraps
	// ErrNotFound when there is none.
	Global(ctx context.Context, name string) (dwarf.Object, error)
	// Register returns a register of the frame by GDB name ("rip",
	// "eax", "xmm0"), typed as GDB types it.
	Register(name string) (dwarf.Object, error)
	// LookupType finds a type by name ("node", "struct node",
	// "geo::Circle", "uint32_t"); error wraps ErrNotFound.
	LookupType(name string) (dwarf.Type, error)
}

// EvalExpr parses and evaluates src in scope s. Errors: *cexpr.SyntaxError
// for bad syntax, ErrUnsupportedExpr (wrapped) for what the evaluator
// cannot do, ErrNotFound (wrapped) for unknown names, and GDB-worded
// errors for the rest ("Division by zero", "Cannot access memory at
// address 0x0").
func EvalExpr(ctx context.Context, s EvalScope, src string) (dwarf.Object, error) {
	e, err := Parse(ctx, s, src)
	if err != nil {
		return dwarf.Object{}, err
	}
	return Eval(ctx, s, e)
}

// EvalType evaluates src in scope s for its type only, as GDB evaluates
// the operand of ptype, whatis and sizeof: memory it cannot read reads
// as zeros and the result is not read, so that "ptype p->next" answers
// where p is a null pointer.
func EvalType(ctx context.Context, s EvalScope, src string) (o dwarf.Object, err error) {
	e, err := Parse(ctx, s, src)
	if err != nil {
		return dwarf.Object{}, err
	}
	defer func() {
		if r := recover(); r != nil {
			o, err = dwarf.Object{}, fmt.Errorf("evaluate expression: internal error: %v", r)
		}
	}()
	o, err = newEvaluator(ctx, s).typeOnly().eval(e)
	if nd, ok := o.Type.(*dwarf.NoDebugType); ok && err == nil {
		return dwarf.Object{}, dwarf.NoDebugError(nd)
	}
	return o, err
}

// NamedType resolves src as a type name in scope s, as ptype and whatis
// read their operand before trying it as an expression: a type the
// program names so ("struct node", "node_t", "geo::Shape"), a built-in
// name in any spelling ("unsigned", "long long", "unsigned long long
// int", which DWARF spells "long long unsigned int" if at all), and
// pointers, references and arrays of them ("node_t *").
func NamedType(ctx context.Context, s EvalScope, src string) (dwarf.Type, error) {
	if s == nil {
		return nil, fmt.Errorf("no type %q: %w", src, dwarf.ErrNotFound)
	}
	if t, err := s.LookupType(src); err == nil {
		return t, nil
	}
	isType := func(name string) bool {
		_, err := s.LookupType(name)
		return err == nil
	}
	ts, err := cexpr.ParseType(src, isType)
	if err != nil {
		return nil, err
	}
	return newEvaluator(ctx, s).resolveTypeSpec(ts)
}

// typeOnly is an evaluator like ev whose reads of memory that cannot be
// read give zeros: one for an operand whose type alone is wanted.
func (ev *evaluator) typeOnly() *evaluator {
	env := *ev.env
	mem := env.Mem
	if mem == nil {
		return ev // no memory at all (a frame read from registers only): the caller asks a full frame
	}
	env.Mem = func(addr uint64, p []byte) (int, error) {
		if n, err := mem(addr, p); err == nil && n == len(p) {
			return n, nil
		}
		clear(p)
		return len(p), nil
	}
	c := *ev
	c.env = &env
	c.onlyType = true
	return &c
}

// Parse parses src as EvalExpr does in scope s, where a name is a type
// unless s has a variable of that name. The tree may be evaluated again
// (Eval) in any scope where the names mean the same: the same pc of
// another stop.
func Parse(ctx context.Context, s EvalScope, src string) (cexpr.Expr, error) {
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
		if s.Lang() == dwarf.LangC {
			// a bare struct/union/enum tag is not a type name in C
			switch t.(type) {
			case *dwarf.StructType, *dwarf.EnumType:
				return false
			}
		}
		return true
	}
	return cexpr.Parse(src, isType)
}

// Truth evaluates a parsed breakpoint condition: true when its value is
// non-zero.
func Truth(ctx context.Context, s EvalScope, e cexpr.Expr) (bool, error) {
	o, err := Eval(ctx, s, e)
	if err != nil {
		return false, err
	}
	ev := newEvaluator(ctx, s)
	return ev.truth(o)
}

// Eval evaluates a parsed expression. It never panics: a panic in the
// evaluator is turned into an error.
func Eval(ctx context.Context, s EvalScope, e cexpr.Expr) (o dwarf.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = dwarf.Object{}, fmt.Errorf("evaluate expression: internal error: %v", r)
		}
	}()
	ev := newEvaluator(ctx, s)
	o, err = ev.eval(e)
	if nd, ok := o.Type.(*dwarf.NoDebugType); ok && err == nil {
		return dwarf.Object{}, dwarf.NoDebugError(nd)
	}
	if err == nil && o.Err != nil && !errors.Is(o.Err, dwarf.ErrOptimizedOut) {
		// An optimized-out result is a value (GDB prints <optimized
		// out>); using it in an operation is the error.
		err = o.Err
	}
	if err == nil {
		err = ev.fetch(o)
	}
	if errors.Is(err, dwarf.ErrOptimizedOut) {
		err = optimizedOutUse(err)
	}
	return o, err
}

// optimizedOutUse words err, the use of a value that was optimized out
// in an operation, as GDB's error_value_optimized_out ("value has been
// optimized out"), with what rrmcp knows of why after it; it still
// wraps err.
func optimizedOutUse(err error) error {
	if err == dwarf.ErrOptimizedOut { // the bare kind: nothing more to say
		return fmt.Errorf("value has been %w", err)
	}
	return fmt.Errorf("value has been optimized out: %w", err)
}

// maxFetch bounds the read that checks a result in memory.
const maxFetch = 1 << 20

// fetch reads a result that lives in memory, as GDB does before printing
// it: an unreadable object is an error ("Cannot access memory at address
// 0x..."), not a value full of <error: ...> members.
func (ev *evaluator) fetch(o dwarf.Object) error {
	a, ok := o.Addr()
	if !ok {
		return nil
	}
	switch dwarf.Resolve(o.Type).(type) {
	case *dwarf.FuncType, *dwarf.VoidType:
		return nil
	}
	size := dwarf.SizeOf(o.Type)
	if size <= 0 || size > maxFetch {
		return nil
	}
	_, err := ev.env.Read(a, int(size))
	return err
}

type evaluator struct {
	ctx   context.Context
	s     EvalScope
	env   *dwarf.ValueEnv
	lang  dwarf.Lang
	types map[string]*dwarf.BaseType
	steps int
	// onlyType: the result's type is wanted, not its value (typeOnly).
	onlyType bool
	// vars are the convenience variables of a scope made by WithVars.
	vars *Vars
}

func newEvaluator(ctx context.Context, s EvalScope) *evaluator {
	ev := &evaluator{ctx: ctx, s: s, types: map[string]*dwarf.BaseType{}}
	if vs, ok := s.(varScope); ok {
		ev.vars = vs.vars
	}
	if s != nil {
		ev.env = s.Values()
		ev.lang = s.Lang()
	}
	if ev.env == nil {
		ev.env = &dwarf.ValueEnv{}
	}
	return ev
}

// maxEvalSteps bounds evaluation work.
const maxEvalSteps = 100000

var baseSpecs = map[string]struct {
	size int64
	enc  int64
}{
	"char": {1, dwarf.EncSignedChar}, "signed char": {1, dwarf.EncSignedChar}, "unsigned char": {1, dwarf.EncUnsignedChar},
	"short": {2, dwarf.EncSigned}, "unsigned short": {2, dwarf.EncUnsigned}, "int": {4, dwarf.EncSigned},
	"unsigned int": {4, dwarf.EncUnsigned}, "long": {8, dwarf.EncSigned}, "unsigned long": {8, dwarf.EncUnsigned},
	"long long": {8, dwarf.EncSigned}, "unsigned long long": {8, dwarf.EncUnsigned}, "bool": {1, dwarf.EncBoolean},
	"_Bool": {1, dwarf.EncBoolean}, "float": {4, dwarf.EncFloat}, "double": {8, dwarf.EncFloat}, "long double": {16, dwarf.EncFloat},
	"wchar_t": {4, dwarf.EncSigned}, "char16_t": {2, dwarf.EncUTF}, "char32_t": {4, dwarf.EncUTF}, "char8_t": {1, dwarf.EncUTF},
	"__int128": {16, dwarf.EncSigned}, "unsigned __int128": {16, dwarf.EncUnsigned},
}

// base returns a synthetic base type by canonical name.
func (ev *evaluator) base(name string) *dwarf.BaseType {
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
	t := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: name, ByteSize: sp.size, Lang: ev.lang}, Encoding: sp.enc}
	ev.types[name] = t
	return t
}

// utf8Of is a string literal's text in UTF-8: its units are the
// source's bytes (escapes decoded), or, where one is past a byte (\u{…}),
// code points.
func utf8Of(cs []uint64) []byte {
	var b []byte
	for _, c := range cs {
		if c > 0xff {
			b = utf8.AppendRune(b, rune(c))
		} else {
			b = append(b, byte(c))
		}
	}
	return b
}

// arrayLit is Rust's [a, b, c] or [v; N]: an array of the first
// element's type (GDB's rust array_operation), each element converted to
// it.
func (ev *evaluator) arrayLit(e *cexpr.ArrayLit) (dwarf.Object, error) {
	n := int64(len(e.Elems))
	if e.Repeat != nil {
		r, err := ev.eval(e.Repeat)
		if err != nil {
			return dwarf.Object{}, err
		}
		sc, err := ev.scalarOf(r)
		if err != nil {
			return dwarf.Object{}, err
		}
		if sc.isFloat || sc.isPtr || sc.i < 0 || sc.i > 1<<16 {
			return dwarf.Object{}, errors.New("the length of an array expression must be a small non-negative integer")
		}
		n = sc.i
	}
	var elems []dwarf.Object
	for _, x := range e.Elems {
		o, err := ev.eval(x)
		if err != nil {
			return dwarf.Object{}, err
		}
		elems = append(elems, o)
	}
	et := elems[0].Type
	size := dwarf.SizeOf(et)
	if size <= 0 || size*n > 1<<20 {
		return dwarf.Object{}, errors.New("array expression too large")
	}
	for _, o := range elems[1:] {
		if dwarf.SizeOf(o.Type) != size {
			return dwarf.Object{}, errors.New("array elements must all be the same size")
		}
	}
	var b []byte
	for _, o := range elems {
		c, err := ev.cast(o, et)
		if err != nil {
			return dwarf.Object{}, err
		}
		cb, err := ev.env.Bytes(c)
		if err != nil {
			return dwarf.Object{}, err
		}
		b = append(b, cb...)
	}
	if e.Repeat != nil {
		b = bytes.Repeat(b, int(n)) // [v; N]: elems is v alone
	}
	at := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: size * n, Lang: ev.lang}, Elem: et, Count: n}
	return dwarf.BytesObject(at, b), nil
}

// ptrSize is the size of a pointer (and of long) of the target.
func (ev *evaluator) ptrSize() int64 {
	if ev.env != nil && ev.env.PtrSize > 0 {
		return int64(ev.env.PtrSize)
	}
	return 8
}

// wrapAddr is a computed address as the target has it: on i386 it wraps
// at 2^32 (pmax[1] for pmax 0xffffffff is 0x0, buf[0xffffffff] is
// buf[-1]), as GDB computes it in the pointer's size.
func (ev *evaluator) wrapAddr(a uint64) uint64 {
	if ev.ptrSize() == 4 {
		return a & 0xffffffff
	}
	return a
}

// boolType is the type of a comparison or logical operation: C's int,
// the bool of C++, Go and Rust (GDB prints true and false for those).
func (ev *evaluator) boolType() *dwarf.BaseType {
	switch ev.lang {
	case dwarf.LangCPlusPlus, dwarf.LangGo, dwarf.LangRust:
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

func (ev *evaluator) eval(e cexpr.Expr) (dwarf.Object, error) {
	if err := ev.step(); err != nil {
		return dwarf.Object{}, err
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
	case *cexpr.ArrayLit:
		return ev.arrayLit(e)
	case *cexpr.Range:
		return dwarf.Object{}, unsupported("a range outside a slice's brackets (&a[lo..hi])")
	case *cexpr.StringLit:
		if ev.lang == dwarf.LangRust && e.Prefix == "" {
			// Rust's "hi" is a &str; its bytes are the debugger's (UTF-8)
			b := utf8Of(e.Val)
			u8 := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "u8", ByteSize: 1, Lang: ev.lang}, Encoding: dwarf.EncUnsigned}
			at := &dwarf.ArrayType{CommonType: dwarf.CommonType{Name: "&str", ByteSize: int64(len(b)), Lang: ev.lang}, Elem: u8, Count: int64(len(b))}
			return dwarf.BytesObject(at, b), nil
		}
		ct := ev.base("char")
		b := make([]byte, len(e.Val)+1)
		for i, c := range e.Val {
			b[i] = byte(c)
		}
		at := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: int64(len(b)), Lang: ev.lang}, Elem: ct, Count: int64(len(b))}
		return dwarf.BytesObject(at, b), nil
	case *cexpr.Ident:
		return ev.ident(e.Name)
	case *cexpr.This:
		if ev.s == nil {
			return dwarf.Object{}, noSymbol("this")
		}
		o, err := ev.s.Local(ev.ctx, "this")
		if err != nil {
			return dwarf.Object{}, noSymbol("this")
		}
		return o, nil
	case *cexpr.Register:
		return ev.dollar(e)
	case *cexpr.History:
		return ev.history(e)
	case *cexpr.Assign:
		return ev.assign(e)
	case *cexpr.Unary:
		return ev.unary(e)
	case *cexpr.Binary:
		return ev.binary(e)
	case *cexpr.Conditional:
		ok, err := ev.condition(e.C)
		if err != nil {
			return dwarf.Object{}, err
		}
		if ok {
			return ev.eval(e.X)
		}
		return ev.eval(e.Y)
	case *cexpr.Member:
		if id, ok := e.X.(*cexpr.Ident); ok && ev.lang == dwarf.LangGo && !e.Arrow && ev.s != nil {
			// pkg.Name: a package's global, unless pkg is a variable.
			if _, err := ev.s.Local(ev.ctx, id.Name); errors.Is(err, dwarf.ErrNotFound) {
				if o, err := ev.s.Global(ev.ctx, id.Name+"."+e.Name); err == nil {
					return o, nil
				}
			}
		}
		x, err := ev.eval(e.X)
		if err != nil {
			return dwarf.Object{}, err
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
				return dwarf.Object{}, err
			}
			if m.Arrow {
				if recv, err = ev.deref(recv); err != nil {
					return dwarf.Object{}, err
				}
			}
			return ev.xmethodCall(recv, m.Name, e.Args)
		}
		return dwarf.Object{}, unsupported("function calls")
	case *cexpr.Cast:
		t, err := ev.resolveTypeSpec(e.Type)
		if err != nil {
			return dwarf.Object{}, err
		}
		x, err := ev.eval(e.X)
		if err != nil {
			return dwarf.Object{}, err
		}
		if e.Dynamic {
			return ev.dynamicCast(x, t)
		}
		return ev.cast(x, t)
	case *cexpr.Sizeof:
		var t dwarf.Type
		if e.Type != nil {
			var err error
			if t, err = ev.resolveTypeSpec(e.Type); err != nil {
				return dwarf.Object{}, err
			}
		} else {
			if u, ok := e.X.(*cexpr.Unary); ok && u.Op == "*" {
				// GDB's sizeof of *x (evaluate_for_sizeof) wants x a
				// pointer, reference or array: *INT, which print
				// reads, has no size.
				p, err := ev.typeOnly().eval(u.X)
				if err != nil {
					return dwarf.Object{}, err
				}
				if bt, ok := dwarf.Resolve(p.Type).(*dwarf.BaseType); ok && !bt.IsFloat() {
					return dwarf.Object{}, errors.New("Attempt to take contents of a non-pointer value.")
				}
			}
			x, err := ev.typeOnly().eval(e.X)
			if err != nil {
				return dwarf.Object{}, err
			}
			t = x.Type
			if r, ok := dwarf.Resolve(t).(*dwarf.ReferenceType); ok {
				t = r.Elem
			}
		}
		if nd, ok := t.(*dwarf.NoDebugType); ok {
			return dwarf.Object{}, dwarf.NoDebugError(nd)
		}
		if a, ok := dwarf.Resolve(t).(*dwarf.ArrayType); ok && a.Unbounded {
			// a VLA whose bound is gone here: GDB's sizeof is an
			// optimized-out value
			return dwarf.Object{Type: ev.base("int"), Loc: dwarf.Location{Kind: dwarf.LocOptimizedOut}}, nil
		}
		n := dwarf.SizeOf(t)
		if n < 0 {
			return dwarf.Object{}, fmt.Errorf("sizeof of incomplete type %s", dwarf.TypeString(t))
		}
		// GDB 13's sizeof is an int (evaluate_subexp_for_sizeof_base:
		// "FIXME: This should be size_t"): sizeof(int) - 5 is -1.
		return ev.makeInt(ev.base("int"), n), nil
	case *cexpr.Unsupported:
		return dwarf.Object{}, unsupported(e.What)
	case *cexpr.ConvFunc:
		return dwarf.Object{}, fmt.Errorf("$%s is a function: call it", e.Name)
	}
	return dwarf.Object{}, unsupported(fmt.Sprintf("expression %T", e))
}

// isVoid reports whether o is a void value (an unset convenience
// variable).
func isVoid(o dwarf.Object) bool {
	_, ok := dwarf.Resolve(o.Type).(*dwarf.VoidType)
	return ok
}

// voidOperand is GDB's error for operator op applied to a void value,
// as a unary or a binary operator.
func voidOperand(op string, unary bool) error {
	switch {
	case op == "==" || op == "!=":
		return errors.New("Invalid type combination in equality test.")
	case op == "<" || op == ">" || op == "<=" || op == ">=":
		return errors.New("Invalid type combination in ordering comparison.")
	case unary && op == "-":
		return errors.New("Argument to negate operation not a number.")
	case unary && op == "+":
		return errors.New("Argument to positive operation not a number.")
	case unary && op == "~":
		return errors.New("Argument to complement operation not an integer, boolean.")
	}
	return errors.New("Argument to arithmetic operation not a number or boolean.")
}

func noSymbol(name string) error {
	return fmt.Errorf("No symbol %q in current context: %w", name, dwarf.ErrNotFound)
}

func (ev *evaluator) intLiteral(e *cexpr.IntLit) dwarf.Object {
	if e.Long == -1 {
		return ev.makeInt(ev.boolType(), int64(e.Val))
	}
	return ev.makeInt(ev.base(e.TypeName(int(dwarf.SizeOf(ev.base("long"))))), int64(e.Val))
}

func (ev *evaluator) makeInt(t dwarf.Type, v int64) dwarf.Object {
	size := dwarf.SizeOf(t)
	if size <= 0 || size > 16 {
		size = 8
	}
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(v))
	if v < 0 {
		binary.LittleEndian.PutUint64(b[8:], ^uint64(0))
	}
	return dwarf.BytesObject(t, b[:size])
}

func (ev *evaluator) makeFloat(t *dwarf.BaseType, f float64) dwarf.Object {
	switch t.ByteSize {
	case 4:
		return dwarf.BytesObject(t, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))))
	case 8:
		return dwarf.BytesObject(t, binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)))
	}
	if dwarf.IsFloat128(t) {
		var bf *big.Float // (a NaN: nil)
		if !math.IsNaN(f) {
			bf = new(big.Float).SetFloat64(f)
		}
		return dwarf.BytesObject(t, dwarf.EncodeFloat128(bf))
	}
	return dwarf.BytesObject(t, float64ToX87(f))
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
func (ev *evaluator) ident(name string) (dwarf.Object, error) {
	if ev.s == nil {
		return dwarf.Object{}, noSymbol(name)
	}
	if param, ok := strings.CutSuffix(name, "@entry"); ok {
		// GDB's NAME@entry: a parameter's value at the function's entry.
		if es, ok := ev.s.(entryValuer); ok {
			return es.EntryValue(ev.ctx, param)
		}
		return dwarf.Object{}, unsupported("NAME@entry")
	}
	global := strings.HasPrefix(name, "::")
	name = strings.TrimPrefix(name, "::")
	if !global && !strings.Contains(name, "::") {
		if o, err := ev.s.Local(ev.ctx, name); err == nil {
			return o, nil
		} else if !errors.Is(err, dwarf.ErrNotFound) {
			return dwarf.Object{}, err
		}
		// A member of this, where its class declares one by that name
		// (by type, as GDB's lookup: this is not read for a global's
		// name, so a watchpoint's value chain does not hold it).
		if this, err := ev.s.Local(ev.ctx, "this"); err == nil && classDeclares(this.Type, name) {
			if st := thisClass(this.Type); st != nil {
				if _, _, field := st.FieldByName(name); !field {
					if sm, ok := st.StaticByName(name); ok {
						return ev.env.StaticObject(sm), nil // (this is not read)
					}
				}
			}
			o, err := ev.member(this, name, true)
			if err == nil {
				return o, nil
			}
			if !errors.Is(err, dwarf.ErrNotFound) && classHas(this.Type, name) {
				// the member exists but cannot be read (this optimized
				// out): GDB's "value has been optimized out", not "No
				// symbol"
				return dwarf.Object{}, err
			}
		}
	}
	o, err := ev.s.Global(ev.ctx, name)
	if err == nil {
		return o, nil
	}
	var vme *dwarf.VirtualMemberError
	if ev.onlyType && errors.As(err, &vme) {
		return vme.Func, nil // whatis, ptype, sizeof: the class's own function
	}
	if !errors.Is(err, dwarf.ErrNotFound) {
		return dwarf.Object{}, err
	}
	hint := ""
	var nse *dwarf.NoSymbolError
	if errors.As(err, &nse) {
		hint = nse.Hint
	}
	if i := strings.LastIndex(name, "::"); i > 0 {
		if t, err := ev.s.LookupType(name[:i]); err == nil {
			if st, ok := dwarf.Resolve(t).(*dwarf.StructType); ok {
				if sm, ok := st.StaticByName(name[i+2:]); ok {
					return ev.env.StaticObject(sm), nil
				}
			}
		}
	}
	if _, err := ev.s.LookupType(name); err == nil {
		return dwarf.Object{}, fmt.Errorf("attempt to use a type name as an expression")
	}
	return dwarf.Object{}, fmt.Errorf("No symbol %q in current context%s: %w", name, hint, dwarf.ErrNotFound)
}

// thisClass is the class the pointer type thisT points to, nil where it
// points to no class.
func thisClass(thisT dwarf.Type) *dwarf.StructType {
	p, ok := dwarf.Resolve(thisT).(*dwarf.PointerType)
	if !ok {
		return nil
	}
	st, _ := dwarf.Resolve(p.Elem).(*dwarf.StructType)
	return st
}

// classHas says whether the class pointer thisT points to has a data
// member (its bases' included) or a static member named name.
func classHas(thisT dwarf.Type, name string) bool {
	st := thisClass(thisT)
	if st == nil {
		return false
	}
	if _, _, ok := st.FieldByName(name); ok {
		return true
	}
	_, ok := st.StaticByName(name)
	return ok
}

// classDeclares says whether the class pointer thisT points to has a
// data member, a static member or a method named name: what a member
// access on this can find.
func classDeclares(thisT dwarf.Type, name string) bool {
	st := thisClass(thisT)
	return st != nil && (classHas(thisT, name) || slices.ContainsFunc(st.Methods(), func(m dwarf.Method) bool { return m.Name == name }))
}

// rvalue strips references: the referenced object.
func (ev *evaluator) deref0(o dwarf.Object) (dwarf.Object, error) {
	for i := 0; i < 4; i++ {
		r, ok := dwarf.Resolve(o.Type).(*dwarf.ReferenceType)
		if !ok {
			return o, nil
		}
		if o.Loc.Kind == dwarf.LocImplicitPointer {
			t, err := ev.env.ImplicitTarget(o, r.Elem)
			if err != nil {
				return dwarf.Object{}, err
			}
			o = t
			continue
		}
		a, err := ev.env.Uint(o)
		if err != nil {
			return dwarf.Object{}, err
		}
		o = dwarf.MemObject(r.Elem, a)
	}
	return o, nil
}

// scalar is an arithmetic or pointer value.
type scalar struct {
	t        dwarf.Type // resolved: *BaseType, *EnumType, *PointerType
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

func (ev *evaluator) scalarOf(o dwarf.Object) (scalar, error) {
	o, err := ev.deref0(o)
	if err != nil {
		return scalar{}, err
	}
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.BaseType:
		b, err := ev.env.Bytes(o)
		if err != nil {
			return scalar{}, err
		}
		if t.IsFloat() {
			f, bf, ok := dwarf.DecodeFloatOf(t, b)
			if !ok {
				return scalar{}, unsupported("floating-point type of size " + strconv.Itoa(len(b)))
			}
			return scalar{t: t, isFloat: true, f: f, big: bf, size: t.ByteSize}, nil
		}
		if t.Encoding == dwarf.EncComplex || len(b) > 8 {
			return scalar{}, unsupported("arithmetic on " + t.Name)
		}
		return scalar{t: t, i: dwarf.DecodeInt(b, t.IsSigned()), unsigned: !t.IsSigned(), size: t.ByteSize}, nil
	case *dwarf.EnumType:
		v, err := ev.env.Int(o)
		if err != nil {
			return scalar{}, err
		}
		return scalar{t: t, i: v, unsigned: t.Unsigned, size: t.ByteSize}, nil
	case *dwarf.PointerType:
		v, err := ev.env.Uint(o)
		if err != nil {
			return scalar{}, err
		}
		return scalar{t: o.Type, isPtr: true, i: int64(v), unsigned: true, size: 8}, nil
	case *dwarf.ArrayType:
		a, ok := o.HomeAddr() // (a history value decays to where it was read)
		if !ok {
			return scalar{}, errors.New("only values in memory can be used as pointers")
		}
		pt := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t.Elem}
		return scalar{t: pt, isPtr: true, i: int64(a), unsigned: true, size: 8}, nil
	case *dwarf.FuncType:
		a, ok := o.Addr()
		if !ok {
			return scalar{}, errors.New("function not in memory")
		}
		pt := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: o.Type}
		return scalar{t: pt, isPtr: true, i: int64(a), unsigned: true, size: 8}, nil
	case *dwarf.StructType:
		return scalar{}, unsupported("overloaded operator on " + dwarf.TypeString(o.Type))
	case *dwarf.PtrToMemberType:
		return scalar{}, unsupported("arithmetic on pointers to members")
	}
	return scalar{}, fmt.Errorf("value of type %s is not a number", dwarf.TypeString(o.Type))
}

// condition evaluates e and says whether it is true (non-zero).
func (ev *evaluator) condition(e cexpr.Expr) (bool, error) {
	o, err := ev.eval(e)
	if err != nil {
		return false, err
	}
	return ev.truth(o)
}

func (ev *evaluator) truth(o dwarf.Object) (bool, error) {
	if isVoid(o) {
		return false, nil // GDB: an unset convenience variable is false
	}
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
	if _, ok := sc.t.(*dwarf.EnumType); ok || isBool(sc.t) {
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

func isBool(t dwarf.Type) bool {
	b, ok := dwarf.Resolve(t).(*dwarf.BaseType)
	return ok && b.IsBool()
}

// arith returns the common type of two promoted arithmetic operands.
func (ev *evaluator) common(a, b scalar) (dwarf.Type, bool) {
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

// ErrUnsupportedExpr is returned (wrapped with what was not supported,
// e.g. "function calls") for valid C/C++ that the evaluator does not
// handle; callers may hand such expressions to GDB instead.
var ErrUnsupportedExpr = errkind.UnsupportedExpr

func unsupported(what string) error { return fmt.Errorf("%w: %s", ErrUnsupportedExpr, what) }
