package session

import (
	"context"
	"debug/elf"
	"path/filepath"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/linespec"
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
		exact := strings.TrimPrefix(name, "::")
		for _, sym := range syms {
			// LookupName also answers a "::"-suffix (Class::member for
			// member); an expression's name is the symbol's whole name,
			// as GDB's minimal symbols match it.
			if sym.Type == elf.STT_OBJECT && sym.Section != elf.SHN_UNDEF &&
				(sym.Name == exact || symbols.Demangle(sym.Name) == exact) {
				return dwarf.NoDebugObject(name, sym.Addr+bias), true
			}
		}
		return dwarf.Object{}, false
	}
	if o, ok := find(s.inf.Syms, s.inf.Bias); ok {
		return o, true
	}
	as := s.inf.AddressSpace(ctx)
	if as == nil {
		return dwarf.Object{}, false
	}
	for _, m := range as.Modules() {
		if f := s.inf.LibSymbols(m.Path); f != nil {
			if o, ok := find(f, m.Bias); ok {
				return o, true
			}
		}
	}
	return dwarf.Object{}, false
}

// noSymbolHint says where a name was looked up and which names there are
// close to it: " (looked in the locals and arguments of main, the globals
// and functions of prog and the ELF symbol tables; close: count, counter)".
func (s *Session) noSymbolHint(ctx context.Context, f *dwarf.Frame, name string) string {
	where := []string{}
	var names []string
	if f != nil && f.Function != nil {
		where = append(where, "the locals and arguments of "+f.Function.Name)
		for _, v := range f.Params(ctx) {
			names = append(names, v.Name)
		}
		for _, v := range f.Locals(ctx) {
			names = append(names, v.Name)
		}
	}
	if s.inf.Img != nil {
		where = append(where, "the globals and functions of "+filepath.Base(s.program))
		names = append(names, s.inf.Img.GlobalNames()...)
		for _, f := range s.inf.Img.Functions() {
			names = append(names, f.Name)
		}
	}
	where = append(where, "the ELF symbol tables")
	if s.inf.Syms != nil {
		if syms, err := s.inf.Syms.Symbols(); err == nil {
			for _, sym := range syms {
				if sym.Type == elf.STT_OBJECT || sym.Type == elf.STT_FUNC {
					names = append(names, sym.Name)
				}
			}
		}
	}
	close := linespec.CloseNames(name, names)
	if len(close) > 6 {
		close = close[:6]
	}
	hint := " (looked in " + strings.Join(where, ", ") + ")"
	if len(close) > 0 {
		hint += "; close names: " + strings.Join(close, ", ")
	}
	return hint
}
