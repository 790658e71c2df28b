package format

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// This file has the smaller libstdc++ printers (pair, tuple, atomic,
// deque, forward_list, stack/queue) and the libstdc++ type printers GDB
// applies to template arguments in printer headers ("std::string" for
// std::__cxx11::basic_string<char, ...>).

// tmpl spells base<args...> with GDB's "> >" spacing.
func tmpl(base string, args []string) string {
	s := base + "<" + strings.Join(args, ", ")
	if strings.HasSuffix(s, ">") {
		s += " "
	}
	return s + ">"
}

// abbreviateStd applies the libstdc++ type printers to a type name:
// std::string for basic_string<char, ...>, and template default
// arguments dropped for the containers and unique_ptr.
func abbreviateStd(name string) string {
	// keep cv-qualifiers and pointer/reference marks around the core
	if core, ok := strings.CutSuffix(name, " const"); ok {
		return abbreviateStd(core) + " const"
	}
	if core, ok := strings.CutPrefix(name, "const "); ok {
		return "const " + abbreviateStd(core)
	}
	if j := strings.TrimRight(name, "*& "); len(j) < len(name) && strings.HasSuffix(j, ">") {
		return abbreviateStd(j) + name[len(j):]
	}
	i := strings.IndexByte(name, '<')
	if i < 0 || !strings.HasSuffix(name, ">") {
		return name
	}
	base := name[:i]
	args := dwarf.SplitTopLevel(name[i+1 : len(name)-1])
	for k := range args {
		args[k] = abbreviateStd(strings.TrimSpace(args[k]))
	}
	alloc := func(t string) string { return tmpl("std::allocator", []string{t}) }
	n := len(args)
	switch base {
	case "std::__cxx11::basic_string", "std::basic_string":
		if n == 3 && args[1] == tmpl("std::char_traits", args[:1]) && args[2] == alloc(args[0]) {
			switch args[0] {
			case "char":
				return "std::string"
			case "wchar_t":
				return "std::wstring"
			case "char8_t":
				return "std::u8string"
			case "char16_t":
				return "std::u16string"
			case "char32_t":
				return "std::u32string"
			}
		}
	case "std::vector", "std::__cxx11::list", "std::list", "std::deque", "std::forward_list":
		if n == 2 && args[1] == alloc(args[0]) {
			args = args[:1]
		}
	case "std::map", "std::multimap":
		if n == 4 && args[2] == tmpl("std::less", args[:1]) &&
			args[3] == alloc(tmpl("std::pair", []string{args[0] + " const", args[1]})) {
			args = args[:2]
		}
	case "std::set", "std::multiset":
		if n == 3 && args[1] == tmpl("std::less", args[:1]) && args[2] == alloc(args[0]) {
			args = args[:1]
		}
	case "std::unordered_map", "std::unordered_multimap":
		if n == 5 && args[2] == tmpl("std::hash", args[:1]) && args[3] == tmpl("std::equal_to", args[:1]) &&
			args[4] == alloc(tmpl("std::pair", []string{args[0] + " const", args[1]})) {
			args = args[:2]
		}
	case "std::unordered_set", "std::unordered_multiset":
		if n == 4 && args[1] == tmpl("std::hash", args[:1]) && args[2] == tmpl("std::equal_to", args[:1]) &&
			args[3] == alloc(args[0]) {
			args = args[:1]
		}
	case "std::unique_ptr":
		if n == 2 && args[1] == tmpl("std::default_delete", args[:1]) {
			args = args[:1]
		}
	}
	return tmpl(base, args)
}

func (env *printer) ppPair(o dwarf.Object) (pretty, error) {
	first, err := env.Member(o, "first")
	if err != nil {
		return pretty{}, err
	}
	second, err := env.Member(o, "second")
	if err != nil {
		return pretty{}, err
	}
	return pretty{children: []prettyChild{{name: "first", val: first}, {name: "second", val: second}}}, nil
}

// structNodes lists a struct's bases then fields as GDB's type.fields()
// does: (object, name, is-base).
type structNode struct {
	obj  dwarf.Object
	name string
	base bool
}

func (env *printer) structNodes(o dwarf.Object) []structNode {
	st, ok := dwarf.Resolve(o.Type).(*dwarf.StructType)
	if !ok {
		return nil
	}
	var out []structNode
	for _, b := range st.Bases {
		out = append(out, structNode{env.BaseObject(o, b), "", true})
	}
	for _, f := range st.Fields {
		out = append(out, structNode{env.Field(o, f), f.Name, false})
	}
	return out
}

func isSpecializationOf(t dwarf.Type, name string) bool {
	n := dwarf.TemplateBase(dwarf.Resolve(t).Common().Name)
	return n == "std::"+name || strings.HasSuffix(n, "::"+name)
}

func (env *printer) ppTuple(o dwarf.Object, base string) (pretty, error) {
	head := o
	nodes := env.structNodes(head)
	p := pretty{head: base + " containing"}
	switch {
	case len(nodes) == 0:
		return pretty{head: "empty " + base}, nil
	case len(nodes) == 1 || (len(nodes) == 2 && isSpecializationOf(nodes[1].obj.Type, "__tuple_base")):
		head = nodes[0].obj
	default:
		return pretty{}, errNotPretty
	}
	for count := 1; count < 64; count++ {
		nodes = env.structNodes(head)
		var impl dwarf.Object
		done := false
		switch len(nodes) {
		case 0:
			return p, nil
		case 1:
			impl, done = nodes[0].obj, true
		case 2:
			impl, head = nodes[1].obj, nodes[0].obj
		default:
			return pretty{}, errNotPretty
		}
		val := impl
		if fs := env.structNodes(impl); len(fs) > 0 && fs[0].name == "_M_head_impl" {
			val = fs[0].obj
		}
		p.children = append(p.children, prettyChild{name: "[" + strconv.Itoa(count) + "]", val: val})
		if done {
			return p, nil
		}
	}
	return pretty{}, errNotPretty
}

func (env *printer) ppAtomic(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	vt := env.TemplateArg(st, 0)
	if vt == nil {
		return pretty{}, errNotPretty
	}
	var v dwarf.Object
	var err error
	switch t := dwarf.Resolve(vt).(type) {
	case *dwarf.BaseType:
		switch {
		case t.IsFloat():
			v, err = env.Member(o, "_M_fp")
		case t.IsBool():
			v, err = env.MemberPath(o, "_M_base", "_M_i")
		default:
			v, err = env.Member(o, "_M_i")
		}
	case *dwarf.PointerType:
		v, err = env.MemberPath(o, "_M_b", "_M_p")
	default:
		v, err = env.Member(o, "_M_i")
	}
	if err != nil {
		return pretty{}, err
	}
	return pretty{isString: true, str: "std::atomic<" + dwarf.TypeString(vt) + "> = { " + env.memberText(v) + " }"}, nil
}

func (env *printer) ppDeque(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	elemT := env.TemplateArg(st, 0)
	if elemT == nil {
		return pretty{}, errNotPretty
	}
	es := uint64(dwarf.SizeOf(elemT))
	if es == 0 {
		return pretty{}, errNotPretty
	}
	bufSize := dwarf.DequeBufferElems(es)
	get := func(it dwarf.Object, name string) (uint64, error) {
		m, err := env.Member(it, name)
		if err != nil {
			return 0, err
		}
		return env.Uint(m)
	}
	start, finish, err := env.startFinish(o)
	if err != nil {
		return pretty{}, err
	}
	var v [7]uint64
	for i, f := range []struct {
		it   dwarf.Object
		name string
	}{{start, "_M_node"}, {start, "_M_cur"}, {start, "_M_last"}, {finish, "_M_node"}, {finish, "_M_cur"}, {finish, "_M_first"}} {
		if v[i], err = get(f.it, f.name); err != nil {
			return pretty{}, err
		}
	}
	snode, scur, slast, enode, ecur, efirst := v[0], v[1], v[2], v[3], v[4], v[5]
	if enode < snode || slast < scur || ecur < efirst {
		return pretty{}, errNotPretty
	}
	w := env.PointerSize()
	size := bufSize*((enode-snode)/w-1) + (slast-scur)/es + (ecur-efirst)/es
	if enode == snode {
		size = (ecur - scur) / es
	}
	p := pretty{head: base + " with " + elements(size), hint: "array"}
	node, cur, end := snode, scur, slast
	limit := uint64(env.maxElements())
	for i := uint64(0); cur != ecur; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if i > size {
			return pretty{}, errNotPretty
		}
		p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: dwarf.MemObject(elemT, cur)})
		cur += es
		if cur == end {
			node += w
			if cur, err = env.ReadUint(node, int(w)); err != nil {
				return pretty{}, err
			}
			end = cur + bufSize*es
		}
	}
	return p, nil
}

func (env *printer) ppForwardList(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	elemT := env.TemplateArg(st, 0)
	if elemT == nil {
		return pretty{}, errNotPretty
	}
	head, err := env.MemberPath(o, "_M_impl", "_M_head", "_M_next")
	if err != nil {
		return pretty{}, err
	}
	node, err := env.Uint(head)
	if err != nil {
		return pretty{}, err
	}
	if node == 0 {
		return pretty{head: "empty " + base}, nil
	}
	p := pretty{head: base}
	voff := dwarf.AlignUp(env.PointerSize(), dwarf.AlignOf(elemT)) // after _M_next
	return p, env.addList(&p, elemT, node, 0, voff)
}

// ppAdapter prints std::stack/queue/priority_queue as GDB's printer:
// "std::stack wrapping: " + the printed container.
func (env *printer) ppAdapter(o dwarf.Object, base string) (pretty, error) {
	c, err := env.Member(o, "c")
	if err != nil {
		return pretty{}, err
	}
	inner, ok := env.prettyPrint(c)
	if !ok {
		return pretty{}, errNotPretty
	}
	if inner.isString {
		return pretty{isString: true, str: fmt.Sprintf("%s wrapping: %s", base, inner.str)}, nil
	}
	inner.head = base + " wrapping: " + inner.head
	return inner, nil
}

// ppVariant prints std::variant: "std::variant<A, B> [index 1] = {v}".
func (env *printer) ppVariant(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	var alts []dwarf.Type
	for i := 0; ; i++ {
		t := env.TemplateArg(st, i)
		if t == nil {
			break
		}
		alts = append(alts, t)
	}
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = dwarf.TypeString(a)
	}
	head := "std::variant<" + strings.Join(names, ", ") + ">"
	idx, err := env.Member(o, "_M_index")
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(idx)
	if err != nil {
		return pretty{}, err
	}
	if int(n) >= len(alts) || n >= uint64(1)<<(8*dwarf.SizeOf(idx.Type)-1) {
		return pretty{head: head + " [no contained value]"}, nil
	}
	u, err := env.Member(o, "_M_u")
	if err != nil {
		return pretty{}, err
	}
	a, ok := u.Addr()
	if !ok {
		return pretty{}, errNotPretty
	}
	// every alternative of the union lives at its start
	v := dwarf.MemObject(alts[n], a)
	head += fmt.Sprintf(" [index %d]", n)
	if inner, ok := env.prettyPrint(v); ok && len(inner.children) > 0 {
		inner.head = head + " containing " + inner.head
		return inner, nil
	}
	return pretty{head: head, hint: "array", children: []prettyChild{{name: "[0]", val: v}}}, nil
}

// ppStringView prints std::basic_string_view as its string.
func (env *printer) ppStringView(o dwarf.Object) (pretty, error) {
	p, err1 := env.Member(o, "_M_str")
	n, err2 := env.Member(o, "_M_len")
	if err := errors.Join(err1, err2); err != nil {
		return pretty{}, err
	}
	addr, ct, err1 := env.charPointer(p)
	ln, err2 := env.Uint(n)
	if err := errors.Join(err1, err2); err != nil {
		return pretty{}, err
	}
	return env.countedChars(o, addr, ln, ct)
}

// ppBitset prints std::bitset as its set bits: "std::bitset = {[0] = 1}".
func (env *printer) ppBitset(o dwarf.Object, base string) (pretty, error) {
	p := pretty{head: base}
	w, err := env.Member(o, "_M_w")
	if err != nil {
		return p, nil // an empty bitset has no words
	}
	b, err := env.Bytes(w)
	if err != nil {
		return pretty{}, err
	}
	intT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "int", ByteSize: 4, Lang: dwarf.LangCPlusPlus}, Encoding: dwarf.EncSigned}
	one := dwarf.BytesObject(intT, []byte{1, 0, 0, 0})
	for i, c := range b {
		for bit := 0; bit < 8; bit++ {
			if c&(1<<bit) != 0 {
				p.children = append(p.children, prettyChild{name: "[" + strconv.Itoa(i*8+bit) + "]", val: one})
			}
		}
	}
	return p, nil
}

// ppSpan prints std::span: "std::span of length 3 = {1, 2, 3}".
func (env *printer) ppSpan(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	ptr, err := env.Member(o, "_M_ptr")
	if err != nil {
		return pretty{}, err
	}
	pt, ok := dwarf.Resolve(ptr.Type).(*dwarf.PointerType)
	if !ok {
		return pretty{}, errNotPretty
	}
	var n uint64
	if ext, err := env.MemberPath(o, "_M_extent", "_M_extent_value"); err == nil {
		if n, err = env.Uint(ext); err != nil {
			return pretty{}, err
		}
	} else {
		found := false
		for _, tp := range st.TemplateParams {
			if tp.HasValue {
				n, found = uint64(tp.Value), true
			}
		}
		if !found {
			return pretty{}, errNotPretty
		}
	}
	a, err := env.Uint(ptr)
	if err != nil {
		return pretty{}, err
	}
	p := pretty{head: fmt.Sprintf("%s of length %d", base, n), hint: "array"}
	return p, env.addArray(&p, pt.Elem, a, n)
}

// ppInitializerList prints std::initializer_list: "std::initializer_list
// of length 2 = {1, 2}".
func (env *printer) ppInitializerList(o dwarf.Object, base string) (pretty, error) {
	arr, err1 := env.Member(o, "_M_array")
	ln, err2 := env.Member(o, "_M_len")
	if err := errors.Join(err1, err2); err != nil {
		return pretty{}, err
	}
	pt, ok := dwarf.Resolve(arr.Type).(*dwarf.PointerType)
	if !ok {
		return pretty{}, errNotPretty
	}
	a, err1 := env.Uint(arr)
	n, err2 := env.Uint(ln)
	if err := errors.Join(err1, err2); err != nil {
		return pretty{}, err
	}
	p := pretty{head: fmt.Sprintf("%s of length %d", base, n), hint: "array"}
	return p, env.addArray(&p, pt.Elem, a, n)
}
