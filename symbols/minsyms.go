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
// address the first in table order (.symtab, then .dynsym, then the PLT
// stubs) wins.

// gdbFunctions returns the code symbols of all (in table order), sorted by
// address with one symbol per address: functions, IFUNCs, sized untyped
// symbols and the unsized "_start*" labels.
func gdbFunctions(all []Symbol) []Symbol {
	var out []Symbol
	for _, s := range all {
		switch {
		case s.Addr == 0:
			continue
		case s.Type == elf.STT_FUNC, s.Type == elf.STT_GNU_IFUNC:
		case s.Type == elf.STT_NOTYPE && (s.Size > 0 || strings.HasPrefix(s.Name, "_start")):
		default:
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Symbol) int { return cmp.Compare(a.Addr, b.Addr) })
	return slices.CompactFunc(out, func(a, b Symbol) bool { return a.Addr == b.Addr })
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
