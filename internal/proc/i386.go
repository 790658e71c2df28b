package proc

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
// decides): it launches `qemu-i386 -g SOCKET prog args…` (QEMU user mode,
// the gdbstub waiting for a debugger before the program's first
// instruction, on a Unix-domain socket in a directory of its own) and
// returns it with the socket's path once the stub listens; rsp.Dial and
// GDB's target remote take the path as an address. QEMU prints nothing
// when it is ready and serves a single connection (closing it lets the
// program run on undebugged), so readiness is the socket's creation,
// which inotify reports, and its listening state (/proc/net/unix), not a
// connection. The directory goes when the process does.
//
// The program's stdout goes to stdout (an *os.File is written by the
// program directly) and its stderr, line by line, to errLine; nil keeps
// either with QEMU's own output.
func StartQEMUUser(ctx context.Context, qemu, prog string, args []string, dir string, env []string, stdout io.Writer, errLine func(b []byte)) (*Process, string, error) {
	// A socket's path has room for 107 bytes (sun_path): a long TMPDIR
	// gives way to /tmp.
	base := os.TempDir()
	if len(base) > 64 {
		base = "/tmp"
	}
	sockDir, err := os.MkdirTemp(base, "rrmcp-qemu-")
	if err != nil {
		return nil, "", err
	}
	sock := filepath.Join(sockDir, "gdb.sock")
	created, unwatch, err := watchCreate(sockDir, filepath.Base(sock))
	if err != nil {
		os.RemoveAll(sockDir)
		return nil, "", fmt.Errorf("start %s: watching for its socket: %w", qemu, err)
	}
	defer unwatch()
	argv := append([]string{"-g", sock, prog}, args...)
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
		os.RemoveAll(sockDir)
		return nil, "", err
	}
	go func() {
		<-p.Done()
		os.RemoveAll(sockDir)
	}()
	fail := func(err error) (*Process, string, error) {
		p.Stop(0) //nolint:errcheck // the error says what went wrong
		return nil, "", err
	}
	select {
	case <-created:
	case <-ctx.Done():
		return fail(fmt.Errorf("start %s: its gdbstub never made its socket %s: %w", qemu, sock, ctx.Err()))
	case <-p.Done():
		return nil, "", fmt.Errorf("start %s: exited before listening; output:\n%s", qemu, p.Tail(10))
	}
	// QEMU listens right after it binds (unix_listen): only a caller
	// woken between the two finds the socket not yet listening.
	for !unixListening(sock) {
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fail(fmt.Errorf("start %s: its gdbstub never listened on %s: %w", qemu, sock, ctx.Err()))
		case <-p.Done():
			t.Stop()
			return nil, "", fmt.Errorf("start %s: exited before listening; output:\n%s", qemu, p.Tail(10))
		case <-t.C:
		}
	}
	return p, sock, nil
}

// watchCreate reports on created when a file named name is created in
// dir (inotify IN_CREATE); unwatch stops watching.
func watchCreate(dir, name string) (created <-chan struct{}, unwatch func(), err error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, nil, os.NewSyscallError("inotify_init1", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE); err != nil {
		syscall.Close(fd)
		return nil, nil, os.NewSyscallError("inotify_add_watch", err)
	}
	// Non-blocking, so the runtime's poller reads it and Close ends a
	// Read in progress.
	f := os.NewFile(uintptr(fd), "inotify")
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			if inotifyNames(buf[:n], name) {
				close(done)
				return
			}
		}
	}()
	return done, func() { f.Close() }, nil
}

// inotifyNames reports whether the inotify events in b name name.
func inotifyNames(b []byte, name string) bool {
	const header = 16 // wd, mask, cookie, len: 4 bytes each
	for len(b) >= header {
		n := int(binary.NativeEndian.Uint32(b[12:]))
		if header+n > len(b) {
			return false
		}
		if string(bytes.TrimRight(b[header:header+n], "\x00")) == name {
			return true
		}
		b = b[header+n:]
	}
	return false
}

// unixListening reports whether a Unix-domain socket listens at path
// (/proc/net/unix: flags __SO_ACCEPTCON, 0x10000).
func unixListening(path string) bool {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 8 || fs[len(fs)-1] != path {
			continue
		}
		if flags, err := strconv.ParseUint(fs[3], 16, 32); err == nil && flags&0x10000 != 0 {
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
// the peer for such a program is QEMU user mode (qemu-i386 -g SOCKET).

// RunsI386 reports whether this kernel executes i386 programs, by running
// a 100-byte static i386 ELF that calls exit(0) through int 0x80. dir is
// where the probe file is written, under a name of its own: rrmcp
// processes started together each probe.
func RunsI386(ctx context.Context, dir string) (bool, error) {
	path, err := WriteProbe(dir, "rrmcp-i386-probe-", i386ExitELF())
	if err != nil {
		return false, fmt.Errorf("i386 probe: %w", err)
	}
	defer os.Remove(path)
	err = RunProbe(ctx, 10, func() error {
		return exec.CommandContext(ctx, path).Run()
	})
	var pe *os.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOEXEC) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("i386 probe: %w", err)
	}
	return true, nil
}
