package proc

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
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

// RunProbe calls start, which executes a probe file just written by
// WriteProbe, again while it fails with ETXTBSY, up to tries times, 1,
// 2, … ms apart: another goroutine's fork may hold the file's write
// descriptor until its child execs, and the probe's exec fails for that
// moment. It returns start's last error.
func RunProbe(ctx context.Context, tries int, start func() error) error {
	for try := 1; ; try++ {
		err := start()
		if err == nil || !errors.Is(err, syscall.ETXTBSY) || try == tries {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(try) * time.Millisecond):
		}
	}
}

// i386ExitELF is a minimal static ELF32 executable mapped at 0x08048000:
// mov eax,1; xor ebx,ebx; int 0x80 (exit(0)).
func i386ExitELF() []byte {
	const base, ehsize, phsize = 0x08048000, 52, 32
	code := []byte{0xb8, 1, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80}
	n := uint32(ehsize + phsize + len(code))
	return staticELF(elf.Header32{
		Ident:     elfIdent(elf.ELFCLASS32),
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(elf.EM_386),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     base + ehsize + phsize,
		Phoff:     ehsize,
		Ehsize:    ehsize,
		Phentsize: phsize,
		Phnum:     1,
	}, elf.Prog32{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Vaddr: base, Paddr: base, Filesz: n, Memsz: n, Align: 0x1000}, code)
}

// AMD64ELFEntry is where AMD64ELF's code starts.
const AMD64ELFEntry = 0x400000 + 64 + 56

// AMD64ELF is a minimal static ELF64 x86-64 executable mapped at
// 0x400000 that runs code, from AMD64ELFEntry (code must end the process
// itself).
func AMD64ELF(code []byte) []byte {
	const base, ehsize, phsize = 0x400000, 64, 56
	n := uint64(ehsize + phsize + len(code))
	return staticELF(elf.Header64{
		Ident:     elfIdent(elf.ELFCLASS64),
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(elf.EM_X86_64),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     AMD64ELFEntry,
		Phoff:     ehsize,
		Ehsize:    ehsize,
		Phentsize: phsize,
		Phnum:     1,
	}, elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Vaddr: base, Paddr: base, Filesz: n, Memsz: n, Align: 0x1000}, code)
}

// elfIdent is e_ident of a little-endian ELF file of class c.
func elfIdent(c elf.Class) (id [elf.EI_NIDENT]byte) {
	copy(id[:], elf.ELFMAG)
	id[elf.EI_CLASS], id[elf.EI_DATA], id[elf.EI_VERSION] = byte(c), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	return id
}

// staticELF lays out an ELF header, its one program header and code.
func staticELF(hdr, prog any, code []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, hdr)  //nolint:errcheck // a bytes.Buffer does not fail
	binary.Write(&b, binary.LittleEndian, prog) //nolint:errcheck
	b.Write(code)
	return b.Bytes()
}
