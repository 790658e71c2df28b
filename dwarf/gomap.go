package dwarf

import (
	"fmt"
	"strings"
)

// GoString reads the header of a Go string (struct string {str *uint8;
// len int}): where its bytes are and how many. A string of another
// layout is ErrUnsupported, one not initialized yet (a negative length)
// too.
func (env *ValueEnv) GoString(o Object) (addr, n uint64, err error) {
	str, err := env.Member(o, "str")
	if err != nil {
		return 0, 0, err
	}
	ln, err := env.Member(o, "len")
	if err != nil {
		return 0, 0, err
	}
	pt, ok := Resolve(str.Type).(*PointerType)
	if !ok || SizeOf(pt.Elem) != 1 {
		return 0, 0, fmt.Errorf("a Go string of another layout: %w", ErrUnsupported)
	}
	if addr, err = env.Uint(str); err != nil {
		return 0, 0, err
	}
	if n, err = env.Uint(ln); err != nil {
		return 0, 0, err
	}
	if int64(n) < 0 {
		return 0, 0, fmt.Errorf("a Go string of length %d (not set yet): %w", int64(n), ErrUnsupported)
	}
	return addr, n, nil
}

// maxGoMapGroups bounds the groups GoMapEntries walks.
const maxGoMapGroups = 1 << 16

// GoMapEntries calls yield with the key and the element of each entry of
// the Go map m (a map[K]V: a pointer to the runtime's Swiss table, Go
// 1.24 and later), until yield returns false, and returns the map's
// length (its used count). A small map is one group at dirPtr (dirLen 0);
// a large one a directory of dirLen table pointers (tables repeat in the
// directory), each with lengthMask+1 groups. A group is a control word
// and eight slots {key, elem}; a slot is full when its control byte has
// the high bit clear. The layouts come from the DWARF types the compiler
// emits (map<K,V>, table<K,V>, noalg.map.group[K]V); a map whose types
// are not those is ErrUnsupported. A nil map has no entries.
func (env *ValueEnv) GoMapEntries(m Object, yield func(key, elem Object) bool) (used uint64, err error) {
	name := TypeString(m.Type)
	pt, ok := Resolve(m.Type).(*PointerType)
	if !ok || !strings.HasPrefix(name, "map[") || env.Types == nil {
		return 0, fmt.Errorf("%s is not a Go map: %w", name, ErrUnsupported)
	}
	ms, ok := Resolve(pt.Elem).(*StructType)
	if !ok || !strings.HasPrefix(ms.Name, "map<") {
		return 0, fmt.Errorf("%s is not a Go map: %w", name, ErrUnsupported)
	}
	a, err := env.Uint(m)
	if err != nil || a == 0 {
		return 0, err
	}
	hdr := MemObject(ms, a)
	var dirPtr, dirLen uint64
	for _, f := range []struct {
		name string
		dst  *uint64
	}{{"used", &used}, {"dirPtr", &dirPtr}, {"dirLen", &dirLen}} {
		fo, err := env.Member(hdr, f.name)
		if err != nil {
			return 0, err
		}
		if *f.dst, err = env.Uint(fo); err != nil {
			return 0, err
		}
	}
	layout := fmt.Errorf("%s: not the runtime's map layout: %w", name, ErrUnsupported)
	gt, err := env.Types.LookupType("noalg.map.group" + strings.TrimPrefix(name, "map"))
	if err != nil {
		return 0, layout
	}
	gsize := uint64(Resolve(gt).Size())
	var groups []uint64
	if dirLen == 0 {
		groups = []uint64{dirPtr}
	} else {
		if dirLen > maxGoMapGroups {
			return 0, layout
		}
		dp, err := env.Member(hdr, "dirPtr") // table<K,V> **
		if err != nil {
			return 0, err
		}
		tpp, ok := Resolve(dp.Type).(*PointerType)
		if !ok {
			return 0, layout
		}
		tp, ok := Resolve(tpp.Elem).(*PointerType)
		if !ok {
			return 0, layout
		}
		seen := map[uint64]bool{}
		for i := uint64(0); i < dirLen; i++ {
			ta, err := env.Uint(MemObject(tpp.Elem, dirPtr+8*i))
			if err != nil {
				return 0, err
			}
			if ta == 0 || seen[ta] {
				continue
			}
			seen[ta] = true
			g, err := env.MemberPath(MemObject(tp.Elem, ta), "groups", "data")
			if err != nil {
				return 0, err
			}
			lm, err := env.MemberPath(MemObject(tp.Elem, ta), "groups", "lengthMask")
			if err != nil {
				return 0, err
			}
			data, err1 := env.Uint(g)
			mask, err2 := env.Uint(lm)
			if err1 != nil || err2 != nil || mask >= maxGoMapGroups || uint64(len(groups))+mask+1 > maxGoMapGroups {
				return 0, layout
			}
			for j := uint64(0); j <= mask; j++ {
				groups = append(groups, data+j*gsize)
			}
		}
	}
	for _, ga := range groups {
		g := MemObject(gt, ga)
		ctrlO, err := env.Member(g, "ctrl")
		if err != nil {
			return 0, err
		}
		ctrl, err := env.Uint(ctrlO)
		if err != nil {
			return 0, err
		}
		slots, err := env.Member(g, "slots")
		if err != nil || slots.Loc.Kind != LocAddress {
			return 0, layout
		}
		at, ok := Resolve(slots.Type).(*ArrayType)
		if !ok || at.Count != 8 {
			return 0, layout
		}
		ssize := uint64(Resolve(at.Elem).Size())
		for i := uint64(0); i < 8; i++ {
			if (ctrl>>(8*i))&0x80 != 0 {
				continue // empty or deleted
			}
			slot := MemObject(at.Elem, slots.Loc.Addr+i*ssize)
			k, err1 := env.Member(slot, "key")
			v, err2 := env.Member(slot, "elem")
			if err1 != nil || err2 != nil {
				return 0, layout
			}
			if !yield(k, v) {
				return used, nil
			}
		}
	}
	return used, nil
}
