package symbols

import (
	"encoding/binary"
	"fmt"
)

// AuxType is an auxiliary vector entry type (AT_*).
type AuxType uint64

// Auxiliary vector entry types (from <elf.h>).
const (
	AT_NULL         AuxType = 0
	AT_PHDR         AuxType = 3  // runtime address of the program headers
	AT_PHENT        AuxType = 4  // size of one program header
	AT_PHNUM        AuxType = 5  // number of program headers
	AT_PAGESZ       AuxType = 6  // page size
	AT_BASE         AuxType = 7  // load address of the interpreter (ld.so)
	AT_ENTRY        AuxType = 9  // runtime entry point of the program
	AT_HWCAP        AuxType = 16 // hardware capabilities
	AT_RANDOM       AuxType = 25 // address of 16 random bytes
	AT_EXECFN       AuxType = 31 // address of the executable's file name
	AT_SYSINFO_EHDR AuxType = 33 // address of the vDSO's ELF header
)

// Auxv is a decoded auxiliary vector.
type Auxv map[AuxType]uint64

// maxAuxvEntries bounds decoding; real vectors have about 30 entries.
const maxAuxvEntries = 4096

// ParseAuxv decodes an auxiliary vector (as read from /proc/PID/auxv or
// qXfer:auxv:read) of (type, value) pairs of wordSize bytes (8 or 4) in
// byte order bo, up to AT_NULL or the end of b. If a type occurs twice,
// the first value wins.
func ParseAuxv(b []byte, wordSize int, bo binary.ByteOrder) (Auxv, error) {
	if wordSize != 8 && wordSize != 4 {
		return nil, fmt.Errorf("auxv: %w: word size %d", ErrMalformed, wordSize)
	}
	word := func(p []byte) uint64 {
		if wordSize == 8 {
			return bo.Uint64(p)
		}
		return uint64(bo.Uint32(p))
	}
	av := make(Auxv)
	for off, n := 0, 0; ; off, n = off+2*wordSize, n+1 {
		if off == len(b) {
			return av, nil // some readers omit AT_NULL
		}
		if off+2*wordSize > len(b) {
			return nil, fmt.Errorf("auxv: %w: truncated entry at offset %d", ErrMalformed, off)
		}
		if n >= maxAuxvEntries {
			return nil, fmt.Errorf("auxv: %w: more than %d entries", ErrMalformed, maxAuxvEntries)
		}
		t, v := AuxType(word(b[off:])), word(b[off+wordSize:])
		if t == AT_NULL {
			return av, nil
		}
		if _, dup := av[t]; !dup {
			av[t] = v
		}
	}
}
