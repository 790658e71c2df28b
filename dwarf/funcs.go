package dwarf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"

	"github.com/rrmcp/rrmcp/symbols"
)

// Function is a function with code: a concrete DW_TAG_subprogram.
type Function struct {
	// Name is the qualified C++ name ("geo::Circle::area") or the C name.
	Name string
	// LinkageName is the mangled name, if any.
	LinkageName string
	// Entry is the file address of the first instruction (DW_AT_low_pc,
	// or the lowest range start); Ranges are all address ranges
	// [lo, hi), including cold parts.
	Entry  uint64
	Ranges [][2]uint64
	// Offset is the DIE of the concrete subprogram.
	Offset   stddwarf.Offset
	DeclFile string
	DeclLine int
	// External is DW_AT_external.
	External bool
	// mainSubprogram is DW_AT_main_subprogram (Rust's main).
	mainSubprogram bool
	cu             *unit
	dwarfName      string // qualified DWARF name when Name is a C linkage name

	sitesOnce sync.Once
	sites     []callSite

	treeOnce sync.Once
	tree     *godwarf.Tree
	treeErr  error
	// origins caches the DIE trees of abstract origins (originTree).
	originsMu sync.Mutex
	origins   map[stddwarf.Offset]*godwarf.Tree
}

// NoCall reports whether the compiler marked f as not following the
// target's calling convention (DW_AT_calling_convention DW_CC_nocall, on
// it or the declaration it completes): rustc and gcc -O2 change such a
// function's arguments and return, so what it returns cannot be read
// where the ABI puts it (GDB's finish says so instead of a value).
func (f *Function) NoCall() bool {
	if f.cu == nil || f.cu.img == nil || f.cu.img.dw == nil {
		return false
	}
	r := f.cu.img.dw.Reader()
	r.Seek(f.Offset)
	e, err := r.Next()
	if err != nil || e == nil {
		return false
	}
	ae, _ := godwarf.LoadAbstractOriginAndSpecification(e, f.cu.img.dw.Reader())
	cc, _ := ae.Val(stddwarf.AttrCalling).(int64)
	return cc == dwCCNoCall
}

// dwCCNoCall is DW_CC_nocall.
const dwCCNoCall = 0x3

// IsMain reports whether f is the program's main function, where GDB's
// backtrace ends (backtrace past-main off): C's and C++'s main, the
// subprogram marked DW_AT_main_subprogram (Rust's crate::main), Go's
// main.main (GDB's main_name).
func (f *Function) IsMain() bool {
	return f.mainSubprogram || f.Name == "main" || f.Name == "main.main" && f.cu.lang == dwLangGo
}

// Image returns the image the function belongs to.
func (f *Function) Image() *Image { return f.cu.img }

// CPlusPlus reports whether the function was compiled as C++.
func (f *Function) CPlusPlus() bool { return f.cu.isCPlusPlus() }

// Lang is the language of the function's compile unit (C for one the
// module does not know).
func (f *Function) Lang() Lang {
	switch {
	case f.cu == nil:
		return LangC
	case f.CPlusPlus():
		return LangCPlusPlus
	case f.cu.lang == dwLangGo:
		return LangGo
	case f.cu.lang == dwLangRust:
		return LangRust
	}
	return LangC
}

func (f *Function) contains(pc uint64) bool {
	for _, r := range f.Ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// End returns the end of the range that starts at Entry.
func (f *Function) End() uint64 {
	for _, r := range f.Ranges {
		if f.Entry >= r[0] && f.Entry < r[1] {
			return r[1]
		}
	}
	return f.Entry
}

// Tree returns the function's DIE tree (lexical blocks, inlined calls,
// variables), with abstract origins merged, loaded on first use.
func (f *Function) Tree() (*godwarf.Tree, error) {
	f.treeOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				f.treeErr = &FormatError{".debug_info", uint64(f.Offset), fmt.Sprint("load scope tree: ", r)}
			}
		}()
		f.tree, f.treeErr = godwarf.LoadTree(f.Offset, f.cu.img.dw, 0)
	})
	return f.tree, f.treeErr
}

// inheritedVars returns, as a node of their own, the variables and
// parameters node's abstract origin has and node does not repeat, as GDB
// adds them to node's scope (inherit_abstract_dies): an inlined copy (or
// an out-of-line instance) of an inline function has its statics in the
// abstract DIE only, clang leaves out of the copy the variables and
// parameters that have no location in it at all, and gcc's blocks repeat
// only some of their origin's; GDB lists the rest <optimized out> (the
// abstract DIE has no location). An origin's block the copy has no block
// for (by DW_AT_abstract_origin, or clang's way, by position where the
// two lists of children have the same tags) has no pc range: GDB reads
// its variables as the enclosing scope's (read_lexical_block_scope).
// Those whose origin is in shown, the variables the frame's scopes hold,
// are left out: GDB lists such a variable twice where the copy holds it
// in a block of its own. nil when there are none.
func (f *Function) inheritedVars(node *godwarf.Tree, shown map[stddwarf.Offset]bool) *godwarf.Tree {
	origin, ok := node.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset)
	if !ok {
		return nil
	}
	ot := f.originTree(origin)
	if ot == nil {
		return nil
	}
	isomorphic := len(node.Children) == len(ot.Children)
	for i := 0; isomorphic && i < len(node.Children); i++ {
		isomorphic = node.Children[i].Tag == ot.Children[i].Tag
	}
	repeated := map[stddwarf.Offset]bool{}
	for i, c := range node.Children {
		if o, ok := c.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
			repeated[o] = true
		} else if isomorphic && c.Tag == stddwarf.TagLexDwarfBlock {
			repeated[ot.Children[i].Offset] = true
		}
	}
	var out *godwarf.Tree
	var inherit func(n *godwarf.Tree)
	inherit = func(n *godwarf.Tree) {
		for _, c := range n.Children {
			switch {
			case repeated[c.Offset]:
			case c.Tag == stddwarf.TagVariable || c.Tag == stddwarf.TagFormalParameter:
				if shown[c.Offset] {
					continue
				}
				if out == nil {
					out = &godwarf.Tree{Entry: ot.Entry}
				}
				out.Children = append(out.Children, c)
			case c.Tag == stddwarf.TagLexDwarfBlock:
				inherit(c)
			}
		}
	}
	inherit(ot)
	return out
}

// originTree loads (once) the DIE tree of an abstract origin; nil for a
// malformed one.
func (f *Function) originTree(origin stddwarf.Offset) *godwarf.Tree {
	f.originsMu.Lock()
	defer f.originsMu.Unlock()
	if t, ok := f.origins[origin]; ok {
		return t
	}
	var ot *godwarf.Tree
	func() {
		defer func() { _ = recover() }() // a malformed origin: none
		if t, err := godwarf.LoadTree(origin, f.cu.img.dw, 0); err == nil {
			ot = t
		}
	}()
	if f.origins == nil {
		f.origins = map[stddwarf.Offset]*godwarf.Tree{}
	}
	f.origins[origin] = ot
	return ot
}

// scopeChain returns the lexical blocks and inlined subroutines that
// contain pc, outermost first (the function itself not included).
func (f *Function) scopeChain(pc uint64) []*godwarf.Tree {
	t, err := f.Tree()
	if err != nil {
		return nil
	}
	var chain []*godwarf.Tree
	for n := t; n != nil; {
		var next *godwarf.Tree
		for _, c := range n.Children {
			if (c.Tag == stddwarf.TagLexDwarfBlock || c.Tag == stddwarf.TagInlinedSubroutine) && treeContains(c, pc) {
				next = c
				break
			}
		}
		if next != nil {
			chain = append(chain, next)
		}
		n = next
	}
	return chain
}

func treeContains(t *godwarf.Tree, pc uint64) bool {
	for _, r := range t.Ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// FuncAt returns the concrete function containing the file address pc.
func (img *Image) FuncAt(pc uint64) *Function {
	u := img.unitFor(pc)
	if u == nil {
		return nil
	}
	return u.funcAt(pc)
}

// indexAll indexes every unit and builds the name maps.
func (img *Image) indexAll() {
	img.allOnce.Do(func() {
		img.byName = map[string][]*Function{}
		img.globals = map[string][]varDecl{}
		img.inlineBy = map[string][]inlineSite{}
		if img.listUnits() != nil {
			return
		}
		defer img.allDone.Store(true)
		img.indexUnits(func(u *unit) { u.indexDeep() })
		for _, u := range img.units {
			if u.index() != nil {
				continue
			}
			for _, f := range u.funcs {
				addFuncKeys(img.byName, f)
			}
			for _, v := range u.vars {
				for _, k := range nameKeys(v.qual) {
					img.globals[k] = append(img.globals[k], v)
				}
			}
			if u.indexDeep() != nil {
				continue
			}
			for _, s := range u.inlines {
				addInlineKeys(img.inlineBy, img, s)
			}
		}
	})
}

// nameKeys returns the lookup keys of a qualified name: the name itself,
// every "::"-suffix of it ("Circle::area", "area"), and the same without
// template arguments, so "area", "geo::Circle::area" and "max" (for
// "max<int>") all find the function, as in GDB's linespecs.
func nameKeys(name string) []string {
	if name == "" {
		return nil
	}
	keys := []string{name}
	add := func(k string) {
		for _, x := range keys {
			if x == k {
				return
			}
		}
		keys = append(keys, k)
	}
	for _, n := range []string{name, stripTemplateArgs(name)} {
		add(n)
		depth := 0
		for i := 0; i+1 < len(n); i++ {
			switch n[i] {
			case '<', '(':
				depth++
			case '>', ')':
				depth--
			case ':':
				if depth == 0 && n[i+1] == ':' {
					add(n[i+2:])
				}
			}
		}
	}
	return keys
}

// stripTemplateArgs removes every <...> group (but keeps operator<).
func stripTemplateArgs(n string) string {
	if !strings.Contains(n, "<") || strings.Contains(n, "operator<") || strings.Contains(n, "operator>") {
		return n
	}
	var b strings.Builder
	depth := 0
	for _, c := range n {
		switch {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Functions returns every concrete function of the image, sorted by entry.
func (img *Image) Functions() []*Function {
	img.indexAll()
	var out []*Function
	for _, u := range img.units {
		out = append(out, u.funcs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Entry < out[j].Entry })
	return out
}

// FuncsByName returns the concrete functions named name: a qualified name
// ("geo::Circle::area"), any "::"-suffix of one ("area"), a name without
// template arguments, or a linkage name. The result is sorted by entry.
//
// Before the image is fully indexed, the lookup indexes only the compile
// units that can hold such a function: those covering the address of an
// ELF symbol whose name contains the function's last name component
// (spelled as in a mangled name for C++ symbols), plus units without
// address ranges. Names that symbols cannot vouch for (operators,
// libstdc++'s abbreviated class names, images without .symtab) index
// every unit. Either way the result is the same.
func (img *Image) FuncsByName(name string) []*Function {
	name = symbols.StripParams(strings.TrimSpace(name))
	fs, ok := img.funcsByNameLazy(name)
	if !ok {
		img.indexAll()
		fs = img.byName[name]
	}
	fs = append([]*Function(nil), fs...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Entry < fs[j].Entry })
	return fs
}

// funcsByNameLazy answers FuncsByName from the units that ELF symbols
// point to; ok is false when it cannot (see FuncsByName).
func (img *Image) funcsByNameLazy(name string) (fs []*Function, ok bool) {
	if img.allDone.Load() || img.listUnits() != nil || img.dw == nil {
		return nil, false
	}
	img.lazyMu.Lock()
	fs, ok = img.lazyBy[name]
	img.lazyMu.Unlock()
	if ok {
		return fs, true
	}
	units, ok := img.nameUnits(name)
	if !ok {
		return nil, false
	}
	// the same functions, in the same order and multiplicity, as
	// indexAll's byName[name]
	for _, u := range units {
		fs = append(fs, u.funcsByKey()[name]...)
	}
	img.lazyMu.Lock()
	if img.lazyBy == nil {
		img.lazyBy = map[string][]*Function{}
	}
	img.lazyBy[name] = fs
	img.lazyMu.Unlock()
	return fs, true
}

// funcsByKey returns the unit's functions by lookup key, built on first
// use the way indexAll builds the image's byName.
func (u *unit) funcsByKey() map[string][]*Function {
	u.keysOnce.Do(func() {
		m := map[string][]*Function{}
		if u.index() == nil {
			for _, f := range u.funcs {
				addFuncKeys(m, f)
			}
		}
		u.byKey = m
	})
	return u.byKey
}

// inlineUnits returns the units that can hold inlined calls of a
// function with the lookup key name: their abbreviation table declares
// DW_TAG_inlined_subroutine, and their DIEs can name the function's last
// name component (base): the .debug_str offset of base appears in the
// unit's bytes, or base itself (an inline DW_FORM_string). Without a
// usable base (operators) or where names may live elsewhere (string
// offset tables, dwz, partial units) it checks the abbreviations only.
func (img *Image) inlineUnits(name string) []*unit {
	var units []*unit
	for _, u := range img.units {
		if img.abbrevHasTag(u.abbrevOff, stddwarf.TagInlinedSubroutine) {
			units = append(units, u)
		}
	}
	info, str := img.section(".debug_info"), img.section(".debug_str")
	base := lastComponent(stripTemplateArgs(name))
	if len(units) == 0 || info == nil || str == nil || base == "" || strings.HasPrefix(base, "operator") ||
		img.section(".debug_str_offsets") != nil || img.section(".gnu_debugaltlink") != nil {
		return units
	}
	for _, u := range img.units {
		if u.entry.Tag == stddwarf.TagPartialUnit {
			return units
		}
	}
	// every place in .debug_str where a DW_AT_name of base can point
	// (the linker merges string tails, so not only string starts)
	// (searched a window at a time, each released once searched)
	var pats [][]byte
	defer img.release(str)
	for i, done := 0, 0; i < len(str); {
		if i-done >= releaseStep {
			img.release(str[done:i])
			done = i
		}
		// a match starting before i+releaseStep ends in the window
		win := str[i:min(len(str), i+releaseStep+len(base))]
		j := bytes.Index(win, []byte(base))
		if j < 0 {
			i += releaseStep
			continue
		}
		at := i + j
		if end := at + len(base); end < len(str) && (str[end] == 0 || str[end] == '<') {
			if len(pats) == 16 || at > 0xffffffff {
				return units // too common a name to narrow this way
			}
			pats = append(pats, binary.LittleEndian.AppendUint32(nil, uint32(at)))
		}
		i = at + 1
	}
	inline := [][]byte{[]byte(base + "\x00"), []byte(base + "<")}
	var out []*unit
	for _, u := range units {
		lo, hi := uint64(u.start), uint64(len(info))
		if k := slices.Index(img.units, u); k+1 < len(img.units) {
			hi = uint64(img.units[k+1].start)
		}
		if lo >= hi || hi > uint64(len(info)) {
			out = append(out, u)
			continue
		}
		data := info[lo:hi]
		for _, p := range append(pats, inline...) {
			if bytes.Contains(data, p) {
				out = append(out, u)
				break
			}
		}
		img.release(data)
	}
	return out
}

// inlinesByKey returns the unit's inlined calls by lookup key of the
// inlined function, built on first use the way indexAll builds the
// image's inlineBy; units that cannot hold inlined calls are not walked.
// noOriginNamed reports whether u, a C unit, holds no inlined copy of
// function name. Such a copy needs an abstract origin: a subprogram DIE
// of that name in the unit, at its top level, since C does not nest
// functions. u's shallow index, which skips function bodies, has none.
// (GNU C's nested functions live in bodies; the shallow index does not
// know them, so FuncsByName does not find them either.) Where an origin
// may sit in another unit (DW_FORM_ref_addr: LTO, dwz) or the unit is
// not C, it reports false. inlineUnits narrows by the name's string
// offset, which has false positives in a large unit (the four bytes
// occur by chance); this rules them out without walking the bodies.
func (u *unit) noOriginNamed(name string) bool {
	switch u.lang {
	case 0x1, 0x2, 0xc, 0x1d, 0x2c: // DW_LANG_C89, C, C99, C11, C17
	default:
		return false
	}
	if strings.ContainsAny(name, ":<(") || u.img.abbrevAny(u.abbrevOff, func(_ stddwarf.Tag, _ stddwarf.Attr, form uint64) bool {
		return form == 0x10 || form == 0x1f20 || form == 0x1f21 // DW_FORM_ref_addr, GNU_ref_alt, GNU_strp_alt
	}) {
		return false
	}
	if u.index() != nil {
		return false
	}
	for _, d := range u.decls {
		if d.name == name {
			return false
		}
	}
	return true
}

func (u *unit) inlinesByKey() map[string][]inlineSite {
	u.inlOnce.Do(func() {
		m := map[string][]inlineSite{}
		if u.img.abbrevHasTag(u.abbrevOff, stddwarf.TagInlinedSubroutine) && u.indexDeep() == nil {
			for _, s := range u.inlines {
				addInlineKeys(m, u.img, s)
			}
		}
		u.inlByKey = m
	})
	return u.inlByKey
}

func addInlineKeys(m map[string][]inlineSite, img *Image, s inlineSite) {
	name, _, _, _, _, _ := img.resolveDecl(s.origin)
	for _, k := range nameKeys(name) {
		m[k] = append(m[k], s)
	}
}

// addFuncKeys adds f under every lookup key of its names to m.
func addFuncKeys(m map[string][]*Function, f *Function) {
	for _, k := range nameKeys(f.Name) {
		m[k] = append(m[k], f)
	}
	if f.dwarfName != f.Name {
		for _, k := range nameKeys(f.dwarfName) {
			m[k] = append(m[k], f)
		}
	}
	if f.LinkageName != "" {
		m[f.LinkageName] = append(m[f.LinkageName], f)
	}
}

// nameUnits returns, sorted by offset, the units that can define a
// function with the lookup key name, found through ELF symbols; ok is
// false if symbols cannot tell.
func (img *Image) nameUnits(name string) (units []*unit, ok bool) {
	tab := img.functionSymtab()
	if tab == nil || name == "" {
		return nil, false
	}
	var match func(sym []byte) bool
	if strings.HasPrefix(name, "_Z") {
		// a linkage name: only the symbol itself
		match = func(sym []byte) bool {
			if at := bytes.IndexByte(sym, '@'); at >= 0 {
				sym = sym[:at]
			}
			return string(sym) == name
		}
	} else {
		base := lastComponent(stripTemplateArgs(name))
		id := strings.TrimPrefix(base, "~") // destructors: the class name
		if id == "" || strings.HasPrefix(id, "operator") || strings.ContainsAny(id, "<>()[]{} ,*&:") || stdAbbreviated[id] {
			return nil, false
		}
		plain := []byte(base)
		mangled := []byte(strconv.Itoa(len(id)) + id)
		match = func(sym []byte) bool {
			if bytes.HasPrefix(sym, []byte("_Z")) {
				return bytes.Contains(sym, mangled)
			}
			return bytes.Contains(sym, plain)
		}
	}
	var addrs []uint64
	err := tab.EachSymbol(elf.SHT_SYMTAB, func(e symbols.RawSymbol) bool {
		switch elf.ST_TYPE(e.Info) { // a defined function (or untyped) symbol
		case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_NOTYPE:
			if e.Section != elf.SHN_UNDEF && e.Value != 0 && match(e.Name) {
				addrs = append(addrs, e.Value)
			}
		}
		return true
	})
	if err != nil {
		return nil, false
	}
	slices.Sort(addrs)
	// every unit covering one of the addresses: the linker points the
	// DWARF of discarded COMDAT copies (template instances) at the copy
	// it kept, so many units can describe the same code
	seen := map[*unit]bool{}
	for _, r := range img.unitPCs {
		if i, _ := slices.BinarySearch(addrs, r.lo); i < len(addrs) && addrs[i] < r.hi {
			seen[r.u] = true
		}
	}
	for _, u := range img.units {
		if seen[u] || len(u.ranges) == 0 {
			units = append(units, u)
		}
	}
	return units, true
}

// stdAbbreviated are class names the Itanium mangling abbreviates (Sa,
// Sb, Ss, Si, So, Sd): their constructors' symbols do not spell them.
var stdAbbreviated = map[string]bool{
	"allocator": true, "basic_string": true, "string": true,
	"basic_istream": true, "basic_ostream": true, "basic_iostream": true,
	"istream": true, "ostream": true, "iostream": true, "char_traits": true,
}

// lastComponent returns the last "::"-separated component of a name
// without template arguments.
func lastComponent(n string) string {
	depth, last := 0, 0
	for i := 0; i+1 < len(n); i++ {
		switch n[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ':':
			if depth == 0 && n[i+1] == ':' {
				last = i + 2
			}
		}
	}
	return n[last:]
}

// functionSymtab returns the file whose .symtab lazy name lookups scan:
// the code file's, or else its separate debug file's; nil if neither has
// a complete one (a stripped image), in which case name lookups index
// every unit.
func (img *Image) functionSymtab() *symbols.File {
	img.fnSymOnce.Do(func() {
		files := []*symbols.File{img.syms}
		if d, err := img.syms.DebugFile(); err == nil {
			files = append(files, d)
		}
		for _, f := range files {
			if hasLocals(f) {
				img.fnSyms = f
				return
			}
		}
	})
	return img.fnSyms
}

// hasLocals reports whether f's .symtab kept its local symbols (it has
// STT_FILE entries): "strip -x" and "strip --strip-unneeded" drop them,
// and with them the symbols of static functions.
func hasLocals(f *symbols.File) bool {
	found := false
	_ = f.EachSymbol(elf.SHT_SYMTAB, func(e symbols.RawSymbol) bool {
		found = elf.ST_TYPE(e.Info) == elf.STT_FILE
		return !found
	})
	return found
}

// InlinedCopy is one inlined instance of a function.
type InlinedCopy struct {
	// Entry is the file address of the first instruction of the copy
	// (the DW_AT_entry_pc or lowest range start).
	Entry  uint64
	Ranges [][2]uint64
	// Caller is the concrete function the copy is inlined into; CallFile
	// and CallLine are the call site.
	Caller   *Function
	CallFile string
	CallLine int
	// Origin is the abstract subprogram DIE of the inlined function;
	// Offset the copy's own DW_TAG_inlined_subroutine DIE (its block, as
	// InlineFrame.Offset names it).
	Origin, Offset stddwarf.Offset
}

// OriginLinkage is the linkage name of the inlined function ("" where
// DWARF gives none, as for C).
func (img *Image) OriginLinkage(c InlinedCopy) string {
	_, linkage, _, _, _, _ := img.resolveDecl(c.Origin)
	return linkage
}

// InlinedCopies returns every inlined instance of the functions named
// name (same matching as FuncsByName), including those inside lexical
// blocks.
//
// Before the image is fully indexed, only units whose abbreviation table
// declares DW_TAG_inlined_subroutine are walked (none in -O0 code).
func (img *Image) InlinedCopies(name string) []InlinedCopy {
	name = symbols.StripParams(strings.TrimSpace(name)) // as FuncsByName: the caller checks a parameter list
	var sites []inlineSite
	if !img.allDone.Load() && img.listUnits() == nil && img.dw != nil {
		img.lazyMu.Lock()
		units, ok := img.lazyInl[name]
		img.lazyMu.Unlock()
		if !ok {
			units = slices.DeleteFunc(img.inlineUnits(name), func(u *unit) bool { return u.noOriginNamed(name) })
			img.lazyMu.Lock()
			if img.lazyInl == nil {
				img.lazyInl = map[string][]*unit{}
			}
			img.lazyInl[name] = units
			img.lazyMu.Unlock()
		}
		for _, u := range units {
			sites = append(sites, u.inlinesByKey()[name]...)
		}
	} else {
		img.indexAll()
		sites = img.inlineBy[name]
	}
	var out []InlinedCopy
	for _, s := range sites {
		c := InlinedCopy{Ranges: s.ranges, Caller: s.fn, CallLine: s.callLine, Origin: s.origin, Offset: s.off}
		c.Entry = s.ranges[0][0] // first listed range, as GDB's entry pc
		c.CallFile = s.fn.cu.fileName(s.callFile)
		out = append(out, c)
	}
	// Stable: copies nested in one another that start at one address stay
	// in DIE order, the outer first (the symbol GDB's linespec keeps for
	// that address: FunctionBreakpoints).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Entry < out[j].Entry })
	return out
}

// InlineFrame is one level of the inline chain at a pc.
type InlineFrame struct {
	// Name is the qualified name of the inlined function.
	Name string
	// Origin is the abstract subprogram DIE; Offset the inlined
	// subroutine DIE.
	Origin, Offset stddwarf.Offset
	// CallFile and CallLine are where the call was, in the caller.
	CallFile string
	CallLine int
	// Entry is the lowest address of the inlined copy.
	Entry uint64
	tree  *godwarf.Tree
}

// InlineChain returns the inlined calls active at the file address pc in
// f, outermost first. Inlined calls inside lexical blocks are included.
func (f *Function) InlineChain(pc uint64) []InlineFrame {
	var out []InlineFrame
	for _, n := range f.scopeChain(pc) {
		if n.Tag != stddwarf.TagInlinedSubroutine {
			continue
		}
		e, _ := n.Entry.(interface {
			Val(stddwarf.Attr) any
		})
		fr := InlineFrame{Offset: n.Offset, tree: n}
		if e != nil {
			if o, ok := e.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
				fr.Origin = o
			}
			switch v := e.Val(stddwarf.AttrCallFile).(type) {
			case int64:
				fr.CallFile = f.cu.fileName(int(v))
			}
			if v, ok := e.Val(stddwarf.AttrCallLine).(int64); ok {
				fr.CallLine = int(v)
			}
		}
		name, linkage, _, _, _, _ := f.cu.img.resolveDecl(n.Offset)
		fr.Name = f.cu.displayName(name, linkage)
		fr.Entry = f.cu.img.entryPC(n.Offset)
		out = append(out, fr)
	}
	return out
}

// StartsAt reports whether the inlined call begins at file address pc:
// its entry, or the start of a range whose previous address is outside
// the call (GDB's block_starting_point_at). GDB hides such a call at a
// stop there (skip_inline_frames): frame 0 is its caller, at the call
// site, until a "step" goes into it.
func (fr *InlineFrame) StartsAt(pc uint64) bool {
	if pc == fr.Entry {
		return true
	}
	return fr.tree != nil && treeContains(fr.tree, pc) && !treeContains(fr.tree, pc-1)
}

// End is the end of the inlined call's highest range (GDB's BLOCK_END),
// 0 if unknown.
func (fr *InlineFrame) End() uint64 {
	var end uint64
	if fr.tree != nil {
		for _, r := range fr.tree.Ranges {
			end = max(end, r[1])
		}
	}
	return end
}

// RangeEnd is the end of the inlined call's range holding the file
// address pc, 0 if none does.
func (fr *InlineFrame) RangeEnd(pc uint64) uint64 {
	if fr.tree != nil {
		for _, r := range fr.tree.Ranges {
			if r[0] <= pc && pc < r[1] {
				return r[1]
			}
		}
	}
	return 0
}

// HiddenAt is how many of the innermost calls of chain (InlineChain's,
// outermost first) start at pc and are hidden there (StartsAt).
func HiddenAt(chain []InlineFrame, pc uint64) int {
	n := 0
	for n < len(chain) && chain[len(chain)-1-n].StartsAt(pc) {
		n++
	}
	return n
}

// entryPC returns GDB's entry pc of a DIE with code: DW_AT_low_pc, else
// the start of the first range as listed in DW_AT_ranges that GDB keeps
// (codeRanges). GDB 13 ignores DW_AT_entry_pc, which gcc may put in an
// empty first range, outside the call's code.
func (img *Image) entryPC(off stddwarf.Offset) uint64 {
	r := img.dw.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return 0
	}
	if lo, ok := e.Val(stddwarf.AttrLowpc).(uint64); ok {
		return lo
	}
	if rs, err := img.dw.Ranges(e); err == nil {
		if rs = img.codeRanges(rs); len(rs) > 0 {
			return rs[0][0]
		}
	}
	return 0
}

// indexUnits runs index on every unit, on as many goroutines as there
// are CPUs (each unit is walked by its own reader).
func (img *Image) indexUnits(index func(u *unit)) {
	work := make(chan *unit)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(img.units)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				index(u)
			}
		}()
	}
	for _, u := range img.units {
		work <- u
	}
	close(work)
	wg.Wait()
}
