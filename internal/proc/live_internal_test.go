package proc

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// TestFindInProcessAgent: found where gdbserver's package installs it;
// where it is not installed the error names the file and the packages.
func TestFindInProcessAgent(t *testing.T) {
	path, err := findInProcessAgent()
	if _, serr := os.Stat("/usr/lib/libinproctrace.so"); serr == nil {
		if err != nil || path != "/usr/lib/libinproctrace.so" {
			t.Fatalf("present at /usr/lib but found %q (%v)", path, err)
		}
		return
	}
	var ae *errkind.ArgError
	if err == nil && path == "" || err != nil && (!errors.As(err, &ae) || ae.Arg != "in_process_agent" || !strings.Contains(err.Error(), "gdbserver package")) {
		t.Fatalf("path %q err %v", path, err)
	}
}

func TestEnvValue(t *testing.T) {
	env := []string{"A=1", "LD_PRELOAD=/x.so", "A=2"}
	for _, c := range []struct {
		env   []string
		extra map[string]string
		k     string
		want  string
	}{
		{env, nil, "A", "2"}, // the last one counts, as for execve's users
		{env, map[string]string{"LD_PRELOAD": "/y.so"}, "LD_PRELOAD", "/y.so"},
		{env, nil, "B", ""},
		{nil, nil, "PATH", os.Getenv("PATH")},
	} {
		if got := envValue(c.env, c.extra, c.k); got != c.want {
			t.Errorf("envValue(%v, %v, %s) = %q, want %q", c.env, c.extra, c.k, got, c.want)
		}
	}
}

// TestI386Server: a 64-bit program always gets gdbserver; RRMCP_I386_PEER
// forces the server of an i386 program, and a value it does not know is
// an error naming the variable.
func TestI386Server(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var pr I386Probe
	if q, note, err := pr.server(t.Context(), exe, []string{I386PeerEnv + "=qemu-i386"}); q != "" || note != "" || err != nil {
		t.Errorf("64-bit program: %q %q %v", q, note, err)
	}
	m32 := i386ExitELF() // a tiny i386 program
	f, err := os.CreateTemp(t.TempDir(), "m32")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(m32) //nolint:errcheck
	f.Close()
	if q, _, err := pr.server(t.Context(), f.Name(), []string{I386PeerEnv + "=gdbserver"}); q != "" || err != nil {
		t.Errorf("forced gdbserver: %q %v", q, err)
	}
	if _, _, err := pr.server(t.Context(), f.Name(), []string{I386PeerEnv + "=bochs"}); !errors.Is(err, errkind.Unsupported) || !strings.Contains(err.Error(), I386PeerEnv) {
		t.Errorf("unknown peer: %v", err)
	}
}

// TestInotifyNames decodes inotify events as the kernel writes them:
// 16-byte headers, each name padded with NULs to its length.
func TestInotifyNames(t *testing.T) {
	event := func(name string, pad int) []byte {
		b := make([]byte, 16, 16+len(name)+pad)
		binary.NativeEndian.PutUint32(b[4:], syscall.IN_CREATE)
		binary.NativeEndian.PutUint32(b[12:], uint32(len(name)+pad))
		b = append(b, name...)
		return append(b, make([]byte, pad)...)
	}
	two := append(event("other", 3), event("gdb.sock", 8)...)
	for _, tc := range []struct {
		b    []byte
		want bool
	}{
		{event("gdb.sock", 8), true},
		{two, true},
		{event("gdb.sock.tmp", 4), false},
		{two[:len(two)-4], false}, // cut short
		{nil, false},
	} {
		if got := inotifyNames(tc.b, "gdb.sock"); got != tc.want {
			t.Errorf("inotifyNames(%q) = %v, want %v", tc.b, got, tc.want)
		}
	}
}

// TestWatchCreate: the creation of the named file is reported, another
// file's is not, and a Unix-domain socket listens once net.Listen returns.
func TestWatchCreate(t *testing.T) {
	dir := t.TempDir()
	created, unwatch, err := watchCreate(dir, "gdb.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer unwatch()
	if err := os.WriteFile(filepath.Join(dir, "other"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-created:
		t.Fatal("another file's creation was reported")
	case <-time.After(50 * time.Millisecond):
	}
	path := filepath.Join(dir, "gdb.sock")
	if unixListening(path) {
		t.Fatal("listening before the socket exists")
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	select {
	case <-created:
	case <-time.After(10 * time.Second):
		t.Fatal("the socket's creation was not reported")
	}
	if !unixListening(path) {
		t.Error("a listening socket is not listening")
	}
}

func TestMaskAVX512Tunables(t *testing.T) {
	const masks = "-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD"
	for _, tc := range []struct{ old, want string }{
		{"", "glibc.cpu.hwcaps=" + masks},
		{"glibc.malloc.check=3", "glibc.malloc.check=3:glibc.cpu.hwcaps=" + masks},
		{"glibc.cpu.hwcaps=-AVX2", "glibc.cpu.hwcaps=-AVX2," + masks},
		{"glibc.malloc.check=3:glibc.cpu.hwcaps=-ERMS:glibc.rtld.nns=2", "glibc.malloc.check=3:glibc.cpu.hwcaps=-ERMS," + masks + ":glibc.rtld.nns=2"},
		{"glibc.cpu.hwcaps=", "glibc.cpu.hwcaps=" + masks},
		{"glibc.cpu.hwcaps=" + masks, "glibc.cpu.hwcaps=" + masks}, // not twice
		{"a=1:glibc.cpu.hwcaps=-ERMS," + masks, "a=1:glibc.cpu.hwcaps=-ERMS," + masks},
	} {
		if got := MaskAVX512Tunables(tc.old); got != tc.want {
			t.Errorf("MaskAVX512Tunables(%q) = %q, want %q", tc.old, got, tc.want)
		}
	}
}

// The probe programs are well-formed ELF files whose entry is their code.
func TestProbeELFs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		image []byte
		class elf.Class
		code  int
	}{
		{"i386", i386ExitELF(), elf.ELFCLASS32, 9},
		{"amd64", AMD64ELF([]byte{0x0f, 0x05}), elf.ELFCLASS64, 2},
	} {
		f, err := elf.NewFile(bytes.NewReader(tc.image))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f.Class != tc.class || len(f.Progs) != 1 || f.Progs[0].Type != elf.PT_LOAD || f.Progs[0].Filesz != uint64(len(tc.image)) {
			t.Errorf("%s: %+v %+v", tc.name, f.FileHeader, f.Progs)
		}
		if off := f.Entry - f.Progs[0].Vaddr; off != uint64(len(tc.image)-tc.code) {
			t.Errorf("%s: entry at file offset %d, code at %d", tc.name, off, len(tc.image)-tc.code)
		}
	}
}
