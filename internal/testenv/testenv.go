package testenv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// Root returns the module root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var rootOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
})

// ModuleRoot returns the module root (the directory holding go.mod above
// the working directory), also for a program that is not a test (the
// benchmark command).
func ModuleRoot() (string, error) { return rootOnce() }

// buildOnce builds testprogs/ at most once per test binary.
var buildOnce = sync.OnceValue(func() error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "-s", "-C", filepath.Join(root, "testprogs"))
	// make serialises concurrent test binaries itself only per target; a
	// lock file keeps two packages from building the same outputs at once.
	lock, err := lockFile(filepath.Join(root, "testprogs", ".build.lock"))
	if err != nil {
		return err
	}
	defer lock.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("testenv: make -C testprogs: %v\n%s", err, out.String())
	}
	return nil
})

// Prog builds the test programs (once) and returns the absolute path of
// testprogs/build/name. The test fails if the build fails or name is not built.
func Prog(t testing.TB, name string) string {
	t.Helper()
	NeedTool(t, "make")
	NeedTool(t, "gcc")
	if err := buildOnce(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(Root(t), "testprogs", "build", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testenv: test program %q was not built: %v", name, err)
	}
	return p
}

// InCI reports whether the tests run under .ci/run (CI=true), where every
// peer the tests need is installed and a missing one is a failure.
func InCI() bool { return os.Getenv("CI") == "true" }

// NeedTool skips the test when the named executable is not on PATH, or fails
// it in CI, where .ci/run installs every tool the tests use.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if InCI() {
			t.Fatalf("testenv: %s is not installed (CI=true: .ci/run must install it)", name)
		}
		t.Skipf("testenv: %s is not installed; skipping", name)
	}
	return p
}

// rrProbe remembers, once per test binary, whether rr can record here.
var (
	rrProbeOnce sync.Once
	rrProbeErr  error
)

// RR skips the test, giving the reason of probe (rr.Probe: rr on PATH, a
// hardware PMU, perf_event_paranoid, a real recording; run once per test
// binary), unless rr can record on this machine. With RRMCP_REQUIRE_RR=1
// it fails instead of skipping. The probe is passed in so that testenv,
// which rr's own tests import, does not import rr.
func RR(t testing.TB, probe func(context.Context) error) {
	t.Helper()
	rrProbeOnce.Do(func() { rrProbeErr = probe(context.Background()) })
	if err := rrProbeErr; err != nil {
		if os.Getenv("RRMCP_REQUIRE_RR") == "1" {
			t.Fatalf("rr is required (RRMCP_REQUIRE_RR=1) but cannot run: %v", err)
		}
		t.Skipf("SKIP(rr unavailable): %v", err)
	}
}

var qemuVersionRE = regexp.MustCompile(`version (\d+)\.(\d+)`)

// QEMU returns the path of a qemu-system-i386 whose version is at least 10
// (7.2 deadlocks in reverse execution). It skips otherwise, or fails in CI.
func QEMU(t testing.TB) string {
	t.Helper()
	p := NeedTool(t, "qemu-system-i386")
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		t.Fatalf("testenv: %s --version: %v", p, err)
	}
	m := qemuVersionRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("testenv: cannot read the version of %s: %q", p, out)
	}
	if major, _ := strconv.Atoi(string(m[1])); major < 10 {
		msg := fmt.Sprintf("testenv: %s is QEMU %s.%s; reverse execution needs >= 10 (bookworm-backports)", p, m[1], m[2])
		if InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Resident returns how many of the memory pages wholly inside b are in
// the process's resident set (read from /proc/self/pagemap), and how
// many such pages there are. The test is skipped where pagemap cannot be
// read.
func Resident(t testing.TB, b []byte) (resident, pages int) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("resident pages: %v", err)
	}
	defer f.Close()
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := (start+page-1)/page, (start+uintptr(len(b)))/page
	for p := lo; p < hi; p++ {
		var e [8]byte
		if _, err := f.ReadAt(e[:], int64(p*8)); err != nil {
			t.Skipf("resident pages: read pagemap: %v", err)
		}
		pages++
		if binary.LittleEndian.Uint64(e[:])&(1<<63) != 0 {
			resident++
		}
	}
	return resident, pages
}
