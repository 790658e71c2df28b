package dwarf

import (
	"debug/elf"
	"sort"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// symbolTable names addresses the way GDB's <sym+off> does: function and
// object symbols of one ELF file, by file address.
type symbolTable struct {
	syms []elfSymbol
}

type elfSymbol struct {
	addr, size uint64
	name       string
	fn         bool
	local      bool
}

func newSymbolTable(f *elf.File) *symbolTable {
	st := &symbolTable{}
	if f == nil {
		return st
	}
	add := func(syms []elf.Symbol) {
		for _, s := range syms {
			typ := elf.ST_TYPE(s.Info)
			if s.Name == "" || s.Section == elf.SHN_UNDEF || s.Value == 0 ||
				(typ != elf.STT_FUNC && typ != elf.STT_OBJECT && typ != elf.STT_GNU_IFUNC) {
				continue
			}
			st.syms = append(st.syms, elfSymbol{s.Value, s.Size, s.Name, typ != elf.STT_OBJECT, elf.ST_BIND(s.Info) == elf.STB_LOCAL})
		}
	}
	if syms, err := f.Symbols(); err == nil {
		add(syms)
	}
	if len(st.syms) == 0 {
		if syms, err := f.DynamicSymbols(); err == nil {
			add(syms)
		}
	}
	// By address; among equal addresses global names sort first and
	// win (stable order from the table otherwise).
	sort.SliceStable(st.syms, func(i, j int) bool { return st.syms[i].addr < st.syms[j].addr })
	return st
}

// lookup returns the symbol covering file address a and the offset.
func (st *symbolTable) lookup(a uint64) (elfSymbol, uint64, bool) {
	i := sort.Search(len(st.syms), func(i int) bool { return st.syms[i].addr > a }) - 1
	for ; i >= 0 && i >= len(st.syms)-1-len(st.syms); i-- {
		s := st.syms[i]
		if a == s.addr || a < s.addr+s.size {
			// prefer the first symbol at this address (sorted stable)
			for i > 0 && st.syms[i-1].addr == s.addr && (a == s.addr || a < st.syms[i-1].addr+st.syms[i-1].size) {
				i--
				s = st.syms[i]
			}
			return s, a - s.addr, true
		}
		if s.addr+s.size <= a && s.size > 0 {
			// a sized symbol ending before a: keep looking only at
			// symbols at the same address (aliases with larger size)
			if i > 0 && st.syms[i-1].addr == s.addr {
				continue
			}
			return elfSymbol{}, 0, false
		}
	}
	return elfSymbol{}, 0, false
}

// displayName is the name GDB prints inside <...>: demangled with
// parameters for C++ (with cxxFunc the name of an unmangled C++ function
// gets "()" as GDB's physname does).
func (s elfSymbol) displayName(cxxFunc string) string {
	name := s.name
	if at := strings.IndexByte(name, '@'); at > 0 {
		name = name[:at]
	}
	if strings.HasPrefix(name, "_Z") {
		if d, err := demangle.ToString(name); err == nil {
			return d
		}
		return name
	}
	if cxxFunc != "" {
		return cxxFunc
	}
	if !s.fn && s.local {
		// gcc names function-local statics "buf.0"; GDB shows the
		// variable's name
		if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 && strings.Trim(name[i+1:], "0123456789") == "" {
			return name[:i]
		}
	}
	return name
}

func symbolText(name string, off uint64) string {
	if off == 0 {
		return name
	}
	return name + "+" + strconv.FormatUint(off, 10)
}
