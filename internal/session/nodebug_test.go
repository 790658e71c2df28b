package session

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestGlobalWithoutDebugInfo: a global defined in a file built without
// -g is found in the ELF symbol table, as GDB finds a minimal symbol:
// printing it says it has unknown type and asks for a cast, a cast reads
// it, & gives its address. GDB, on the same binary, is the oracle.
func TestGlobalWithoutDebugInfo(t *testing.T) {
	testenv.NeedTool(t, "gcc")
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	dir := t.TempDir()
	bin := filepath.Join(dir, "nodebug")
	src := filepath.Join("testdata", "nodebug")
	for _, c := range [][]string{
		{"-g", "-O0", "-c", "-o", filepath.Join(dir, "main.o"), filepath.Join(src, "main.c")},
		{"-O0", "-c", "-o", filepath.Join(dir, "nodbg.o"), filepath.Join(src, "nodbg.c")},
		{"-o", bin, filepath.Join(dir, "main.o"), filepath.Join(dir, "nodbg.o")},
	} {
		if out, err := exec.Command("gcc", c...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", c, err, out)
		}
	}
	exprs := []string{"nodebug_counter", "(int)nodebug_counter", "(long)nodebug_big", "(char)nodebug_name", "(int)nodebug_counter + 1", "sizeof(nodebug_counter)", "&nodebug_counter", "*(char (*)[8])&nodebug_name"}
	args := []string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "break main", "-ex", "run"}
	for _, e := range exprs {
		args = append(args, "-ex", "print "+e)
	}
	out, _ := exec.Command("gdb", append(args, bin)...).CombinedOutput()
	var gdb []string
	line := regexp.MustCompile(`^(\$\d+ = .*|'.*|.*unknown type.*|.*no debug info.*)$`)
	for _, l := range strings.Split(string(out), "\n") {
		if line.MatchString(l) {
			gdb = append(gdb, regexp.MustCompile(`^\$\d+ = `).ReplaceAllString(l, ""))
		}
	}
	if len(gdb) != len(exprs) {
		t.Fatalf("GDB printed %d results for %d expressions:\n%s", len(gdb), len(exprs), out)
	}

	s, ctx := liveAt(t, Config{}, []string{bin}, "main")
	for i, e := range exprs {
		r, err := s.Evaluate(ctx, e)
		got := r.Value
		if err != nil {
			got = err.Error()
			// our errors quote the expression first: compare GDB's text
			if _, msg, ok := strings.Cut(got, ": "); ok {
				got = msg
			}
		}
		if got != gdb[i] {
			t.Errorf("%s: ours %q, GDB %q", e, got, gdb[i])
		}
	}
	// A misspelt name: the error says where it looked and what is close.
	_, err := s.Evaluate(ctx, "nodebug_countr")
	if err == nil || !strings.Contains(err.Error(), `No symbol "nodebug_countr" in current context (looked in`) ||
		!strings.Contains(err.Error(), "looked in the locals and arguments of main") ||
		!strings.Contains(err.Error(), "close names: nodebug_counter") {
		t.Errorf("nodebug_countr: %v, want the places looked in and nodebug_counter as a close name", err)
	}
}
