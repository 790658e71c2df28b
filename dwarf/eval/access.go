package eval

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// Member access, indexing, casts and type names of the expression
// evaluator.

func (ev *evaluator) index(e *cexpr.Index) (dwarf.Object, error) {
	if _, ok := e.Sub.(*cexpr.Range); ok {
		return dwarf.Object{}, errors.New("Can't take slice of array without '&'")
	}
	x, err := ev.eval(e.X)
	if err != nil {
		return dwarf.Object{}, err
	}
	x, err = ev.deref0(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	iv, err := ev.eval(e.Sub)
	if err != nil {
		return dwarf.Object{}, err
	}
	if pt, ok := dwarf.Resolve(x.Type).(*dwarf.PointerType); ok && pt.Lang == dwarf.LangGo && strings.HasPrefix(dwarf.TypeString(x.Type), "map[") {
		return ev.goMapIndex(x, iv)
	}
	i, err := ev.scalarOf(iv)
	if st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok {
		if st.Lang == dwarf.LangGo && (st.Name == "string" || strings.HasPrefix(st.Name, "[]")) {
			if err != nil {
				return dwarf.Object{}, err
			}
			if i.isFloat || i.isPtr {
				return dwarf.Object{}, fmt.Errorf("invalid index of %s: not an integer", st.Name)
			}
			return ev.goIndex(x, st, i.i)
		}
		if st.Lang == dwarf.LangRust && (strings.HasPrefix(st.Name, "&[") || strings.HasPrefix(st.Name, "&mut [") || st.Name == "&str") {
			if err != nil {
				return dwarf.Object{}, err
			}
			if i.isFloat || i.isPtr {
				return dwarf.Object{}, fmt.Errorf("invalid index of %s: not an integer", st.Name)
			}
			return ev.rustSliceIndex(x, st, i.i)
		}
		if base := dwarf.TemplateBase(st.Name); st.Lang == dwarf.LangCPlusPlus {
			if tree, hash, _ := assocKind(base); tree || hash {
				return ev.assocMethod(x, base, "operator[]", iv)
			}
		}
		if err != nil || i.isFloat || i.isPtr {
			return dwarf.Object{}, unsupported("overloaded operator[]")
		}
		return ev.xmethodIndex(x, st, i.i)
	}
	if err != nil {
		return dwarf.Object{}, err
	}
	if i.isFloat || i.isPtr {
		return dwarf.Object{}, errors.New("Argument to arithmetic operation not a number or boolean.")
	}
	switch t := dwarf.Resolve(x.Type).(type) {
	case *dwarf.ArrayType:
		if a, ok := x.Addr(); ok {
			return dwarf.MemObject(t.Elem, ev.wrapAddr(a+uint64(i.i*dwarf.SizeOf(t.Elem)))), nil
		}
		if i.i >= 0 && i.i < t.Count {
			return ev.env.Elem(x, i.i), nil
		}
		return dwarf.Object{}, fmt.Errorf("no such vector element")
	case *dwarf.PointerType:
		es := dwarf.SizeOf(t.Elem)
		if p, ok := implicitAdvance(x, i.i); ok && es > 0 {
			return ev.env.ImplicitTarget(p, t.Elem)
		}
		p, err := ev.env.Uint(x)
		if err != nil {
			return dwarf.Object{}, err
		}
		if es <= 0 {
			return dwarf.Object{}, fmt.Errorf("cannot subscript pointer to %s", dwarf.TypeString(t.Elem))
		}
		return dwarf.MemObject(t.Elem, ev.wrapAddr(p+uint64(i.i*es))), nil
	}
	return dwarf.Object{}, errors.New("cannot subscript something of type `" + dwarf.TypeString(x.Type) + "'")
}

// goIndex is s[i] of a Go slice ([]T: struct {array *T; len, cap int})
// or string (struct {str *uint8; len int}), checked against the length
// as Go checks it.
func (ev *evaluator) goIndex(x dwarf.Object, st *dwarf.StructType, i int64) (dwarf.Object, error) {
	data := "array"
	if st.Name == "string" {
		data = "str"
	}
	return ev.sliceIndex(x, st, i, data, "len", func(n uint64) error {
		return fmt.Errorf("index out of range [%d] with length %d", i, int64(n))
	})
}

// rustSliceIndex is s[i] of a Rust slice (&[T]: struct {data_ptr *T;
// length usize}), bounds-checked as GDB's rust_subscript does.
func (ev *evaluator) rustSliceIndex(x dwarf.Object, st *dwarf.StructType, i int64) (dwarf.Object, error) {
	return ev.sliceIndex(x, st, i, "data_ptr", "length", func(n uint64) error {
		return fmt.Errorf("Index %d out of bounds (the slice has %d elements)", i, n)
	})
}

// rustSlice is &x[r], a Rust slice of the array or slice x: a &[T]
// {data_ptr, length} over x's elements, named as GDB's rust_subscript
// names it (a slice's own name; "&[*gdb*]" for an array's).
func (ev *evaluator) rustSlice(ix *cexpr.Index, r *cexpr.Range) (dwarf.Object, error) {
	x, err := ev.eval(ix.X)
	if err != nil {
		return dwarf.Object{}, err
	}
	if x, err = ev.deref0(x); err != nil {
		return dwarf.Object{}, err
	}
	var base, n uint64
	var elem dwarf.Type
	name := "&[*gdb*]"
	switch t := dwarf.Resolve(x.Type).(type) {
	case *dwarf.ArrayType:
		a, ok := x.Addr()
		if !ok {
			return dwarf.Object{}, errors.New("Attempt to take address of value not located in memory.")
		}
		base, n, elem = a, uint64(max(t.Count, 0)), t.Elem
	case *dwarf.StructType:
		d, derr := ev.env.Member(x, "data_ptr")
		l, lerr := ev.env.Member(x, "length")
		pt, isPtr := dwarf.Resolve(d.Type).(*dwarf.PointerType)
		if derr != nil || lerr != nil || !isPtr || !strings.HasPrefix(t.Name, "&") {
			return dwarf.Object{}, errors.New("Cannot subscript non-array type")
		}
		if base, err = ev.env.Uint(d); err != nil {
			return dwarf.Object{}, err
		}
		if n, err = ev.env.Uint(l); err != nil {
			return dwarf.Object{}, err
		}
		elem, name = pt.Elem, t.Name
	default:
		return dwarf.Object{}, errors.New("Cannot subscript non-array type")
	}
	bound := func(e cexpr.Expr, def uint64) (uint64, error) {
		if e == nil {
			return def, nil
		}
		o, err := ev.eval(e)
		if err != nil {
			return 0, err
		}
		sc, err := ev.scalarOf(o)
		if err != nil {
			return 0, err
		}
		if sc.isFloat || sc.isPtr || sc.i < 0 {
			return 0, errors.New("Index not an integer")
		}
		return uint64(sc.i), nil
	}
	lo, err := bound(r.Lo, 0)
	if err != nil {
		return dwarf.Object{}, err
	}
	hi, err := bound(r.Hi, n)
	if err != nil {
		return dwarf.Object{}, err
	}
	if r.Inclusive {
		hi++
	}
	if lo > hi || hi > n {
		return dwarf.Object{}, fmt.Errorf("Range %d..%d out of bounds (%d elements)", lo, hi, n)
	}
	ptr := uint64(ev.ptrSize())
	usize := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "usize", ByteSize: int64(ptr), Lang: dwarf.LangRust}, Encoding: dwarf.EncUnsigned}
	st := &dwarf.StructType{CommonType: dwarf.CommonType{Name: name, ByteSize: int64(2 * ptr), Lang: dwarf.LangRust}, Kind: "struct",
		Fields: []dwarf.Field{
			{Name: "data_ptr", Type: &dwarf.PointerType{CommonType: dwarf.CommonType{Name: "*const " + dwarf.TypeString(elem), ByteSize: int64(ptr), Lang: dwarf.LangRust}, Elem: elem}},
			{Name: "length", Type: usize, ByteOffset: int64(ptr)},
		}}
	b := append(ev.ptrBytes(ev.wrapAddr(base+lo*uint64(dwarf.SizeOf(elem)))), ev.ptrBytes(hi-lo)...)
	return dwarf.BytesObject(st, b), nil
}

// sliceIndex is element i of a slice held as a struct of a pointer (the
// member named data) and a length (length); outside the length, the
// language's error, bad.
func (ev *evaluator) sliceIndex(x dwarf.Object, st *dwarf.StructType, i int64, data, length string, bad func(n uint64) error) (dwarf.Object, error) {
	ln, err := ev.env.Member(x, length)
	if err != nil {
		return dwarf.Object{}, err
	}
	n, err := ev.env.Uint(ln)
	if err != nil {
		return dwarf.Object{}, err
	}
	if i < 0 || uint64(i) >= n {
		return dwarf.Object{}, bad(n)
	}
	o, ok, err := ev.pointerIndex(x, i, data)
	if err == nil && !ok {
		err = unsupported("index of " + st.Name)
	}
	return o, err
}

// goMapIndex is m[key] of a Go map: the element of the entry whose key
// equals key (a string, or a number, pointer or bool). A key the map does
// not hold is an error, where Go gives the zero value: a debugger's
// reader wants to know.
func (ev *evaluator) goMapIndex(m, key dwarf.Object) (dwarf.Object, error) {
	var found *dwarf.Object
	var cmpErr error
	_, err := ev.env.GoMapEntries(m, func(k, v dwarf.Object) bool {
		eq, err := ev.goKeyEqual(k, key)
		switch {
		case err != nil:
			cmpErr = err
		case eq:
			found = &v
		default:
			return true
		}
		return false
	})
	switch {
	case err != nil:
		return dwarf.Object{}, err
	case cmpErr != nil:
		return dwarf.Object{}, cmpErr
	case found == nil:
		return dwarf.Object{}, fmt.Errorf("key not in the map %s", dwarf.TypeString(m.Type))
	}
	return *found, nil
}

// goKeyEqual compares a Go map's key k with key.
func (ev *evaluator) goKeyEqual(k, key dwarf.Object) (bool, error) {
	if st, ok := dwarf.Resolve(k.Type).(*dwarf.StructType); ok {
		if st.Name != "string" {
			return false, unsupported("a map index with " + st.Name + " keys")
		}
		kb, err := ev.goStringBytes(k)
		if err != nil {
			return false, err
		}
		want, err := ev.goStringBytes(key)
		if err != nil {
			return false, fmt.Errorf("the map's keys are strings: %w", err)
		}
		return string(kb) == string(want), nil
	}
	a, err := ev.scalarOf(k)
	if err != nil {
		return false, err
	}
	b, err := ev.scalarOf(key)
	if err != nil {
		return false, fmt.Errorf("a key for %s: %w", dwarf.TypeString(k.Type), err)
	}
	if a.isFloat || b.isFloat {
		fa, fb := a.f, b.f
		if !a.isFloat {
			fa = intToFloat(a)
		}
		if !b.isFloat {
			fb = intToFloat(b)
		}
		return fa == fb, nil
	}
	return a.i == b.i, nil
}

// goStringBytes is the text of a Go string, or of a C string literal.
func (ev *evaluator) goStringBytes(o dwarf.Object) ([]byte, error) {
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.ArrayType:
		b, err := ev.env.Bytes(o)
		if err != nil {
			return nil, err
		}
		if n := len(b); n > 0 && b[n-1] == 0 && dwarf.SizeOf(t.Elem) == 1 {
			b = b[:n-1]
		}
		return b, nil
	case *dwarf.StructType:
		if t.Name == "string" {
			a, n, err := ev.env.GoString(o)
			if err != nil {
				return nil, err
			}
			if n > 1<<20 {
				return nil, fmt.Errorf("a string of %d bytes: too long for a map key", n)
			}
			return ev.env.Read(a, int(n))
		}
	}
	return nil, fmt.Errorf("%s is not a string", dwarf.TypeString(o.Type))
}

// hasArrowOperator reports whether class st declares operator->, which
// the native evaluator does not call.
func hasArrowOperator(st *dwarf.StructType) bool {
	for _, m := range st.Methods() {
		if m.Name == "operator->" {
			return true
		}
	}
	return false
}

func (ev *evaluator) member(x dwarf.Object, name string, arrow bool) (dwarf.Object, error) {
	x, err := ev.deref0(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	if a, ok := dwarf.Resolve(x.Type).(*dwarf.ArrayType); ok && a.Lang != dwarf.LangGo && a.Lang != dwarf.LangRust {
		// An array decays to a pointer to its first element, whose
		// member both -> and . reach (GDB's coerce_array in
		// value_struct_elt): buffer->length of printbuffer buffer[1].
		if _, isStruct := dwarf.Resolve(a.Elem).(*dwarf.StructType); isStruct {
			x, arrow = ev.env.Elem(x, 0), false
		}
	}
	if p, ok := dwarf.Resolve(x.Type).(*dwarf.PointerType); ok {
		if _, isStruct := dwarf.Resolve(p.Elem).(*dwarf.StructType); isStruct || arrow {
			if x, err = ev.deref(x); err != nil {
				return dwarf.Object{}, err
			}
		}
	} else if arrow {
		if st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok {
			o, ok, err := ev.pointee(x)
			switch {
			case ok && err != nil:
				return dwarf.Object{}, err
			case ok:
				x = o
			case hasArrowOperator(st):
				return dwarf.Object{}, unsupported("overloaded operator->")
			}
			// else -> on a struct is ., as GDB's value_struct_elt
			// takes the member of a struct whatever the operator
			// (C, and a C++ class without operator->)
		}
	}
	st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType)
	if !ok {
		return dwarf.Object{}, fmt.Errorf("Attempt to extract a component of a value that is not a structure%s.",
			map[bool]string{true: " pointer", false: ""}[arrow])
	}
	if i := strings.LastIndex(name, "::"); i > 0 && st.Lang == dwarf.LangCPlusPlus && ev.s != nil {
		// p->Base::w: the member of that base (a shadowed one)
		bt, err := ev.s.LookupType(name[:i])
		if err != nil {
			return dwarf.Object{}, err
		}
		if b := dwarf.Resolve(bt); b != st && !sameName(b, st) {
			base, ok := ev.upcast(x, st, bt, 0)
			if !ok {
				return dwarf.Object{}, fmt.Errorf("There is no member named %s.", name)
			}
			x = base
		}
		return ev.member(x, name[i+2:], false)
	}
	if ev.onlyType && x.Err != nil {
		// a member of a pointee whose pointer is unknown: its type only
		if f, _, ok := st.FieldByName(name); ok {
			return dwarf.Object{Type: f.Type, Err: x.Err}, nil
		}
	}
	if o, err := ev.env.Member(x, name); err == nil {
		return o, nil
	} else if !errors.Is(err, dwarf.ErrNotFound) {
		return dwarf.Object{}, err
	}
	if st.Lang == dwarf.LangGo {
		if o, ok := ev.goPromoted(x, st, name); ok {
			return o, nil
		}
	}
	if sm, ok := st.StaticByName(name); ok {
		return ev.env.StaticObject(sm), nil
	}
	for _, m := range st.Methods() {
		if m.Name == name {
			return dwarf.Object{}, unsupported("member functions")
		}
	}
	return dwarf.Object{}, fmt.Errorf("There is no member named %s.%s: %w", name, st.MembersHint(), dwarf.ErrNotFound)
}

// goPromoted finds the field name promoted from a struct embedded in x
// (Go: it.Name for it.Base.Name), the shallowest first, as Go's selector
// rule does. An embedded field is named as its type (Base, or Base for
// *Base).
func (ev *evaluator) goPromoted(x dwarf.Object, st *dwarf.StructType, name string) (dwarf.Object, bool) {
	level := []dwarf.Object{x}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var next []dwarf.Object
		for _, o := range level {
			ot, ok := dwarf.Resolve(o.Type).(*dwarf.StructType)
			if !ok {
				continue
			}
			if depth > 0 {
				if f, err := ev.env.Member(o, name); err == nil {
					return f, true
				}
			}
			for _, f := range ot.Fields {
				if !goEmbedded(f) {
					continue
				}
				fo := ev.env.Field(o, f)
				if _, isPtr := dwarf.Resolve(f.Type).(*dwarf.PointerType); isPtr {
					d, err := ev.deref(fo)
					if err != nil {
						continue
					}
					fo = d
				}
				next = append(next, fo)
			}
		}
		level = next
	}
	return dwarf.Object{}, false
}

// goEmbedded reports whether f is an embedded field: named as its type,
// without the package ("Base" for main.Base or *main.Base).
func goEmbedded(f dwarf.Field) bool {
	t := f.Type
	if p, ok := dwarf.Resolve(t).(*dwarf.PointerType); ok {
		t = p.Elem
	}
	if _, ok := dwarf.Resolve(t).(*dwarf.StructType); !ok || t == nil {
		return false
	}
	n := dwarf.TypeString(t)
	if i := strings.LastIndex(n, "."); i >= 0 {
		n = n[i+1:]
	}
	return n == f.Name
}

// rustPrimitives are Rust's primitive types by name (usize and isize
// are pointer-sized).
var rustPrimitives = map[string]struct {
	size int64
	enc  int64
}{
	"i8": {1, dwarf.EncSigned}, "i16": {2, dwarf.EncSigned}, "i32": {4, dwarf.EncSigned}, "i64": {8, dwarf.EncSigned},
	"i128": {16, dwarf.EncSigned}, "isize": {8, dwarf.EncSigned},
	"u8": {1, dwarf.EncUnsigned}, "u16": {2, dwarf.EncUnsigned}, "u32": {4, dwarf.EncUnsigned}, "u64": {8, dwarf.EncUnsigned},
	"u128": {16, dwarf.EncUnsigned}, "usize": {8, dwarf.EncUnsigned},
	"f32": {4, dwarf.EncFloat}, "f64": {8, dwarf.EncFloat}, "bool": {1, dwarf.EncBoolean}, "char": {4, dwarf.EncUTF},
}

// resolveTypeSpec turns a parsed type name into a Type.
func (ev *evaluator) resolveTypeSpec(ts *cexpr.TypeSpec) (dwarf.Type, error) {
	var t dwarf.Type
	if _, ok := baseSpecs[ts.Base]; ok {
		if ev.s != nil {
			if dt, err := ev.s.LookupType(ts.Base); err == nil {
				t = dt
			}
		}
		if t == nil {
			t = ev.base(ts.Base)
		}
	} else if ts.Base == "void" {
		t = &dwarf.VoidType{CommonType: dwarf.CommonType{Name: "void", Lang: ev.lang}}
	} else {
		if ev.s == nil {
			return nil, fmt.Errorf("No symbol %q in current context: %w", ts.Base, dwarf.ErrNotFound)
		}
		dt, err := ev.s.LookupType(ts.Base)
		if kw, name, tagged := strings.Cut(ts.Base, " "); err != nil && tagged {
			// GDB's c-exp.y: a struct or class tag is looked up as a struct
			switch kw {
			case "struct", "class":
				return nil, fmt.Errorf("No struct type named %s.: %w", name, dwarf.ErrNotFound)
			case "union", "enum":
				return nil, fmt.Errorf("No %s type named %s.: %w", kw, name, dwarf.ErrNotFound)
			}
		}
		if err != nil {
			sp, prim := rustPrimitives[ts.Base]
			if !prim || ev.lang != dwarf.LangRust {
				return nil, fmt.Errorf("No symbol %q in current context: %w", ts.Base, dwarf.ErrNotFound)
			}
			// a primitive the program's DWARF does not have (GDB's Rust
			// language knows them all)
			dt = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: ts.Base, ByteSize: sp.size, Lang: dwarf.LangRust}, Encoding: sp.enc}
			if ts.Base == "usize" || ts.Base == "isize" {
				dt.Common().ByteSize = ev.ptrSize()
			}
		}
		t = dt
	}
	for _, op := range ts.Ops {
		switch {
		case op == "*":
			t = &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t}
		case op == "&" || op == "&&":
			t = &dwarf.ReferenceType{CommonType: dwarf.CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t, Rvalue: op == "&&"}
		case op == "const" || op == "volatile":
			t = &dwarf.QualType{CommonType: dwarf.CommonType{ByteSize: dwarf.SizeOf(t), Lang: ev.lang}, Qual: op, Elem: t}
		case strings.HasPrefix(op, "["):
			n, err := strconv.ParseInt(strings.Trim(op, "[]"), 0, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad array size %s", op)
			}
			at := &dwarf.ArrayType{CommonType: dwarf.CommonType{Lang: ev.lang}, Elem: t, Count: n}
			at.ByteSize = at.Size()
			t = at
		}
	}
	return t, nil
}

// implicitCast is the cast of a synthetic pointer x (an optimized-away
// this, say) to the pointer type t: the same pointee, as GDB's value_cast
// keeps the pointer's location, moved to the base class or from it as
// the static types say (static_cast<Base *>(this)->count_); ok is false
// where x is no synthetic pointer or t no pointer.
func implicitCast(x dwarf.Object, t dwarf.Type) (dwarf.Object, bool, error) {
	to, ok := dwarf.Resolve(t).(*dwarf.PointerType)
	from, isPtr := dwarf.Resolve(x.Type).(*dwarf.PointerType)
	if !ok || !isPtr || x.Loc.Kind != dwarf.LocImplicitPointer {
		return dwarf.Object{}, false, nil
	}
	_, fromClass := dwarf.Resolve(from.Elem).(*dwarf.StructType)
	_, toClass := dwarf.Resolve(to.Elem).(*dwarf.StructType)
	if fromClass && toClass && dwarf.Resolve(from.Elem) != dwarf.Resolve(to.Elem) && !sameName(dwarf.Resolve(from.Elem), dwarf.Resolve(to.Elem)) {
		switch {
		case hasBase(from.Elem, to.Elem):
			off, ok := baseOffset(from.Elem, to.Elem)
			if !ok {
				return dwarf.Object{}, true, unsupported("cast of a synthetic pointer to a virtual base")
			}
			x.Loc.PtrOffset += off // derived * -> base *
		case hasBase(to.Elem, from.Elem):
			off, ok := baseOffset(to.Elem, from.Elem)
			if !ok {
				return dwarf.Object{}, true, unsupported("cast of a synthetic pointer from a virtual base")
			}
			x.Loc.PtrOffset -= off // base * -> derived *
		}
	}
	x.Type = t
	return x, true, nil
}

// hasBase reports whether class d has b among its bases, at any depth,
// virtual ones included.
func hasBase(d, b dwarf.Type) bool {
	_, ok := findBase(d, b, true)
	return ok
}

// baseOffset finds the byte offset of base class b inside derived class
// d, for non-virtual inheritance.
// downcast is the address of the derived class to inside which the
// object of class from at addr lies, as GDB's value_cast_structs finds
// it: by the static offset where from is a base of to not through a
// virtual base; else, from a polymorphic object, by its dynamic type
// (offset-to-top, mostDerived): the whole object where that is to,
// else the to inside it. ok is false where neither tells.
func (ev *evaluator) downcast(addr uint64, from, to dwarf.Type) (uint64, bool) {
	if off, ok := baseOffset(to, from); ok {
		return addr - uint64(off), true
	}
	ts, ok := dwarf.Resolve(to).(*dwarf.StructType)
	if !ok || addr == 0 {
		return 0, false
	}
	if _, through := findBase(to, from, true); !through {
		return 0, false // from is no base of to
	}
	full, dyn, err := ev.mostDerived(addr)
	if err != nil {
		return 0, false
	}
	return ev.classIn(full, dyn, ts)
}

func baseOffset(d, b dwarf.Type) (int64, bool) {
	return findBase(d, b, false)
}

// findBase finds base class b inside class d, depth first, and its byte
// offset; throughVirtual also walks virtual bases, whose offsets are in
// the object's vtable (the offset is then meaningless).
func findBase(d, b dwarf.Type, throughVirtual bool) (int64, bool) {
	ds, ok := dwarf.Resolve(d).(*dwarf.StructType)
	if !ok {
		return 0, false
	}
	target := dwarf.Resolve(b)
	for _, base := range ds.Bases {
		if !throughVirtual && (base.Virtual || base.OffsetExpr != nil) {
			continue
		}
		if bt := dwarf.Resolve(base.Type); bt == target || sameName(bt, target) {
			return base.Offset, true
		}
		if off, ok := findBase(base.Type, b, throughVirtual); ok {
			return base.Offset + off, true
		}
	}
	return 0, false
}

// upcast finds base class target inside struct object o (of type st),
// through virtual bases too.
func (ev *evaluator) upcast(o dwarf.Object, st *dwarf.StructType, target dwarf.Type, depth int) (dwarf.Object, bool) {
	tr := dwarf.Resolve(target)
	if depth > 32 {
		return dwarf.Object{}, false
	}
	for _, b := range st.Bases {
		bt := dwarf.Resolve(b.Type)
		if bt == tr || sameName(bt, tr) {
			return ev.env.BaseObject(o, b), true
		}
		if bs, ok := bt.(*dwarf.StructType); ok {
			if r, ok := ev.upcast(ev.env.BaseObject(o, b), bs, target, depth+1); ok {
				return r, true
			}
		}
	}
	return dwarf.Object{}, false
}

func sameName(a, b dwarf.Type) bool {
	return a.Common().Name != "" && a.Common().Name == b.Common().Name
}

func (ev *evaluator) cast(x dwarf.Object, t dwarf.Type) (dwarf.Object, error) {
	if _, ok := x.Type.(*dwarf.NoDebugType); ok {
		// GDB: a cast of a symbol without debug info reads its memory
		// as the cast's type.
		if a, ok := x.Addr(); ok && dwarf.Resolve(t).Size() > 0 {
			return dwarf.MemObject(t, a), nil
		}
	}
	x, err := ev.deref0(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	switch tt := dwarf.Resolve(t).(type) {
	case *dwarf.ReferenceType:
		down := false
		if xs, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok {
			if b, ok := ev.upcast(x, xs, tt.Elem, 0); ok {
				x = b
			} else {
				down = true
			}
		}
		a, ok := x.HomeAddr()
		if !ok {
			return dwarf.Object{}, errors.New("Attempt to take address of value not located in memory.")
		}
		if down {
			if d, ok := ev.downcast(a, x.Type, tt.Elem); ok {
				a = d // base & -> derived &
			}
		}
		return dwarf.BytesObject(t, binary.LittleEndian.AppendUint64(nil, a)), nil
	case *dwarf.StructType:
		if dwarf.Resolve(x.Type) == tt || sameName(dwarf.Resolve(x.Type), tt) {
			x.Type = t
			return x, nil
		}
		if xs, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok {
			if o, ok := ev.upcast(x, xs, tt, 0); ok {
				return o, o.Err
			}
		}
		return dwarf.Object{}, errors.New("Invalid cast.")
	case *dwarf.ArrayType:
		return dwarf.Object{}, unsupported("cast to array type")
	case *dwarf.VoidType:
		return dwarf.BytesObject(t, nil), nil
	}
	if o, ok, err := implicitCast(x, t); ok {
		return o, err
	}
	if _, isClass := dwarf.Resolve(x.Type).(*dwarf.StructType); isClass {
		// A struct or union to a scalar or pointer, as GDB's value_cast:
		// of the same size, its bytes as the new type; else, in memory,
		// the new type at its address (GDB's value_at_lazy, read now),
		// a value-history entry's too: it keeps its lval, the address
		// it was read at (HomeAddr).
		switch dwarf.Resolve(t).(type) {
		case *dwarf.BaseType, *dwarf.PointerType, *dwarf.EnumType:
			if dwarf.SizeOf(t) == dwarf.SizeOf(x.Type) {
				if a, ok := x.Addr(); ok {
					return dwarf.MemObject(t, a), nil
				}
				b, err := ev.env.Bytes(x)
				if err != nil {
					return dwarf.Object{}, err
				}
				return dwarf.BytesObject(t, b), nil
			}
			if a, ok := x.HomeAddr(); ok {
				return dwarf.MemObject(t, a), nil
			}
			return dwarf.Object{}, errors.New("Invalid cast.")
		}
	}
	sc, err := ev.scalarOf(x)
	if err != nil {
		return dwarf.Object{}, err
	}
	switch tt := dwarf.Resolve(t).(type) {
	case *dwarf.PointerType:
		if sc.isFloat {
			return dwarf.Object{}, errors.New("Invalid cast.")
		}
		v := sc.i
		if sc.isPtr && v != 0 {
			from, _ := dwarf.Resolve(sc.t).(*dwarf.PointerType)
			if from != nil {
				if fs, ok := dwarf.Resolve(from.Elem).(*dwarf.StructType); ok {
					if b, ok := ev.upcast(dwarf.MemObject(from.Elem, uint64(v)), fs, tt.Elem, 0); ok {
						if a, ok := b.Addr(); ok {
							v = int64(a) // derived * -> base *
						}
					} else if d, ok := ev.downcast(uint64(v), from.Elem, tt.Elem); ok {
						v = int64(d) // base * -> derived *
					}
				}
			}
		}
		return ev.makeInt(t, v), nil
	case *dwarf.BaseType:
		if tt.IsFloat() {
			f := sc.f
			if !sc.isFloat {
				f = intToFloat(sc)
			}
			return ev.makeFloat(tt, f), nil
		}
		v := sc.i
		if sc.isFloat {
			v = int64(sc.f)
			if tt.IsBool() {
				v = b2i(sc.f != 0)
			}
		} else if tt.IsBool() {
			v = b2i(v != 0)
		}
		return ev.makeInt(t, v), nil
	case *dwarf.EnumType:
		v := sc.i
		if sc.isFloat {
			v = int64(sc.f)
		}
		return ev.makeInt(t, v), nil
	}
	return dwarf.Object{}, unsupported("cast to " + dwarf.TypeString(t))
}
