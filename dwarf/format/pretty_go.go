package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// prettyPrintGo prints Go's runtime representations the way Go (and
// delve) show them: a string as its quoted contents, a slice as its
// length, capacity and elements. Other Go types print as their structs.
func (env *printer) prettyPrintGo(o dwarf.Object, st *dwarf.StructType) (pretty, bool) {
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
func (env *printer) ppGoString(o dwarf.Object) (pretty, error) {
	addr, n, err := env.GoString(o)
	if errors.Is(err, dwarf.ErrUnsupported) {
		return pretty{}, errNotPretty // not initialized yet, or no string: print the struct
	}
	if err != nil {
		return pretty{}, err
	}
	if n == 0 {
		return pretty{isString: true, str: `""`}, nil
	}
	limit := uint64(env.maxElements())
	b, err := env.Read(addr, int(min(n, limit)))
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
func (env *printer) ppGoSlice(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	arr, err := env.Member(o, "array")
	if err != nil {
		return pretty{}, err
	}
	ln, err := env.Member(o, "len")
	if err != nil {
		return pretty{}, err
	}
	cp, err := env.Member(o, "cap")
	if err != nil {
		return pretty{}, err
	}
	pt, ok := dwarf.Resolve(arr.Type).(*dwarf.PointerType)
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
	size := uint64(dwarf.Resolve(pt.Elem).Size())
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n && i < limit; i++ {
		p.children = append(p.children, prettyChild{name: fmt.Sprintf("[%d]", i), val: dwarf.MemObject(pt.Elem, addr+i*size)})
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
func (env *printer) ppGoInterface(o dwarf.Object, st *dwarf.StructType) (pretty, error) {
	if env.Symbolize == nil || env.Types == nil {
		return pretty{}, errNotPretty
	}
	tab, err := env.Member(o, st.Fields[0].Name)
	if err != nil {
		return pretty{}, err
	}
	data, err := env.Member(o, "data")
	if err != nil {
		return pretty{}, err
	}
	ta, err := env.Uint(tab)
	if err != nil {
		return pretty{}, err
	}
	name := st.Name // runtime.iface; the declared type's name (error) when there is one
	if td, ok := o.Type.(*dwarf.TypedefType); ok && td.Name != "" {
		name = td.Name
	}
	if ta == 0 {
		return pretty{isString: true, str: name + "(nil)"}, nil
	}
	sym, ok := env.Symbolize(ta)
	if !ok {
		sym = "" // a descriptor in the packed type:* block (goTypeName)
	}
	var dyn string
	switch {
	case strings.HasPrefix(sym, "go:itab."):
		dyn = strings.TrimPrefix(sym, "go:itab.")
		if i := strings.LastIndex(dyn, ","); i > 0 {
			dyn = dyn[:i]
		}
	case strings.HasPrefix(sym, "type:") && !strings.Contains(sym, "+"):
		dyn = strings.TrimPrefix(sym, "type:")
	case st.Fields[0].Name == "_type":
		// A type descriptor inside the linker's packed type:* block: its
		// name is a nameOff from the block's start (the module's types).
		n, err := env.goTypeName(ta)
		if err != nil {
			return pretty{}, errNotPretty
		}
		dyn = n
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
			return pretty{isString: true, str: head + " *" + env.format(dwarf.MemObject(t, da), false, 1, nil)}, nil
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
	return pretty{isString: true, str: head + " " + env.format(dwarf.MemObject(t, da), false, 1, nil)}, nil
}

// prettyPrintGoPointer prints Go values that are pointers underneath:
// maps, as their entries (map[K]V len: N = {[k] = v, ...}).
func (env *printer) prettyPrintGoPointer(o dwarf.Object, pt *dwarf.PointerType) (pretty, bool) {
	name := dwarf.TypeString(o.Type)
	ms, ok := dwarf.Resolve(pt.Elem).(*dwarf.StructType)
	if !ok || !strings.HasPrefix(name, "map[") || !strings.HasPrefix(ms.Name, "map<") || env.Types == nil {
		return pretty{}, false
	}
	if a, err := env.Uint(o); err != nil {
		return pretty{}, false
	} else if a == 0 {
		return pretty{isString: true, str: name + " nil"}, true
	}
	var p pretty
	limit := env.maxElements()
	used, err := env.GoMapEntries(o, func(k, v dwarf.Object) bool {
		if len(p.children) >= limit {
			p.more = true
			return false
		}
		p.children = append(p.children, prettyChild{key: &k, val: v})
		return true
	})
	if err != nil {
		return pretty{}, false
	}
	p.head, p.hint = fmt.Sprintf("%s len: %d", name, used), "map"
	if len(p.children) == 0 {
		p.head += " = {}"
	}
	return p, true
}

// goTypeName reads the name of the Go type descriptor at ta: its Str is
// a nameOff from the start of the module's type descriptors (the symbol
// runtime.types, also type:*), and the name there is a flags byte, a
// varint length and the bytes (internal/abi.Name); a descriptor flagged
// TFlagExtraStar names its type with a leading '*' to drop.
func (env *printer) goTypeName(ta uint64) (string, error) {
	if env.SymbolAddr == nil {
		return "", errNotPretty
	}
	base, ok := env.SymbolAddr("runtime.types")
	if !ok {
		if base, ok = env.SymbolAddr("type:*"); !ok {
			return "", errNotPretty
		}
	}
	if base > ta {
		return "", errNotPretty
	}
	// internal/abi.Type's layout from the program's DWARF where it is
	// there, else Go 1.21+'s on 64-bit targets.
	tflagOff, strOff := int64(20), int64(40)
	if t, err := env.Types.LookupType("internal/abi.Type"); err == nil {
		if st, ok := dwarf.Resolve(t).(*dwarf.StructType); ok {
			for _, f := range st.Fields {
				switch f.Name {
				case "TFlag":
					tflagOff = f.ByteOffset
				case "Str":
					strOff = f.ByteOffset
				}
			}
		}
	}
	tflag, err := env.Read(ta+uint64(tflagOff), 1)
	if err != nil {
		return "", err
	}
	so, err := env.Read(ta+uint64(strOff), 4)
	if err != nil {
		return "", err
	}
	name := base + uint64(int64(int32(binary.LittleEndian.Uint32(so))))
	head, err := env.Read(name, 1+binary.MaxVarintLen16)
	if err != nil {
		return "", err
	}
	n, w := binary.Uvarint(head[1:])
	if w <= 0 || n == 0 || n > 4096 {
		return "", errNotPretty
	}
	b, err := env.Read(name+1+uint64(w), int(n))
	if err != nil {
		return "", err
	}
	const tflagExtraStar = 1 << 1
	text := string(b)
	if tflag[0]&tflagExtraStar != 0 {
		text = strings.TrimPrefix(text, "*")
	}
	return text, nil
}

// goFuncValue prints a Go func value: a pointer to a funcval, whose first
// word is the code it calls, as {func(int) int} 0x4bcbe0 <main.main.func1>
// ({func(int) int} nil for none). It is a value like any other (a
// register holds it at a function's entry), not a function's address.
func (env *printer) goFuncValue(o dwarf.Object, t *dwarf.FuncType) string {
	head := "{" + dwarf.TypeString(o.Type) + "} "
	// The value is a pointer, whatever size a function type has in C.
	word := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "uintptr", ByteSize: int64(env.PointerSize())}, Encoding: dwarf.EncUnsigned}
	fv, err := env.Uint(dwarf.Object{Type: word, Loc: o.Loc, Err: o.Err})
	if err != nil {
		return head + env.errorText(err)
	}
	if fv == 0 {
		return head + "nil"
	}
	code, err := env.ReadUint(fv, int(env.PointerSize()))
	if err != nil {
		return head + env.errorText(err)
	}
	return head + env.addrWithSym(code)
}
