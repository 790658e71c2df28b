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

// libraryGlobal finds a global or static variable, or a function, of a
// loaded library other than f's in the library's debug information, as
// GDB looks in every objfile's symbols before any minimal symbol: from
// the program's frame, a library's function prints with its type and a
// library's table can be read. The library is the one whose ELF symbols
// define name, so a name no module has (a typo) reads no library's debug
// information. A function is first looked for under its own name, in
// every library (ld.so's index and strchr, each its own); then, as GDB
// takes a minimal symbol that is an alias for the function whose entry it
// is (find_function_alias_target: malloc for __libc_malloc), at the
// symbol's address, but not for an IFUNC symbol (rindex is not its
// resolver strrchr_ifunc: elfSymbol says what it is). A variable is
// found by its name.
func (s *Session) libraryGlobal(ctx context.Context, name string, f *dwarf.Frame, t *dwarf.Target, sc *dwarf.FrameScope) (o dwarf.Object, ok bool) {
	exact := strings.TrimPrefix(name, "::")
	lib := func(sym symbols.Symbol, m symbols.Module) *dwarf.Image {
		if m.Path == s.program || sym.Name != exact && symbols.Demangle(sym.Name) != exact {
			return nil
		}
		if img := s.inf.LibImage(m.Path); img != nil && img != f.Image && img.DWARF() != nil {
			return img
		}
		return nil
	}
	function := func(img *dwarf.Image, fn *dwarf.Function, sym symbols.Symbol, m symbols.Module) bool {
		if fn == nil || fn.Entry != sym.Addr {
			return false
		}
		if types := s.inf.Types(img); types != nil {
			if ft, err := types.FuncTypeOf(fn.Offset); err == nil {
				o, ok = dwarf.MemObject(ft, sym.Addr+m.Bias), true
			}
		}
		return ok
	}
	s.definedSymbols(ctx, name, func(sym symbols.Symbol, m symbols.Module) bool {
		img := lib(sym, m)
		switch {
		case img == nil:
			return false
		case sym.InCode():
			if fn := img.FuncAt(sym.Addr); fn != nil && (fn.Name == exact || fn.LinkageName == exact) {
				return function(img, fn, sym, m)
			}
			for _, fn := range img.FuncsByName(exact) {
				if function(img, fn, sym, m) {
					return true
				}
			}
			return false
		}
		if v, err := img.Global(ctx, name, t, &f.Regs, m.Bias); err == nil {
			o, err = sc.Object(ctx, v)
			ok = err == nil
		}
		return ok
	})
	if !ok {
		s.definedSymbols(ctx, name, func(sym symbols.Symbol, m symbols.Module) bool {
			img := lib(sym, m)
			return img != nil && sym.InCode() && sym.Type != elf.STT_GNU_IFUNC && function(img, img.FuncAt(sym.Addr), sym, m)
		})
	}
	return o, ok
}

// moduleImages are the images with debug information of the program and
// its loaded libraries, in the order GDB goes through its objfiles: the
// program, then the libraries as the dynamic linker lists them. Opening
// a library's debug information is left to the first name looked for
// that no image read so far has.
func (s *Session) moduleImages(ctx context.Context) []*dwarf.Image {
	var out []*dwarf.Image
	if s.inf.Img != nil && s.inf.Img.DWARF() != nil {
		out = append(out, s.inf.Img)
	}
	as := s.inf.ReloadAddressSpace(ctx)
	if as == nil {
		return out
	}
	for _, m := range as.Modules() {
		if m.Path == s.program {
			continue
		}
		if img := s.inf.LibImage(m.Path); img != nil && img.DWARF() != nil {
			out = append(out, img)
		}
	}
	return out
}

// elfSymbol finds a symbol that has no debug information in the ELF
// symbol tables of the program and its loaded libraries, as GDB falls
// back to minimal symbols: a data symbol's value has unknown type until
// cast; code (a function of a library without DWARF, an assembler label)
// is a function of GDB's "<text variable, no debug info>" type.
func (s *Session) elfSymbol(ctx context.Context, name string, lang dwarf.Lang) (o dwarf.Object, ok bool) {
	exact := strings.TrimPrefix(name, "::")
	s.definedSymbols(ctx, name, func(sym symbols.Symbol, m symbols.Module) bool {
		bias := m.Bias
		// LookupName also answers a "::"-suffix (Class::member for
		// member); an expression's name is the symbol's whole name, as
		// GDB's minimal symbols match it.
		if sym.Name != exact && symbols.Demangle(sym.Name) != exact {
			return false
		}
		switch {
		case sym.InCode():
			o, ok = dwarf.NoDebugFunc(sym.Addr+bias, sym.Type == elf.STT_GNU_IFUNC, lang), true
		case sym.Type == elf.STT_OBJECT || sym.Type == elf.STT_NOTYPE:
			o, ok = dwarf.NoDebugObject(name, sym.Addr+bias), true
		}
		return ok
	})
	return o, ok
}

// symbolAddr is the runtime address of the defined ELF symbol name, the
// program's first (a copy-relocated stdout is there), then the loaded
// libraries', as GDB's minimal symbol lookup goes through the objfiles.
func (s *Session) symbolAddr(ctx context.Context, name string) (addr uint64, ok bool) {
	ok = s.definedSymbols(ctx, name, func(sym symbols.Symbol, m symbols.Module) bool {
		addr = sym.Addr + m.Bias
		return true
	})
	return addr, ok
}

// definedSymbols calls fn with each defined ELF symbol that LookupName
// finds for name, and its module, until fn returns true: the
// program's first, then the loaded libraries' (their list read again once
// per stop: the program may have loaded one since). It reports whether fn
// did.
func (s *Session) definedSymbols(ctx context.Context, name string, fn func(sym symbols.Symbol, m symbols.Module) bool) bool {
	if s.inf.Syms != nil {
		prog := symbols.Module{Path: s.program, Bias: s.inf.Bias}
		if syms, err := s.inf.Syms.LookupName(name); err == nil {
			for _, sym := range syms {
				if sym.Section != elf.SHN_UNDEF && fn(sym, prog) {
					return true
				}
			}
		}
	}
	as := s.inf.ReloadAddressSpace(ctx)
	if as == nil {
		return false
	}
	locs, err := as.LookupName(name)
	if err != nil {
		return false
	}
	for _, l := range locs {
		if l.Module.Path != s.program && l.Symbol.Section != elf.SHN_UNDEF && fn(l.Symbol, l.Module) {
			return true
		}
	}
	return false
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
			if !v.Label {
				names = append(names, v.Name)
			}
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
				if sym.Type == elf.STT_OBJECT || sym.InCode() {
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
