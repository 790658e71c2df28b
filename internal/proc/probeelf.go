package proc

import (
	"encoding/binary"
	"fmt"
	"os"
)

// The probes that find out what this machine and its debug server really
// do run tiny programs of their own, written out as files: a static ELF
// executable of one PT_LOAD segment, the file mapped whole, entry right
// after the headers.

// WriteProbe writes image, an executable, to a new file in dir named
// prefix and a random suffix (rrmcp processes started together each
// probe), executable by this user only, and returns its path. The caller
// removes it.
func WriteProbe(dir, prefix string, image []byte) (string, error) {
	f, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return "", err
	}
	path := f.Name()
	_, err = f.Write(image)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(path, 0o700)
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// i386ExitELF is a minimal static ELF32 executable mapped at 0x08048000:
// mov eax,1; xor ebx,ebx; int 0x80 (exit(0)).
func i386ExitELF() []byte {
	const base, ehsize, phsize = 0x08048000, 52, 32
	code := []byte{0xb8, 1, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80}
	b := make([]byte, ehsize+phsize, ehsize+phsize+len(code))
	copy(b, []byte{0x7f, 'E', 'L', 'F', 1 /* ELFCLASS32 */, 1 /* LSB */, 1 /* EV_CURRENT */})
	le := binary.LittleEndian
	le.PutUint16(b[16:], 2)                  // ET_EXEC
	le.PutUint16(b[18:], 3)                  // EM_386
	le.PutUint32(b[20:], 1)                  // EV_CURRENT
	le.PutUint32(b[24:], base+ehsize+phsize) // e_entry
	le.PutUint32(b[28:], ehsize)             // e_phoff
	le.PutUint16(b[40:], ehsize)             // e_ehsize
	le.PutUint16(b[42:], phsize)             // e_phentsize
	le.PutUint16(b[44:], 1)                  // e_phnum
	ph := b[ehsize:]
	le.PutUint32(ph[0:], 1)     // PT_LOAD
	le.PutUint32(ph[8:], base)  // p_vaddr
	le.PutUint32(ph[12:], base) // p_paddr
	n := uint32(ehsize + phsize + len(code))
	le.PutUint32(ph[16:], n)      // p_filesz
	le.PutUint32(ph[20:], n)      // p_memsz
	le.PutUint32(ph[24:], 5)      // PF_R|PF_X
	le.PutUint32(ph[28:], 0x1000) // p_align
	return append(b, code...)
}

// AMD64ELFEntry is where AMD64ELF's code starts.
const AMD64ELFEntry = 0x400000 + 64 + 56

// AMD64ELF is a minimal static ELF64 x86-64 executable mapped at
// 0x400000 that runs code, from AMD64ELFEntry (code must end the process
// itself).
func AMD64ELF(code []byte) []byte {
	const base, ehsize, phsize = 0x400000, 64, 56
	b := make([]byte, ehsize+phsize, ehsize+phsize+len(code))
	copy(b, []byte{0x7f, 'E', 'L', 'F', 2 /* ELFCLASS64 */, 1 /* LSB */, 1 /* EV_CURRENT */})
	le := binary.LittleEndian
	le.PutUint16(b[16:], 2)                  // ET_EXEC
	le.PutUint16(b[18:], 62)                 // EM_X86_64
	le.PutUint32(b[20:], 1)                  // EV_CURRENT
	le.PutUint64(b[24:], base+ehsize+phsize) // e_entry
	le.PutUint64(b[32:], ehsize)             // e_phoff
	le.PutUint16(b[52:], ehsize)             // e_ehsize
	le.PutUint16(b[54:], phsize)             // e_phentsize
	le.PutUint16(b[56:], 1)                  // e_phnum
	ph := b[ehsize:]
	le.PutUint32(ph[0:], 1)     // PT_LOAD
	le.PutUint32(ph[4:], 5)     // PF_R|PF_X
	le.PutUint64(ph[16:], base) // p_vaddr
	le.PutUint64(ph[24:], base) // p_paddr
	n := uint64(ehsize + phsize + len(code))
	le.PutUint64(ph[32:], n)      // p_filesz
	le.PutUint64(ph[40:], n)      // p_memsz
	le.PutUint64(ph[48:], 0x1000) // p_align
	return append(b, code...)
}
