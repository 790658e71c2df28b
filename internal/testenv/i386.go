package testenv

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// I386Peer says which debug server runs i386 (-m32) programs here:
// "gdbserver" where the kernel executes them (IA32 emulation), else
// "qemu-i386" (QEMU user mode: Debian's qemu-user). RRMCP_I386_PEER set
// to one of the two forces it (to test the other path). It fails the test
// when the chosen peer is not installed.
func I386Peer(t testing.TB) string {
	t.Helper()
	peer, err := i386Peer()
	if err != nil {
		t.Fatalf("testenv: probing whether this kernel runs i386 programs: %v", err)
	}
	if peer == "qemu-i386" {
		NeedTool(t, "qemu-i386")
	} else {
		NeedTool(t, "gdbserver")
	}
	return peer
}

var i386Peer = sync.OnceValues(func() (string, error) {
	switch p := os.Getenv("RRMCP_I386_PEER"); p {
	case "gdbserver", "qemu-i386":
		return p, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "rrmcp-i386-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ok, err := RunsI386(ctx, dir)
	if err != nil {
		return "", err
	}
	if ok {
		return "gdbserver", nil
	}
	return "qemu-i386", nil
})

// IsI386 reports whether prog is an i386 ELF file.
func IsI386(prog string) bool {
	f, err := elf.Open(prog)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Machine == elf.EM_386
}

// 32-bit x86 (i386) programs run natively where the kernel has IA32
// emulation; elsewhere exec fails with ENOEXEC ("Exec format error") and
// the peer for such a program is QEMU user mode (qemu-i386 -g PORT).

// RunsI386 reports whether this kernel executes i386 programs, by running
// a 100-byte static i386 ELF that calls exit(0) through int 0x80. dir is
// where the probe file is written.
func RunsI386(ctx context.Context, dir string) (bool, error) {
	path := filepath.Join(dir, "i386-probe")
	if err := os.WriteFile(path, i386ExitELF(), 0o755); err != nil {
		return false, err
	}
	defer os.Remove(path)
	err := exec.CommandContext(ctx, path).Run()
	var pe *os.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOEXEC) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("i386 probe: %w", err)
	}
	return true, nil
}

// i386ExitELF is a minimal static ELF32 executable: one PT_LOAD segment
// mapping the file at 0x08048000, entry right after the headers:
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
