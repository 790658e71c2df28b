package format

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// This file has the smaller libstdc++ printers (pair, tuple, atomic,
// deque, forward_list, stack/queue) and the libstdc++ type printers GDB
// applies to template arguments in printer headers ("std::string" for
// std::__cxx11::basic_string<char, ...>).

// tmpl spells base<args...> as DWARF and GDB's type names do, with
// "> >" spacing.
func tmpl(base string, args []string) string {
	s := base + "<" + strings.Join(args, ", ")
	if strings.HasSuffix(s, ">") {
		s += " "
	}
	return s + ">"
}

// abbreviateStd is a type's name as libstdc++'s printers show it
// (SingleObjContainerPrinter._recognize): what its type printers make of
// it, else the name as it is.
func abbreviateStd(name string, has func(typedef string) bool) string {
	if r := recognize(name, has); r != "" {
		return r
	}
	return name
}

// recognize is gdb.types.apply_type_recognizers with libstdc++'s type
// printers (printers.py, register_type_printers), "" where none
// recognizes the type: std::string for basic_string<char, ...> where the
// program has that typedef (has: the FilteringTypePrinter's
// gdb.lookup_type of "std::string" must succeed), and a container or
// unique_ptr whose trailing template arguments are the defaults, without
// them and with the type printers applied to the others
// (TemplateTypePrinter). Only a type with a tag is recognized: not a
// pointer, reference or array; a const one is, without its const (its
// tag is the class's).
func recognize(name string, has func(typedef string) bool) string {
	if core, ok := strings.CutSuffix(name, " const"); ok {
		return recognize(core, has)
	}
	if core, ok := strings.CutPrefix(name, "const "); ok {
		return recognize(core, has)
	}
	i := strings.IndexByte(name, '<')
	if i < 0 || !strings.HasSuffix(name, ">") {
		return ""
	}
	base := name[:i]
	args := dwarf.SplitTopLevel(name[i+1 : len(name)-1])
	for k := range args {
		args[k] = strings.TrimSpace(args[k])
	}
	// Defaults are compared in DWARF's spelling of the arguments.
	alloc := func(t string) string { return tmpl("std::allocator", []string{t}) }
	pairAlloc := func() string { return alloc(tmpl("std::pair", []string{args[0] + " const", args[1]})) }
	n, keep := len(args), -1
	switch base {
	case "std::__cxx11::basic_string", "std::basic_string":
		if n == 3 && args[1] == tmpl("std::char_traits", args[:1]) && args[2] == alloc(args[0]) {
			typedef := map[string]string{"char": "std::string", "wchar_t": "std::wstring", "char8_t": "std::u8string",
				"char16_t": "std::u16string", "char32_t": "std::u32string"}[args[0]]
			if typedef != "" && has(typedef) {
				return typedef
			}
		}
		return ""
	case "std::vector", "std::__cxx11::list", "std::list", "std::deque", "std::forward_list":
		if n == 2 && args[1] == alloc(args[0]) {
			keep = 1
		}
	case "std::map", "std::multimap":
		if n == 4 && args[2] == tmpl("std::less", args[:1]) && args[3] == pairAlloc() {
			keep = 2
		}
	case "std::set", "std::multiset":
		if n == 3 && args[1] == tmpl("std::less", args[:1]) && args[2] == alloc(args[0]) {
			keep = 1
		}
	case "std::unordered_map", "std::unordered_multimap":
		if n == 5 && args[2] == tmpl("std::hash", args[:1]) && args[3] == tmpl("std::equal_to", args[:1]) && args[4] == pairAlloc() {
			keep = 2
		}
	case "std::unordered_set", "std::unordered_multiset":
		if n == 4 && args[1] == tmpl("std::hash", args[:1]) && args[2] == tmpl("std::equal_to", args[:1]) && args[3] == alloc(args[0]) {
			keep = 1
		}
	case "std::unique_ptr":
		if n == 2 && args[1] == tmpl("std::default_delete", args[:1]) {
			keep = 1
		}
	}
	if keep < 0 {
		return ""
	}
	shown := make([]string, keep)
	for k := range shown {
		shown[k] = recognizeSub(args[k], has)
	}
	// GDB's join: no "> >" spacing, and no inline namespace.
	return strings.Replace(base, "__cxx11::", "", 1) + "<" + strings.Join(shown, ", ") + ">"
}

// recognizeSub is TemplateTypePrinter's _recognize_subtype: a template
// argument with the type printers applied through pointers, references
// and arrays ("std::string*", without GDB's space before the mark).
func recognizeSub(name string, has func(typedef string) bool) string {
	for _, mark := range []string{"&&", "&", "*"} {
		if t, ok := strings.CutSuffix(name, mark); ok {
			return recognizeSub(strings.TrimSpace(t), has) + mark
		}
	}
	if strings.HasSuffix(name, "]") {
		if j := strings.LastIndexByte(name, '['); j > 0 {
			return recognizeSub(strings.TrimSpace(name[:j]), has) + name[j:]
		}
	}
	return abbreviateStd(name, has)
}

// hasType reports whether the program has a type of that name (GDB's
// gdb.lookup_type succeeds).
func (env *printer) hasType(name string) bool {
	if env.Types == nil {
		return false
	}
	_, err := env.Types.LookupType(name)
	return err == nil
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
	// The alternatives through libstdc++'s type printers, joined
	// without GDB's "> >" spacing ("%s<%s>" in the printer).
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = abbreviateStd(dwarf.TypeString(a), env.hasType)
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
	a, ok := u.HomeAddr()
	if !ok {
		return pretty{}, errNotPretty
	}
	// every alternative of the union lives at its start, which
	// libstdc++'s printer reads through the union's address (a history
	// value's: where it was read)
	v := dwarf.MemObject(alts[n], a)
	return env.contained(head+fmt.Sprintf(" [index %d]", n), "array", v), nil
}

// anyManager is the name of the function a std::any's _M_manager points
// to: its class names the contained type and where it is kept.
var anyManager = regexp.MustCompile(`^(std::any::_Manager_(internal|external)<.*>)::_S_manage\(`)

// ppAny prints std::any as libstdc++'s StdExpAnyPrinter: the contained
// type is the template argument of the manager class its _M_manager
// points into; the value is in _M_storage's buffer (_Manager_internal)
// or at _M_storage._M_ptr (_Manager_external).
func (env *printer) ppAny(o dwarf.Object) (pretty, error) {
	const head = "std::any"
	mgr, err := env.Member(o, "_M_manager")
	if err != nil {
		return pretty{}, err
	}
	fn, err := env.Uint(mgr)
	if err != nil {
		return pretty{}, err
	}
	if fn == 0 {
		return pretty{head: head + " [no contained value]"}, nil
	}
	if env.Symbolize == nil || env.Types == nil {
		return pretty{}, errNotPretty
	}
	name, ok := env.Symbolize(fn)
	m := anyManager.FindStringSubmatch(name)
	if !ok || m == nil {
		return pretty{}, errNotPretty
	}
	mt, err := env.Types.LookupType(m[1])
	if err != nil {
		return pretty{}, errNotPretty
	}
	mst, ok := dwarf.Resolve(mt).(*dwarf.StructType)
	if !ok {
		return pretty{}, errNotPretty
	}
	ct := env.TemplateArg(mst, 0)
	if ct == nil {
		return pretty{}, errNotPretty
	}
	var v dwarf.Object
	if m[2] == "internal" {
		buf, err := env.MemberPath(o, "_M_storage", "_M_buffer")
		if err != nil {
			return pretty{}, err
		}
		addr, ok := buf.HomeAddr() // (as the printer reads it: through its address)
		if !ok {
			return pretty{}, errNotPretty
		}
		v = dwarf.MemObject(ct, addr)
	} else {
		ptr, err := env.MemberPath(o, "_M_storage", "_M_ptr")
		if err != nil {
			return pretty{}, err
		}
		addr, err := env.Uint(ptr)
		if err != nil {
			return pretty{}, err
		}
		v = dwarf.MemObject(ct, addr)
	}
	p := env.contained(head, "", v)
	if p.head == head { // no printer with children: the type is named
		p.head += " containing " + abbreviateStd(dwarf.TypeString(ct), env.hasType)
	}
	return p, nil
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
