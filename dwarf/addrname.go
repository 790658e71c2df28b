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
// "std::cout@GLIBCXX_3.4"; a name GDB's Ada decoder decodes, decoded
// (adaDecode: GDB tries every language's demangler on an ELF name, and
// prints what Ada's makes of it): a gcc function-local static "calls.1"
// is "calls", cmark's cmark_strbuf__initbuf "cmark_strbuf.initbuf", a
// GOT slot "puts@got.plt" "puts@got[plt]".
func symbolDisplayName(sym symbols.Symbol) string {
	if d, ok := adaDecode(sym.Name); ok {
		return d
	}
	if sym.Source == symbols.SourceGOT {
		return sym.Name // (not demangled: "_ZNSo3putEc@got.plt")
	}
	if sym.Source == symbols.SourceSymtab && sym.Version != "" {
		return sym.Demangled() + "@" + sym.Version
	}
	return sym.Demangled()
}

func symbolText(name string, off uint64) string {
	if off == 0 {
		return name
	}
	return name + "+" + strconv.FormatUint(off, 10)
}

// adaOperators are GNAT's encodings of operator names, as GDB's Ada
// decoder reads them at the start of a name (in its order).
var adaOperators = [...]struct{ enc, dec string }{
	{"Oadd", `"+"`}, {"Osubtract", `"-"`}, {"Omultiply", `"*"`}, {"Odivide", `"/"`},
	{"Omod", `"mod"`}, {"Orem", `"rem"`}, {"Oexpon", `"**"`}, {"Olt", `"<"`},
	{"Ole", `"<="`}, {"Ogt", `">"`}, {"Oge", `">="`}, {"Oeq", `"="`}, {"One", `"/="`},
	{"Oand", `"and"`}, {"Oor", `"or"`}, {"Oxor", `"xor"`}, {"Oconcat", `"&"`},
	{"Oabs", `"abs"`}, {"Onot", `"not"`},
}

// adaDecode is GDB's Ada decoding of an ELF symbol name (ada-lang.c's
// ada_decode), which GDB's minimal symbols print by where it changes the
// name: GNAT's suffixes dropped (.N, $N, __N, ___N; a trailing N, TKB,
// TB, B, X[bn]*; ___X…), each "__" a ".", a compiler's ".suffix"
// bracketed ("[cold]"), operators spelled ("Oadd" is "+" in quotes); a
// name starting with "_" or holding an upper-case letter once decoded is
// left alone. ok is false where the name stays as it is.
func adaDecode(name string) (string, bool) {
	enc := strings.TrimPrefix(strings.TrimPrefix(name, "."), "_ada_")
	if enc == "" || enc[0] == '_' || enc[0] == '<' {
		return "", false
	}
	// at reads past the decoded part as GDB's C string does (0 at the end)
	at := func(i int) byte {
		if i < 0 || i >= len(enc) {
			return 0
		}
		return enc[i]
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isAlpha := func(c byte) bool { return isLower(c) || c >= 'A' && c <= 'Z' }
	isAlnum := func(c byte) bool { return isAlpha(c) || isDigit(c) }
	n := len(enc)
	suffix := -1
	// a compiler's suffix: letters after a '.'
	off := n - 1
	for off > 0 && isAlpha(enc[off]) {
		off--
	}
	if off > 0 && enc[off] == '.' {
		n, suffix = off, off+1
	}
	// .N, $N, ___N, __N
	if n > 1 && isDigit(enc[n-1]) {
		i := n - 2
		for i > 0 && isDigit(enc[i]) {
			i--
		}
		switch {
		case i >= 0 && (enc[i] == '.' || enc[i] == '$'):
			n = i
		case i >= 2 && enc[i-2:i+1] == "___":
			n = i - 2
		case i >= 1 && enc[i-1:i+1] == "__":
			n = i - 1
		}
	}
	// a protected object subprogram's N
	if n > 1 && enc[n-1] == 'N' && (isDigit(enc[n-2]) || isLower(enc[n-2])) {
		n--
	}
	if p := strings.Index(enc, "___"); p >= 0 && p < n-3 {
		if enc[p+3] != 'X' {
			return "", false
		}
		n = p
	}
	for _, suf := range []string{"TKB", "TB", "B"} { // each in turn, as GDB removes them
		if n > len(suf) && enc[n-len(suf):n] == suf {
			n -= len(suf)
		}
	}
	if n > 1 && isDigit(enc[n-1]) {
		i := n - 2
		for i >= 0 && isDigit(enc[i]) || i >= 1 && enc[i] == '_' && isDigit(enc[i-1]) {
			i--
		}
		if i > 1 && enc[i] == '_' && enc[i-1] == '_' {
			n = i - 1
		} else if i >= 0 && enc[i] == '$' {
			n = i
		}
	}
	var b strings.Builder
	i := 0
	for ; i < n && !isAlpha(enc[i]); i++ {
		b.WriteByte(enc[i])
	}
	start := true
	for i < n {
		if start && enc[i] == 'O' {
			matched := false
			for _, op := range adaOperators {
				if strings.HasPrefix(enc[i+1:], op.enc[1:]) && !isAlnum(at(i+len(op.enc))) {
					b.WriteString(op.dec)
					i += len(op.enc)
					matched = true
					break
				}
			}
			if matched {
				start = false
				continue
			}
		}
		start = false
		if i < n-4 && strings.HasPrefix(enc[i:], "TK__") {
			i += 2
		}
		if n-i > 5 && strings.HasPrefix(enc[i:], "__B_") && isDigit(enc[i+4]) {
			k := i + 5
			for k < n && isDigit(enc[k]) {
				k++
			}
			if n-k > 2 && enc[k] == '_' && enc[k+1] == '_' {
				i = k
			}
		}
		if n-i > 3 && enc[i] == '_' && enc[i+1] == 'E' && isDigit(enc[i+2]) {
			k := i + 3
			for k < n && isDigit(enc[k]) {
				k++
			}
			if k < n && (enc[k] == 'b' || enc[k] == 's') {
				k++
				if k == n || enc[k] == '_' {
					i = k
				}
			}
		}
		if at(i) == 'N' && at(i+1) == '_' && at(i+2) == '_' {
			p := i - 1
			for p >= 0 && (isDigit(enc[p]) || isLower(enc[p])) {
				p--
			}
			if p < 0 || p > 0 && enc[p] == '_' && enc[p-1] == '_' {
				i++
			}
		}
		switch {
		case at(i) == 'X' && i != 0 && isAlnum(enc[i-1]):
			i++
			for i < n && (enc[i] == 'b' || enc[i] == 'n') {
				i++
			}
			if i < n {
				return "", false
			}
		case i < n-2 && enc[i] == '_' && enc[i+1] == '_':
			b.WriteByte('.')
			start = true
			i += 2
		default:
			if c := at(i); c != 0 {
				b.WriteByte(c)
			}
			i++
		}
	}
	d := b.String()
	if strings.ContainsAny(d, "ABCDEFGHIJKLMNOPQRSTUVWXYZ ") {
		return "", false
	}
	if suffix >= 0 {
		d += "[" + enc[suffix:] + "]"
	}
	return d, d != name && d[0] != '<'
}
