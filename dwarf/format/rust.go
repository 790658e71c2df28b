package format

import (
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// formatRust prints o as GDB's Rust support prints it (rust-lang.c) for
// the types whose text differs from C's: structs as r::Point {x: 1, y: 2},
// tuple structs as r::Pair (4, -5), tuples as (7, 1.5), enums as their
// variant (r::Shape::Rect{w: 2, h: 3}, r::Shape::Circle(2.5),
// core::option::Option<i32>::None), slices as &[i32] [6, 7], &str as its
// text, arrays as [1, 2, 3] and pointers as (*mut T) 0x…. ok is false
// for the others (numbers, bools and chars print as in C).
func (env *printer) formatRust(o dwarf.Object, top bool, depth int) (string, bool) {
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.StructType:
		if t.Incomplete {
			return "", false
		}
		switch {
		case t.Variants != nil:
			return env.rustEnum(o, t, depth), true
		case t.Name == "&str" || t.Name == "&mut str":
			return env.rustStr(o), true
		case (strings.HasPrefix(t.Name, "&[") || strings.HasPrefix(t.Name, "&mut [")) && rustField(t, "data_ptr") != nil && rustField(t, "length") != nil:
			return env.rustSlice(o, t, depth), true
		}
		return env.rustStruct(o, t, t.Name, " ", depth), true
	case *dwarf.ArrayType:
		if t.Count <= 0 {
			return "[]", true
		}
		var parts []string
		limit := int64(env.maxElements())
		for i := int64(0); i < t.Count && i < limit; i++ {
			parts = append(parts, env.format(env.Elem(o, i), false, depth+1, nil))
		}
		s := "[" + strings.Join(parts, ", ")
		if t.Count > limit {
			s += "..."
		}
		return s + "]", true
	case *dwarf.PointerType:
		a, err := env.Uint(o)
		if err != nil {
			return env.errorText(err), true
		}
		s := env.addrWithSym(a)
		if top {
			s = "(" + dwarf.TypeString(o.Type) + ") " + s
		}
		return s, true
	}
	return "", false
}

// rustField returns t's field named name, or nil.
func rustField(t *dwarf.StructType, name string) *dwarf.Field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

// rustTupleFields reports whether t's fields are a tuple's (__0, __1, …).
func rustTupleFields(t *dwarf.StructType) bool {
	for i, f := range t.Fields {
		if f.Name != "__"+strconv.Itoa(i) {
			return false
		}
	}
	return len(t.Fields) > 0
}

// rustStruct prints a struct (or an enum's variant, after name with no
// space: sep ""): a tuple (a, b), a tuple struct name (a, b), a struct
// name {f: v}, a unit struct name alone.
func (env *printer) rustStruct(o dwarf.Object, t *dwarf.StructType, name, sep string, depth int) string {
	tuple := strings.HasPrefix(t.Name, "(")
	if !tuple && len(t.Fields) == 0 {
		return name
	}
	var b strings.Builder
	if !tuple && name != "" {
		b.WriteString(name + sep)
	}
	named := !tuple && !rustTupleFields(t)
	if named {
		b.WriteString("{")
	} else {
		b.WriteString("(")
	}
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		if named {
			b.WriteString(f.Name + ": ")
		}
		b.WriteString(env.format(env.Field(o, f), false, depth+1, nil))
	}
	if named {
		b.WriteString("}")
	} else {
		b.WriteString(")")
	}
	return b.String()
}

// rustEnum prints the variant o holds, by its discriminant.
func (env *printer) rustEnum(o dwarf.Object, t *dwarf.StructType, depth int) string {
	vp := t.Variants
	var d int64
	if vp.Discr != nil {
		u, err := env.Uint(env.Field(o, *vp.Discr))
		if err != nil {
			return env.errorText(err)
		}
		d = int64(u)
	}
	v, ok := vp.Choose(d)
	if !ok {
		return t.Name + " {<No data fields>}"
	}
	vt, ok := dwarf.Resolve(v.Type).(*dwarf.StructType)
	if !ok {
		return env.format(env.Field(o, v.Field), false, depth+1, nil)
	}
	return env.rustStruct(env.Field(o, v.Field), vt, dwarf.TypeString(v.Type), "", depth)
}

// rustSlice prints &[T] {data_ptr, length} as &[T] [a, b].
func (env *printer) rustSlice(o dwarf.Object, t *dwarf.StructType, depth int) string {
	p, n, elem, err := env.rustPtrLen(o, t)
	if err != nil {
		return env.errorText(err)
	}
	var parts []string
	limit := uint64(env.maxElements())
	size := uint64(dwarf.SizeOf(elem))
	for i := uint64(0); i < n && i < limit; i++ {
		parts = append(parts, env.format(dwarf.MemObject(elem, p+i*size), false, depth+1, nil))
	}
	s := t.Name + " [" + strings.Join(parts, ", ")
	if n > limit {
		s += "..."
	}
	return s + "]"
}

// rustStr prints a &str {data_ptr, length} as its quoted UTF-8 text.
func (env *printer) rustStr(o dwarf.Object) string {
	t := dwarf.Resolve(o.Type).(*dwarf.StructType)
	p, n, _, err := env.rustPtrLen(o, t)
	if err != nil {
		return env.errorText(err)
	}
	limit := uint64(env.maxElements())
	b, err := env.Read(p, int(min(n, limit)))
	if err != nil {
		return env.errorText(err)
	}
	cs := make([]uint64, len(b))
	for i, c := range b {
		cs[i] = uint64(c)
	}
	return env.formatChars(decodeChars(cs, 1), "", n > limit)
}

// rustPtrLen reads a slice's data_ptr and length and its element type.
func (env *printer) rustPtrLen(o dwarf.Object, t *dwarf.StructType) (p, n uint64, elem dwarf.Type, err error) {
	df, lf := rustField(t, "data_ptr"), rustField(t, "length")
	if df == nil || lf == nil {
		return 0, 0, nil, errNotPretty
	}
	pt, ok := dwarf.Resolve(df.Type).(*dwarf.PointerType)
	if !ok {
		return 0, 0, nil, errNotPretty
	}
	if p, err = env.Uint(env.Field(o, *df)); err != nil {
		return 0, 0, nil, err
	}
	if n, err = env.Uint(env.Field(o, *lf)); err != nil {
		return 0, 0, nil, err
	}
	return p, n, pt.Elem, nil
}
