package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestDemoLive builds the server and the demo and runs the demo with the
// live backend, as `make demo` does on a machine without rr: it must reach
// the root cause that the program's header names.
func TestDemoLive(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "list_corrupt")
	dir := t.TempDir()
	for _, b := range []string{"rrmcp", "rrmcp-demo"} {
		if err := testenv.GoBuild(filepath.Join(dir, b), "./cmd/"+b); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "rrmcp-demo"), "-server", filepath.Join(dir, "rrmcp"),
		"-prog", prog, "-backend", "live").CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{"-> rr_live_start", "SIGSEGV", "-> rr_triage", "count_duplicates", "-> rr_last_write", "needs the program's history", "reverse execution needs an rr recording",
		"==> Root cause: list_corrupt.c:40", "matches the program's header comment"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
