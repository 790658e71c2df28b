package dwarf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// Member access, indexing, casts and type names of the expression
// evaluator.

func (ev *evaluator) index(e *cexpr.Index) (Object, error) {
	x, err := ev.eval(e.X)
	if err != nil {
		return Object{}, err
	}
	x, err = ev.deref0(x)
	if err != nil {
		return Object{}, err
	}
	iv, err := ev.eval(e.Sub)
	if err != nil {
		return Object{}, err
	}
	i, err := ev.scalarOf(iv)
	if st, ok := Resolve(x.Type).(*StructType); ok {
		if err != nil || i.isFloat || i.isPtr {
			return Object{}, unsupported("overloaded operator[]")
		}
		return ev.xmethodIndex(x, st, i.i)
	}
	if err != nil {
		return Object{}, err
	}
	if i.isFloat || i.isPtr {
		return Object{}, errors.New("Argument to arithmetic operation not a number or boolean.")
	}
	switch t := Resolve(x.Type).(type) {
	case *ArrayType:
		if _, ok := x.Addr(); ok || (i.i >= 0 && i.i < t.Count) {
			return ev.env.Elem(x, i.i), nil
		}
		return Object{}, fmt.Errorf("no such vector element")
	case *PointerType:
		es := sizeOf(t.Elem)
		if x.Loc.Kind == LocImplicitPointer && es > 0 {
			target, err := ev.env.implicitTarget(x, t.Elem)
			if err != nil {
				return Object{}, err
			}
			return ev.env.sub(target, t.Elem, i.i*es), nil
		}
		p, err := ev.env.Uint(x)
		if err != nil {
			return Object{}, err
		}
		if es <= 0 {
			return Object{}, fmt.Errorf("cannot subscript pointer to %s", typeString(t.Elem))
		}
		return MemObject(t.Elem, p+uint64(i.i*es)), nil
	}
	return Object{}, errors.New("cannot subscript something of type `" + typeString(x.Type) + "'")
}

func (ev *evaluator) member(x Object, name string, arrow bool) (Object, error) {
	x, err := ev.deref0(x)
	if err != nil {
		return Object{}, err
	}
	if p, ok := Resolve(x.Type).(*PointerType); ok {
		if _, isStruct := Resolve(p.Elem).(*StructType); isStruct || arrow {
			if x, err = ev.deref(x); err != nil {
				return Object{}, err
			}
		}
	} else if arrow {
		if _, ok := Resolve(x.Type).(*StructType); ok {
			p, ok := ev.smartPointer(x)
			if !ok {
				return Object{}, unsupported("overloaded operator->")
			}
			if x, err = ev.deref(p); err != nil {
				return Object{}, err
			}
		}
	}
	st, ok := Resolve(x.Type).(*StructType)
	if !ok {
		return Object{}, fmt.Errorf("Attempt to extract a component of a value that is not a structure%s.",
			map[bool]string{true: " pointer", false: ""}[arrow])
	}
	if o, err := ev.env.member(x, name); err == nil {
		return o, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Object{}, err
	}
	if sm, ok := st.StaticByName(name); ok {
		return ev.env.staticObject(sm), nil
	}
	for _, m := range st.Methods() {
		if m.Name == name {
			return Object{}, unsupported("member functions")
		}
	}
	return Object{}, fmt.Errorf("There is no member named %s.%s: %w", name, memberHint(st), ErrNotFound)
}

// memberHint says what the struct has, or that only its declaration is
// known, for the no-member error.
func memberHint(st *StructType) string {
	if st.Incomplete {
		return fmt.Sprintf(" (%s is only declared, and no compile unit of the program defines it: was the file that defines it built without -g?)", typeString(st))
	}
	var names []string
	for _, m := range st.members() {
		switch {
		case m.field != nil && m.field.Name != "":
			names = append(names, m.field.Name)
		case m.static != nil:
			names = append(names, m.static.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf(" (%s has no data members)", typeString(st))
	}
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return fmt.Sprintf(" (%s has: %s)", typeString(st), strings.Join(names, ", "))
}

// resolveTypeSpec turns a parsed type name into a Type.
func (ev *evaluator) resolveTypeSpec(ts *cexpr.TypeSpec) (Type, error) {
	var t Type
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
		t = &VoidType{CommonType{Name: "void", Lang: ev.lang}}
	} else {
		if ev.s == nil {
			return nil, fmt.Errorf("No symbol %q in current context: %w", ts.Base, ErrNotFound)
		}
		dt, err := ev.s.LookupType(ts.Base)
		if err != nil {
			return nil, fmt.Errorf("No symbol %q in current context: %w", ts.Base, ErrNotFound)
		}
		t = dt
	}
	for _, op := range ts.Ops {
		switch {
		case op == "*":
			t = &PointerType{CommonType: CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t}
		case op == "&" || op == "&&":
			t = &ReferenceType{CommonType: CommonType{ByteSize: ev.ptrSize(), Lang: ev.lang}, Elem: t, Rvalue: op == "&&"}
		case op == "const" || op == "volatile":
			t = &QualType{CommonType: CommonType{ByteSize: sizeOf(t), Lang: ev.lang}, Qual: op, Elem: t}
		case strings.HasPrefix(op, "["):
			n, err := strconv.ParseInt(strings.Trim(op, "[]"), 0, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad array size %s", op)
			}
			at := &ArrayType{CommonType: CommonType{Lang: ev.lang}, Elem: t, Count: n}
			at.ByteSize = at.Size()
			t = at
		}
	}
	return t, nil
}

// baseOffset finds the byte offset of base class b inside derived class
// d, for non-virtual inheritance.
func baseOffset(d, b Type) (int64, bool) {
	ds, ok := Resolve(d).(*StructType)
	if !ok {
		return 0, false
	}
	target := Resolve(b)
	for _, base := range ds.Bases {
		if base.Virtual || base.OffsetExpr != nil {
			continue
		}
		if Resolve(base.Type) == target || sameName(Resolve(base.Type), target) {
			return base.Offset, true
		}
		if off, ok := baseOffset(base.Type, b); ok {
			return base.Offset + off, true
		}
	}
	return 0, false
}

// upcast finds base class target inside struct object o (of type st),
// through virtual bases too.
func (ev *evaluator) upcast(o Object, st *StructType, target Type, depth int) (Object, bool) {
	tr := Resolve(target)
	if depth > 32 {
		return Object{}, false
	}
	for _, b := range st.Bases {
		bt := Resolve(b.Type)
		if bt == tr || sameName(bt, tr) {
			return ev.env.BaseObject(o, b), true
		}
		if bs, ok := bt.(*StructType); ok {
			if r, ok := ev.upcast(ev.env.BaseObject(o, b), bs, target, depth+1); ok {
				return r, true
			}
		}
	}
	return Object{}, false
}

func sameName(a, b Type) bool {
	return a.Common().Name != "" && a.Common().Name == b.Common().Name
}

func (ev *evaluator) cast(x Object, t Type) (Object, error) {
	if _, ok := x.Type.(*NoDebugType); ok {
		// GDB: a cast of a symbol without debug info reads its memory
		// as the cast's type.
		if a, ok := x.Addr(); ok && Resolve(t).Size() > 0 {
			return MemObject(t, a), nil
		}
	}
	x, err := ev.deref0(x)
	if err != nil {
		return Object{}, err
	}
	switch tt := Resolve(t).(type) {
	case *ReferenceType:
		if xs, ok := Resolve(x.Type).(*StructType); ok {
			if b, ok := ev.upcast(x, xs, tt.Elem, 0); ok {
				x = b
			}
		}
		a, ok := x.Addr()
		if !ok {
			return Object{}, errors.New("Attempt to take address of value not located in memory.")
		}
		return BytesObject(t, binary.LittleEndian.AppendUint64(nil, a)), nil
	case *StructType:
		if Resolve(x.Type) == tt || sameName(Resolve(x.Type), tt) {
			x.Type = t
			return x, nil
		}
		if xs, ok := Resolve(x.Type).(*StructType); ok {
			if o, ok := ev.upcast(x, xs, tt, 0); ok {
				return o, o.Err
			}
		}
		return Object{}, errors.New("Invalid cast.")
	case *ArrayType:
		return Object{}, unsupported("cast to array type")
	case *VoidType:
		return BytesObject(t, nil), nil
	}
	sc, err := ev.scalarOf(x)
	if err != nil {
		return Object{}, err
	}
	switch tt := Resolve(t).(type) {
	case *PointerType:
		if sc.isFloat {
			return Object{}, errors.New("Invalid cast.")
		}
		v := sc.i
		if sc.isPtr && v != 0 {
			from, _ := Resolve(sc.t).(*PointerType)
			if from != nil {
				if fs, ok := Resolve(from.Elem).(*StructType); ok {
					if b, ok := ev.upcast(MemObject(from.Elem, uint64(v)), fs, tt.Elem, 0); ok {
						if a, ok := b.Addr(); ok {
							v = int64(a) // derived * -> base *
						}
					} else if off, ok := baseOffset(tt.Elem, from.Elem); ok {
						v -= off // base * -> derived *
					}
				}
			}
		}
		return ev.makeInt(t, v), nil
	case *BaseType:
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
	case *EnumType:
		v := sc.i
		if sc.isFloat {
			v = int64(sc.f)
		}
		return ev.makeInt(t, v), nil
	}
	return Object{}, unsupported("cast to " + typeString(t))
}
