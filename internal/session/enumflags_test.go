package session

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestEnumFlagsMatchGDB: an enum value prints as GDB prints it: a flag
// combination only where every enumerator is zero or a single bit, else
// the enumerator or the number (testdata/enumflags.c). rrmcp took any
// enum whose enumerators' bits did not overlap for a flag enum, and
// printed xz's lzma_check 5 (enumerators 0, 1, 4, 10) as
// "(LZMA_CHECK_CRC32 | LZMA_CHECK_CRC64)".
func TestEnumFlagsMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildTestdata(t, "gcc", "-O0", "enumflags.c")
	names := []string{"d", "m", "m2", "m6", "g", "g14", "g10", "n", "o", "b", "b16", "b0", "(enum bits)3", "(enum dup)0"}
	var cmds []string
	for _, n := range names {
		cmds = append(cmds, "echo <V>\\n", "output "+n, "echo \\n</V>\\n")
	}
	out := gdbAt(t, exe, "main", cmds...)
	want := regexp.MustCompile(`(?s)<V>\n(.*?)\n</V>`).FindAllStringSubmatch(out, -1)
	if len(want) != len(names) {
		t.Fatalf("gdb:\n%s", out)
	}
	s, ctx := liveAt(t, Config{}, []string{exe}, "main")
	for i, n := range names {
		r, err := s.Evaluate(ctx, n)
		if err != nil || r.Value != strings.TrimSpace(want[i][1]) {
			t.Errorf("%s = %q %v, gdb %q", n, r.Value, err, want[i][1])
		}
	}
}
