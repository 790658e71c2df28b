package dwarf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	stddwarf "debug/dwarf"

	"github.com/rrmcp/rrmcp/symbols"
)

// Image is one ELF file's debug information: its DWARF (possibly absent),
// its call-frame information and the ELF symbols needed to name pcs
// without DWARF. Addresses it takes and returns are file addresses.
//
// Indexes are built lazily, each once, on first use.
type Image struct {
	// Path is the file Open was given; callers of LoadSplit and LoadFrom may set it.
	Path   string
	closer io.Closer // the memory-mapped file Open opened, if any

	exe *elf.File // code, .eh_frame, symbols
	dbg *elf.File // DWARF (== exe unless a separate debug file)
	dw  *stddwarf.Data
	// arch is the target architecture (pointer size, register numbers).
	arch *arch

	// TLSModule is the module id of this image's TLS block in the dtv, for
	// shared libraries with __thread variables. The main executable uses
	// 1 and needs no dtv. Set by the caller that tracks loaded libraries.
	TLSModule uint64

	unitsOnce sync.Once
	unitsErr  error
	units     []*unit // sorted by offset
	unitPCs   []unitRange

	allOnce  sync.Once
	vtOnce   sync.Once
	vtables  map[uint64]stddwarf.Offset // RustDynType's index
	allDone  atomic.Bool                // indexAll finished: byName is complete
	byName   map[string][]*Function     // every key form of every concrete function
	globals  map[string][]varDecl       // CU-level variables by plain and qualified name
	inlineBy map[string][]inlineSite

	cfiOnce sync.Once
	cfi     *cfiTable

	syms *symbols.File // the code file's symbol table

	fnSymOnce sync.Once
	fnSyms    *symbols.File // the .symtab lazy name lookups scan, nil if none
	lazyMu    sync.Mutex
	lazyBy    map[string][]*Function // FuncsByName results found without indexAll
	lazyInl   map[string][]*unit     // InlinedCopies: the units to look in

	secMu     sync.Mutex
	secs      map[string][]byte
	sectionFn func(name string) ([]byte, error)
	releaseFn func(b []byte) // Sources.Release
}

type unitRange struct {
	lo, hi uint64
	u      *unit
}

// Open opens the ELF file at path and loads its debug information. The
// file is kept open for the life of the Image (see Close).
//
// The file is memory-mapped (package symbols): uncompressed debug sections
// are read in place, not copied onto the heap.
func Open(path string) (*Image, error) {
	sf, err := symbols.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open image: %w", err)
	}
	src := Sources{Exe: sf.ELF(), Symbols: sf, Section: sf.SectionData, Release: sf.Release}
	if sf.HasDWARF() { // this file's own DWARF only, as LoadSplit
		if src.DWARF, err = sf.DWARF(); err != nil {
			sf.Close()
			return nil, fmt.Errorf("load image: %w", err)
		}
	}
	img, err := LoadFrom(src)
	if err != nil {
		sf.Close()
		return nil, err
	}
	img.Path, img.closer = path, sf
	return img, nil
}

// LoadSplit builds an Image whose code, .eh_frame and symbols come from exe
// and whose DWARF comes from dbg, a separate debug file (found by the
// caller via build-id or .gnu_debuglink). dbg may be nil or equal exe.
func LoadSplit(exe, dbg *elf.File) (*Image, error) {
	if exe == nil {
		return nil, errors.New("load image: nil ELF file")
	}
	a, err := archFor(exe.Machine)
	if err != nil {
		return nil, err
	}
	if dbg == nil {
		dbg = exe
	}
	img := &Image{exe: exe, dbg: dbg, syms: symbols.FromELF(exe, dbg), secs: map[string][]byte{}, arch: a}
	if dbg.Section(".debug_info") != nil || dbg.Section(".zdebug_info") != nil {
		dw, err := dbg.DWARF()
		if err != nil {
			return nil, fmt.Errorf("load image: %w", err)
		}
		img.dw = dw
	}
	return img, nil
}

// Sources is debug data a caller already holds, for LoadFrom: typically
// package symbols' memory-mapped files, so that nothing is copied.
type Sources struct {
	// Exe holds the code, .eh_frame and symbols. Required.
	Exe *elf.File
	// Symbols is Exe's symbol table (nil: read through Exe and Debug).
	Symbols *symbols.File
	// Debug holds the DWARF (nil: Exe).
	Debug *elf.File
	// DWARF is the parsed DWARF of Debug (nil: parse it from Debug).
	DWARF *stddwarf.Data
	// Section returns the contents of a section of Debug by name
	// (".debug_loclists", ".debug_addr", ".debug_frame", ...), nil if
	// absent. Nil: read through Debug, which copies.
	Section func(name string) ([]byte, error)
	// Release is told of a part of a section (as Section returned it)
	// that a scan has read and will not need soon, so that a
	// memory-mapped file's pages can leave the resident set
	// (symbols.File.Release). Nil: nothing is released.
	Release func(b []byte)
}

// LoadFrom builds an Image from debug data the caller already holds.
func LoadFrom(src Sources) (*Image, error) {
	if src.DWARF == nil {
		img, err := LoadSplit(src.Exe, src.Debug)
		if err == nil {
			img.sectionFn, img.releaseFn = src.Section, src.Release
			if src.Symbols != nil {
				img.syms = src.Symbols
			}
		}
		return img, err
	}
	if src.Exe == nil {
		return nil, errors.New("load image: nil ELF file")
	}
	a, err := archFor(src.Exe.Machine)
	if err != nil {
		return nil, err
	}
	dbg := src.Debug
	if dbg == nil {
		dbg = src.Exe
	}
	syms := src.Symbols
	if syms == nil {
		syms = symbols.FromELF(src.Exe, dbg)
	}
	return &Image{exe: src.Exe, dbg: dbg, dw: src.DWARF, syms: syms, secs: map[string][]byte{}, sectionFn: src.Section, releaseFn: src.Release, arch: a}, nil
}

// Close releases the file if the Image opened it (Open); the Image and
// everything read from it lazily must not be used afterwards. Images
// built by LoadSplit or LoadFrom leave their files to the caller.
func (img *Image) Close() error {
	if img.closer == nil {
		return nil
	}
	c := img.closer
	img.closer = nil
	return c.Close()
}

// Symbols returns the symbol table of the image's code file (with its
// separate debug file): the one the image names pcs without DWARF by.
// It is the Image's: closed with it where the Image opened it (Open).
func (img *Image) Symbols() *symbols.File { return img.syms }

// DWARF returns the stdlib DWARF data of the image, or nil if it has none.
func (img *Image) DWARF() *stddwarf.Data { return img.dw }

// ELF returns the ELF file with the code.
func (img *Image) ELF() *elf.File { return img.exe }

// HasDWARF reports whether the image has DWARF debug information.
func (img *Image) HasDWARF() bool { return img.dw != nil }

// section returns the (decompressed) contents of a section of the debug
// file, or of the code file when the debug file lacks it; nil if absent.
func (img *Image) section(name string) []byte {
	img.secMu.Lock()
	defer img.secMu.Unlock()
	if b, ok := img.secs[name]; ok {
		return b
	}
	var b []byte
	if img.sectionFn != nil {
		if d, err := img.sectionFn(name); err == nil && d != nil {
			img.secs[name] = d
			return d
		}
	}
	for _, f := range []*elf.File{img.dbg, img.exe} {
		if s := f.Section(name); s != nil && s.Type != elf.SHT_NOBITS {
			d, err := s.Data()
			if err == nil {
				b = d
				break
			}
		}
	}
	img.secs[name] = b
	return b
}

// release hands b, read from a section (section), back to the source
// (Sources.Release) once a scan is past it.
func (img *Image) release(b []byte) {
	if img.releaseFn != nil && len(b) > 0 {
		img.releaseFn(b)
	}
}

// releaseStep is how much of a section a scan reads before it releases
// what it has read.
const releaseStep = 4 << 20

// fileSection returns the contents of section s of f, which is the code
// or the debug file, without copying where the caller supplied the debug
// file's sections (LoadFrom); nil on error.
func (img *Image) fileSection(f *elf.File, s *elf.Section) []byte {
	if s.Type == elf.SHT_NOBITS {
		return nil
	}
	if f == img.dbg && img.sectionFn != nil {
		if d, err := img.sectionFn(s.Name); err == nil && d != nil {
			return d
		}
	}
	d, err := s.Data()
	if err != nil {
		return nil
	}
	return d
}

// listUnits finds every compile unit, its version and its pc ranges,
// without reading the units' children.
func (img *Image) listUnits() error {
	img.unitsOnce.Do(func() {
		if img.dw == nil {
			return
		}
		versions, err := img.unitVersions()
		if err != nil {
			img.unitsErr = err
			return
		}
		// Each unit's first DIE, read where its header says it is: the
		// units' children are not decoded (a reader's SkipChildren
		// would decode every DIE of a unit, and its strings, to find
		// the next one).
		offs := slices.Sorted(maps.Keys(versions))
		r := img.dw.Reader()
		// (each unit's bytes go back once its first DIE is read)
		if len(offs) > 0 {
			defer img.releaseRange(".debug_info", uint64(versions[offs[len(offs)-1]].start), uint64(len(img.section(".debug_info"))))
		}
		for i, off := range offs {
			if i > 0 {
				img.releaseRange(".debug_info", uint64(versions[offs[i-1]].start), uint64(versions[off].start))
			}
			r.Seek(off)
			e, err := r.Next()
			if err != nil {
				img.unitsErr = fmt.Errorf("list compile units: %w", err)
				return
			}
			if e == nil || e.Offset != off {
				continue
			}
			if e.Tag != stddwarf.TagCompileUnit && e.Tag != stddwarf.TagPartialUnit {
				continue
			}
			h := versions[e.Offset]
			u := newUnit(img, e, r.AddressSize(), h.version)
			u.start, u.abbrevOff = h.start, h.abbrev
			img.units = append(img.units, u)
			rs, err := img.dw.Ranges(e)
			if err == nil {
				for _, rg := range rs {
					if rg[1] > rg[0] {
						img.unitPCs = append(img.unitPCs, unitRange{rg[0], rg[1], u})
					}
				}
			}
			u.ranges = rs
		}
		sort.Slice(img.units, func(i, j int) bool { return img.units[i].off < img.units[j].off })
		sort.Slice(img.unitPCs, func(i, j int) bool { return img.unitPCs[i].lo < img.unitPCs[j].lo })
	})
	return img.unitsErr
}

// unitVersions reads the unit headers of .debug_info and maps the offset
// of each unit's first DIE to the unit's DWARF version and header offset.
func (img *Image) unitVersions() (map[stddwarf.Offset]unitHeader, error) {
	m := map[stddwarf.Offset]unitHeader{}
	s := img.dbg.Section(".debug_info")
	if s == nil {
		return m, nil
	}
	// A compressed section's reader inflates from the start again at
	// each seek back; its bytes are in memory already (the DWARF reader
	// was made from them).
	var rd io.ReadSeeker = s.Open()
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		rd = bytes.NewReader(img.section(".debug_info"))
	}
	var off uint64
	var hdr [24]byte
	for {
		if _, err := rd.Seek(int64(off), io.SeekStart); err != nil {
			return nil, &FormatError{".debug_info", off, err.Error()}
		}
		n, err := io.ReadFull(rd, hdr[:])
		if n < 12 {
			break
		}
		_ = err
		length := uint64(binary.LittleEndian.Uint32(hdr[:]))
		hlen := uint64(4)
		if length == 0xffffffff {
			length = binary.LittleEndian.Uint64(hdr[4:])
			hlen = 12
		}
		if length == 0 {
			break
		}
		v := int(binary.LittleEndian.Uint16(hdr[hlen:]))
		offSize := uint64(4)
		if hlen == 12 {
			offSize = 8
		}
		var die uint64
		switch {
		case v >= 5:
			// unit_type, address_size, debug_abbrev_offset; skeleton and
			// split units carry a dwo id (8) first, type units sig+offset.
			ut := hdr[hlen+2]
			die = off + hlen + 2 + 1 + 1 + offSize
			switch ut {
			case 0x04, 0x05: // DW_UT_skeleton, DW_UT_split_compile
				die += 8
			case 0x02, 0x06: // DW_UT_type, DW_UT_split_type
				die += 8 + offSize
			}
		default:
			die = off + hlen + 2 + offSize + 1
		}
		abbrevAt := hlen + 2 // DWARF 2-4: version, debug_abbrev_offset
		if v >= 5 {
			abbrevAt += 2 // unit_type, address_size first
		}
		var abbrev uint64
		if offSize == 8 {
			abbrev = binary.LittleEndian.Uint64(hdr[abbrevAt:])
		} else {
			abbrev = uint64(binary.LittleEndian.Uint32(hdr[abbrevAt:]))
		}
		m[stddwarf.Offset(die)] = unitHeader{v, stddwarf.Offset(off), abbrev}
		next := off + hlen + length
		img.releaseRange(".debug_info", off, next)
		off = next
	}
	return m, nil
}

// releaseRange releases [lo, hi) of the named section (release) where
// the section is read in place: a reader that touches a few bytes of
// each of many places (unit headers, units' first DIEs) gives each back
// before the next, since the kernel may map the whole large page cache
// folio around a read (Linux 6.18: up to 2 MiB), which over a whole
// section makes all of it resident.
func (img *Image) releaseRange(name string, lo, hi uint64) {
	if img.releaseFn == nil {
		return
	}
	b := img.section(name)
	if lo < hi && hi <= uint64(len(b)) {
		img.release(b[lo:hi])
	}
}

type unitHeader struct {
	version int
	start   stddwarf.Offset // offset of the unit header
	abbrev  uint64          // offset of its abbreviation table
}

// unitFor returns the unit whose ranges contain pc.
func (img *Image) unitFor(pc uint64) *unit {
	if img.listUnits() != nil {
		return nil
	}
	i := sort.Search(len(img.unitPCs), func(i int) bool { return img.unitPCs[i].lo > pc }) - 1
	// ranges of different units do not overlap; look at the candidate
	// and, for a range nested in a neighbour's (rare), one before it
	for j := i; j >= 0 && j >= i-1; j-- {
		if r := img.unitPCs[j]; pc >= r.lo && pc < r.hi {
			return r.u
		}
	}
	return nil
}

// unitAt returns the unit containing the DIE at off.
func (img *Image) unitAt(off stddwarf.Offset) *unit {
	if img.listUnits() != nil || len(img.units) == 0 {
		return nil
	}
	i := sort.Search(len(img.units), func(i int) bool { return img.units[i].off > off }) - 1
	if i < 0 {
		return nil
	}
	return img.units[i]
}

// SymbolAt returns the raw ELF symbol (without version) covering the
// file address pc as GDB names a pc without DWARF, and pc's offset into
// it (symbols.File.FunctionAt).
func (img *Image) SymbolAt(pc uint64) (name string, off uint64, ok bool) {
	s, off, err := img.syms.FunctionAt(pc)
	if err != nil {
		return "", 0, false
	}
	return s.Name, off, true
}

// SymbolAddr returns the file address of the ELF function symbol with
// this exact (mangled) name.
func (img *Image) SymbolAddr(name string) (uint64, bool) {
	a, err := img.syms.FunctionAddr(name)
	return a, err == nil
}

// abbrevHasTag reports whether the abbreviation table at off in
// .debug_abbrev declares an abbreviation with the given tag: a unit
// whose table does not cannot contain such a DIE.
func (img *Image) abbrevHasTag(off uint64, tag stddwarf.Tag) bool {
	return img.abbrevAny(off, func(t stddwarf.Tag, _ stddwarf.Attr, _ uint64) bool { return t == tag })
}

// abbrevAny reports whether pred holds for some abbreviation of the table
// at off in .debug_abbrev: pred sees each abbreviation's tag with attr 0,
// then with each of its attributes and forms. Malformed tables answer
// true (the caller then walks the unit).
func (img *Image) abbrevAny(off uint64, pred func(tag stddwarf.Tag, attr stddwarf.Attr, form uint64) bool) bool {
	b := img.section(".debug_abbrev")
	if off >= uint64(len(b)) {
		return true
	}
	b = b[off:]
	uleb := func() (uint64, bool) {
		v, n, ok := uleb128(b)
		b = b[n:]
		return v, ok
	}
	for {
		code, ok := uleb()
		if !ok {
			return true
		}
		if code == 0 {
			return false
		}
		t, ok := uleb()
		if !ok || len(b) == 0 {
			return true
		}
		tag := stddwarf.Tag(t)
		if pred(tag, 0, 0) {
			return true
		}
		b = b[1:] // DW_CHILDREN_*
		for {
			attr, ok1 := uleb()
			form, ok2 := uleb()
			if !ok1 || !ok2 {
				return true
			}
			if attr == 0 && form == 0 {
				break
			}
			if pred(tag, stddwarf.Attr(attr), form) {
				return true
			}
			if form == 0x21 { // DW_FORM_implicit_const: an SLEB128 value
				if _, ok := uleb(); !ok {
					return true
				}
			}
		}
	}
}
