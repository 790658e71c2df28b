package testenv

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// GDBServer starts `gdbserver --once` on prog with args in a fresh
// temporary directory and stops it when the test ends; ctx bounds only the
// start. A missing gdbserver skips the test (fails it in CI, as NeedTool).
// It returns the server (for its output tail) and its loopback address.
func GDBServer(t testing.TB, ctx context.Context, prog string, args ...string) (*proc.Process, string) {
	t.Helper()
	NeedTool(t, "gdbserver")
	srv, addr, err := proc.StartGDBServer(ctx, prog, args, t.TempDir(), nil)
	if err != nil {
		t.Fatalf("testenv: gdbserver %s: %v", prog, err)
	}
	t.Cleanup(func() { srv.Stop(0) })
	return srv, addr
}

// Symbol returns the ELF symbol called exactly name in exe (Value is its
// link-time address); the test fails when exe cannot be read or has no
// such symbol.
func Symbol(t testing.TB, exe, name string) elf.Symbol {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("testenv: no symbol %s in %s", name, exe)
	return elf.Symbol{}
}

// CompileDebug compiles the C or C++ source src with compiler (gcc or g++)
// into the executable exe the way the debugger tests want it: -g -O0,
// no PIE, frame pointers kept, then flags. The error carries the
// compiler's output.
func CompileDebug(compiler, src, exe string, flags ...string) error {
	args := append([]string{"-g", "-O0", "-no-pie", "-fno-omit-frame-pointer"}, flags...)
	out, err := exec.Command(compiler, append(args, "-o", exe, src)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", compiler, err, out)
	}
	return nil
}

// StartPiped starts cmd with pipes to its stdin and from its stdout; the
// test fails when either pipe or the start fails. Waiting for cmd (and
// closing stdin, which many of the programs take as the sign to exit) is
// the caller's: how a program is ended differs.
func StartPiped(t testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// NodeCLI finds a command-line tool that npm installs into the module's
// node_modules: the path in the environment variable env when that is set,
// else node_modules/.bin/bin under the module root. Where it is not there
// the test skips saying so and what installs it (install), or fails in CI.
func NodeCLI(t testing.TB, what, env, bin, install string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(Root(t), "node_modules", ".bin", bin)
	}
	if _, err := os.Stat(p); err != nil {
		if InCI() {
			t.Fatalf("%s not found at %s (CI must run: %s)", what, p, install)
		}
		t.Skipf("%s not found at %s (%s, or set %s)", what, p, install, env)
	}
	return p
}

// GoBuild builds the module's package pkg (./cmd/rrmcp or an import path)
// into the file out with the extra go build flags, from the module root.
// The error carries go's output.
func GoBuild(out, pkg string, flags ...string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, flags...), pkg)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
