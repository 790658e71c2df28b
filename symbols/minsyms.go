package symbols

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"strings"
)

// GDB names a pc that has no DWARF by its minimal symbols: the code
// symbols of the file. FunctionAt reproduces its choice, which differs
// from LookupAddr's: only code is considered, and among symbols at one
// address the last by strcmp wins (GDB sorts them by address and name
// and takes the last of an address), whatever their binding: raise over
// its weak alias gsignal, malloc over __libc_malloc.

// gdbFunctions returns the code symbols of all, sorted by address with
// one symbol per address: functions, IFUNCs, sized untyped symbols and
// the unsized "_start*" labels.
func gdbFunctions(all []Symbol) []Symbol {
	var out []Symbol
	for _, s := range all {
		if s.Addr != 0 && gdbCode(s.Type, s.Size, s.Name) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b Symbol) int {
		return cmp.Or(cmp.Compare(a.Addr, b.Addr), cmp.Compare(b.Name, a.Name))
	})
	return slices.CompactFunc(out, func(a, b Symbol) bool { return a.Addr == b.Addr })
}

// gdbCode reports whether a symbol is code as GDB's minimal symbols see
// it: a function, an IFUNC, a sized untyped symbol or an unsized
// "_start*" label.
func gdbCode(typ elf.SymType, size uint64, name string) bool {
	switch typ {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC:
		return true
	case elf.STT_NOTYPE:
		return size > 0 || strings.HasPrefix(name, "_start")
	}
	return false
}

// FunctionAt returns the code symbol covering the link-time address addr
// as GDB picks it for a frame without DWARF, and addr's offset into it. A
// symbol without a size covers up to the next one. It returns an error
// wrapping ErrNoSymbol if none covers addr.
func (f *File) FunctionAt(addr uint64) (Symbol, uint64, error) {
	st, err := f.symbols()
	if err != nil {
		return Symbol{}, 0, err
	}
	fs := st.funcs
	i, found := slices.BinarySearchFunc(fs, addr, func(s Symbol, a uint64) int { return cmp.Compare(s.Addr, a) })
	if !found {
		i--
	}
	if i < 0 {
		return Symbol{}, 0, fmt.Errorf("address %#x: %w", addr, ErrNoSymbol)
	}
	s := fs[i]
	end := s.Addr + s.Size
	if s.Size == 0 && i+1 < len(fs) {
		end = fs[i+1].Addr
	}
	if addr >= end && end != s.Addr {
		return Symbol{}, 0, fmt.Errorf("address %#x: %w", addr, ErrNoSymbol)
	}
	return s, addr - s.Addr, nil
}

// FunctionAddr returns the link-time address of the code symbol with this
// exact (mangled, unversioned) name, as FunctionAt sees the table.
func (f *File) FunctionAddr(name string) (uint64, error) {
	st, err := f.symbols()
	if err != nil {
		return 0, err
	}
	for _, s := range st.funcs {
		if s.Name == name {
			return s.Addr, nil
		}
	}
	return 0, fmt.Errorf("function symbol %q: %w", name, ErrNoSymbol)
}

// FunctionNamedAt returns the name (without version) of a code symbol
// whose value is exactly addr, as FunctionAt would name it, without
// indexing the tables when nothing has yet: one pass over .symtab (or
// the separate debug file's), then .dynsym. Naming one address, such as
// the entry point at a first stop in the loader, then costs no sorted
// copy of a large program's table.
func (f *File) FunctionNamedAt(addr uint64) (string, bool) {
	src := f
	if f.elf.SectionByType(elf.SHT_SYMTAB) == nil {
		if d, err := f.DebugFile(); err == nil {
			src = d
		}
	}
	var found string // the last by strcmp, as FunctionAt picks
	look := func(file *File) func(RawSymbol) bool {
		return func(e RawSymbol) bool {
			if e.Value != addr || !file.addressable(e.Name, e.Info, e.Section) {
				return true
			}
			name, _ := SplitVersion(string(e.Name))
			if gdbCode(elf.ST_TYPE(e.Info), e.Size, name) && name > found {
				found = name
			}
			return true
		}
	}
	_ = src.EachSymbol(elf.SHT_SYMTAB, look(src))
	_ = f.EachSymbol(elf.SHT_DYNSYM, look(f))
	return found, found != ""
}
