package session

import (
	"context"
	"debug/elf"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/symbols"
)

// elfData finds a data symbol that has no debug information in the ELF
// symbol tables of the program and its loaded libraries, as GDB falls
// back to minimal symbols: its value has unknown type until cast.
func (s *Session) elfData(ctx context.Context, name string) (dwarf.Object, bool) {
	find := func(f *symbols.File, bias uint64) (dwarf.Object, bool) {
		if f == nil {
			return dwarf.Object{}, false
		}
		syms, err := f.LookupName(name)
		if err != nil {
			return dwarf.Object{}, false
		}
		for _, sym := range syms {
			if sym.Type == elf.STT_OBJECT && sym.Section != elf.SHN_UNDEF {
				return dwarf.NoDebugObject(name, sym.Addr+bias), true
			}
		}
		return dwarf.Object{}, false
	}
	if o, ok := find(s.syms, s.bias); ok {
		return o, true
	}
	l := s.loadLibs(ctx)
	if l == nil || l.as == nil {
		return dwarf.Object{}, false
	}
	for _, m := range l.as.Modules() {
		if f := l.files[m.Path]; f != nil {
			if o, ok := find(f, m.Bias); ok {
				return o, true
			}
		}
	}
	return dwarf.Object{}, false
}
