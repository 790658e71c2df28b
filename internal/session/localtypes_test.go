package session

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestFunctionLocalTypes: types and enumerators declared inside a
// function are found in its frame, as GDB finds them (round-9
// differential, zstd's speed_e): they were "No symbol".
func TestFunctionLocalTypes(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	exe := buildTestdata(t, "gcc", "-O0", "localtypes.c")
	loc := markerLoc(t, filepath.Join("testdata", "localtypes.c"), "ret")
	exprs := []string{"faster", "sp == faster", "(int)slower", "slower + 1", "sizeof(struct pair)"}
	types := []string{"speed_e", "struct pair", "whatis sp", "whatis pr", "whatis faster"}
	var cmds []string
	for _, e := range exprs {
		cmds = append(cmds, "echo <V>\\n", "output "+e, "echo \\n</V>\\n")
	}
	for _, e := range types {
		c := "ptype " + e
		if strings.HasPrefix(e, "whatis ") {
			c = e
		}
		cmds = append(cmds, "echo <T>\\n", c, "echo </T>\\n")
	}
	out := gdbAt(t, exe, loc, cmds...)
	vals := regexp.MustCompile(`(?s)<V>\n(.*?)\n</V>`).FindAllStringSubmatch(out, -1)
	typs := regexp.MustCompile(`(?s)<T>\ntype = (.*?)\n</T>`).FindAllStringSubmatch(out, -1)
	if len(vals) != len(exprs) || len(typs) != len(types) {
		t.Fatalf("gdb:\n%s", out)
	}
	s, ctx := liveAt(t, Config{}, []string{exe}, loc)
	for i, e := range exprs {
		if r, err := s.Evaluate(ctx, e); err != nil || r.Value != vals[i][1] {
			t.Errorf("%s = %q %v, gdb %q", e, r.Value, err, vals[i][1])
		}
	}
	for i, e := range types {
		x, whatis := strings.CutPrefix(e, "whatis ")
		if pt, err := s.Ptype(ctx, x, whatis); err != nil || pt.Type != typs[i][1] {
			t.Errorf("%s: %q %v, gdb %q", e, pt.Type, err, typs[i][1])
		}
	}
}
