package dwarf

import (
	"fmt"
	"strings"
)

// dwLangGo is DW_LANG_Go.
const dwLangGo = 0x16

// prettyPrintGo prints Go's runtime representations the way Go (and
// delve) show them: a string as its quoted contents, a slice as its
// length, capacity and elements. Other Go types print as their structs.
func (env *ValueEnv) prettyPrintGo(o Object, st *StructType) (pretty, bool) {
	var p pretty
	var err error
	switch {
	case st.Name == "string":
		p, err = env.ppGoString(o)
	case strings.HasPrefix(st.Name, "[]"):
		p, err = env.ppGoSlice(o, st)
	case len(st.Fields) == 2 && st.Fields[1].Name == "data" && (st.Fields[0].Name == "tab" || st.Fields[0].Name == "_type"):
		p, err = env.ppGoInterface(o, st)
	default:
		return pretty{}, false
	}
	if err != nil {
		return pretty{}, false
	}
	return p, true
}

// ppGoString: struct string {str *uint8; len int} → "contents".
func (env *ValueEnv) ppGoString(o Object) (pretty, error) {
	str, err := env.member(o, "str")
	if err != nil {
		return pretty{}, err
	}
	ln, err := env.member(o, "len")
	if err != nil {
		return pretty{}, err
	}
	pt, ok := Resolve(str.Type).(*PointerType)
	if !ok {
		return pretty{}, errNotPretty
	}
	bt, ok := Resolve(pt.Elem).(*BaseType)
	if !ok || bt.ByteSize != 1 {
		return pretty{}, errNotPretty
	}
	addr, err := env.Uint(str)
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(ln)
	if err != nil {
		return pretty{}, err
	}
	if int64(n) < 0 {
		return pretty{}, errNotPretty // not initialized yet: print the struct
	}
	if n == 0 {
		return pretty{isString: true, str: `""`}, nil
	}
	limit := uint64(env.maxElements())
	b, err := env.read(addr, int(min(n, limit)))
	if err != nil {
		return pretty{}, err
	}
	s := fmt.Sprintf("%q", b)
	if n > limit {
		s += "..."
	}
	return pretty{isString: true, str: s}, nil
}

// ppGoSlice: struct []T {array *T; len int; cap int} → "[]T len: 2, cap: 4
// = {e0, e1}".
func (env *ValueEnv) ppGoSlice(o Object, st *StructType) (pretty, error) {
	arr, err := env.member(o, "array")
	if err != nil {
		return pretty{}, err
	}
	ln, err := env.member(o, "len")
	if err != nil {
		return pretty{}, err
	}
	cp, err := env.member(o, "cap")
	if err != nil {
		return pretty{}, err
	}
	pt, ok := Resolve(arr.Type).(*PointerType)
	if !ok || pt.Elem == nil {
		return pretty{}, errNotPretty
	}
	addr, err := env.Uint(arr)
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(ln)
	if err != nil {
		return pretty{}, err
	}
	c, err := env.Uint(cp)
	if err != nil {
		return pretty{}, err
	}
	if int64(n) < 0 || int64(c) < 0 || n > c {
		return pretty{}, errNotPretty // not initialized yet: print the struct
	}
	p := pretty{head: fmt.Sprintf("%s len: %d, cap: %d", st.Name, n, c), hint: "array"}
	size := uint64(Resolve(pt.Elem).Size())
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n && i < limit; i++ {
		p.children = append(p.children, prettyChild{name: fmt.Sprintf("[%d]", i), val: MemObject(pt.Elem, addr+i*size)})
	}
	p.more = n > limit
	if n == 0 {
		p.head += " = {}"
	}
	return p, nil
}

// ppGoInterface prints an interface value as its dynamic type and value,
// e.g. error(*errors.errorString) *{s = "file does not exist"}. The
// dynamic type's name comes from the symbol of the itab (non-empty
// interface: go:itab.DYN,IFACE) or of the type descriptor (any:
// type:DYN, where the linker keeps one symbol per type); nil interfaces
// print as IFACE(nil). An empty interface whose type descriptor has no
// symbol of its own (recent linkers pack them) prints as its struct.
func (env *ValueEnv) ppGoInterface(o Object, st *StructType) (pretty, error) {
	if env.Symbolize == nil || env.Types == nil {
		return pretty{}, errNotPretty
	}
	tab, err := env.member(o, st.Fields[0].Name)
	if err != nil {
		return pretty{}, err
	}
	data, err := env.member(o, "data")
	if err != nil {
		return pretty{}, err
	}
	ta, err := env.Uint(tab)
	if err != nil {
		return pretty{}, err
	}
	name := st.Name // runtime.iface; the declared type's name (error) when there is one
	if td, ok := o.Type.(*TypedefType); ok && td.Name != "" {
		name = td.Name
	}
	if ta == 0 {
		return pretty{isString: true, str: name + "(nil)"}, nil
	}
	sym, ok := env.Symbolize(ta)
	if !ok || strings.Contains(sym, "+") {
		return pretty{}, errNotPretty
	}
	var dyn string
	switch {
	case strings.HasPrefix(sym, "go:itab."):
		dyn = strings.TrimPrefix(sym, "go:itab.")
		if i := strings.LastIndex(dyn, ","); i > 0 {
			dyn = dyn[:i]
		}
	case strings.HasPrefix(sym, "type:"):
		dyn = strings.TrimPrefix(sym, "type:")
	default:
		return pretty{}, errNotPretty
	}
	da, err := env.Uint(data)
	if err != nil {
		return pretty{}, err
	}
	head := fmt.Sprintf("%s(%s)", name, dyn)
	// A pointer stored directly in the interface: print what it points to.
	if elem, ok := strings.CutPrefix(dyn, "*"); ok {
		if t, err := env.Types.LookupType(elem); err == nil && da != 0 {
			return pretty{isString: true, str: head + " *" + env.format(MemObject(t, da), false, 1, nil)}, nil
		}
		return pretty{isString: true, str: fmt.Sprintf("%s %#x", head, da)}, nil
	}
	// Maps, channels and functions are pointer-shaped: data is the value.
	for _, p := range []string{"map[", "chan ", "func("} {
		if strings.HasPrefix(dyn, p) {
			return pretty{isString: true, str: fmt.Sprintf("%s %#x", head, da)}, nil
		}
	}
	// Anything else is boxed: data points to the value.
	t, err := env.Types.LookupType(dyn)
	if err != nil || da == 0 {
		return pretty{isString: true, str: fmt.Sprintf("%s %#x", head, da)}, nil
	}
	return pretty{isString: true, str: head + " " + env.format(MemObject(t, da), false, 1, nil)}, nil
}
