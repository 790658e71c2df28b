package symbols

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// DefaultDebugRoot is the default root for separate debug files.
const DefaultDebugRoot = "/usr/lib/debug"

// File is an ELF file opened lazily: opening reads the ELF, program and
// section headers only. Symbol tables are decoded on the first lookup and
// section contents on demand.
//
// A File is safe for concurrent use once its exported fields are set. Byte
// slices returned by SectionData and the *dwarf.Data from DWARF may alias the
// file's memory mapping: they must not be modified, and must not be used
// after Close.
type File struct {
	// Path is the file name given to Open ("" for NewFile).
	Path string
	// DebugRoots are the roots searched for separate debug files, in
	// order (build-id: ROOT/.build-id/xx/yyyy.debug; debuglink:
	// ROOT/<dir of Path>/<link>). Nil means []string{DefaultDebugRoot}.
	// Set it before the first call that looks for debug files.
	DebugRoots []string

	elf    *elf.File
	r      io.ReaderAt
	data   []byte // whole file when memory-mapped, else nil
	closer io.Closer

	symOnce sync.Once
	syms    *symtab
	symErr  error

	dbgOnce sync.Once
	dbg     *File
	dbgErr  error

	// inflated holds the compressed sections decompressed once: the
	// DWARF reader (DWARF) and the image's own section reads
	// (SectionData) ask for the same ones (a Debian debug file's are
	// zlib-compressed; ld.so's took two thirds of a live start twice).
	zmu      sync.Mutex
	inflated map[*elf.Section][]byte
}

// Open opens the ELF file at path. It memory-maps the file where possible
// and reads only its headers.
func Open(path string) (*File, error) {
	osf, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open elf: %w", err)
	}
	var r io.ReaderAt = osf
	var data []byte
	var closer io.Closer = osf
	if st, err := osf.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 && int64(int(st.Size())) == st.Size() {
		if m, err := syscall.Mmap(int(osf.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			data = m
			r = bytes.NewReader(m)
			osf.Close()
			closer = munmapper(m)
		}
	}
	ef, err := elf.NewFile(r)
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("open elf %s: %w: %w", path, ErrMalformed, err)
	}
	return &File{Path: path, elf: ef, r: r, data: data, closer: closer}, nil
}

type munmapper []byte

// Release tells the kernel that the pages of b, a part of what
// SectionData returned for this file, are not needed for now: a
// memory-mapped file's pages leave the process's resident set (they stay
// in the page cache, and a later read of b faults them in again). A scan
// of a large section (a name searched for in .debug_str, a pass over
// .symtab) releases what it has read, so that the file's size does not
// become the process's. Only the pages wholly inside b are released; b
// stays valid. It does nothing where b is not part of this file's
// mapping (a copied or decompressed section, a file that is not mapped).
func (f *File) Release(b []byte) {
	if len(b) == 0 || len(f.data) == 0 || f.closer == nil {
		return // (nothing mapped, or no longer: the range may be reused)
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p+uintptr(len(b)) > base+uintptr(len(f.data)) {
		return
	}
	lo := (p - base + pageSize - 1) &^ (pageSize - 1)
	hi := (p - base + uintptr(len(b))) &^ (pageSize - 1)
	if lo < hi {
		_ = syscall.Madvise(f.data[lo:hi], syscall.MADV_DONTNEED)
	}
}

func (m munmapper) Close() error { return syscall.Munmap(m) }

// NewFile reads an ELF file from r, which must stay readable while the File
// is in use. Only headers are read now.
func NewFile(r io.ReaderAt) (*File, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("read elf: %w: %w", ErrMalformed, err)
	}
	return &File{elf: ef, r: r}, nil
}

// FromELF wraps ELF files the caller opened and keeps open: exe, and dbg,
// its separate debug file (nil or exe: none; no other is searched for).
// Sections are read through debug/elf, which copies; Close releases
// nothing of theirs.
func FromELF(exe, dbg *elf.File) *File {
	f := &File{elf: exe}
	f.dbgOnce.Do(func() {
		if dbg == nil || dbg == exe {
			f.dbgErr = fmt.Errorf("elf file given without a debug file: %w", ErrNoDebugFile)
			return
		}
		f.dbg = &File{elf: dbg}
	})
	return f
}

// Close releases the file and any separate debug file it opened.
func (f *File) Close() error {
	var errs []error
	if f.dbg != nil && f.dbg != f {
		errs = append(errs, f.dbg.Close())
	}
	if f.closer != nil {
		errs = append(errs, f.closer.Close())
		f.closer = nil
	}
	return errors.Join(errs...)
}

// ELF returns the underlying debug/elf file. Its Section.Data and
// Symbols methods copy; prefer SectionData and LookupAddr.
func (f *File) ELF() *elf.File { return f.elf }

// Entry returns the link-time entry point (e_entry).
func (f *File) Entry() uint64 { return f.elf.Entry }

// PIE reports whether the file is position independent (ET_DYN), so that
// its load bias is not known until it is loaded.
func (f *File) PIE() bool { return f.elf.Type == elf.ET_DYN }

// SectionData returns the contents of the named section, or nil and no
// error if the file has no such section (or it is SHT_NOBITS).
// Uncompressed sections of a memory-mapped file are returned without
// copying; the result must not be modified.
func (f *File) SectionData(name string) ([]byte, error) {
	s := f.elf.Section(name)
	if s == nil {
		return nil, nil
	}
	return f.sectionData(s)
}

func (f *File) sectionData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	if f.data != nil && s.Flags&elf.SHF_COMPRESSED == 0 {
		end := s.Offset + s.FileSize
		if end < s.Offset || end > uint64(len(f.data)) {
			return nil, fmt.Errorf("section %s: %w: [%#x,%#x) beyond end of file", s.Name, ErrMalformed, s.Offset, end)
		}
		return f.data[s.Offset:end:end], nil
	}
	compressed := s.Flags&elf.SHF_COMPRESSED != 0
	if compressed {
		f.zmu.Lock()
		defer f.zmu.Unlock()
		if b, ok := f.inflated[s]; ok {
			return b, nil
		}
	}
	b, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("section %s: %w", s.Name, err)
	}
	if compressed {
		if f.inflated == nil {
			f.inflated = map[*elf.Section][]byte{}
		}
		f.inflated[s] = b
	}
	return b, nil
}

// HasDWARF reports whether the file itself holds DWARF (a .debug_info or
// .zdebug_info section with contents).
func (f *File) HasDWARF() bool {
	for _, name := range []string{".debug_info", ".zdebug_info"} {
		if s := f.elf.Section(name); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			return true
		}
	}
	return false
}

// DWARFFile returns the ELF file that holds this file's DWARF: f itself, or
// its separate debug file (see DebugFile). It returns an error wrapping
// ErrNoDebugFile if there is none.
func (f *File) DWARFFile() (*File, error) {
	if f.HasDWARF() {
		return f, nil
	}
	d, err := f.DebugFile()
	if err != nil {
		return nil, err
	}
	if !d.HasDWARF() {
		return nil, fmt.Errorf("debug file %s: %w", d.Path, ErrNoDebugFile)
	}
	return d, nil
}

// DWARF returns the DWARF data of the file that DWARFFile returns. For
// executables and shared objects the uncompressed sections alias the
// memory mapping (no copy); relocatable objects go through debug/elf.
func (f *File) DWARF() (*dwarf.Data, error) {
	df, err := f.DWARFFile()
	if err != nil {
		return nil, err
	}
	return df.dwarfData()
}

// dwarfTakes reports whether debug/dwarf reads the section .debug_SFX
// besides New's own (AddSection, AddTypes). The others (.debug_loclists,
// .debug_aranges, .debug_frame, ...) are left to the readers that want
// them, which read them when they do: a compressed one is not inflated
// before that.
func dwarfTakes(sfx string) bool {
	switch sfx {
	case "addr", "line_str", "str_offsets", "rnglists", "types":
		return true
	}
	return false
}

func (f *File) dwarfData() (*dwarf.Data, error) {
	if f.elf.Type == elf.ET_REL {
		d, err := f.elf.DWARF()
		if err != nil {
			return nil, fmt.Errorf("dwarf: %w", err)
		}
		return d, nil
	}
	suffix := func(name string) string {
		switch {
		case strings.HasPrefix(name, ".debug_"):
			return name[len(".debug_"):]
		case strings.HasPrefix(name, ".zdebug_"):
			return name[len(".zdebug_"):]
		}
		return ""
	}
	base := map[string][]byte{"abbrev": nil, "info": nil, "str": nil, "line": nil, "ranges": nil}
	type extra struct {
		i      int
		suffix string
		data   []byte
	}
	var extras []extra
	for i, s := range f.elf.Sections {
		sfx := suffix(s.Name)
		_, isBase := base[sfx]
		if !isBase && !dwarfTakes(sfx) {
			continue // read where it is used (SectionData), if it is
		}
		b, err := f.sectionData(s)
		if err != nil {
			return nil, fmt.Errorf("dwarf: %w", err)
		}
		if isBase {
			base[sfx] = b
		} else {
			extras = append(extras, extra{i, sfx, b})
		}
	}
	d, err := dwarf.New(base["abbrev"], nil, nil, base["info"], base["line"], nil, base["ranges"], base["str"])
	if err != nil {
		return nil, fmt.Errorf("dwarf: %w", err)
	}
	// New read every unit's header: on a kernel that maps a large page
	// cache folio whole at a fault (Linux 6.18 maps up to 2 MiB), a read
	// every few hundred KiB makes all of .debug_info resident.
	f.Release(base["info"])
	for _, e := range extras {
		if e.suffix == "types" {
			err = d.AddTypes(fmt.Sprintf("types-%d", e.i), e.data)
		} else {
			err = d.AddSection(".debug_"+e.suffix, e.data)
		}
		if err != nil {
			return nil, fmt.Errorf("dwarf: section %s: %w", e.suffix, err)
		}
	}
	return d, nil
}

// LoadRange returns the link-time address range [lo, hi) covered by the
// file's PT_LOAD segments (lo rounded down to a page).
func (f *File) LoadRange() (lo, hi uint64) {
	first := true
	for _, p := range f.elf.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		s := p.Vaddr &^ (pageSize - 1)
		e := p.Vaddr + p.Memsz
		if first || s < lo {
			lo = s
		}
		if first || e > hi {
			hi = e
		}
		first = false
	}
	return lo, hi
}

const pageSize = 4096
