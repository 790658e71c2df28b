package symbols

import (
	"cmp"
	"debug/elf"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Source says which table a Symbol came from.
type Source uint8

const (
	SourceSymtab Source = iota + 1 // .symtab (of the file or its debug file)
	SourceDynsym                   // .dynsym
	SourcePLT                      // synthesized PLT stub (name@plt)
	SourceGOT                      // synthesized .got.plt slot of a PLT stub (name@got.plt)
)

func (s Source) String() string {
	switch s {
	case SourceSymtab:
		return "symtab"
	case SourceDynsym:
		return "dynsym"
	case SourcePLT:
		return "plt"
	case SourceGOT:
		return "got"
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// Symbol is a defined ELF symbol with a link-time address.
type Symbol struct {
	// Name is the symbol name with any version suffix removed
	// ("puts", "_ZN2ns3Foo3barEv"); PLT stubs are named "puts@plt".
	Name string
	// Version is the ELF symbol version ("GLIBC_2.2.5"), if any.
	Version string
	Addr    uint64
	Size    uint64
	Type    elf.SymType
	Bind    elf.SymBind
	Section elf.SectionIndex
	Source  Source
	// Slot is, for a PLT stub, the GOT slot it jumps through (link-time
	// address): what the stub calls once the dynamic linker has bound it.
	Slot uint64
	// Exec says the symbol's section holds code (SHF_EXECINSTR).
	Exec bool
}

// InCode reports whether s is code as GDB's minimal symbols of a name see
// it (elfread.c types them by their section): a function or IFUNC, or an
// untyped label (an assembler's "urg_here:") in an executable section.
func (s Symbol) InCode() bool {
	switch s.Type {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC:
		return true
	case elf.STT_NOTYPE:
		return s.Exec
	}
	return false
}

// Demangled returns the c++filt-style name (see Demangle).
func (s Symbol) Demangled() string { return Demangle(s.Name) }

// Contains reports whether addr lies in [Addr, Addr+Size).
func (s Symbol) Contains(addr uint64) bool {
	return addr >= s.Addr && addr-s.Addr < s.Size
}

// symtab is the decoded, indexed symbol table of a File.
type symtab struct {
	syms   []Symbol // sorted by address, then preference
	funcs  []Symbol // code symbols as GDB picks them (see FunctionAt)
	tls    []Symbol // STT_TLS symbols (Addr is an offset in the TLS block)
	groups []int    // index in syms of the first symbol of each address
	secs   []secRange

	nameOnce sync.Once
	byName   map[string][]int32 // raw and demangled keys → index (see at)
	byLast   map[string][]int32 // last qualified component → index
	keys     [][]string         // demangled keys per symbol (nil for C names)
}

type secRange struct{ lo, hi uint64 }

// symbols decodes the tables on first use.
func (f *File) symbols() (*symtab, error) {
	f.symOnce.Do(func() { f.syms, f.symErr = f.loadSymbols() })
	return f.syms, f.symErr
}

// Symbols returns every addressable symbol (functions, objects and
// untyped labels in allocated sections, plus PLT stubs), sorted by
// address; at one address the preferred symbol comes first. Thread-local
// symbols are left out (see LookupName).
func (f *File) Symbols() ([]Symbol, error) {
	st, err := f.symbols()
	if err != nil {
		return nil, err
	}
	return slices.Clone(st.syms), nil
}

func (f *File) loadSymbols() (*symtab, error) {
	var all []Symbol
	// .symtab: from the file, or from its separate debug file when the
	// file is stripped (GDB does the same for minimal symbols).
	src := f
	if f.elf.SectionByType(elf.SHT_SYMTAB) == nil {
		if d, err := f.DebugFile(); err == nil {
			src = d
		}
	}
	if err := src.EachSymbol(elf.SHT_SYMTAB, func(e RawSymbol) bool {
		if src.addressable(e.Name, e.Info, e.Section) {
			name, version := SplitVersion(string(e.Name))
			all = append(all, Symbol{
				Name: name, Version: version, Addr: e.Value, Size: e.Size,
				Type: elf.ST_TYPE(e.Info), Bind: elf.ST_BIND(e.Info), Section: e.Section, Source: SourceSymtab,
				Exec: f.execSection(e.Section),
			})
		}
		return true
	}); err != nil {
		return nil, fmt.Errorf("read .symtab of %s: %w", src.describe(), err)
	}
	var dyn []elf.Symbol
	if f.elf.SectionByType(elf.SHT_DYNSYM) != nil {
		var err error
		dyn, err = f.elf.DynamicSymbols()
		if err != nil {
			return nil, fmt.Errorf("read .dynsym of %s: %w: %w", f.describe(), ErrMalformed, err)
		}
		all = f.appendSymbols(all, dyn, SourceDynsym)
	}
	plt, err := f.pltSymbols(dyn)
	if err != nil {
		return nil, err
	}
	all = append(all, plt...)

	var secs []secRange
	for _, s := range f.elf.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 {
			secs = append(secs, secRange{s.Addr, s.Addr + s.Size})
		}
	}
	return newSymtab(all, secs), nil
}

// newSymtab sorts and indexes syms; secs are the allocated sections.
// Thread-local symbols are kept apart: their values are offsets, not
// addresses, so only name lookups find them.
func newSymtab(all []Symbol, secs []secRange) *symtab {
	funcs := gdbFunctions(all) // before sorting: ties go by table order
	var tls []Symbol
	all = slices.DeleteFunc(all, func(s Symbol) bool {
		if s.Type == elf.STT_TLS {
			tls = append(tls, s)
			return true
		}
		return false
	})
	// Drop duplicates (the same name at the same address from .symtab
	// and .dynsym); the .symtab copy sorts first.
	same := func(a, b Symbol) bool { return a.Addr == b.Addr && a.Name == b.Name }
	slices.SortFunc(all, compareSymbols)
	all = slices.CompactFunc(all, same)
	slices.SortFunc(tls, compareSymbols)
	tls = slices.CompactFunc(tls, same)
	st := &symtab{syms: all, funcs: funcs, tls: tls, secs: secs}
	for i := range all {
		if i == 0 || all[i].Addr != all[i-1].Addr {
			st.groups = append(st.groups, i)
		}
	}
	return st
}

func (f *File) describe() string {
	if f.Path != "" {
		return f.Path
	}
	return "elf file"
}

// execSection says section i holds code.
func (f *File) execSection(i elf.SectionIndex) bool {
	return i < elf.SHN_LORESERVE && int(i) < len(f.elf.Sections) && f.elf.Sections[i].Flags&elf.SHF_EXECINSTR != 0
}

// appendSymbols keeps the addressable symbols of es.
func (f *File) appendSymbols(dst []Symbol, es []elf.Symbol, src Source) []Symbol {
	for _, e := range es {
		if !f.addressable([]byte(e.Name), e.Info, e.Section) {
			continue
		}
		name, version := SplitVersion(e.Name)
		if e.Version != "" {
			version = e.Version
		}
		dst = append(dst, Symbol{
			Name: name, Version: version, Addr: e.Value, Size: e.Size,
			Type: elf.ST_TYPE(e.Info), Bind: elf.ST_BIND(e.Info), Section: e.Section, Source: src,
			Exec: f.execSection(e.Section),
		})
	}
	return dst
}

// rank orders symbols at one address: global functions and objects first,
// then local ones, then untyped labels; sized before unsized.
func rank(s Symbol) int {
	r := 0
	switch s.Type {
	case elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
	default:
		r += 4
	}
	if s.Bind == elf.STB_LOCAL {
		r += 2
	}
	if s.Size == 0 {
		r++
	}
	return r
}

// compareSymbols orders symbols by address, then by rank, then as GDB's
// minimal symbol lookup picks among symbols of one address: the last by
// strcmp first (malloc before its alias __libc_malloc, raise before
// gsignal).
func compareSymbols(a, b Symbol) int {
	return cmp.Or(
		cmp.Compare(a.Addr, b.Addr),
		cmp.Compare(rank(a), rank(b)),
		cmp.Compare(b.Name, a.Name),
		cmp.Compare(a.Source, b.Source),
	)
}

// maxBackGroups bounds how far LookupAddr walks back looking for a symbol
// that contains an address behind smaller symbols.
const maxBackGroups = 64

// LookupAddr returns the symbol that covers the link-time address addr and
// the offset of addr into it. A sized symbol covers [Addr, Addr+Size); an
// unsized one covers up to the next symbol within its section. Among
// symbols at one address it prefers global functions and objects, then
// local ones, then labels, and breaks ties by name, so the result is
// deterministic. It returns an error wrapping ErrNoSymbol if none covers
// addr.
func (f *File) LookupAddr(addr uint64) (Symbol, uint64, error) {
	st, err := f.symbols()
	if err != nil {
		return Symbol{}, 0, err
	}
	s, ok := st.lookup(addr)
	if !ok {
		return Symbol{}, 0, fmt.Errorf("address %#x: %w", addr, ErrNoSymbol)
	}
	return s, addr - s.Addr, nil
}

func (st *symtab) lookup(addr uint64) (Symbol, bool) {
	g, _ := slices.BinarySearchFunc(st.groups, addr, func(i int, a uint64) int {
		return cmp.Compare(st.syms[i].Addr, a+1)
	})
	// g is the first group with Addr > addr; walk back. As GDB's
	// lookup_minimal_symbol_by_pc_section: past a sized symbol that does
	// not contain addr only a larger one before it that does (a symbol
	// nested in another) names addr, not a zero-sized one.
	passedSized := false
	for n := 0; g > 0 && n < maxBackGroups; n++ {
		g--
		start := st.groups[g]
		end := len(st.syms)
		if g+1 < len(st.groups) {
			end = st.groups[g+1]
		}
		var unsized *Symbol
		for i := start; i < end; i++ {
			s := &st.syms[i]
			if s.Contains(addr) {
				return *s, true
			}
			if s.Size == 0 && unsized == nil {
				unsized = s
			}
		}
		if unsized != nil && !passedSized {
			if st.sameSection(unsized.Addr, addr) {
				return *unsized, true
			}
			return Symbol{}, false
		}
		passedSized = passedSized || unsized == nil
	}
	return Symbol{}, false
}

// sameSection reports whether a and b lie in one allocated section.
func (st *symtab) sameSection(a, b uint64) bool {
	for _, s := range st.secs {
		if a >= s.lo && a < s.hi {
			return b >= s.lo && b < s.hi
		}
	}
	return false
}

// LookupName returns the symbols named name, sorted by address. name may
// be a raw symbol name ("_ZN2ns3Foo3barEi", "puts", "puts@plt", optionally
// with an @VERSION suffix), a full demangled name ("ns::Foo::bar(int)"), or
// a qualified name without parameters or template arguments
// ("ns::Foo::bar", "ns::Box::get"). Thread-local variables are found too
// (Type STT_TLS; Addr is the offset in the module's TLS block). As in GDB, trailing components also
// match: "Foo::bar" and "bar" find "ns::Foo::bar" (all overloads), unless
// the name starts with "::". It returns an error wrapping ErrNoSymbol if nothing matches.
func (f *File) LookupName(name string) ([]Symbol, error) {
	st, err := f.symbols()
	if err != nil {
		return nil, err
	}
	st.nameOnce.Do(st.buildNames)
	return st.lookupName(name)
}

func (st *symtab) lookupName(name string) ([]Symbol, error) {
	query := name
	if base, v := SplitVersion(name); v != "" {
		name = base
	}
	global := strings.HasPrefix(name, "::")
	name = strings.TrimPrefix(name, "::")
	idx := slices.Clone(st.byName[name])
	withParams := StripParams(name) != name
	for _, i := range st.byLast[lastComponent(StripParams(name))] {
		if withParams {
			// "Foo::bar(int)": compare with the full demangled name.
			full := Demangle(st.at(i).Name)
			if full == name || !global && matchQualified(full, name) {
				idx = append(idx, i)
			}
			continue
		}
		if global {
			continue // only the exact keys above
		}
		for _, k := range st.keys[i] {
			if matchQualified(k, name) {
				idx = append(idx, i)
				break
			}
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("symbol %q: %w", query, ErrNoSymbol)
	}
	out := make([]Symbol, 0, len(idx))
	for _, i := range idx {
		out = append(out, st.at(i))
	}
	slices.SortFunc(out, compareSymbols)
	return slices.CompactFunc(out, func(a, b Symbol) bool { return a == b }), nil
}

// at returns the symbol with name-index number i: syms first, then tls.
func (st *symtab) at(i int32) Symbol {
	if int(i) < len(st.syms) {
		return st.syms[i]
	}
	return st.tls[int(i)-len(st.syms)]
}

func (st *symtab) buildNames() {
	// Demangling dominates; spread it over the CPUs.
	n := len(st.syms) + len(st.tls)
	st.keys = make([][]string, n)
	workers := min(runtime.GOMAXPROCS(0), 1+n/4096)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				st.keys[i] = nameKeys(st.at(int32(i)).Name)
			}
		})
	}
	wg.Wait()
	st.byName = make(map[string][]int32, n)
	st.byLast = make(map[string][]int32)
	add := func(m map[string][]int32, k string, i int32) {
		if l := m[k]; len(l) == 0 || l[len(l)-1] != i {
			m[k] = append(l, i)
		}
	}
	for i := range int32(n) {
		add(st.byName, st.at(i).Name, i)
		for _, k := range st.keys[i] {
			add(st.byName, k, i)
			add(st.byLast, lastComponent(k), i)
		}
	}
}
