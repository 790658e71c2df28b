package proc

import (
	"bufio"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StartQEMUUser is the debug server of an i386 program on a kernel
// without IA32 emulation (exec fails with ENOEXEC there; testenv.I386Peer
// decides): it launches `qemu-i386 -g PORT prog args…` (QEMU user mode,
// the gdbstub waiting for a debugger before the program's first
// instruction) and returns it with the loopback address of the stub once
// it listens. QEMU prints nothing when it is ready and serves a single
// connection (closing it lets the program run on undebugged), so the
// readiness is read from the kernel's socket table, not by connecting.
//
// The program's stdout goes to stdout (an *os.File is written by the
// program directly) and its stderr, line by line, to errLine; nil keeps
// either with QEMU's own output.
func StartQEMUUser(ctx context.Context, qemu, prog string, args []string, dir string, env []string, stdout io.Writer, errLine func(b []byte)) (*Process, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	argv := append([]string{"-g", strconv.Itoa(port), prog}, args...)
	cfg := Config{Path: qemu, Args: argv, Dir: dir, Env: env, Stdout: stdout}
	if errLine != nil {
		cfg.OnLine = func(l Line) {
			if l.Stderr {
				errLine([]byte(l.Text + "\n"))
			}
		}
	}
	p, err := Start(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !listening(port) {
		select {
		case <-ctx.Done():
			p.Stop(0)
			return nil, "", fmt.Errorf("start %s: its gdbstub never listened on port %d: %w", qemu, port, ctx.Err())
		case <-p.Done():
			return nil, "", fmt.Errorf("start %s: exited before listening; output:\n%s", qemu, p.Tail(10))
		case <-tick.C:
		}
	}
	return p, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// listening reports whether a TCP socket listens on 127.0.0.1:port
// (/proc/net/tcp, state 0A).
func listening(port int) bool {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return false
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 3 && strings.HasSuffix(fs[1], want) && fs[3] == "0A" {
			return true
		}
	}
	return false
}

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
