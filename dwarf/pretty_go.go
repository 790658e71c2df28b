package dwarf

import (
	"encoding/binary"
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

// prettyPrintGoPointer prints Go values that are pointers underneath:
// maps, as their entries.
func (env *ValueEnv) prettyPrintGoPointer(o Object, pt *PointerType) (pretty, bool) {
	name := typeString(o.Type)
	ms, ok := Resolve(pt.Elem).(*StructType)
	if !ok || !strings.HasPrefix(name, "map[") || !strings.HasPrefix(ms.Name, "map<") || env.Types == nil {
		return pretty{}, false
	}
	p, err := env.ppGoMap(o, ms, name)
	if err != nil {
		return pretty{}, false
	}
	return p, true
}

// maxMapGroups bounds the groups a map printer walks.
const maxMapGroups = 1 << 16

// ppGoMap prints a Go map (the runtime's Swiss table, Go 1.24 and later)
// as map[K]V len: N = {[k] = v, ...}: a small map is one group at dirPtr
// (dirLen 0); a large one a directory of dirLen table pointers (tables
// repeat in the directory), each with lengthMask+1 groups. A group is a
// control word and eight slots {key, elem}; a slot is full when its
// control byte has the high bit clear. The layouts come from the DWARF
// types the compiler emits (map<K,V>, table<K,V>, noalg.map.group[K]V).
func (env *ValueEnv) ppGoMap(o Object, ms *StructType, name string) (pretty, error) {
	a, err := env.Uint(o)
	if err != nil {
		return pretty{}, err
	}
	if a == 0 {
		return pretty{isString: true, str: name + " nil"}, nil
	}
	m := MemObject(ms, a)
	var used, dirPtr, dirLen uint64
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"used", &used}, {"dirPtr", &dirPtr}, {"dirLen", &dirLen}} {
		fo, err := env.member(m, f.name)
		if err != nil {
			return pretty{}, err
		}
		if *f.dst, err = env.Uint(fo); err != nil {
			return pretty{}, err
		}
	}
	gt, err := env.Types.LookupType("noalg.map.group" + strings.TrimPrefix(name, "map"))
	if err != nil {
		return pretty{}, errNotPretty
	}
	gsize := uint64(Resolve(gt).Size())
	var groups []uint64
	if dirLen == 0 {
		groups = []uint64{dirPtr}
	} else {
		if dirLen > maxMapGroups {
			return pretty{}, errNotPretty
		}
		dp, err := env.member(m, "dirPtr") // table<K,V> **
		if err != nil {
			return pretty{}, err
		}
		tpp, ok := Resolve(dp.Type).(*PointerType)
		if !ok {
			return pretty{}, errNotPretty
		}
		tp, ok := Resolve(tpp.Elem).(*PointerType)
		if !ok {
			return pretty{}, errNotPretty
		}
		seen := map[uint64]bool{}
		for i := uint64(0); i < dirLen; i++ {
			ta, err := env.Uint(MemObject(tpp.Elem, dirPtr+8*i))
			if err != nil {
				return pretty{}, err
			}
			if ta == 0 || seen[ta] {
				continue
			}
			seen[ta] = true
			g, err := env.memberPath(MemObject(tp.Elem, ta), "groups", "data")
			if err != nil {
				return pretty{}, err
			}
			lm, err := env.memberPath(MemObject(tp.Elem, ta), "groups", "lengthMask")
			if err != nil {
				return pretty{}, err
			}
			data, err1 := env.Uint(g)
			mask, err2 := env.Uint(lm)
			if err1 != nil || err2 != nil || mask >= maxMapGroups || uint64(len(groups))+mask+1 > maxMapGroups {
				return pretty{}, errNotPretty
			}
			for j := uint64(0); j <= mask; j++ {
				groups = append(groups, data+j*gsize)
			}
		}
	}
	p := pretty{head: fmt.Sprintf("%s len: %d", name, used), hint: "map"}
	limit := env.maxElements()
	for _, ga := range groups {
		g := MemObject(gt, ga)
		ctrlO, err := env.member(g, "ctrl")
		if err != nil {
			return pretty{}, err
		}
		ctrl, err := env.Uint(ctrlO)
		if err != nil {
			return pretty{}, err
		}
		slots, err := env.member(g, "slots")
		if err != nil || slots.Loc.Kind != LocAddress {
			return pretty{}, errNotPretty
		}
		at, ok := Resolve(slots.Type).(*ArrayType)
		if !ok || at.Count != 8 {
			return pretty{}, errNotPretty
		}
		ssize := uint64(Resolve(at.Elem).Size())
		for i := uint64(0); i < 8; i++ {
			if (ctrl>>(8*i))&0x80 != 0 {
				continue // empty or deleted
			}
			if len(p.children) >= limit {
				p.more = true
				return p, nil
			}
			slot := MemObject(at.Elem, slots.Loc.Addr+i*ssize)
			k, err1 := env.member(slot, "key")
			v, err2 := env.member(slot, "elem")
			if err1 != nil || err2 != nil {
				return pretty{}, errNotPretty
			}
			p.children = append(p.children, prettyChild{key: &k, val: v})
		}
	}
	if len(p.children) == 0 {
		p.head += " = {}"
	}
	return p, nil
}

// goTypeName reads the name of the Go type descriptor at ta: its Str is
// a nameOff from the start of the module's type descriptors (the symbol
// runtime.types, also type:*), and the name there is a flags byte, a
// varint length and the bytes (internal/abi.Name); a descriptor flagged
// TFlagExtraStar names its type with a leading '*' to drop.
func (env *ValueEnv) goTypeName(ta uint64) (string, error) {
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
		if st, ok := Resolve(t).(*StructType); ok {
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
	tflag, err := env.read(ta+uint64(tflagOff), 1)
	if err != nil {
		return "", err
	}
	so, err := env.read(ta+uint64(strOff), 4)
	if err != nil {
		return "", err
	}
	name := base + uint64(int64(int32(binary.LittleEndian.Uint32(so))))
	head, err := env.read(name, 1+binary.MaxVarintLen16)
	if err != nil {
		return "", err
	}
	n, w := binary.Uvarint(head[1:])
	if w <= 0 || n == 0 || n > 4096 {
		return "", errNotPretty
	}
	b, err := env.read(name+1+uint64(w), int(n))
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
