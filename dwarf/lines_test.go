package dwarf

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

var (
	bpRe     = regexp.MustCompile(`(?m)^Breakpoint (\d+) at (0x[0-9a-f]+): file (.+), line (\d+)\.$`)
	bpMultRe = regexp.MustCompile(`(?m)^Breakpoint (\d+) at 0x[0-9a-f]+: .*\((\d+) locations\)$`)
	ibLocRe  = regexp.MustCompile(`(?m)^(\d+)(?:\.\d+)?\s+(?:breakpoint\s+keep\s+)?y\s+(0x[0-9a-f]+) in .* at (.+):(\d+)$`)
	infoLine = regexp.MustCompile(`(?m)^Line (\d+) of "(.+)" starts at address (0x[0-9a-f]+)`)
	// infoLineEnd reads where "info line *ADDR" says the line ends.
	infoLineEnd = regexp.MustCompile(`(?m)^Line \d+ of ".+" starts at address 0x[0-9a-f]+(?: <[^>]*>)? and ends at (0x[0-9a-f]+)`)
)

// gdbScript runs gdb with a command file (for many commands).
func gdbScript(t *testing.T, bin string, cmds []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cmds.gdb")
	if err := os.WriteFile(p, []byte(strings.Join(cmds, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return runGDB(t, bin, "source "+p)
}

// lineTestProg is a test program built with -g and its options opt.
type lineTestProg struct{ cc, src, opt string }

// forLineTestProgs runs f in a subtest for each of lineTestProgs, built and
// opened.
func forLineTestProgs(t *testing.T, f func(t *testing.T, p lineTestProg, bin string, img *Image)) {
	t.Helper()
	for _, p := range lineTestProgs {
		t.Run(p.src+p.opt, func(t *testing.T) {
			bin := buildTestProg(t, p.cc, p.src, append([]string{"-g"}, strings.Fields(p.opt)...)...)
			f(t, p, bin, openImage(t, bin))
		})
	}
}

var lineTestProgs = []lineTestProg{
	{"gcc", "sample.c", "-O0"},
	{"gcc", "sample.c", "-O2"},
	{"g++", "shapes.cpp", "-O0"},
	{"g++", "shapes.cpp", "-O2"},
	{"gcc", "sample.c", "-O2 -gdwarf-4"},
	{"g++", "inventory.cpp", "-O2"},
	{"clang++", "inventory.cpp", "-O2"},
}

// TestFunctionBreakpointsMatchGDB compares BreakpointAddr (prologue
// skipping) for every function with gdb's "break FUNCTION".
func TestFunctionBreakpointsMatchGDB(t *testing.T) {
	forLineTestProgs(t, func(t *testing.T, p lineTestProg, bin string, img *Image) {
		var fns []*Function
		for _, f := range img.Functions() {
			if filepath.Base(f.DeclFile) == p.src && f.Name != "" && !strings.Contains(f.Name, "~") && !strings.Contains(f.Name, "(anonymous") {
				fns = append(fns, f)
			}
		}
		if len(fns) < 5 {
			t.Fatalf("only %d functions found in %s", len(fns), p.src)
		}
		var cmds []string
		for _, f := range fns {
			cmds = append(cmds, "break '"+f.Name+"'")
		}
		out := gdbScript(t, bin, cmds)
		single := map[int][]string{}
		for _, m := range bpRe.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			single[n] = m
		}
		checked := 0
		for i, f := range fns {
			m, ok := single[i+1]
			if !ok {
				continue // several locations (e.g. constructors); covered by name lookup tests
			}
			checked++
			addr, le := img.BreakpointAddr(f)
			want, _ := strconv.ParseUint(m[2][2:], 16, 64)
			line, _ := strconv.Atoi(m[4])
			if addr != want || le.Line != line {
				t.Errorf("break %s: got %#x line %d, gdb %#x line %d", f.Name, addr, le.Line, want, line)
			}
		}
		if checked < len(fns)/2 {
			t.Errorf("only %d of %d functions had a single gdb location:\n%s", checked, len(fns), out)
		}
		t.Logf("%d functions agree with gdb", checked)
	})
}

// TestLineBreakpointsMatchGDB compares LineToAddrs with gdb's locations
// for "break FILE:LINE" on every line of the source.
func TestLineBreakpointsMatchGDB(t *testing.T) {
	forLineTestProgs(t, func(t *testing.T, p lineTestProg, bin string, img *Image) {
		src, err := os.ReadFile(filepath.Join("testdata", p.src))
		if err != nil {
			t.Fatal(err)
		}
		nlines := strings.Count(string(src), "\n")
		var cmds []string
		for l := 1; l <= nlines; l++ {
			cmds = append(cmds, fmt.Sprintf("echo @@%d\\n", l), fmt.Sprintf("break %s:%d", p.src, l))
		}
		cmds = append(cmds, "echo @@end\\n", "info breakpoints")
		out := gdbScript(t, bin, cmds)
		ib := out[strings.LastIndex(out, "@@end"):]
		locs := map[int][]string{}
		for _, m := range ibLocRe.FindAllStringSubmatch(ib, -1) {
			n, _ := strconv.Atoi(m[1])
			locs[n] = append(locs[n], m[2]+":"+m[4])
		}
		segs := strings.Split(out[:strings.LastIndex(out, "@@end")], "@@")[1:]
		agree, total := 0, 0
		for l := 1; l <= nlines; l++ {
			seg := segs[l-1]
			var want []string
			if m := regexp.MustCompile(`Breakpoint (\d+) at`).FindStringSubmatch(seg); m != nil {
				n, _ := strconv.Atoi(m[1])
				want = locs[n]
			}
			las, err := img.LineToAddrs(p.src, l)
			if err != nil && want == nil {
				continue
			}
			var got []string
			for _, la := range las {
				got = append(got, fmt.Sprintf("0x%016x:%d", la.Addr, la.Line))
			}
			slices.Sort(got)
			slices.Sort(want)
			total++
			if slices.Equal(got, want) {
				agree++
			} else {
				t.Errorf("break %s:%d: got %v, gdb %v (%s)", p.src, l, got, want, strings.TrimSpace(seg))
			}
		}
		// every line gdb resolves exactly is one LinesWithCode lists
		code := map[int]bool{}
		for _, l := range img.LinesWithCode(p.src) {
			code[l] = true
		}
		for l := 1; l <= nlines; l++ {
			las, err := img.LineToAddrs(p.src, l)
			exact := err == nil && slices.ContainsFunc(las, func(la LineAddr) bool { return la.Line == l })
			if exact && !code[l] {
				t.Errorf("line %d has code but LinesWithCode omits it", l)
			}
		}
		if total < 10 {
			t.Fatalf("only %d lines resolved", total)
		}
		t.Logf("%d/%d lines agree with gdb", agree, total)
	})
}

// TestPCToLineMatchesGDB compares PCToLine with gdb's "info line *ADDR"
// at every row address and one address inside each row.
func TestPCToLineMatchesGDB(t *testing.T) {
	forLineTestProgs(t, func(t *testing.T, p lineTestProg, bin string, img *Image) {
		pcToLineVsGDB(t, p.src, bin, img)
	})
}

// TestPCToLinePerFile: at -O2 the inlined allocator and string
// constructors put rows of several files at one address, and GDB keeps a
// table per file (a switch of files ends the previous file's range there,
// a non-statement row that switches files at a statement's address is
// ignored). inventory.cpp's main had new_allocator.h:80 where GDB says
// inventory.cpp:50 (a caller frame's line in a real program's core).
func TestPCToLinePerFile(t *testing.T) {
	for _, cc := range []string{"g++", "clang++"} {
		t.Run(cc, func(t *testing.T) {
			bin := buildTestProg(t, cc, "inventory.cpp", "-g", "-O2")
			pcToLineVsGDB(t, "inventory.cpp", bin, openImage(t, bin))
		})
	}
}

// TestPCToLineAfterIgnoredRow: in real header-only C++ at -O2
// (json_people-O2, nlohmann::json), a row that follows an ignored row of
// another file at the same line as the last row kept is a row of its own
// for GDB: the DW_LNS_set_file before it makes the ignored row's file
// GDB's last file (handle_set_file). It was dropped as a repeat of the
// line, and its addresses took the earlier row's start: next from
// to_person's first line then ran on into main.
func TestPCToLineAfterIgnoredRow(t *testing.T) {
	bin := testenv.Prog(t, "json_people-O2")
	pcToLineVsGDB(t, "json_people.cpp", bin, openImage(t, bin))
}

// pcToLineVsGDB compares PCToLine with GDB at every third address of the
// functions declared in src.
func pcToLineVsGDB(t *testing.T, src, bin string, img *Image) {
	t.Helper()
	var addrs []uint64
	for _, f := range img.Functions() {
		if filepath.Base(f.DeclFile) != src {
			continue
		}
		for _, r := range f.Ranges {
			for a := r[0]; a < r[1]; a += 3 {
				addrs = append(addrs, a)
			}
		}
	}
	if len(addrs) > 1500 {
		addrs = addrs[:1500]
	}
	var cmds []string
	for _, a := range addrs {
		cmds = append(cmds, fmt.Sprintf("echo @%x\\n", a), fmt.Sprintf("info line *0x%x", a))
	}
	out := gdbScript(t, bin, cmds)
	parts := strings.Split(out, "@")[1:]
	if len(parts) != len(addrs) {
		t.Fatalf("%d gdb answers for %d addresses", len(parts), len(addrs))
	}
	bad := 0
	for i, a := range addrs {
		m := infoLine.FindStringSubmatch(parts[i])
		le, ok := img.PCToLine(a)
		if m == nil {
			if ok {
				t.Errorf("%#x: got %s:%d, gdb has no line: %s", a, le.File, le.Line, parts[i])
				bad++
			}
			continue
		}
		line, _ := strconv.Atoi(m[1])
		start, _ := strconv.ParseUint(m[3][2:], 16, 64)
		// Our paths are cleaned (GDB keeps clang's /usr/bin/../lib/…)
		// and absolute (GDB prints a relative name as it was compiled).
		file := path.Clean(m[2])
		sameFile := le.File == file || !path.IsAbs(file) && strings.HasSuffix(le.File, "/"+file)
		if !ok || le.Line != line || !sameFile || le.Addr != start {
			t.Errorf("%#x: got %s:%d (row %#x), gdb %s:%d (row %#x)", a, le.File, le.Line, le.Addr, m[2], line, start)
			bad++
		} else if e := infoLineEnd.FindStringSubmatch(parts[i]); e != nil {
			// Where the line ends is GDB's step range: a row of another
			// file need not end it (find_pc_sect_line's best_end).
			if end, _ := strconv.ParseUint(e[1][2:], 16, 64); le.End != end {
				t.Errorf("%#x: %s:%d [%#x,%#x), gdb ends it at %#x", a, le.File, le.Line, le.Addr, le.End, end)
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
	t.Logf("%d addresses checked", len(addrs))
}

// TestFunctionBreakpointsWithInlinedCopies compares FunctionBreakpoints
// with gdb's locations for "break NAME" where NAME has inlined copies or
// several definitions, with and without a parameter list.
func TestFunctionBreakpointsWithInlinedCopies(t *testing.T) {
	for _, tt := range []struct{ cc, src, opt, name string }{
		{"gcc", "sample.c", "-O2", "helper"},
		{"gcc", "sample.c", "-O0", "helper"},
		{"g++", "shapes.cpp", "-O2", "area"},
		{"g++", "shapes.cpp", "-O0", "twice"},
		{"clang++", "ctor_inline.cpp", "-O2", "Val::Val(Kind)"}, // the inlined copy was left out
		{"clang++", "ctor_inline.cpp", "-O2", "Val::Val"},
	} {
		bin := buildTestProg(t, tt.cc, tt.src, "-g", tt.opt)
		img := openImage(t, bin)
		out := runGDB(t, bin, "break "+tt.name, "echo @@end\\n", "info breakpoints")
		var want []string
		for _, m := range ibLocRe.FindAllStringSubmatch(out[strings.Index(out, "@@end"):], -1) {
			want = append(want, m[2]+":"+m[4])
		}
		var got []string
		for _, la := range img.FunctionBreakpoints(tt.name) {
			got = append(got, fmt.Sprintf("0x%016x:%d", la.Addr, la.Line))
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %s break %s: got %v, gdb %v\n%s", tt.src, tt.opt, tt.name, got, want, out)
		}
	}
}

// TestCompressedDebugSections: an image whose debug sections are
// zlib-compressed (Debian's debug files) reads the same units, functions,
// line tables and location lists as the same file uncompressed.
func TestCompressedDebugSections(t *testing.T) {
	testenv.NeedTool(t, "objcopy")
	plain := buildTestProg(t, "gcc", "sample.c", "-g", "-O2")
	packed := filepath.Join(t.TempDir(), "sample.z")
	if b, err := exec.Command("objcopy", "--compress-debug-sections=zlib", plain, packed).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	a, z := openImage(t, plain), openImage(t, packed)
	if s := z.ELF().Section(".debug_info"); s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		t.Fatalf("%s: .debug_info is not compressed", packed)
	}
	if !slices.Equal(a.Files(), z.Files()) {
		t.Errorf("files: %q, compressed %q", a.Files(), z.Files())
	}
	fa, fz := a.Functions(), z.Functions()
	if len(fa) == 0 || len(fa) != len(fz) {
		t.Fatalf("%d functions, compressed %d", len(fa), len(fz))
	}
	for i, f := range fa {
		g := fz[i]
		if f.Name != g.Name || f.Entry != g.Entry {
			t.Errorf("function %d: %s at %#x, compressed %s at %#x", i, f.Name, f.Entry, g.Name, g.Entry)
			continue
		}
		if !slices.Equal(f.Ranges, g.Ranges) {
			t.Errorf("%s: ranges %x, compressed %x", f.Name, f.Ranges, g.Ranges)
		}
		for pc := f.Entry; pc < f.End(); pc++ {
			la, oka := a.PCToLine(pc)
			lz, okz := z.PCToLine(pc)
			if oka != okz || la.File != lz.File || la.Line != lz.Line {
				t.Errorf("%s+%#x: %s:%d (%v), compressed %s:%d (%v)", f.Name, pc-f.Entry, la.File, la.Line, oka, lz.File, lz.Line, okz)
				break
			}
		}
	}
	// The location lists, which the DWARF reader does not take, are read
	// (inflated) when a variable's location is first wanted.
	for _, name := range []string{".debug_loclists", ".debug_rnglists", ".debug_line"} {
		if pa, pz := a.section(name), z.section(name); !bytes.Equal(pa, pz) || len(pa) == 0 {
			t.Errorf("%s: %d bytes, compressed %d bytes, equal %v", name, len(pa), len(pz), bytes.Equal(pa, pz))
		}
	}
}

// TestBreakpointLineInsideInlinedCalls: where the prologue skip lands
// inside inlined calls, "break FUNCTION" is at the line of the outermost
// call, as GDB says (it said the innermost inlined function's line).
func TestBreakpointLineInsideInlinedCalls(t *testing.T) {
	testenv.NeedTool(t, "clang")
	// The program is internal/session's, whose stepping tests use it too.
	bin := buildTestProg(t, "clang", "../../internal/session/testdata/inline_nested.c", "-g", "-O2")
	img := openImage(t, bin)
	m := bpRe.FindStringSubmatch(gdbScript(t, bin, []string{"break resize"}))
	if m == nil {
		t.Fatal("gdb set no breakpoint on resize")
	}
	f := img.FuncsByName("resize")[0]
	addr, le := img.BreakpointAddr(f)
	want, _ := strconv.ParseUint(m[2][2:], 16, 64)
	line, _ := strconv.Atoi(m[4])
	if addr != want || le.Line != line {
		t.Errorf("break resize: %#x line %d, gdb %#x line %d", addr, le.Line, want, line)
	}
	if len(f.InlineChain(addr)) < 2 {
		t.Errorf("the breakpoint at %#x is not inside the two inlined calls the test is about", addr)
	}
	// The line resize opens on: its entry, moved past the prologue the
	// same way (LineToAddrs).
	loc := fmt.Sprintf("inline_nested.c:%d", f.DeclLine)
	m = bpRe.FindStringSubmatch(gdbScript(t, bin, []string{"break " + loc}))
	if m == nil {
		t.Fatalf("gdb set no breakpoint at %s", loc)
	}
	las, err := img.LineToAddrs("inline_nested.c", f.DeclLine)
	want, _ = strconv.ParseUint(m[2][2:], 16, 64)
	line, _ = strconv.Atoi(m[4])
	if err != nil || len(las) != 1 || las[0].Addr != want || las[0].Line != line {
		t.Errorf("break %s: %+v %v, gdb %#x line %d", loc, las, err, want, line)
	}
}
