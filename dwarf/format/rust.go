package format

import (
	"fmt"
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
	vo, ok, err := env.rustVariant(o, t)
	switch {
	case err != nil:
		return env.errorText(err)
	case !ok:
		return t.Name + " {<No data fields>}"
	}
	vt, ok := dwarf.Resolve(vo.Type).(*dwarf.StructType)
	if !ok {
		return env.format(vo, false, depth+1, nil)
	}
	return env.rustStruct(vo, vt, dwarf.TypeString(vo.Type), "", depth)
}

// rustVariant returns the variant the Rust enum o (of type t) holds, by
// its discriminant: the object of the variant's struct. ok is false for
// a discriminant no variant takes.
func (env *printer) rustVariant(o dwarf.Object, t *dwarf.StructType) (dwarf.Object, bool, error) {
	vp := t.Variants
	var d int64
	if vp.Discr != nil {
		u, err := env.Uint(env.Field(o, *vp.Discr))
		if err != nil {
			return dwarf.Object{}, false, err
		}
		d = int64(u)
	}
	v, ok := vp.Choose(d)
	if !ok {
		return dwarf.Object{}, false, nil
	}
	return env.Field(o, v.Field), true, nil
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

// prettyPrintRust applies to Vec and String the printers rustc ships for
// GDB (its gdb_providers.py, which rust-gdb loads): Vec(size=2) = {a, b}
// and a String's text. Other types print as GDB's Rust support prints
// them without those printers.
func (env *printer) prettyPrintRust(o dwarf.Object, st *dwarf.StructType) (pretty, bool) {
	var p pretty
	if strings.HasPrefix(st.Name, "&[") || strings.HasPrefix(st.Name, "&mut [") {
		data, n, elem, err := env.rustPtrLen(o, st)
		if err != nil {
			return pretty{}, false
		}
		p.head = fmt.Sprintf("%s(size=%d)", st.Name, n)
		env.rustElems(&p, elem, data, n)
		return p, true
	}
	switch base := dwarf.TemplateBase(st.Name); base {
	case "alloc::vec::Vec":
		data, n, elem, err := env.rustVec(o, st)
		if err != nil {
			return pretty{}, false
		}
		p.head = fmt.Sprintf("Vec(size=%d)", n)
		env.rustElems(&p, elem, data, n)
	case "std::collections::hash::map::HashMap", "std::collections::hash::set::HashSet":
		isMap := strings.HasSuffix(base, "HashMap")
		used, err := env.rustHashEntries(o, isMap, func(k dwarf.Object, v *dwarf.Object) bool {
			if len(p.children) >= env.maxElements() {
				p.more = true
				return false
			}
			if isMap {
				p.children = append(p.children, prettyChild{key: &k, val: *v})
			} else {
				p.children = append(p.children, prettyChild{val: k})
			}
			return true
		})
		if err != nil {
			return pretty{}, false
		}
		if isMap {
			p.head, p.hint = fmt.Sprintf("HashMap(size=%d)", used), "map"
		} else {
			p.head, p.hint = fmt.Sprintf("HashSet(size=%d)", used), "array"
		}
	case "alloc::string::String":
		v, err := env.Member(o, "vec")
		if err != nil {
			return pretty{}, false
		}
		vt, ok := dwarf.Resolve(v.Type).(*dwarf.StructType)
		if !ok {
			return pretty{}, false
		}
		data, n, _, err := env.rustVec(v, vt)
		if err != nil {
			return pretty{}, false
		}
		limit := uint64(env.maxElements())
		b, err := env.Read(data, int(min(n, limit)))
		if err != nil {
			return pretty{isString: true, str: env.errorText(err)}, true
		}
		cs := make([]uint64, len(b))
		for i, c := range b {
			cs[i] = uint64(c)
		}
		p.isString, p.str = true, env.formatChars(decodeChars(cs, 1), "", n > limit)
	default:
		return pretty{}, false
	}
	return p, true
}

// rustVec reads a Vec<T>'s data pointer (the first member named pointer
// inside buf, whatever the RawVec layout of the toolchain) and length,
// and its element type T.
func (env *printer) rustVec(o dwarf.Object, st *dwarf.StructType) (data, n uint64, elem dwarf.Type, err error) {
	elem = env.TemplateArg(st, 0)
	if elem == nil || dwarf.SizeOf(elem) < 0 {
		return 0, 0, nil, errNotPretty
	}
	ln, err := env.Member(o, "len")
	if err != nil {
		return 0, 0, nil, err
	}
	buf, err := env.Member(o, "buf")
	if err != nil {
		return 0, 0, nil, err
	}
	ptr, ok := env.FindPointerMember(buf, "pointer", 0)
	if !ok {
		return 0, 0, nil, errNotPretty
	}
	if data, err = env.Uint(ptr); err != nil {
		return 0, 0, nil, err
	}
	if n, err = env.Uint(ln); err != nil {
		return 0, 0, nil, err
	}
	if int64(n) < 0 {
		return 0, 0, nil, errNotPretty
	}
	return data, n, elem, nil
}

// rustElems adds to p, an array, the n elements of type elem at data.
func (env *printer) rustElems(p *pretty, elem dwarf.Type, data, n uint64) {
	p.hint = "array"
	size := uint64(max(dwarf.SizeOf(elem), 0))
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n && i < limit; i++ {
		p.children = append(p.children, prettyChild{name: fmt.Sprintf("[%d]", i), val: dwarf.MemObject(elem, data+i*size)})
	}
	p.more = n > limit
}

// maxRustBuckets bounds the buckets a HashMap printer walks.
const maxRustBuckets = 1 << 20

// rustHashEntries calls yield with each entry of a HashMap (key and
// value) or HashSet (key, nil value) until yield returns false, and
// returns the number of entries: std's HashMap wraps hashbrown's, whose
// RawTable<T> keeps a control byte per bucket (full where the high bit is
// clear) at ctrl and bucket i's (K, V) just below it, at ctrl - (i+1) *
// sizeof(T), as rustc's printer for GDB reads it.
func (env *printer) rustHashEntries(o dwarf.Object, isMap bool, yield func(k dwarf.Object, v *dwarf.Object) bool) (uint64, error) {
	path := []string{"base", "table"}
	if !isMap {
		path = []string{"base", "map", "table"}
	}
	table, err := env.MemberPath(o, path...)
	if err != nil {
		return 0, err
	}
	tt, ok := dwarf.Resolve(table.Type).(*dwarf.StructType)
	if !ok {
		return 0, errNotPretty
	}
	pair := env.TemplateArg(tt, 0)
	pt, ok := dwarf.Resolve(pair).(*dwarf.StructType)
	if !ok || pt.Incomplete || (isMap && len(pt.Fields) < 2) || len(pt.Fields) < 1 {
		return 0, errNotPretty
	}
	inner, err := env.Member(table, "table")
	if err != nil {
		return 0, err
	}
	var mask, items uint64
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"bucket_mask", &mask}, {"items", &items}} {
		fo, err := env.Member(inner, f.name)
		if err != nil {
			return 0, err
		}
		if *f.dst, err = env.Uint(fo); err != nil {
			return 0, err
		}
	}
	ctrlO, ok := env.FindPointerMember(inner, "pointer", 0)
	if !ok || mask >= maxRustBuckets {
		return 0, errNotPretty
	}
	ctrl, err := env.Uint(ctrlO)
	if err != nil {
		return 0, err
	}
	if items == 0 {
		return 0, nil
	}
	bytes, err := env.Read(ctrl, int(mask+1))
	if err != nil {
		return 0, err
	}
	size := uint64(dwarf.SizeOf(pair))
	for i, c := range bytes {
		if c&0x80 != 0 {
			continue
		}
		e := dwarf.MemObject(pair, ctrl-(uint64(i)+1)*size)
		k := env.Field(e, pt.Fields[0])
		var v *dwarf.Object
		if isMap {
			vo := env.Field(e, pt.Fields[1])
			v = &vo
		}
		if !yield(k, v) {
			break
		}
	}
	return items, nil
}

// rustChar spells a Rust char as GDB's Rust printchar does: ASCII
// graphic characters as they are, a few escapes, \xNN up to 255, else
// \u{NNNNNN}.
func rustChar(c uint64) string {
	switch c {
	case '\\', '\'':
		return `\` + string(rune(c))
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case 0:
		return `\0`
	}
	switch {
	case c >= 32 && c < 127:
		return string(rune(c))
	case c <= 255:
		return fmt.Sprintf(`\x%02x`, c)
	}
	return fmt.Sprintf(`\u{%06x}`, c)
}
