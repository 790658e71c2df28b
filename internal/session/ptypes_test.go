package session

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// stlTypeExprs are ptype and whatis of stltypes.cpp's variables.
var stlTypeExprs = []string{"r", "&r", "b", "whatis vs", "vs", "whatis &vs", "whatis r.names", "Names", "whatis Names",
	"whatis r.pairs", "whatis r.cv", "s", "whatis s", "m", "whatis um", "whatis l", "st", "whatis sp", "whatis r.up", "&r.up", "cvec", "whatis cvec",
	"std::string", "whatis vs.size()", "whatis s.size()", "whatis m.size()"}

// TestCxxTypesMatchGDB: ptype and whatis, and a frame's function name,
// as GDB prints them, for what the round-8 differential (yaml-cpp, xz)
// found printed otherwise (testdata/ptypes.cpp, g++ and clang++; and
// testdata/anon_typedef_member.c): a nested type named from inside its
// namespace without the namespace was "No symbol"; a template
// constructor had a void return type; clang's operator<<<int> lacked
// GDB's space (operator<< <int>); a member whose type is a typedef of
// an anonymous struct was expanded in place of the typedef's name.
func TestCxxTypesMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	for _, tc := range []struct {
		cc, opt, src, loc string
		frame             int
		exprs             []string // "whatis X" for whatis, else ptype
	}{
		{"g++", "-O0", "ptypes.cpp", "ptypes.cpp:17", 0, []string{"Token::TYPE", "Token", "whatis Token::A", "whatis tok", "ns::Token"}},
		{"clang++", "-O0", "ptypes.cpp", "ptypes.cpp:17", 0, []string{"Token::TYPE", "Token", "whatis Token::A", "whatis tok"}},
		{"g++", "-O0", "ptypes.cpp", "ptypes.cpp:17", 1, []string{"h", "whatis h", "holder<int>", "pr", "wr", "tb"}},
		{"clang++", "-O0", "ptypes.cpp", "ptypes.cpp:17", 1, []string{"h", "whatis h"}},
		{"gcc", "-O0", "anon_typedef_member.c", "anon_typedef_member.c:15", 0, []string{"w", "struct worker", "w.opts", "whatis w.opts"}},
		// libstdc++'s type printers (round-8 differential on yaml-cpp: full
		// template names and whole library classes where GDB prints
		// std::vector<int>)
		{"g++", "-O0", "stltypes.cpp", "stltypes.cpp:53", 0, stlTypeExprs},
		// (clang: not "b", whose T *ptr GDB prints with T's full name:
		// clang declares std::string only, and GDB's lookup of the
		// pointer's target by name finds no definition to call T; not
		// s.size(), which clang does not emit and GDB cannot type)
		{"clang++", "-O0", "stltypes.cpp", "stltypes.cpp:53", 0, slices.DeleteFunc(slices.Clone(stlTypeExprs), func(e string) bool { return e == "b" || e == "whatis s.size()" })},
	} {
		t.Run(tc.cc+"/"+tc.src+"/"+tc.loc, func(t *testing.T) {
			exe := buildTestdata(t, tc.cc, tc.opt, tc.src)
			cmds := []string{}
			if tc.frame > 0 {
				cmds = append(cmds, "up")
			}
			for _, e := range tc.exprs {
				c := "ptype " + e
				if strings.HasPrefix(e, "whatis ") {
					c = e
				}
				cmds = append(cmds, "echo <T>\\n", c, "echo </T>\\n")
			}
			out := gdbAt(t, exe, tc.loc, cmds...)
			want := regexp.MustCompile(`(?s)<T>\ntype = (.*?)\n</T>`).FindAllStringSubmatch(out, -1)
			if len(want) != len(tc.exprs) {
				t.Fatalf("gdb:\n%s", out)
			}
			s, ctx := liveAt(t, Config{}, []string{exe}, tc.loc)
			if tc.frame > 0 {
				if _, err := s.SelectFrame(ctx, tc.frame); err != nil {
					t.Fatal(err)
				}
			}
			for i, e := range tc.exprs {
				x, whatis := strings.CutPrefix(e, "whatis ")
				pt, err := s.Ptype(ctx, x, whatis)
				if err != nil || pt.Type != want[i][1] {
					t.Errorf("%s:\n ours: %q %v\n gdb:  %q", e, pt.Type, err, want[i][1])
				}
			}
		})
	}
	// The frame's name at a breakpoint in an operator template.
	for _, cc := range []string{"g++", "clang++"} {
		exe := buildTestdata(t, cc, "-O0", "ptypes.cpp")
		out := gdbAt(t, exe, "ptypes.cpp:33", "bt 1")
		m := regexp.MustCompile(`#0  (.*?) \(`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("gdb:\n%s", out)
		}
		s, ctx := liveAt(t, Config{}, []string{exe}, "ptypes.cpp:33")
		frames, _, _, _, err := s.Backtrace(ctx, 1)
		if err != nil || len(frames) == 0 || frames[0].Function != m[1] {
			t.Errorf("%s: frame 0 %+v %v, gdb %q", cc, frames, err, m[1])
		}
	}
}
