package dwarf

import (
	stddwarf "debug/dwarf"
	"debug/elf"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/symbols"
)

// AddrName names the file address a as GDB prints an address, <name+off>
// (build_address_symbolic): by the function with debug information that
// contains it, under its physname (the C name; for C++ the demangled
// linkage name, or, where the DIE has none, the qualified name with its
// parameter types as the DWARF spells them); else by the ELF symbol that
// covers it (covers). An ELF symbol at a itself wins over a function
// whose entry is elsewhere (a label inside it), as in GDB. typesOf, if not nil, gives img's type reader, asked
// for only to spell the parameters of a C++ function without a linkage
// name. It reports false where nothing names a.
func (img *Image) AddrName(a uint64, typesOf func(*Image) *TypeReader) (string, bool) {
	sym, off, err := img.syms.LookupAddr(a)
	covered := err == nil && img.covers(sym, off)
	// A sized symbol starting at a inside the function (a .cold part)
	// names a; a label without a size does not, as GDB's minimal symbol
	// lookup passes over a zero-sized symbol where a sized one covers a.
	if f := img.FuncAt(a); f != nil && f.Name != "" && a >= f.Entry && !(covered && sym.Addr == a && f.Entry != a && sym.Size != 0) {
		return symbolText(physname(f, typesOf), a-f.Entry), true
	}
	if !covered {
		return "", false
	}
	return symbolText(symbolDisplayName(sym), off), true
}

// covers reports whether an ELF symbol names the address off bytes into
// it, as GDB's minimal symbols do: a sized symbol within its size; a
// zero-sized code symbol anywhere after it in its section (_fini+4, in
// .fini); a zero-sized data symbol never (the linker's _DYNAMIC).
func (img *Image) covers(sym symbols.Symbol, off uint64) bool {
	if sym.Size != 0 {
		return off < sym.Size
	}
	var sec *elf.Section
	if img.exe != nil && sym.Section > elf.SHN_UNDEF && int(sym.Section) < len(img.exe.Sections) {
		sec = img.exe.Sections[sym.Section]
	}
	switch {
	case !sym.InCode():
		return false
	case off == 0:
		return true
	}
	return sec != nil && sym.Addr+off >= sec.Addr && sym.Addr+off < sec.Addr+sec.Size
}

// physname is a function's name as GDB's symbol prints it.
func physname(f *Function, typesOf func(*Image) *TypeReader) string {
	if !f.CPlusPlus() {
		return f.Name
	}
	if f.LinkageName != "" {
		return symbols.DemanglePhysname(f.LinkageName)
	}
	var types *TypeReader
	if typesOf != nil {
		types = typesOf(f.Image())
	}
	if n, ok := f.PhysName(func() *TypeReader { return types }); ok {
		return n // a name GDB cannot parse: its parameters as its type printer writes them
	}
	return f.Name + "(" + paramSpelling(f, types) + ")"
}

// paramSpelling spells a function's parameter types as GDB's physname
// does, the demangler's way ("char const*, unsigned long", typedefs by
// their names, no this), for C++ functions whose DIE has no linkage
// name.
func paramSpelling(fn *Function, types *TypeReader) string {
	s, _ := paramSpellingAt(fn.Offset, types)
	return s
}

// paramSpellingAt is paramSpelling of the subprogram DIE at off; ok is
// false where its type cannot be read.
func paramSpellingAt(off stddwarf.Offset, types *TypeReader) (string, bool) {
	if types == nil {
		return "", false
	}
	ft, err := types.funcTypeOf(off, true)
	if err != nil {
		return "", false
	}
	ps := make([]string, 0, len(ft.Params))
	for _, p := range ft.Params {
		q := strings.ReplaceAll(TypeString(p), " *", "*")
		q = strings.ReplaceAll(q, " &", "&")
		ps = append(ps, canonicalCxxName(moveCV(canonBuiltins(q))))
	}
	return strings.Join(ps, ", "), true
}

// symbolDisplayName is the name GDB prints inside <...> for an ELF symbol:
// demangled; a .symtab name that carries its version (a copy-relocated
// library object in an executable: _ZSt4cout@GLIBCXX_3.4) keeps it,
// "std::cout@GLIBCXX_3.4". A gcc function-local static ("calls.1") is
// named without its suffix where GDB's Ada decoder takes the symbol (it
// tries every language's demangler on an ELF name, and prints the
// decoded name): a name of lower-case letters, digits and single
// underscores; "__PRETTY_FUNCTION__.0" keeps it.
func symbolDisplayName(sym symbols.Symbol) string {
	if sym.Source == symbols.SourceGOT {
		// GDB's Ada decoder, which all its minimal symbol names go
		// through, brackets the suffix of a name it decodes
		if fn, ok := strings.CutSuffix(sym.Name, "@got.plt"); ok && adaPlain(fn) {
			return fn + "@got[plt]"
		}
		return sym.Name
	}
	name := sym.Demangled()
	if sym.Source == symbols.SourceSymtab && sym.Version != "" {
		return name + "@" + sym.Version
	}
	if base, ok := adaDecodes(sym.Name); ok {
		return base
	}
	return name
}

func symbolText(name string, off uint64) string {
	if off == 0 {
		return name
	}
	return name + "+" + strconv.FormatUint(off, 10)
}

// adaDecodes reports whether GDB's Ada decoder decodes an unmangled ELF
// name with a ".N" suffix (ada_decode: no upper case, no leading
// underscore, "__" would be a "."), and returns the name without it.
func adaDecodes(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return "", false
	}
	base := name[:i]
	if !adaPlain(base) {
		return "", false
	}
	return base, true
}

// adaPlain reports whether GDB's Ada decoder takes name for a plain Ada
// name: lower case letters, digits and underscores, a letter first, no
// "__" (which would be a ".").
func adaPlain(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' || strings.Contains(name, "__") {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
