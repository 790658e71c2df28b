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
