package dwarf

import (
	stddwarf "debug/dwarf"
	"encoding/binary"
	"strings"
)

// RustDynType is the concrete type of the value a Rust trait object
// points to, from its vtable's file address: rustc describes each vtable
// as a variable named "<T as Trait>::{vtable}" whose type's
// DW_AT_containing_type is T (GDB's rust_vtable_symbol). The vtables are
// indexed on the first call. ok is false for an address that is no
// vtable's.
func (img *Image) RustDynType(addr uint64) (stddwarf.Offset, bool) {
	img.vtOnce.Do(img.indexVtables)
	off, ok := img.vtables[addr]
	return off, ok
}

func (img *Image) indexVtables() {
	img.indexAll()
	img.vtables = map[uint64]stddwarf.Offset{}
	seen := map[stddwarf.Offset]bool{}
	for name, decls := range img.globals {
		if !strings.HasSuffix(name, "::{vtable}") {
			continue
		}
		for _, d := range decls {
			if seen[d.off] {
				continue
			}
			seen[d.off] = true
			r := img.dw.Reader()
			r.Seek(d.off)
			e, err := r.Next()
			if err != nil || e == nil {
				continue
			}
			loc, _ := e.Val(stddwarf.AttrLocation).([]byte)
			typ, _ := e.Val(stddwarf.AttrType).(stddwarf.Offset)
			if len(loc) != 9 || loc[0] != 0x03 || typ == 0 { // DW_OP_addr
				continue
			}
			r.Seek(typ)
			te, err := r.Next()
			if err != nil || te == nil {
				continue
			}
			if concrete, ok := te.Val(stddwarf.AttrContainingType).(stddwarf.Offset); ok {
				img.vtables[binary.LittleEndian.Uint64(loc[1:])] = concrete
			}
		}
	}
}
