package symbols

import (
	"bytes"
	"debug/elf"
	"fmt"
)

// RawSymbol is one entry of a symbol table as the file holds it. Name
// aliases the string table (a memory-mapped file's): copy what is kept.
type RawSymbol struct {
	Name    []byte
	Info    byte // type and binding: elf.ST_TYPE, elf.ST_BIND
	Section elf.SectionIndex
	Value   uint64
	Size    uint64
}

// EachSymbol calls fn with each entry of the file's symbol table of
// type typ (SHT_SYMTAB or SHT_DYNSYM) after the null symbol, in table
// order, until fn returns false.
// It reads the table and its strings where they lie (a memory-mapped
// file's are not copied) and makes no string: debug/elf's Symbols copies
// both sections and makes a string of every name, which for a large C++
// program is tens of megabytes (the STL benchmark's 150,000 symbols:
// 13 MB of string table, 16 MB of names). The table's pages are released
// after the pass (Release). A name outside the string table is empty;
// versions (.gnu.version) are not read.
func (f *File) EachSymbol(typ elf.SectionType, fn func(RawSymbol) bool) error {
	sec := f.elf.SectionByType(typ)
	if sec == nil {
		return nil
	}
	data, err := f.sectionData(sec)
	if err != nil {
		return err
	}
	if int(sec.Link) >= len(f.elf.Sections) {
		return fmt.Errorf("%s: %w: string table index %d out of range", sec.Name, ErrMalformed, sec.Link)
	}
	strs, err := f.sectionData(f.elf.Sections[sec.Link])
	if err != nil {
		return err
	}
	bo := f.elf.ByteOrder
	size := 16 // Elf32_Sym
	if f.elf.Class == elf.ELFCLASS64 {
		size = 24 // Elf64_Sym
	}
	if len(data)%size != 0 {
		return fmt.Errorf("%s: %w: %d bytes is not a whole number of %d-byte entries", sec.Name, ErrMalformed, len(data), size)
	}
	// The pass leaves the table's pages out of the resident set.
	defer f.Release(strs)
	defer f.Release(data)
	for off := size; off+size <= len(data); off += size {
		e := data[off : off+size]
		var r RawSymbol
		nameOff := uint64(bo.Uint32(e))
		if f.elf.Class == elf.ELFCLASS64 {
			r.Info, r.Section = e[4], elf.SectionIndex(bo.Uint16(e[6:]))
			r.Value, r.Size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
		} else {
			r.Value, r.Size = uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
			r.Info, r.Section = e[12], elf.SectionIndex(bo.Uint16(e[14:]))
		}
		if nameOff < uint64(len(strs)) {
			r.Name = strs[nameOff:]
			if i := bytes.IndexByte(r.Name, 0); i >= 0 {
				r.Name = r.Name[:i]
			}
		}
		if !fn(r) {
			break
		}
	}
	return nil
}

// addressable reports whether a symbol names something a pc or an
// address can be in, as the tables keep them: a function, object, TLS
// variable or untyped label, defined in an allocated section. Names
// starting with '.' are assembler-internal labels (.L123, .annobin_*)
// and '$' marks ARM/AArch64 mapping symbols; neither names code for a
// human.
func (f *File) addressable(name []byte, info byte, section elf.SectionIndex) bool {
	switch elf.ST_TYPE(info) {
	case elf.STT_FUNC, elf.STT_OBJECT, elf.STT_NOTYPE, elf.STT_GNU_IFUNC, elf.STT_TLS:
	default:
		return false
	}
	if len(name) == 0 || name[0] == '.' || name[0] == '$' || section == elf.SHN_UNDEF || section >= elf.SHN_LORESERVE {
		return false
	}
	return int(section) < len(f.elf.Sections) && f.elf.Sections[section].Flags&elf.SHF_ALLOC != 0
}
