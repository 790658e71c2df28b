package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// maxMemImage bounds ReadImage (a vDSO is a few KiB).
const maxMemImage = 1 << 20

// ReadImage copies an ELF image that exists only in target memory (the
// kernel's vDSO) from its ELF header at base: everything up to the end of
// its section header table or of its last section, whichever is later.
func ReadImage(read ReadMemoryFunc, base uint64) ([]byte, error) {
	var h [64]byte
	if n, err := read(base, h[:]); err != nil || n != len(h) {
		return nil, fmt.Errorf("read ELF header at %#x: %w", base, errOr(err))
	}
	if string(h[:4]) != elf.ELFMAG {
		return nil, fmt.Errorf("no ELF image at %#x: %w", base, ErrMalformed)
	}
	le := binary.LittleEndian
	var shoff, shnum, shentsize uint64
	switch elf.Class(h[elf.EI_CLASS]) {
	case elf.ELFCLASS32:
		shoff, shentsize, shnum = uint64(le.Uint32(h[32:])), uint64(le.Uint16(h[46:])), uint64(le.Uint16(h[48:]))
	case elf.ELFCLASS64:
		shoff, shentsize, shnum = le.Uint64(h[40:]), uint64(le.Uint16(h[58:])), uint64(le.Uint16(h[60:]))
	default:
		return nil, fmt.Errorf("ELF image at %#x: class %d: %w", base, h[elf.EI_CLASS], ErrMalformed)
	}
	size := shoff + shnum*shentsize
	if size <= 64 || size > maxMemImage {
		return nil, fmt.Errorf("ELF image at %#x: size %d: %w", base, size, ErrMalformed)
	}
	buf := make([]byte, size)
	if n, err := read(base, buf); err != nil || n != len(buf) {
		return nil, fmt.Errorf("read ELF image at %#x: %w", base, errOr(err))
	}
	f, err := elf.NewFile(bytes.NewReader(buf))
	if err != nil {
		return nil, fmt.Errorf("ELF image at %#x: %w", base, err)
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Offset+s.Size > size {
			return nil, fmt.Errorf("ELF image at %#x: section %s past the section headers: %w", base, s.Name, ErrMalformed)
		}
	}
	return buf, nil
}

func errOr(err error) error {
	if err == nil {
		return errors.New("short read")
	}
	return err
}
