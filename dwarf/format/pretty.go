package format

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// pretty is the result of a libstdc++ pretty printer, shaped like GDB's
// Python printers: a to_string part, children, and a display hint.
type pretty struct {
	// str, when isString, is the whole value (std::string).
	str      string
	isString bool
	head     string
	// hint is "array", "map" or "" (children named like "[0]").
	hint string
	// kids: the printer has children, even none now (GDB's
	// hasattr(visualizer, 'children')): what a printer of one contained
	// object (optional, variant, any) prints "containing" (contained).
	kids     bool
	children []prettyChild
	more     bool // children were cut at the element limit
	// err is what the printer could not read after head and children:
	// memory its layout points to (a container not constructed yet, or
	// freed). GDB's printers raise gdb.MemoryError there, and GDB prints
	// "<error reading variable: MSG>" in place of the rest; a string's
	// characters that could not be read (str then says so as GDB does).
	err error
}

type prettyChild struct {
	name string // "[0]", "get()", "[contained value]"; key text for maps
	key  *dwarf.Object
	val  dwarf.Object
}

// errNotPretty says that no printer applies or the layout did not match;
// the raw value is printed instead.
var errNotPretty = errors.New("no pretty printer")

// prettyPrint applies a libstdc++ printer to o when its type is one we
// know; ok is false otherwise or when the object's layout did not match.
func (env *printer) prettyPrint(o dwarf.Object) (pretty, bool) {
	if pt, ok := dwarf.Resolve(o.Type).(*dwarf.PointerType); ok && pt.Lang == dwarf.LangGo {
		return env.prettyPrintGoPointer(o, pt)
	}
	st, ok := dwarf.Resolve(o.Type).(*dwarf.StructType)
	if ok && !st.Incomplete && st.Lang == dwarf.LangGo {
		return env.prettyPrintGo(o, st)
	}
	if ok && !st.Incomplete && st.Lang == dwarf.LangRust {
		return env.prettyPrintRust(o, st)
	}
	if !ok || st.Incomplete || st.Lang != dwarf.LangCPlusPlus ||
		!(strings.HasPrefix(st.Name, "std::") || strings.HasPrefix(st.Name, "__gnu_cxx::")) {
		return pretty{}, false
	}
	var p pretty
	var err error
	switch base := dwarf.TemplateBase(st.Name); base {
	case "std::__cxx11::basic_string", "std::basic_string":
		p, err = env.ppString(o)
	case "std::vector":
		p, err = env.ppVector(o, st)
	case "std::map", "std::multimap", "std::set", "std::multiset":
		p, err = env.ppRbTree(o, st, base)
	case "std::unordered_map", "std::unordered_set", "std::unordered_multimap", "std::unordered_multiset":
		p, err = env.ppHashtable(o, st, base)
	case "std::__cxx11::list", "std::list":
		p, err = env.ppList(o, st, base)
	case "std::unique_ptr":
		p, err = env.ppUniquePtr(o, st)
	case "std::shared_ptr", "std::weak_ptr":
		p, err = env.ppSharedPtr(o, st, base)
	case "std::optional":
		p, err = env.ppOptional(o, st)
	case "std::pair":
		p, err = env.ppPair(o)
	case "std::variant":
		p, err = env.ppVariant(o, st)
	case "std::basic_string_view", "std::__cxx11::basic_string_view":
		p, err = env.ppStringView(o)
	case "std::bitset":
		p, err = env.ppBitset(o, base)
	case "std::span":
		p, err = env.ppSpan(o, st, base)
	case "std::initializer_list":
		p, err = env.ppInitializerList(o, base)
	case "__gnu_cxx::__normal_iterator", "std::_Deque_iterator",
		"std::_List_iterator", "std::_List_const_iterator",
		"std::_Fwd_list_iterator", "std::_Fwd_list_const_iterator",
		"std::_Rb_tree_iterator", "std::_Rb_tree_const_iterator":
		// (GDB has no printer for the unordered containers' iterators)
		p, err = env.ppIterator(o)
	case "std::tuple":
		p, err = env.ppTuple(o, base)
	case "std::atomic":
		p, err = env.ppAtomic(o, st)
	case "std::deque":
		p, err = env.ppDeque(o, st, base)
	case "std::forward_list":
		p, err = env.ppForwardList(o, st, base)
	case "std::stack", "std::queue", "std::priority_queue":
		p, err = env.ppAdapter(o, base)
	case "std::any":
		p, err = env.ppAny(o)
	default:
		return pretty{}, false
	}
	switch dwarf.TemplateBase(st.Name) {
	case "std::__cxx11::basic_string", "std::basic_string", "std::basic_string_view", "std::__cxx11::basic_string_view",
		"__gnu_cxx::__normal_iterator", "std::_Deque_iterator", "std::_List_iterator", "std::_List_const_iterator",
		"std::_Fwd_list_iterator", "std::_Fwd_list_const_iterator", "std::_Rb_tree_iterator", "std::_Rb_tree_const_iterator",
		"std::pair": // GDB 13 has no pair printer: the value prints as a struct
	default:
		p.kids = true
	}
	if err != nil {
		if !env.printerRaised(o, err) {
			return pretty{}, false
		}
		p.err = err
	}
	return p, true
}

// errLazyNull is what GDB says of a string printer asked for a string at
// address 0 with a length above 0 (gdb.Value.lazy_string's check): a
// std::string not constructed yet.
var errLazyNull = errors.New("Cannot create a lazy string with address 0x0, and a non-zero length.")

// printerRaised reports whether err, a printer's failure on o, is one
// GDB's printer would raise as gdb.MemoryError: memory that o's own
// bytes point to could not be read, or the null lazy string; o's own
// bytes too where o is a reference's target (prettyPrintReferent). Any
// other failure (a layout we do not know, o's own bytes unreadable)
// prints o raw.
func (env *printer) printerRaised(o dwarf.Object, err error) bool {
	if errors.Is(err, errLazyNull) {
		return true
	}
	var me *dwarf.MemoryError
	if !errors.As(err, &me) {
		return false
	}
	a, ok := o.Addr()
	if ok && env.referent != nil && *env.referent == a {
		return true
	}
	return !ok || me.Addr() < a || me.Addr()-a >= uint64(max(o.Type.Size(), 1))
}

// prettyPrintReferent is prettyPrint of a reference's target, which GDB
// hands to the printer unread: what the printer fails to read of it, its
// own bytes included, is said in its place.
func (env *printer) prettyPrintReferent(o dwarf.Object) (pretty, bool) {
	a, ok := o.Addr()
	if !ok {
		return env.prettyPrint(o)
	}
	saved := env.referent
	env.referent = &a
	defer func() { env.referent = saved }()
	return env.prettyPrint(o)
}

// errorReading is GDB's text for a printer's gdb.MemoryError.
func errorReading(err error) string {
	return "<error reading variable: " + firstMemoryError(err).Error() + ">"
}

// firstMemoryError is the first address err says could not be read (a
// printer that read two fields may have joined two errors), or err.
func firstMemoryError(err error) error {
	var me *dwarf.MemoryError
	if errors.As(err, &me) {
		return me
	}
	return err
}

func (env *printer) formatPretty(p pretty, depth int) string {
	if p.isString {
		return p.str
	}
	if len(p.children) == 0 {
		if p.err != nil {
			return p.head + errorReading(p.err)
		}
		return p.head
	}
	var parts []string
	for i := 0; i < len(p.children); i++ {
		c := p.children[i]
		v := env.format(c.val, false, depth+1, nil)
		switch p.hint {
		case "map":
			k := env.format(*c.key, false, depth+1, nil)
			parts = append(parts, "["+k+"] = "+v)
		case "array":
			// GDB does not collapse repeats in pretty-printer children.
			parts = append(parts, v)
		default:
			parts = append(parts, c.name+" = "+v)
		}
	}
	s := "{" + strings.Join(parts, ", ")
	if p.more {
		s += "..."
	}
	if p.err != nil {
		// Right behind the last child, then "...", as GDB's
		// print_children prints a children iterator's error: it stops
		// there, not done.
		s += errorReading(p.err) + "..."
	}
	s = s + "}"
	if p.head == "" {
		return s
	}
	return p.head + " = " + s
}

func (env *printer) ppString(o dwarf.Object) (pretty, error) {
	p, err := env.StdStringPointer(o)
	if err != nil {
		return pretty{}, err
	}
	ln, err := env.Member(o, "_M_string_length")
	if err != nil {
		return pretty{}, err
	}
	// The length first: GDB's printer reads it before the pointer
	// (lazy_string(length=...)), which says which read fails first.
	n, err := env.Uint(ln)
	if err != nil {
		return pretty{}, err
	}
	addr, ct, err := env.charPointer(p)
	if err != nil {
		return pretty{}, err
	}
	// GDB hands the length to its string reader as a C int: a garbage
	// length (a string not constructed yet) is truncated to 32 bits;
	// -1 then means "up to the first NUL" and other negative values an
	// empty string.
	switch l := int32(uint32(n)); {
	case l == -1:
		cs, trunc, err := env.ReadCString(addr, int(ct.ByteSize), env.maxElements())
		if err != nil && len(cs) == 0 {
			return env.unreadString(o, err)
		}
		return pretty{isString: true, str: env.formatChars(decodeChars(cs, int(ct.ByteSize)), charPrefix(ct), trunc)}, nil
	case l < 0:
		return pretty{isString: true, str: charPrefix(ct) + `""`}, nil
	default:
		n = uint64(l)
	}
	return env.countedChars(o, addr, n, ct)
}

// unreadString is a string printer's result where the characters of
// o could not be read: GDB prints its lazy string as
// "<error: Cannot access memory at address 0x10>".
func (env *printer) unreadString(o dwarf.Object, err error) (pretty, error) {
	if !env.printerRaised(o, err) {
		return pretty{}, err
	}
	return pretty{isString: true, str: errorString(err), err: err}, nil
}

// charPointer returns the address held by p, a pointer to a character type,
// and that type; errNotPretty if p points to something else.
func (env *printer) charPointer(p dwarf.Object) (uint64, *dwarf.BaseType, error) {
	pt, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType)
	if !ok {
		return 0, nil, errNotPretty
	}
	ct, ok := dwarf.IsCharType(pt.Elem)
	if !ok {
		return 0, nil, errNotPretty
	}
	addr, err := env.Uint(p)
	return addr, ct, err
}

// countedChars prints n characters of type ct at addr as a string literal,
// cut at the print-elements limit as GDB does.
func (env *printer) countedChars(o dwarf.Object, addr, n uint64, ct *dwarf.BaseType) (pretty, error) {
	if addr == 0 && n > 0 {
		return pretty{}, errLazyNull
	}
	limit := uint64(env.maxElements())
	es := uint64(ct.ByteSize)
	b, err := env.Read(addr, int(min(n, limit)*es))
	if err != nil {
		return env.unreadString(o, err)
	}
	cs := make([]uint64, len(b)/int(es))
	for i := range cs {
		cs[i] = dwarf.DecodeUint(b[uint64(i)*es : uint64(i+1)*es])
	}
	if n <= limit && len(cs) > 0 && cs[len(cs)-1] == 0 {
		// GDB's printstr drops one trailing NUL of a string it printed
		// whole (a std::string whose last character is '\0').
		cs = cs[:len(cs)-1]
	}
	return pretty{isString: true, str: env.formatChars(decodeChars(cs, int(ct.ByteSize)), charPrefix(ct), n > limit)}, nil
}

// ppIterator prints a libstdc++ iterator as the element it points to,
// or says that it points nowhere.
func (env *printer) ppIterator(o dwarf.Object) (pretty, error) {
	v, _, err := env.StdIterTarget(o)
	var null *dwarf.NullIteratorError
	switch {
	case errors.As(err, &null):
		return pretty{isString: true, str: null.Error()}, nil
	case errors.Is(err, dwarf.ErrLayout):
		return pretty{}, errNotPretty
	case err != nil:
		return pretty{}, err
	}
	return pretty{isString: true, str: env.memberText(v)}, nil
}

func (env *printer) ppVector(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	start, finish, err := env.startFinish(o)
	if err != nil {
		return pretty{}, err
	}
	eos, err := env.MemberPath(o, "_M_impl", "_M_end_of_storage")
	if err != nil {
		return pretty{}, err
	}
	if _, isPtr := dwarf.Resolve(start.Type).(*dwarf.PointerType); !isPtr {
		return env.ppVectorBool(start, finish, eos)
	}
	pt := dwarf.Resolve(start.Type).(*dwarf.PointerType)
	es := uint64(dwarf.SizeOf(pt.Elem))
	s, err1 := env.Uint(start)
	f, err2 := env.Uint(finish)
	e, err3 := env.Uint(eos)
	if err := errors.Join(err1, err2, err3); err != nil {
		return pretty{}, err
	}
	if es == 0 || f < s || e < f {
		return pretty{}, errNotPretty
	}
	n, c := (f-s)/es, (e-s)/es
	p := pretty{head: fmt.Sprintf("std::vector of length %d, capacity %d", n, c), hint: "array"}
	return p, env.addArray(&p, pt.Elem, s, n)
}

// addArray adds the n elements of type elem stored from addr on to p's
// children as "[i]", cut at the print-elements limit. Storage that cannot
// be read at all (a vector not constructed yet, its length garbage) is
// the error, once, rather than an error in place of every element.
func (env *printer) addArray(p *pretty, elem dwarf.Type, addr, n uint64) error {
	if n > 0 {
		if _, err := env.Read(addr, 1); err != nil {
			return err
		}
	}
	es := uint64(dwarf.SizeOf(elem))
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n && i < limit; i++ {
		p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: dwarf.MemObject(elem, addr+i*es)})
	}
	p.more = n > limit
	return nil
}

// startFinish returns the iterators that bound a std::vector or a
// std::deque: _M_impl._M_start and _M_impl._M_finish.
func (env *printer) startFinish(o dwarf.Object) (start, finish dwarf.Object, err error) {
	if start, err = env.MemberPath(o, "_M_impl", "_M_start"); err != nil {
		return dwarf.Object{}, dwarf.Object{}, err
	}
	if finish, err = env.MemberPath(o, "_M_impl", "_M_finish"); err != nil {
		return dwarf.Object{}, dwarf.Object{}, err
	}
	return start, finish, nil
}

func (env *printer) ppVectorBool(start, finish, eos dwarf.Object) (pretty, error) {
	sp, err1 := env.Member(start, "_M_p")
	so, err2 := env.Member(start, "_M_offset")
	fp, err3 := env.Member(finish, "_M_p")
	fo, err4 := env.Member(finish, "_M_offset")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return pretty{}, err
	}
	s, _ := env.Uint(sp)
	soff, _ := env.Uint(so)
	f, _ := env.Uint(fp)
	foff, _ := env.Uint(fo)
	e, err := env.Uint(eos)
	if err != nil || f < s || e < s {
		return pretty{}, errNotPretty
	}
	n := (f-s)*8 + foff - soff
	c := (e - s) * 8
	p := pretty{head: fmt.Sprintf("std::vector<bool> of length %d, capacity %d", n, c), hint: "array"}
	boolT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "bool", ByteSize: 1, Lang: dwarf.LangCPlusPlus}, Encoding: dwarf.EncBoolean}
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n && i < limit; i++ {
		bit := soff + i
		w, err := env.Read(s+bit/8, 1)
		if err != nil {
			return pretty{}, err
		}
		v := (w[0] >> (bit % 8)) & 1
		p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: dwarf.BytesObject(boolT, []byte{v})})
	}
	p.more = n > limit
	return p, nil
}

func elements(n uint64) string {
	if n == 1 {
		return "1 element"
	}
	return strconv.FormatUint(n, 10) + " elements"
}

// templateArgString is st's i-th template argument as GDB's printers
// spell it with str(type.template_argument(i)): the full name, no type
// printer applied (std::__cxx11::basic_string<char, ...>, not
// std::string).
func (env *printer) templateArgString(st *dwarf.StructType, i int) string {
	if t := env.TemplateArg(st, i); t != nil {
		return dwarf.TypeString(t)
	}
	return "?"
}

func (env *printer) ppUniquePtr(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	t, err := env.Member(o, "_M_t")
	if err != nil {
		return pretty{}, err
	}
	ptr, ok := env.FindPointerMember(t, "_M_head_impl", 0)
	if !ok {
		return pretty{}, errNotPretty
	}
	return pretty{
		head:     "std::unique_ptr<" + env.templateArgString(st, 0) + ">",
		children: []prettyChild{{name: "get()", val: ptr}},
	}, nil
}

func (env *printer) ppSharedPtr(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	ptr, err := env.Member(o, "_M_ptr")
	if err != nil {
		return pretty{}, err
	}
	pi, err := env.MemberPath(o, "_M_refcount", "_M_pi")
	if err != nil {
		return pretty{}, err
	}
	state := "empty"
	cb, err := env.Uint(pi)
	if err != nil {
		return pretty{}, err
	}
	if cb != 0 {
		counted, err := env.Deref(pi)
		if err != nil {
			return pretty{}, err
		}
		uc, err1 := env.Member(counted, "_M_use_count")
		wc, err2 := env.Member(counted, "_M_weak_count")
		if err := errors.Join(err1, err2); err != nil {
			return pretty{}, err
		}
		u, err1 := env.Int(uc)
		w, err2 := env.Int(wc)
		if err := errors.Join(err1, err2); err != nil {
			return pretty{}, err
		}
		if u == 0 {
			state = fmt.Sprintf("expired, weak count %d", w)
		} else {
			state = fmt.Sprintf("use count %d, weak count %d", u, w-1)
		}
	}
	return pretty{
		head:     base + "<" + env.templateArgString(st, 0) + "> (" + state + ")",
		children: []prettyChild{{name: "get()", val: ptr}},
	}, nil
}

func (env *printer) ppOptional(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	v, engaged, err := env.StdOptional(o)
	if err != nil {
		return pretty{}, err
	}
	// The optional printer names its type through libstdc++'s type
	// printers (std::optional<std::string>), unlike the smart pointers.
	head := "std::optional<" + abbreviateStd(env.templateArgString(st, 0), env.hasType) + ">"
	if !engaged {
		return pretty{head: head + " [no contained value]"}, nil
	}
	return env.contained(head, "", v), nil
}

// contained prints one contained object v as libstdc++'s
// SingleObjContainerPrinter does (optional, variant, any): where v's own
// printer has children, "HEAD containing" v's head and v's children with
// v's hint; else HEAD and one child, "[contained value]", under hint.
func (env *printer) contained(head, hint string, v dwarf.Object) pretty {
	if inner, ok := env.prettyPrint(v); ok && inner.kids {
		if inner.err != nil && inner.head == "" && len(inner.children) == 0 {
			// v's printer raised in its to_string, which this one's
			// calls: GDB prints the whole value as that error
			return pretty{err: inner.err, kids: true}
		}
		inner.head = head + " containing " + inner.head
		if inner.hint == "" {
			// display_hint: v's own only where its printer has one
			// (a shared_ptr's has none: {0x…} in a variant)
			inner.hint = hint
		}
		return inner
	}
	return pretty{head: head, hint: hint, children: []prettyChild{{name: "[contained value]", val: v}}}
}
