package symbols

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
)

// pltSections are the sections that hold PLT stubs on x86: the classic
// lazy PLT, the second PLT of IBT/MPX layouts, and the non-lazy PLT used
// for functions whose GOT slot is also referenced directly.
var pltSections = []string{".plt", ".plt.sec", ".plt.got", ".plt.bnd"}

// pltSymbols synthesizes "name@plt" symbols the way objdump and GDB do:
// each stub's indirect jump is decoded to find the GOT slot it jumps
// through, and the dynamic relocation for that slot names the function.
// Stubs without a recognisable jump (PLT0, lazy stubs of the IBT layout)
// get no symbol. Only x86-64 and i386 are decoded.
func (f *File) pltSymbols(dyn []elf.Symbol) ([]Symbol, error) {
	m := f.elf.Machine
	if m != elf.EM_X86_64 && m != elf.EM_386 {
		return nil, nil
	}
	slots, err := f.gotSlots(dyn)
	if err != nil || len(slots) == 0 {
		return nil, err
	}
	// i386 PIC stubs jump through disp(%ebx), %ebx = _GLOBAL_OFFSET_TABLE_.
	var gotBase uint64
	if s := f.elf.Section(".got.plt"); s != nil {
		gotBase = s.Addr
	} else if s := f.elf.Section(".got"); s != nil {
		gotBase = s.Addr
	}
	out := f.gotPLTSymbols(slots)
	for i, sec := range f.elf.Sections {
		if !isPLTSection(sec.Name) || sec.Type != elf.SHT_PROGBITS {
			continue
		}
		data, err := f.sectionData(sec)
		if err != nil {
			return nil, fmt.Errorf("plt: %w", err)
		}
		ent := sec.Entsize
		if ent < 8 || ent > 64 {
			ent = 16
		}
		for off := uint64(0); off+ent <= uint64(len(data)); off += ent {
			addr := sec.Addr + off
			slot, ok := decodePLTJump(data[off:off+ent], addr, m, gotBase)
			if !ok {
				continue
			}
			name, ok := slots[slot]
			if !ok {
				continue
			}
			out = append(out, Symbol{
				Name: name + "@plt", Addr: addr, Size: ent,
				Type: elf.STT_FUNC, Bind: elf.STB_GLOBAL,
				Section: elf.SectionIndex(i), Source: SourcePLT, Exec: true, Slot: slot,
			})
		}
	}
	return out, nil
}

// gotPLTSymbols names the slots the PLT stubs jump through
// "name@got.plt", as GDB's minimal symbols do (elf_rel_plt_read_minimal_
// symbols), one pointer wide: a pointer into a slot prints as
// <puts@got[plt]>. Like GDB it names the slots of .rel(a).plt's
// relocations in .got.plt, or in .got where the program was linked with
// -z now and has no .got.plt.
func (f *File) gotPLTSymbols(slots map[uint64]string) []Symbol {
	sec := f.elf.Section(".got.plt")
	if sec == nil {
		sec = f.elf.Section(".got")
	}
	rel := f.elf.Section(".rela.plt")
	if rel == nil {
		rel = f.elf.Section(".rel.plt")
	}
	if sec == nil || rel == nil || rel.Entsize == 0 {
		return nil
	}
	data, err := f.sectionData(rel)
	if err != nil {
		return nil
	}
	idx := elf.SHN_UNDEF
	for i, s := range f.elf.Sections {
		if s == sec {
			idx = elf.SectionIndex(i)
		}
	}
	size := uint64(8)
	if f.elf.Class == elf.ELFCLASS32 {
		size = 4
	}
	var out []Symbol
	for off := uint64(0); off+rel.Entsize <= uint64(len(data)); off += rel.Entsize {
		var slot uint64 // r_offset, the relocation's first word
		if size == 8 {
			slot = f.elf.ByteOrder.Uint64(data[off:])
		} else {
			slot = uint64(f.elf.ByteOrder.Uint32(data[off:]))
		}
		name, ok := slots[slot]
		if ok && slot >= sec.Addr && slot < sec.Addr+sec.Size {
			out = append(out, Symbol{Name: name + "@got.plt", Addr: slot, Size: size,
				Type: elf.STT_OBJECT, Bind: elf.STB_GLOBAL, Section: idx, Source: SourceGOT})
		}
	}
	slices.SortFunc(out, func(a, b Symbol) int { return cmp.Compare(a.Addr, b.Addr) })
	return out
}

func isPLTSection(name string) bool {
	for _, n := range pltSections {
		if n == name {
			return true
		}
	}
	return false
}

// decodePLTJump finds the first "jmp *mem" in a PLT entry and returns the
// address of the GOT slot it reads.
func decodePLTJump(b []byte, addr uint64, m elf.Machine, gotBase uint64) (uint64, bool) {
	for j := 0; j+6 <= len(b); j++ {
		if b[j] != 0xff {
			continue
		}
		d := binary.LittleEndian.Uint32(b[j+2:])
		switch {
		case b[j+1] == 0x25 && m == elf.EM_X86_64: // jmp *disp32(%rip)
			return addr + uint64(j) + 6 + uint64(int64(int32(d))), true
		case b[j+1] == 0x25 && m == elf.EM_386: // jmp *abs32
			return uint64(d), true
		case b[j+1] == 0xa3 && m == elf.EM_386: // jmp *disp32(%ebx)
			return uint64(uint32(gotBase + uint64(int64(int32(d))))), true
		}
	}
	return 0, false
}

// Relocation types that name the function a GOT slot holds.
const (
	rX86_64GlobDat   = 6
	rX86_64JumpSlot  = 7
	rX86_64IRelative = 37
	r386GlobDat      = 6
	r386JmpSlot      = 7
	r386IRelative    = 42
)

// gotSlots maps GOT slot addresses to the names of the functions their
// dynamic relocations (JUMP_SLOT, GLOB_DAT, IRELATIVE) resolve to.
func (f *File) gotSlots(dyn []elf.Symbol) (map[uint64]string, error) {
	dynIdx := -1
	for i, s := range f.elf.Sections {
		if s.Type == elf.SHT_DYNSYM {
			dynIdx = i
		}
	}
	is64 := f.elf.Class == elf.ELFCLASS64
	bo := f.elf.ByteOrder
	slots := make(map[uint64]string)
	for _, sec := range f.elf.Sections {
		if sec.Type != elf.SHT_RELA && sec.Type != elf.SHT_REL {
			continue
		}
		// Dynamic relocations link to .dynsym (or to nothing in
		// static-pie binaries, which only have IRELATIVE).
		if int(sec.Link) != dynIdx && sec.Link != 0 {
			continue
		}
		data, err := f.sectionData(sec)
		if err != nil {
			return nil, fmt.Errorf("plt relocations: %w", err)
		}
		var size int
		switch {
		case is64 && sec.Type == elf.SHT_RELA:
			size = 24
		case is64:
			size = 16
		case sec.Type == elf.SHT_RELA:
			size = 12
		default:
			size = 8
		}
		for off := 0; off+size <= len(data); off += size {
			var where, sym, typ, addend uint64
			if is64 {
				where = bo.Uint64(data[off:])
				info := bo.Uint64(data[off+8:])
				sym, typ = info>>32, info&0xffffffff
				if size == 24 {
					addend = bo.Uint64(data[off+16:])
				}
			} else {
				where = uint64(bo.Uint32(data[off:]))
				info := bo.Uint32(data[off+4:])
				sym, typ = uint64(info>>8), uint64(info&0xff)
				if size == 12 {
					addend = uint64(bo.Uint32(data[off+8:]))
				}
			}
			var irel bool
			switch f.elf.Machine {
			case elf.EM_X86_64:
				if typ != rX86_64JumpSlot && typ != rX86_64GlobDat && typ != rX86_64IRelative {
					continue
				}
				irel = typ == rX86_64IRelative
			case elf.EM_386:
				if typ != r386JmpSlot && typ != r386GlobDat && typ != r386IRelative {
					continue
				}
				irel = typ == r386IRelative
			}
			switch {
			case irel:
				slots[where] = fmt.Sprintf("*ABS*+%#x", addend)
			case sym > 0 && sym <= uint64(len(dyn)) && dyn[sym-1].Name != "":
				slots[where] = dyn[sym-1].Name
			}
		}
	}
	return slots, nil
}
