package dwarf

import (
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	stddwarf "debug/dwarf"

	"github.com/ianlancetaylor/demangle"

	"github.com/rrmcp/rrmcp/symbols"
)

// unit is the lazily built index of one compile unit.
type unit struct {
	img       *Image
	entry     *stddwarf.Entry
	off       stddwarf.Offset // the unit DIE
	start     stddwarf.Offset // the unit header (base of unit-relative offsets)
	abbrevOff uint64          // its abbreviation table in .debug_abbrev
	name      string
	compDir   string
	producer  string
	lang      int64
	version   int
	addrSize  int
	lowPC     uint64 // base address for location lists
	addrBase  uint64 // DW_AT_addr_base (DWARF 5), for DW_OP_addrx
	llBase    uint64 // DW_AT_loclists_base, for DW_FORM_loclistx
	ranges    [][2]uint64

	once     sync.Once
	err      error
	indexed  atomic.Bool // decls complete
	deepOnce sync.Once
	deepErr  error
	funcs    []*Function
	fnPCs    []funcRange
	decls    map[stddwarf.Offset]*declInfo
	vars     []varDecl
	inlines  []inlineSite
	// usings are the C++ using directives and declarations outside
	// functions (at file scope and in namespaces), in order
	usings   []using
	keysOnce sync.Once
	byKey    map[string][]*Function // lazy name lookups (FuncsByName)
	inlOnce  sync.Once
	inlByKey map[string][]inlineSite // lazy inlined-copy lookups
	// hasLoclist: some variable in the unit uses a location list. GDB
	// trusts such gcc units' line tables and does not skip prologues.
	hasLoclist bool

	linesOnce sync.Once
	linesMu   sync.Mutex
	lines     *lineTable
	filesOnce sync.Once
	files     []string
}

type funcRange struct {
	lo, hi uint64
	f      *Function
}

// declInfo is what the index keeps of a DIE that can be the target of
// DW_AT_specification or DW_AT_abstract_origin.
type declInfo struct {
	name     string
	scope    string          // qualified prefix ("geo::Circle::"), "" at top level
	ref      stddwarf.Offset // its own specification/abstract origin, 0 if none
	linkage  string
	declFile int
	declLine int
	external bool
}

// varDecl is a variable at CU or namespace scope.
type varDecl struct {
	name     string // plain name
	qual     string // qualified name
	off      stddwarf.Offset
	external bool
	hasLoc   bool // has DW_AT_location or DW_AT_const_value
	decl     bool // DW_AT_declaration: an extern declaration, defined elsewhere
	u        *unit
}

// inlineSite is one DW_TAG_inlined_subroutine.
type inlineSite struct {
	origin   stddwarf.Offset
	off      stddwarf.Offset
	ranges   [][2]uint64
	callFile int
	callLine int
	fn       *Function // the concrete function it is inlined into
}

func newUnit(img *Image, e *stddwarf.Entry, addrSize, version int) *unit {
	u := &unit{img: img, entry: e, off: e.Offset, addrSize: addrSize, version: version}
	u.name, _ = e.Val(stddwarf.AttrName).(string)
	u.compDir, _ = e.Val(stddwarf.AttrCompDir).(string)
	u.producer, _ = e.Val(stddwarf.AttrProducer).(string)
	u.lang, _ = e.Val(stddwarf.AttrLanguage).(int64)
	u.lowPC, _ = e.Val(stddwarf.AttrLowpc).(uint64)
	u.addrBase = attrUint(e, stddwarf.AttrAddrBase)
	u.llBase = attrUint(e, stddwarf.AttrLoclistsBase)
	if u.addrSize == 0 {
		u.addrSize = 8
	}
	return u
}

func attrUint(e *stddwarf.Entry, a stddwarf.Attr) uint64 {
	switch v := e.Val(a).(type) {
	case int64:
		return uint64(v)
	case uint64:
		return v
	case stddwarf.Offset:
		return uint64(v)
	}
	return 0
}

func attrInt(e *stddwarf.Entry, a stddwarf.Attr) int {
	return int(attrUint(e, a))
}

// declFileIndex returns the DW_AT_decl_file index of e, or -1 when it has
// none. Index 0 is a file only from DWARF 5 on (before, it means "no file").
func declFileIndex(e attrGetter, version int) int {
	switch v := e.Val(stddwarf.AttrDeclFile).(type) {
	case int64:
		if v > 0 || (v == 0 && version >= 5) {
			return int(v)
		}
	case uint64:
		if v > 0 || (v == 0 && version >= 5) {
			return int(v)
		}
	}
	return -1
}

// isCPlusPlus reports whether the unit's language is a C++ dialect.
func (u *unit) isCPlusPlus() bool {
	switch u.lang {
	case 0x4, 0x1a, 0x21, 0x2b: // DW_LANG_C_plus_plus, _03, _11, _14
		return true
	}
	return strings.Contains(u.producer, "C++")
}

// index walks the unit's DIEs once and records functions, declarations,
// CU-level variables and inlined calls.
func (u *unit) index() error {
	u.once.Do(func() { u.err = u.walk(false) })
	return u.err
}

// indexDeep walks the unit again, this time into function bodies, to
// record inlined calls and whether any variable uses a location list.
func (u *unit) indexDeep() error {
	if err := u.index(); err != nil {
		return err
	}
	u.deepOnce.Do(func() { u.deepErr = u.walk(true) })
	return u.deepErr
}

type scopeFrame struct {
	prefix string    // qualified prefix for children
	fn     *Function // innermost concrete function, if inside one
	inFunc bool
	// body: in the first walk, inside a C++ function's body, where only
	// local classes matter: g++ puts the code of their member functions
	// (a lambda's operator() too) inside them, with no entry at the
	// unit's level (clang adds one, with DW_AT_specification).
	body bool
}

// mayHaveLoclist reports whether the unit's abbreviations allow a
// DW_AT_location that is a location list (DW_FORM_sec_offset,
// DW_FORM_loclistx, or data4/data8 before DWARF 4); if not, hasLoclist is
// false without walking the function bodies (-O0 code).
func (u *unit) mayHaveLoclist() bool {
	return u.img.abbrevAny(u.abbrevOff, func(_ stddwarf.Tag, a stddwarf.Attr, form uint64) bool {
		return a == stddwarf.AttrLocation && (form == 0x17 || form == 0x22 || form == 0x06 || form == 0x07)
	})
}

// walk records functions, declarations and CU-level variables; it skips
// function bodies (via DW_AT_sibling) unless deep, in which case it
// records only inlined calls and location-list use.
func (u *unit) walk(deep bool) error {
	var byOff map[stddwarf.Offset]*Function
	if deep {
		byOff = make(map[stddwarf.Offset]*Function, len(u.funcs))
		for _, f := range u.funcs {
			byOff[f.Offset] = f
		}
	} else {
		u.decls = map[stddwarf.Offset]*declInfo{}
	}
	r := u.img.dw.Reader()
	r.Seek(u.off)
	cu, err := r.Next()
	if err != nil || cu == nil {
		return fmt.Errorf("index unit at %#x: %w", u.off, err)
	}
	if !cu.Children {
		return nil
	}
	stack := []scopeFrame{{}}
	for len(stack) > 0 {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("index unit %s at %#x: %w", u.name, u.off, err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		top := stack[len(stack)-1]
		child := top
		if top.body && !deep {
			switch e.Tag {
			case stddwarf.TagClassType, stddwarf.TagStructType, stddwarf.TagUnionType, stddwarf.TagLexDwarfBlock:
				// GDB names a local class's member by the class alone
				// (Handler::on_item; a lambda's is operator()).
				if name, _ := e.Val(stddwarf.AttrName).(string); name != "" && e.Tag != stddwarf.TagLexDwarfBlock {
					child.prefix = top.prefix + name + "::"
				}
				if e.Children {
					stack = append(stack, child)
				}
			case stddwarf.TagSubprogram:
				u.recordDecl(e, top.prefix)
				u.concreteFunc(e)
				if e.Children {
					stack = append(stack, child)
				}
			default:
				if e.Children {
					r.SkipChildren()
				}
			}
			continue
		}
		switch e.Tag {
		case stddwarf.TagNamespace:
			name, _ := e.Val(stddwarf.AttrName).(string)
			if name == "" {
				name = "(anonymous namespace)"
			}
			child.prefix = top.prefix + name + "::"
		case stddwarf.TagClassType, stddwarf.TagStructType, stddwarf.TagUnionType:
			if name, _ := e.Val(stddwarf.AttrName).(string); name != "" {
				child.prefix = top.prefix + name + "::"
			}
			// enumerators of an unscoped enum are not qualified by it;
			// nothing here needs that distinction.
		case stddwarf.TagSubprogram:
			if deep {
				child.fn = byOff[e.Offset]
			} else {
				u.recordDecl(e, top.prefix)
				u.concreteFunc(e)
				if e.Children && !u.isCPlusPlus() {
					r.SkipChildren() // parameters and bodies: see deep
					continue
				}
				child.body = true
			}
			child.inFunc = true
		case stddwarf.TagInlinedSubroutine:
			if deep {
				u.recordInline(e, top.fn)
			}
		case stddwarf.TagImportedModule, stddwarf.TagImportedDeclaration:
			if !deep && !top.inFunc {
				u.usings = append(u.usings, newUsing(e, top.prefix))
			}
		case stddwarf.TagVariable, stddwarf.TagMember, stddwarf.TagFormalParameter:
			if deep {
				if f := e.AttrField(stddwarf.AttrLocation); f != nil && (f.Class == stddwarf.ClassLocListPtr || f.Class == stddwarf.ClassLocList) {
					u.hasLoclist = true
				}
				break
			}
			if e.Tag == stddwarf.TagFormalParameter {
				break
			}
			if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); e.Tag == stddwarf.TagMember && !decl {
				break // an ordinary data member
			}
			u.recordDecl(e, top.prefix)
			if !top.inFunc {
				u.recordVar(e, top.prefix)
			}
		case stddwarf.TagEnumerationType, stddwarf.TagBaseType, stddwarf.TagArrayType, stddwarf.TagSubroutineType:
			if e.Children {
				r.SkipChildren()
				continue
			}
		}
		if e.Children {
			stack = append(stack, child)
		}
	}
	if deep {
		return nil
	}
	u.indexed.Store(true) // decls is complete and read-only from here
	for _, f := range u.funcs {
		u.nameFunc(f)
	}
	sort.Slice(u.fnPCs, func(i, j int) bool {
		a, b := u.fnPCs[i], u.fnPCs[j]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		return a.hi > b.hi
	})
	return nil
}

func (u *unit) recordDecl(e *stddwarf.Entry, prefix string) {
	u.decls[e.Offset] = newDeclInfo(e, u.version, prefix)
}

// newDeclInfo reads what a declaring entry says of its name (in scope,
// the enclosing namespaces and classes as indexed), its links, linkage
// name and declaration; version is its unit's DWARF version.
func newDeclInfo(e *stddwarf.Entry, version int, scope string) *declInfo {
	d := &declInfo{scope: scope}
	d.name, _ = e.Val(stddwarf.AttrName).(string)
	if o, ok := e.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
		d.ref = o
	} else if o, ok := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset); ok {
		d.ref = o
	}
	d.linkage, _ = e.Val(stddwarf.AttrLinkageName).(string)
	if d.linkage == "" {
		d.linkage, _ = e.Val(attrMIPSLinkageName).(string)
	}
	d.declFile = declFileIndex(e, version)
	d.declLine = attrInt(e, stddwarf.AttrDeclLine)
	d.external, _ = e.Val(stddwarf.AttrExternal).(bool)
	return d
}

// concreteFunc records a subprogram that has code and returns it.
func (u *unit) concreteFunc(e *stddwarf.Entry) *Function {
	if e.AttrField(stddwarf.AttrLowpc) == nil && e.AttrField(stddwarf.AttrRanges) == nil {
		return nil
	}
	rs, err := u.img.dw.Ranges(e)
	rs = u.img.codeRanges(rs)
	if err != nil || len(rs) == 0 {
		return nil
	}
	f := &Function{Offset: e.Offset, Ranges: rs, cu: u}
	f.mainSubprogram, _ = e.Val(stddwarf.AttrMainSubprogram).(bool)
	if lo, ok := e.Val(stddwarf.AttrLowpc).(uint64); ok {
		f.Entry = lo
	} else {
		f.Entry = rs[0][0] // the first range as listed (hot part), as GDB's entry pc
	}
	u.funcs = append(u.funcs, f)
	for _, r := range rs {
		if r[1] > r[0] {
			u.fnPCs = append(u.fnPCs, funcRange{r[0], r[1], f})
		}
	}
	return f
}

func (u *unit) recordInline(e *stddwarf.Entry, fn *Function) {
	o, ok := e.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset)
	if !ok || fn == nil {
		return
	}
	rs, err := u.img.dw.Ranges(e)
	rs = u.img.codeRanges(rs)
	if err != nil || len(rs) == 0 {
		return
	}
	u.inlines = append(u.inlines, inlineSite{
		origin:   o,
		off:      e.Offset,
		ranges:   rs,
		callFile: attrInt(e, stddwarf.AttrCallFile),
		callLine: attrInt(e, stddwarf.AttrCallLine),
		fn:       fn,
	})
}

func (u *unit) recordVar(e *stddwarf.Entry, prefix string) {
	name, _ := e.Val(stddwarf.AttrName).(string)
	spec, hasSpec := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset)
	if hasSpec {
		// a definition of a declared (static member or extern) variable:
		// its name and scope are the declaration's
		if d := u.img.declAt(spec, u); d != nil {
			name, prefix = d.name, d.scope
		}
	}
	if name == "" {
		return
	}
	ext, _ := e.Val(stddwarf.AttrExternal).(bool)
	if hasSpec {
		if d := u.img.declAt(spec, u); d != nil {
			ext = ext || d.external
		}
	}
	hasLoc := e.AttrField(stddwarf.AttrLocation) != nil || e.AttrField(stddwarf.AttrConstValue) != nil
	decl, _ := e.Val(stddwarf.AttrDeclaration).(bool)
	u.vars = append(u.vars, varDecl{name: name, qual: prefix + name, off: e.Offset, external: ext, hasLoc: hasLoc, decl: decl, u: u})
}

// declAt returns the declaration info for the DIE at off, from its unit's
// index when that unit is indexed (or is self, the unit the caller is
// indexing), else by reading the DIE. Units are indexed concurrently, so
// another unit's map is only read once its walk is complete.
func (img *Image) declAt(off stddwarf.Offset, self *unit) *declInfo {
	if u := img.unitAt(off); u != nil && (u == self || u.indexed.Load()) {
		if d, ok := u.decls[off]; ok {
			return d
		}
	}
	r := img.dw.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil
	}
	version := 5
	if du := img.unitAt(off); du != nil {
		version = du.version
	}
	return newDeclInfo(e, version, "")
}

// resolveDecl follows specification/abstract-origin links from off and
// returns the qualified name and the first linkage name, decl file
// (with the unit whose file table it indexes) and decl line found.
func (img *Image) resolveDecl(off stddwarf.Offset) (name, linkage string, declU *unit, declFile, declLine int, external bool) {
	for i := 0; i < 8 && off != 0; i++ {
		d := img.declAt(off, nil)
		if d == nil {
			break
		}
		if linkage == "" {
			linkage = d.linkage
		}
		if declU == nil && d.declFile >= 0 {
			declFile, declLine, declU = d.declFile, d.declLine, img.unitAt(off)
		}
		external = external || d.external
		if d.name != "" && d.ref == 0 {
			return d.scope + d.name, linkage, declU, declFile, declLine, external
		}
		if d.ref == 0 {
			name = d.scope + d.name
			break
		}
		if d.name != "" && name == "" {
			name = d.scope + d.name // fallback if the chain breaks
		}
		off = d.ref
	}
	return name, linkage, declU, declFile, declLine, external
}

func (u *unit) nameFunc(f *Function) {
	name, linkage, du, file, line, ext := u.img.resolveDecl(f.Offset)
	f.Name, f.LinkageName, f.DeclLine, f.External = name, linkage, line, ext
	f.dwarfName = name
	f.Name = u.displayName(name, linkage)
	if du != nil {
		f.DeclFile = du.fileName(file)
	}
}

// funcAt returns the innermost concrete function of the unit covering pc.
func (u *unit) funcAt(pc uint64) *Function {
	if u.index() != nil {
		return nil
	}
	i := sort.Search(len(u.fnPCs), func(i int) bool { return u.fnPCs[i].lo > pc }) - 1
	var best *Function
	var bestSize uint64
	for ; i >= 0; i-- {
		r := u.fnPCs[i]
		if pc >= r.lo && pc < r.hi && (best == nil || r.hi-r.lo < bestSize) {
			best, bestSize = r.f, r.hi-r.lo
		}
		if pc-r.lo > 1<<24 {
			break
		}
		if best != nil && i > 0 && u.fnPCs[i-1].hi <= pc {
			break
		}
	}
	return best
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name (old gcc, DWARF < 4).
const attrMIPSLinkageName stddwarf.Attr = 0x2007

// displayName is the name GDB shows for a function: in C, an unmangled
// DW_AT_linkage_name wins ("__GI_raise" for raise); in C++ the demangled
// linkage name (symbols.FunctionName), else the qualified DWARF name; the
// demangled linkage name when DWARF has no name.
func (u *unit) displayName(name, linkage string) string {
	if u.lang == dwLangRust && name != "" {
		return name // its scope's path: rustc's v0 linkage names (_R…) are not GDB's names
	}
	if linkage != "" && !strings.HasPrefix(linkage, "_Z") && !u.isCPlusPlus() {
		return linkage
	}
	if name == "" && linkage != "" {
		return demangle.Filter(linkage, demangle.NoParams)
	}
	if u.isCPlusPlus() {
		// GDB names a function that has a linkage name from it
		// (dwarf2_physname): every template argument, where GCC's name
		// leaves out defaulted ones (f<int, 0>, not f<int>). Demangling
		// costs ~15 µs a name and a unit of STL code has thousands, so
		// only where that name can differ from the qualified DWARF one.
		if linkageNamed(name, linkage) {
			if n := symbols.FunctionName(linkage); n != "" {
				return n
			}
		}
		// GDB canonicalizes C++ names: char (&) [32], T const
		name = canonicalCxxName(strings.ReplaceAll(name, ")[", ") ["))
	}
	return name
}

// linkageNamed reports whether GDB's name for a C++ function from its
// linkage name (symbols.FunctionName) may differ from its qualified DWARF
// name: a function template's instance (a DWARF name ending in its
// template arguments, where GCC leaves out defaulted ones), and what GDB's
// parser cannot read, recognized in the mangled name (false alarms only
// cost a demangling): a name local to a function ("_ZZ"), a lambda
// ("Ul"), an unnamed type ("Ut"), an ABI tag ("B" and its length), a
// ref-qualified method, and in
// the DWARF name a class template's arguments with a function type or an
// empty list, or a value argument (templateValueArg).
func linkageNamed(name, linkage string) bool {
	if !strings.HasPrefix(linkage, "_Z") {
		return false
	}
	if strings.HasSuffix(name, ">") || strings.HasPrefix(linkage, "_ZZ") ||
		strings.Contains(linkage, "Ul") || strings.Contains(linkage, "Ut") {
		return true
	}
	// a class template's member whose arguments hold a function type or
	// an empty list (W<void (int)>::get, S<T<> >::f)
	if i, j := strings.IndexByte(name, '<'), strings.LastIndexByte(name, '>'); i >= 0 && j > i &&
		(strings.Contains(name[i:j], "(") || strings.Contains(name[i:j], "<>")) {
		return true
	}
	for i := 0; i+1 < len(linkage); i++ {
		if linkage[i] == 'B' && linkage[i+1] >= '0' && linkage[i+1] <= '9' {
			return true
		}
	}
	if mangledFunctionType(linkage) {
		return true // a function type in a parameter's type, say
	}
	// a ref-qualified method (Box::get() const &): _ZN, its
	// cv-qualifiers, then R or O
	if q, ok := strings.CutPrefix(linkage, "_ZN"); ok {
		if q = strings.TrimLeft(q, "rVK"); strings.HasPrefix(q, "R") || strings.HasPrefix(q, "O") {
			return true
		}
	}
	return templateValueArg(name)
}

// mangledFunctionType reports whether the mangled name holds a function
// type ("F…E": f(W<int (int)> const&) is _Z1fRK1WIFiiEE, also where it is
// behind a pointer) outside the identifiers, which are skipped by their
// length.
func mangledFunctionType(linkage string) bool {
	for i := 2; i < len(linkage); i++ {
		c := linkage[i]
		switch {
		case c == 'F':
			return true
		case c >= '1' && c <= '9' && linkage[i-1] != 'S' && linkage[i-1] != 'T':
			n := 0
			for i < len(linkage) && linkage[i] >= '0' && linkage[i] <= '9' {
				n = n*10 + int(linkage[i]-'0')
				i++
			}
			i += n - 1
		}
	}
	return false
}

// templateValueArg reports whether a template argument list in name
// holds a number or a character, which GCC's DW_AT_name spells without
// its type and the demangler with it (Ring<int, 3> is Ring<int, 3ul>,
// Box<-2> Box<-2l>, Chr<'a'> Chr<(char)97>).
func templateValueArg(name string) bool {
	for i := 0; i+1 < len(name); i++ {
		if name[i] != '<' && !(name[i] == ' ' && i > 0 && name[i-1] == ',') {
			continue
		}
		j := i + 1
		if name[j] == '-' && j+1 < len(name) {
			j++
		}
		if c := name[j]; c >= '0' && c <= '9' || c == '\'' {
			return true
		}
	}
	return false
}

// codeRanges is rs without the ranges GDB ignores (dwarf2_ranges_process,
// dwarf2_get_pc_bounds): empty ones (start == end; gcc -O2 lists one
// first for an inlined call whose DW_AT_entry_pc is there, outside the
// call's code), and those that start at address zero when no loaded
// section is there, the code of a discarded COMDAT copy (a template
// instance or inline function the linker kept from another unit), whose
// addresses the linker resolved to zero.
func (img *Image) codeRanges(rs [][2]uint64) [][2]uint64 {
	empty := func(r [2]uint64) bool { return r[1] <= r[0] }
	discarded := func(r [2]uint64) bool { return r[0] == 0 }
	if !slices.ContainsFunc(rs, empty) && (!slices.ContainsFunc(rs, discarded) || img.sectionAtZero()) {
		return rs
	}
	atZero := img.sectionAtZero()
	return slices.DeleteFunc(slices.Clone(rs), func(r [2]uint64) bool { return empty(r) || discarded(r) && !atZero })
}

// sectionAtZero reports whether a loaded section of the image starts at
// address zero (GDB's has_section_at_zero), as in some relocatable or
// embedded files.
func (img *Image) sectionAtZero() bool {
	for _, f := range []*elf.File{img.exe, img.dbg} {
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_ALLOC != 0 && s.Addr == 0 && s.Type != elf.SHT_NULL {
				return true
			}
		}
	}
	return false
}
