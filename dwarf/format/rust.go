package format

import (
	"encoding/binary"
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
		if t.Name == "&str" {
			// a string literal of an expression: its text, not in the
			// program's memory
			b, err := env.Bytes(o)
			if err != nil {
				return env.errorText(err), true
			}
			cs := make([]uint64, len(b))
			for i, c := range b {
				cs[i] = uint64(c)
			}
			return env.formatChars(decodeChars(cs, 1), "", false), true
		}
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

// prettyPrintRust applies the printers rustc ships for GDB (its
// gdb_providers.py, which rust-gdb loads) to slices, Vec, VecDeque,
// HashMap, HashSet, BTreeMap, BTreeSet, String, Rc, Arc, Cell and
// RefCell: Vec(size=2) = {a,
// b}, a String's text, Rc(strong=1, weak=0) = {value = …}. Other types
// print as GDB's Rust support prints them without those printers.
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
	case "alloc::rc::Rc", "alloc::sync::Arc":
		// Rc(strong=2, weak=0) = {value = …, strong = 2, weak = 0}
		ptr, ok := env.FindPointerMember(o, "pointer", 0)
		if !ok {
			return pretty{}, false
		}
		inner, err := env.Deref(ptr)
		if err != nil {
			return pretty{}, false
		}
		strong, err1 := env.rustCount(inner, "strong")
		weak, err2 := env.rustCount(inner, "weak")
		val, err3 := env.Member(inner, "value")
		if err3 != nil {
			val, err3 = env.Member(inner, "data") // ArcInner's
		}
		if err1 != nil || err2 != nil || err3 != nil {
			return pretty{}, false
		}
		sv, _ := env.Uint(strong)
		wv, _ := env.Uint(weak)
		kind := "Rc"
		if strings.HasSuffix(base, "Arc") {
			kind = "Arc"
		}
		if wv > 0 {
			wv-- // the strong references' shared weak one, as rustc's printer counts
		}
		weakObj := dwarf.BytesObject(weak.Type, binary.LittleEndian.AppendUint64(nil, wv)[:min(max(dwarf.SizeOf(weak.Type), 0), 8)])
		p.head = fmt.Sprintf("%s(strong=%d, weak=%d)", kind, sv, wv)
		p.children = []prettyChild{{name: "value", val: val}, {name: "strong", val: strong}, {name: "weak", val: weakObj}}
	case "alloc::collections::btree::map::BTreeMap", "alloc::collections::btree::set::BTreeSet":
		isMap := strings.HasSuffix(base, "BTreeMap")
		m := o
		if !isMap {
			var err error
			if m, err = env.Member(o, "map"); err != nil {
				return pretty{}, false
			}
		}
		ln, err := env.Member(m, "length")
		if err != nil {
			return pretty{}, false
		}
		n, _ := env.Uint(ln)
		if isMap {
			p.head, p.hint = fmt.Sprintf("BTreeMap(size=%d)", n), "map"
		} else {
			p.head, p.hint = fmt.Sprintf("BTreeSet(size=%d)", n), "array"
		}
		err = env.rustBTree(m, n, func(k, v dwarf.Object) bool {
			if len(p.children) >= env.maxElements() {
				p.more = true
				return false
			}
			if isMap {
				p.children = append(p.children, prettyChild{key: &k, val: v})
			} else {
				p.children = append(p.children, prettyChild{val: k})
			}
			return true
		})
		if err != nil {
			return pretty{}, false
		}
	case "alloc::collections::vec_deque::VecDeque":
		// a ring: element i at (head + i) % cap of the buffer (before
		// rust 1.67: from tail to head)
		elem := env.TemplateArg(st, 0)
		hd, err1 := env.Member(o, "head")
		buf, err2 := env.Member(o, "buf")
		if elem == nil || dwarf.SizeOf(elem) <= 0 || err1 != nil || err2 != nil {
			return pretty{}, false
		}
		inner, err := env.Member(buf, "inner")
		if err != nil {
			inner = buf // an older RawVec has cap itself
		}
		capObj, err := env.rustCount(inner, "cap")
		ptr, ok := env.FindPointerMember(buf, "pointer", 0)
		if err != nil || !ok {
			return pretty{}, false
		}
		head, _ := env.Uint(hd)
		capacity, _ := env.Uint(capObj)
		var n uint64
		if ln, err := env.Member(o, "len"); err == nil {
			n, _ = env.Uint(ln)
		} else if tl, err := env.Member(o, "tail"); err == nil && capacity > 0 {
			tail, _ := env.Uint(tl)
			n, head = (head+capacity-tail)%capacity, tail
		} else {
			return pretty{}, false
		}
		data, err := env.Uint(ptr)
		if err != nil || capacity == 0 && n > 0 || n > capacity {
			return pretty{}, false
		}
		p.head, p.hint = fmt.Sprintf("VecDeque(size=%d)", n), "array"
		size, limit := uint64(dwarf.SizeOf(elem)), uint64(env.maxElements())
		for i := uint64(0); i < n && i < limit; i++ {
			p.children = append(p.children, prettyChild{name: fmt.Sprintf("[%d]", i), val: dwarf.MemObject(elem, data+(head+i)%capacity*size)})
		}
		p.more = n > limit
	case "core::cell::Cell":
		val, err := env.rustInner(o, "value")
		if err != nil {
			return pretty{}, false
		}
		p.head, p.children = "Cell", []prettyChild{{name: "value", val: val}}
	case "core::cell::RefCell":
		val, err1 := env.rustInner(o, "value")
		borrow, err2 := env.rustCount(o, "borrow")
		if err1 != nil || err2 != nil {
			return pretty{}, false
		}
		b, _ := env.Int(borrow)
		p.head = fmt.Sprintf("RefCell(borrow=%d)", b)
		p.children = []prettyChild{{name: "value", val: val}, {name: "borrow", val: borrow}}
	default:
		return pretty{}, false
	}
	return p, true
}

// rustBTree calls yield with each entry of a BTreeMap m (of n entries),
// in key order, until yield returns false, as rustc's printer walks it:
// root (an Option of a NodeRef) holds the root node and the tree's
// height; a node has len keys and values (MaybeUninit<ManuallyDrop<T>>
// each) and, above the leaves, len + 1 edges, as the InternalNode type
// that starts with the LeafNode.
func (env *printer) rustBTree(m dwarf.Object, n uint64, yield func(k, v dwarf.Object) bool) error {
	if n == 0 {
		return nil
	}
	root, err := env.Member(m, "root")
	if err != nil {
		return err
	}
	if rt, ok := dwarf.Resolve(root.Type).(*dwarf.StructType); ok && rt.Variants != nil {
		some, ok, err := env.rustVariant(root, rt)
		if err != nil || !ok {
			return errNotPretty
		}
		if root, err = env.Member(some, "__0"); err != nil {
			return err
		}
	}
	node, err1 := env.Member(root, "node")
	height, err2 := env.Member(root, "height")
	if err1 != nil || err2 != nil {
		return errNotPretty
	}
	h, err := env.Uint(height)
	if err != nil || h > 64 {
		return errNotPretty
	}
	budget := int(min(n, 1<<20)) * 2
	_, err = env.rustBTreeNode(node, h, &budget, yield)
	return err
}

// rustBTreeNode walks the node the pointer-holding node object points to
// at height h (0: a leaf); more is false once yield has had enough.
func (env *printer) rustBTreeNode(node dwarf.Object, h uint64, budget *int, yield func(k, v dwarf.Object) bool) (more bool, err error) {
	if *budget--; *budget < 0 {
		return false, errNotPretty // a tree larger than its length: not a tree
	}
	ptr, ok := env.FindPointerMember(node, "pointer", 0)
	if !ok {
		if _, isPtr := dwarf.Resolve(node.Type).(*dwarf.PointerType); !isPtr {
			return false, errNotPretty
		}
		ptr = node
	}
	leaf, err := env.Deref(ptr)
	if err != nil {
		return false, err
	}
	var edges dwarf.Object
	if h > 0 {
		// the same node as an InternalNode<K, V>, whose edges follow
		lt, ok := dwarf.Resolve(leaf.Type).(*dwarf.StructType)
		if !ok || env.Types == nil {
			return false, errNotPretty
		}
		it, err := env.Types.LookupType(strings.Replace(lt.Name, "LeafNode", "InternalNode", 1))
		if err != nil {
			return false, errNotPretty
		}
		a, ok := leaf.Addr()
		if !ok {
			return false, errNotPretty
		}
		if edges, err = env.Member(dwarf.MemObject(it, a), "edges"); err != nil {
			return false, err
		}
	}
	keys, err1 := env.Member(leaf, "keys")
	vals, err2 := env.Member(leaf, "vals")
	lenObj, err3 := env.Member(leaf, "len")
	if err1 != nil || err2 != nil || err3 != nil {
		return false, errNotPretty
	}
	cnt, err := env.Uint(lenObj)
	if err != nil || cnt > 11 {
		return false, errNotPretty
	}
	unwrap := func(o dwarf.Object) dwarf.Object { // MaybeUninit<ManuallyDrop<T>>, rustc's wrappers
		for range 4 {
			st, ok := dwarf.Resolve(o.Type).(*dwarf.StructType)
			if !ok {
				return o
			}
			switch dwarf.TemplateBase(st.Name) {
			case "core::mem::maybe_uninit::MaybeUninit", "core::mem::manually_drop::ManuallyDrop":
				if m, err := env.Member(o, "value"); err == nil {
					o = m
					continue
				}
			case "core::mem::maybe_dangling::MaybeDangling":
				if m, err := env.Member(o, "__0"); err == nil {
					o = m
					continue
				}
			}
			return o
		}
		return o
	}
	for i := uint64(0); i <= cnt; i++ {
		if h > 0 {
			child := unwrap(env.Elem(edges, int64(i)))
			if more, err := env.rustBTreeNode(child, h-1, budget, yield); err != nil || !more {
				return more, err
			}
		}
		if i < cnt && !yield(unwrap(env.Elem(keys, int64(i))), unwrap(env.Elem(vals, int64(i)))) {
			return false, nil
		}
	}
	return true, nil
}

// rustInner is member name of o seen through UnsafeCell: its value
// (Cell's and RefCell's value).
func (env *printer) rustInner(o dwarf.Object, name string) (dwarf.Object, error) {
	m, err := env.Member(o, name)
	if err != nil {
		return dwarf.Object{}, err
	}
	if st, ok := dwarf.Resolve(m.Type).(*dwarf.StructType); ok && dwarf.TemplateBase(st.Name) == "core::cell::UnsafeCell" {
		return env.Member(m, "value")
	}
	return m, nil
}

// rustCount is the integer inside member name of o: a Cell<usize>, an
// AtomicUsize or a Cell<isize> (an Rc's or Arc's counts, a RefCell's
// borrow flag), found down the first member of each wrapper.
func (env *printer) rustCount(o dwarf.Object, name string) (dwarf.Object, error) {
	m, err := env.Member(o, name)
	for depth := 0; err == nil && depth < 6; depth++ {
		st, ok := dwarf.Resolve(m.Type).(*dwarf.StructType)
		if !ok {
			return m, nil
		}
		if len(st.Fields) == 0 {
			break
		}
		m, err = env.Member(m, st.Fields[0].Name)
	}
	if err == nil {
		err = errNotPretty
	}
	return dwarf.Object{}, err
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
