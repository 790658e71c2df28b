package symbols

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test fixtures are built once per test binary into buildDir (removed by
// TestMain): building them per test would dominate the package's runtime.
var (
	buildDir  string
	buildMu   sync.Mutex
	buildDone = map[string]error{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "symbols-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needTool skips the test if a tool is missing (fails under CI=true).
func needTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
}

// run runs a command in buildDir and returns its stdout.
func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = buildDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// fixture builds a test binary (once per test binary) and returns its path.
//
//	libsymt.so     lib.c, -fPIC -shared
//	pie            pie.c, PIE linked against libsymt.so
//	pie-ibt        pie.c with -fcf-protection -z ibtplt (.plt.sec)
//	nopie          pie.c, not position independent
//	cxx            cxx.cpp at -O0
//	libuse32.so, use32  i386 PIC library and non-PIC executable (no libc)
//	pie.stripped   pie without symbols, .gnu_debuglink → pie.debug
//	pie.nolink     pie without symbols or debuglink (build-id only)
//	libsymt.stripped.so  libsymt.so with only .dynsym
func fixture(t testing.TB, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	path := filepath.Join(buildDir, name)
	if err, ok := buildDone[name]; ok {
		if err != nil {
			t.Fatalf("building %s failed earlier: %v", name, err)
		}
		return path
	}
	needTool(t, "gcc")
	src := func(f string) string {
		p, err := filepath.Abs(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	lib := func() {
		if _, ok := buildDone["libsymt.so"]; !ok {
			run(t, "gcc", "-g", "-fPIC", "-shared", "-o", "libsymt.so", src("lib.c"))
			buildDone["libsymt.so"] = nil
		}
	}
	pie := func() {
		lib()
		if _, ok := buildDone["pie"]; !ok {
			run(t, "gcc", "-g", "-fPIE", "-pie", "-o", "pie", src("pie.c"), "-L.", "-lsymt", "-Wl,-rpath,$ORIGIN", "-Wl,--build-id")
			buildDone["pie"] = nil
		}
	}
	switch name {
	case "libsymt.so":
		lib()
	case "pie":
		pie()
	case "pie-ibt":
		lib()
		run(t, "gcc", "-g", "-fPIE", "-pie", "-fcf-protection", "-Wl,-z,ibtplt", "-o", name, src("pie.c"), "-L.", "-lsymt", "-Wl,-rpath,$ORIGIN")
	case "nopie":
		lib()
		run(t, "gcc", "-g", "-fno-pie", "-no-pie", "-o", name, src("pie.c"), "-L.", "-lsymt", "-Wl,-rpath,$ORIGIN")
	case "libuse32.so", "use32":
		if _, ok := buildDone["libext32.so"]; !ok {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "gcc", "-m32", "-shared", "-fPIC", "-nostdlib", "-o", "libext32.so", src("ext32.c"))
			cmd.Dir = buildDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("gcc cannot build i386 code here: %v\n%s", err, out)
			}
			buildDone["libext32.so"] = nil
		}
		if name == "use32" {
			run(t, "gcc", "-m32", "-fno-pie", "-no-pie", "-nostdlib", "-o", name, src("use32.c"), "-L.", "-lext32")
		} else {
			run(t, "gcc", "-m32", "-shared", "-fPIC", "-nostdlib", "-o", name, src("use32.c"), "-L.", "-lext32")
		}
	case "cxx":
		needTool(t, "g++")
		run(t, "g++", "-g", "-O0", "-o", name, src("cxx.cpp"))
	case "pie.stripped", "pie.nolink":
		needTool(t, "objcopy")
		pie()
		if _, ok := buildDone["pie.debug"]; !ok {
			run(t, "objcopy", "--only-keep-debug", "pie", "pie.debug")
			buildDone["pie.debug"] = nil
		}
		run(t, "objcopy", "--strip-all", "pie", name)
		if name == "pie.stripped" {
			run(t, "objcopy", "--add-gnu-debuglink=pie.debug", name)
		}
	case "libsymt.stripped.so":
		needTool(t, "objcopy")
		lib()
		run(t, "objcopy", "--strip-all", "libsymt.so", name)
	default:
		t.Fatalf("unknown fixture %q", name)
	}
	buildDone[name] = nil
	return path
}

func openT(t testing.TB, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
