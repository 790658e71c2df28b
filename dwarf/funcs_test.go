package dwarf

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/ianlancetaylor/demangle"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

func funcNames(fs []*Function) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	slices.Sort(out)
	return out
}

// TestCPlusPlusNames checks qualified names against the demangled
// linkage names and name lookup the way GDB's linespecs match.
func TestCPlusPlusNames(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		bin := buildTestProg(t, "g++", "shapes.cpp", "-g", opt)
		img := openImage(t, bin)
		checked := 0
		for _, f := range img.Functions() {
			if f.LinkageName == "" || !strings.HasSuffix(f.DeclFile, "shapes.cpp") {
				continue
			}
			want, err := demangle.ToString(f.LinkageName, demangle.NoParams, demangle.Verbose)
			if err != nil {
				t.Errorf("demangle %s: %v", f.LinkageName, err)
				continue
			}
			// constructors and destructors demangle to Class::Class
			if f.Name != want {
				t.Errorf("%s: name %q, demangled %q", f.LinkageName, f.Name, want)
			}
			checked++
		}
		if checked < 5 {
			t.Errorf("%s: only %d functions with linkage names", opt, checked)
		}
		tests := []struct {
			query string
			want  []string
		}{
			{"area", []string{"geo::Circle::area", "geo::Square::area"}},
			{"geo::Circle::area", []string{"geo::Circle::area"}},
			{"Circle::area", []string{"geo::Circle::area"}},
			{"hidden", []string{"geo::(anonymous namespace)::hidden"}},
			{"twice", []string{"twice<double>", "twice<int>"}},
			{"twice<int>", []string{"twice<int>"}},
			{"main", []string{"main"}},
			{"_Z5totalRKN3geo5ShapeES2_", []string{"total"}},
			{"no_such_function", nil},
		}
		for _, tt := range tests {
			got := funcNames(img.FuncsByName(tt.query))
			if opt == "-O2" && tt.query == "area" {
				// Square::area may be devirtualized and inlined away
				got = slices.DeleteFunc(got, func(s string) bool { return s == "geo::Square::area" })
				tt.want = []string{"geo::Circle::area"}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s FuncsByName(%q) = %v, want %v", opt, tt.query, got, tt.want)
			}
		}
	}
}

// TestInlinedCopies finds every inlined copy of a static inline function
// (including those the compiler put inside lexical blocks) and checks that
// gdb resolves "break helper" to the same addresses.
func TestInlinedCopies(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O2")
	img := openImage(t, bin)
	copies := img.InlinedCopies("helper")
	if len(copies) == 0 {
		t.Fatal("no inlined copies of helper at -O2")
	}
	line := markerLine(t, "sample.c", "main_helper")
	for _, c := range copies {
		if c.Caller.Name != "main" || c.CallLine != line || !strings.HasSuffix(c.CallFile, "sample.c") {
			t.Errorf("copy at %#x: caller %s at %s:%d, want main at sample.c:%d", c.Entry, c.Caller.Name, c.CallFile, c.CallLine, line)
		}
		chain := c.Caller.InlineChain(c.Entry)
		if len(chain) == 0 || chain[len(chain)-1].Name != "helper" {
			t.Errorf("inline chain at %#x = %+v, want helper innermost", c.Entry, chain)
		}
	}
	out := runGDB(t, bin, "break helper", "info breakpoints")
	for _, c := range copies {
		if !strings.Contains(out, strings.TrimPrefix(strings.ToLower(hex16(c.Entry)), "0x")) {
			t.Errorf("gdb has no location at %#x:\n%s", c.Entry, out)
		}
	}
}

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return "0x" + string(b)
}

// TestDebugFrameCIEv4 checks that a .debug_frame with a version-4 CIE
// (address_size and segment_selector_size present) is rewritten so that
// delve's parser reads the right rules.
func TestDebugFrameCIEv4(t *testing.T) {
	cie := []byte{0xff, 0xff, 0xff, 0xff, 4, 0 /* aug "" */, 8, 0, 1 /* code align */, 0x78 /* -8 */, 16,
		0x0c, 7, 8, // def_cfa rsp+8
		0x90, 1, // offset r16 at cfa-8
		0, 0, 0, 0, 0} // nops
	var data []byte
	data = binary.LittleEndian.AppendUint32(data, uint32(len(cie)))
	data = append(data, cie...)
	fde := binary.LittleEndian.AppendUint32(nil, 0) // CIE pointer
	fde = binary.LittleEndian.AppendUint64(fde, 0x1000)
	fde = binary.LittleEndian.AppendUint64(fde, 0x10)
	fde = append(fde, 0x41, 0x0e, 16, 0, 0, 0) // advance 1; def_cfa_offset 16
	data = binary.LittleEndian.AppendUint32(data, uint32(len(fde)))
	data = append(data, fde...)
	fixed, ok := fixDebugFrameCIEs(data)
	if !ok {
		t.Fatal("rewrite failed")
	}
	fdes, err := parseFDEs(fixed, 0, 8)
	if err != nil || len(fdes) != 1 {
		t.Fatalf("parse: %v, %d FDEs", err, len(fdes))
	}
	for _, tt := range []struct {
		pc     uint64
		offset int64
	}{{0x1000, 8}, {0x1005, 16}} {
		fc, err := establish(fdes[0], tt.pc)
		if err != nil {
			t.Fatal(err)
		}
		if fc.CFA.Rule != frame.RuleCFA || fc.CFA.Reg != 7 || fc.CFA.Offset != tt.offset {
			t.Errorf("pc %#x: CFA %+v, want rsp+%d", tt.pc, fc.CFA, tt.offset)
		}
		if r := fc.Regs[16]; r.Rule != frame.RuleOffset || r.Offset != -8 {
			t.Errorf("pc %#x: ra rule %+v, want cfa-8", tt.pc, r)
		}
	}
}

func TestRegNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		num  int
	}{{"rip", 16}, {"$rsp", 7}, {"pc", 16}, {"rbx", 3}, {"r12", 12}, {"xmm3", 20}, {"eflags", 49}, {"fs_base", 58}} {
		n, ok := RegNum(tt.name)
		if !ok || n != tt.num {
			t.Errorf("RegNum(%q) = %d, %v; want %d", tt.name, n, ok, tt.num)
		}
	}
	if _, ok := RegNum("nosuch"); ok {
		t.Error("RegNum(nosuch) succeeded")
	}
	var r Regs
	r.SetBytes(17, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	if b, ok := r.Bytes(17); !ok || b[15] != 16 || b[0] != 1 {
		t.Errorf("xmm0 bytes = %v, %v", b, ok)
	}
	if _, ok := r.Get(0); ok {
		t.Error("rax valid in zero Regs")
	}
}

// FuzzCFI feeds garbage to the .debug_frame rewrite, delve's CFI parser
// (wrapped) and frame establishment: errors are fine, panics are not.
func FuzzCFI(f *testing.F) {
	f.Add([]byte{0x14, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 1, 0x78, 16, 0x0c, 7, 8, 0x90, 1, 0, 0, 0, 0})
	f.Add([]byte{0x10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8})
	f.Add([]byte{2, 0, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, eh := range []uint64{0, 0x1000} {
			in := data
			if eh == 0 {
				fixed, ok := fixDebugFrameCIEs(data)
				if !ok {
					continue
				}
				in = fixed
			}
			fdes, err := parseFDEs(in, eh, 8)
			if err != nil {
				continue
			}
			for _, fde := range fdes {
				establish(fde, fde.Begin())
				establish(fde, fde.End()-1)
			}
		}
	})
}

// TestRulesAtCached: the rules rulesAt keeps for a pc are the ones the
// FDE's program gives there, whether computed now, taken from the cache,
// or computed again after the cache filled up; the caller that reads them
// (applyCFI) does not change them.
func TestRulesAtCached(t *testing.T) {
	// The C library: enough code to fill the cache, whatever the build.
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skipf("needs %s (Debian's x86-64 C library): %v", libc, err)
	}
	img := openImage(t, libc)
	var pcs []uint64
	for _, fde := range img.cfiFor().eh {
		for pc := fde.Begin(); pc < fde.End() && len(pcs) < 3*maxCachedRules; pc++ {
			pcs = append(pcs, pc)
		}
	}
	if len(pcs) <= maxCachedRules {
		t.Fatalf("only %d pcs with CFI: the cache never fills", len(pcs))
	}
	want := func(pc uint64) *frame.FrameContext {
		fc, err := establish(img.cfiFor().fdeFor(pc), pc)
		if err != nil {
			t.Fatalf("establish %#x: %v", pc, err)
		}
		return img.arch.frameContext(fc)
	}
	for round := 0; round < 2; round++ {
		for _, pc := range pcs {
			got, _, err := img.rulesAt(pc)
			if err != nil {
				t.Fatalf("rulesAt %#x: %v", pc, err)
			}
			if w := want(pc); !reflect.DeepEqual(got.CFA, w.CFA) || !reflect.DeepEqual(got.Regs, w.Regs) || got.RetAddrReg != w.RetAddrReg {
				t.Fatalf("round %d, pc %#x: rules %+v, the FDE gives %+v", round, pc, got, w)
			}
		}
	}
	if n := len(img.cfiFor().rules); n == 0 || n > maxCachedRules {
		t.Errorf("%d rules cached, want 1..%d", n, maxCachedRules)
	}
	if fc, _, err := img.rulesAt(1); fc != nil || err != nil {
		t.Errorf("rulesAt(1) = %+v, %v; want no rules", fc, err)
	}
}

// TestHotColdFunction checks a function split by gcc into a hot part and
// a .cold part: Entry is the hot part's start (the ELF symbol, GDB's entry
// pc), both ranges belong to the function, and the cold part maps to it.
func TestHotColdFunction(t *testing.T) {
	bin := buildTestProg(t, "g++", "shapes.cpp", "-g", "-O2")
	img := openImage(t, bin)
	for _, name := range []string{"main", "checked"} {
		fs := img.FuncsByName(name)
		if len(fs) != 1 {
			t.Fatalf("FuncsByName(%s) = %v", name, funcNames(fs))
		}
		f := fs[0]
		if len(f.Ranges) < 2 {
			t.Fatalf("%s has ranges %v, want a hot and a cold part", name, f.Ranges)
		}
		sym := f.LinkageName
		if sym == "" {
			sym = name
		}
		addr, ok := img.SymbolAddr(sym)
		if !ok || addr != f.Entry {
			t.Errorf("%s: Entry %#x, ELF symbol %s at %#x", name, f.Entry, sym, addr)
		}
		for _, r := range f.Ranges {
			if g := img.FuncAt(r[0]); g != f {
				t.Errorf("%s: FuncAt(%#x) = %v", name, r[0], g)
			}
		}
	}
}

// TestPLTSymbols names PLT stubs like gdb ("puts@plt").
func TestPLTSymbols(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O0")
	img := openImage(t, bin)
	out := runGDB(t, bin, "info symbol 'printf@plt'", "print &'printf@plt'")
	m := regexp.MustCompile(`0x([0-9a-f]+) <printf@plt>`).FindStringSubmatch(out)
	if m == nil {
		t.Skipf("gdb does not know printf@plt:\n%s", out)
	}
	addr, _ := strconv.ParseUint(m[1], 16, 64)
	for _, pc := range []uint64{addr, addr + 4} {
		name, off, ok := img.SymbolAt(pc)
		if !ok || name != "printf@plt" || off != pc-addr {
			t.Errorf("SymbolAt(%#x) = %s+%d, %v; want printf@plt", pc, name, off, ok)
		}
	}
}

// TestConcurrentLookups exercises the lazy indexes from several
// goroutines at once (run with -race).
func TestConcurrentLookups(t *testing.T) {
	bin := buildTestProg(t, "g++", "shapes.cpp", "-g", "-O2")
	ref := openImage(t, bin)
	fns := ref.Functions()
	img := openImage(t, bin)
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			msg := ""
			for i, f := range fns {
				switch (i + g) % 4 {
				case 0:
					if got := img.FuncAt(f.Entry); got == nil || got.Name != f.Name {
						msg = "FuncAt " + f.Name
					}
				case 1:
					if _, ok := img.PCToLine(f.Entry); !ok {
						msg = "PCToLine " + f.Name
					}
				case 2:
					if len(img.FuncsByName(f.Name)) == 0 {
						msg = "FuncsByName " + f.Name
					}
				case 3:
					img.BreakpointAddr(img.FuncAt(f.Entry))
				}
			}
			done <- msg
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

func TestCanonicalCxxName(t *testing.T) {
	for in, want := range map[string]string{
		"main": "main",
		"std::map<std::__cxx11::basic_string<char>, int, std::allocator<std::pair<const std::__cxx11::basic_string<char>, int> > >::at": "std::map<std::__cxx11::basic_string<char>, int, std::allocator<std::pair<std::__cxx11::basic_string<char> const, int> > >::at",
		"F<const char*>":                              "F<char const*>",
		"F<int, const volatile X&>":                   "F<int, X const volatile&>",
		"operator<":                                   "operator<",
		"G<const int (*)(int)>":                       "G<const int (*)(int)>",
		"std::min<long unsigned int>":                 "std::min<unsigned long>",
		"F<const short unsigned int*, long long int>": "F<unsigned short const*, long long>",
		"F<my_long int>":                              "F<my_long int>",
		"std::function<int(int)>::~function":          "std::function<int (int)>::~function",
		// cv-qualifiers of pointer arguments, as GDB canonicalizes them
		"std::pair<const Edge* const, int>": "std::pair<Edge const* const, int>",
		"std::pair<Edge *const, int>":       "std::pair<Edge* const, int>",
		"std::pair<const Edge *const, int>": "std::pair<Edge const* const, int>",
		"F<const std::map<int, int>*>":      "F<std::map<int, int> const*>",
		// clang's names of operator templates, as GDB prints them
		"operator<<<int>":  "operator<< <int>",
		"operator<<int>":   "operator< <int>",
		"operator<< <int>": "operator<< <int>",
		"operator<<":       "operator<<",
		"operator<=<int>":  "operator<=<int>",
		"operator>><int>":  "operator>><int>",
		"std::operator<<<std::char_traits<char> >":  "std::operator<< <std::char_traits<char> >",
		"std::operator<< <std::char_traits<char> >": "std::operator<< <std::char_traits<char> >",
	} {
		if got := canonicalCxxName(in); got != want {
			t.Errorf("canonicalCxxName(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestCPlusPlusGlobals finds a static data member by qualified and plain
// name at the address of its ELF symbol.
func TestCPlusPlusGlobals(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2", "-gdwarf-4"} {
		bin := buildTestProg(t, "g++", "shapes.cpp", "-g", opt)
		img := openImage(t, bin)
		want, ok := img.SymbolAddr("_ZN3geo5Shape5countE")
		if !ok {
			// data symbols are not in the function symbol table: read it
			syms, _ := img.ELF().Symbols()
			for _, s := range syms {
				if s.Name == "_ZN3geo5Shape5countE" {
					want, ok = s.Value, true
				}
			}
		}
		if !ok {
			t.Fatal("no ELF symbol for geo::Shape::count")
		}
		for _, name := range []string{"geo::Shape::count", "Shape::count", "count"} {
			v, err := img.Global(t.Context(), name, nil, nil, 0)
			if err != nil {
				t.Errorf("%s Global(%s): %v", opt, name, err)
				continue
			}
			if v.Location.Kind != LocAddress || v.Location.Addr != want || v.Name != "geo::Shape::count" || v.Kind != VarGlobal {
				t.Errorf("%s Global(%s) = %s %v %v, want geo::Shape::count at %#x", opt, name, v.Name, v.Kind, v.Location, want)
			}
		}
	}
}

// TestFuncsByNameLazyMatchesFull checks that name lookups answered from
// the units ELF symbols point to (before any full index) return exactly
// the functions the full index returns, for every lookup key of every
// function: C and C++, -O0 and -O2 (clones, cold parts), and the large
// binaries when built.
func TestFuncsByNameLazyMatchesFull(t *testing.T) {
	type prog struct {
		name, path string
		stride     int // check every stride-th key
	}
	var progs []prog
	for _, opt := range []string{"-O0", "-O2"} {
		progs = append(progs, prog{"shapes.cpp " + opt, buildTestProg(t, "g++", "shapes.cpp", "-g", opt), 1})
	}
	progs = append(progs, prog{"sample.c -O2", buildTestProg(t, "gcc", "sample.c", "-g", "-O2"), 1})
	for _, l := range []struct {
		name   string
		stride int
	}{{"sqlite3", 7}, {"stl/stl", 97}} {
		p := filepath.Join(testenv.Root(t), "bench", "large", "build", l.name)
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s not built (make -C bench/large), not checked", p)
			continue
		}
		if l.name == "stl/stl" && os.Getenv("RRMCP_LARGE") == "" {
			t.Logf("%s: not checked (slow, ~6 min on 2 busy cores: indexes 41 MB of DWARF twice and looks up 4,660 names); set RRMCP_LARGE=1", p)
			continue
		}
		progs = append(progs, prog{l.name, p, l.stride})
	}
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			full, err := Open(p.path)
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			lazy, err := Open(p.path)
			if err != nil {
				t.Fatal(err)
			}
			defer lazy.Close()
			keySet := map[string]bool{"no_such_function": true, "operator+": true, "~allocator": true}
			for _, f := range full.Functions() {
				for _, k := range append(nameKeys(f.Name), nameKeys(f.dwarfName)...) {
					keySet[k] = true
				}
				if f.LinkageName != "" {
					keySet[f.LinkageName] = true
				}
			}
			for k := range full.inlineBy {
				keySet[k] = true
			}
			keys := slices.Sorted(maps.Keys(keySet))
			copies := func(cs []InlinedCopy) []string {
				var out []string
				for _, c := range cs {
					out = append(out, fmt.Sprintf("%#x %#x %s:%d", c.Entry, c.Caller.Offset, c.CallFile, c.CallLine))
				}
				slices.Sort(out)
				return out
			}
			offs := func(fs []*Function) []stddwarf.Offset {
				var out []stddwarf.Offset
				for _, f := range fs {
					out = append(out, f.Offset)
				}
				slices.Sort(out)
				return out
			}
			checked, lazyN := 0, 0
			for i, k := range keys {
				if i%p.stride != 0 {
					continue
				}
				checked++
				if g, w := copies(lazy.InlinedCopies(k)), copies(full.InlinedCopies(k)); !slices.Equal(g, w) {
					t.Errorf("inlined copies of %q: lazy %q, the full index %q", k, g, w)
				}
				got, ok := lazy.funcsByNameLazy(k)
				if !ok {
					continue // FuncsByName falls back to the full index
				}
				lazyN++
				if g, w := offs(got), offs(full.byName[k]); !slices.Equal(g, w) {
					t.Errorf("lookup %q: lazy found DIEs %#x, the full index %#x", k, g, w)
				}
			}
			if lazy.allDone.Load() {
				t.Error("lazy lookups built the full index")
			}
			t.Logf("%d keys checked, %d answered lazily", checked, lazyN)
			if lazyN < checked/2 {
				t.Errorf("only %d of %d lookups answered without the full index", lazyN, checked)
			}
			if fs := lazy.FuncsByName("main"); len(fs) != 1 || fs[0].Name != "main" {
				t.Errorf("FuncsByName(main) = %v", funcNames(fs))
			}
		})
	}
}

// TestCodeRanges checks GDB's rules for code ranges: empty ones dropped,
// and those at address zero (discarded COMDAT copies) unless a loaded
// section is there.
func TestCodeRanges(t *testing.T) {
	img, err := Open(buildTestProg(t, "gcc", "sample.c", "-g", "-O2"))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if img.sectionAtZero() {
		t.Fatal("a PIE has no section at address zero")
	}
	got := img.codeRanges([][2]uint64{{0, 5}, {0x10, 0x20}, {0, 0x30}, {0x40, 0x40}})
	if want := [][2]uint64{{0x10, 0x20}}; !slices.Equal(got, want) {
		t.Errorf("codeRanges = %#x, want %#x", got, want)
	}
	for _, f := range img.Functions() {
		if f.Entry == 0 {
			t.Errorf("function %s at address zero", f.Name)
		}
	}
}

// TestMayHaveLoclist checks the abbreviation pre-check that lets GDB's
// prologue rule skip walking function bodies: a unit it rules out has
// no location lists, and -O2 units are not ruled out.
func TestMayHaveLoclist(t *testing.T) {
	for _, c := range []struct {
		src, opt string
		want     bool // some unit may have location lists
	}{{"sample.c", "-O0", false}, {"sample.c", "-O2", true}} {
		img, err := Open(buildTestProg(t, "gcc", c.src, "-g", c.opt))
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		if err := img.listUnits(); err != nil {
			t.Fatal(err)
		}
		any := false
		for _, u := range img.units {
			may := u.mayHaveLoclist()
			any = any || may
			if err := u.indexDeep(); err != nil {
				t.Fatal(err)
			}
			if u.hasLoclist && !may {
				t.Errorf("%s %s: unit %s has location lists, ruled out by its abbreviations", c.src, c.opt, u.name)
			}
		}
		if any != c.want {
			t.Errorf("%s %s: some unit may have location lists = %v, want %v", c.src, c.opt, any, c.want)
		}
	}
}

// TestNoOriginNamed: a C unit without a top-level subprogram of a name
// holds no inlined copy of it, and InlinedCopies does not walk its bodies
// to find out; a unit that has one, or a C++ unit, is walked.
func TestNoOriginNamed(t *testing.T) {
	c := openImage(t, buildTestProg(t, "gcc", "sample.c", "-g", "-O2"))
	if err := c.listUnits(); err != nil {
		t.Fatal(err)
	}
	u := c.units[slices.IndexFunc(c.units, func(u *unit) bool { return strings.HasSuffix(u.name, "sample.c") })]
	if u.noOriginNamed("helper") || !u.noOriginNamed("no_such_function") {
		t.Errorf("sample.c: helper (inlined) %v, no_such_function %v; want false, true", u.noOriginNamed("helper"), u.noOriginNamed("no_such_function"))
	}
	if got := c.InlinedCopies("no_such_function"); len(got) != 0 || u.inlByKey != nil {
		t.Errorf("copies of no_such_function %v; bodies walked: %v", got, u.inlByKey != nil)
	}
	// "local" is a local variable of leaf: its name is in the unit, so the
	// narrowing by string offset keeps the unit, and only the shallow
	// index tells that no function of that name is there.
	if !slices.Contains(c.inlineUnits("local"), u) || !u.noOriginNamed("local") {
		t.Errorf("local: kept by the string narrowing %v, no origin %v; want true, true", slices.Contains(c.inlineUnits("local"), u), u.noOriginNamed("local"))
	}
	if got := c.InlinedCopies("local"); len(got) != 0 || u.inlByKey != nil {
		t.Errorf("copies of local %v; bodies walked: %v", got, u.inlByKey != nil)
	}
	if len(c.InlinedCopies("helper")) == 0 || u.inlByKey == nil {
		t.Error("helper's copies not found by walking the unit")
	}
	cpp := openImage(t, buildTestProg(t, "g++", "shapes.cpp", "-g", "-O2"))
	if err := cpp.listUnits(); err != nil {
		t.Fatal(err)
	}
	for _, u := range cpp.units {
		if u.noOriginNamed("no_such_function") {
			t.Errorf("C++ unit %s: told no origin without walking", u.name)
		}
	}
}

// TestScansRelease: the whole-section scans behind lazy name lookups (a
// name searched for in .debug_str and in each unit's bytes, the pass
// over .symtab) leave what they read out of the resident set, so that a
// large program's DWARF does not become the server's memory (the STL
// benchmark program's 101 MB of sections were resident after a
// breakpoint was set by name).
func TestScansRelease(t *testing.T) {
	// the unused types of <map> too: sections of many pages
	bin := buildTestProg(t, "g++", "shapes.cpp", "-g", "-O2", "-fno-eliminate-unused-debug-types", "-include", "map")
	img := openImage(t, bin)
	if len(img.FuncsByName("total")) == 0 {
		t.Fatal("total not found")
	}
	if units := img.inlineUnits("area"); len(units) == 0 {
		t.Fatal("no unit can hold an inlined area (no inlined subroutines at -O2?)")
	}
	strtab, err := img.syms.SectionData(".strtab")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []struct {
		name string
		b    []byte
	}{{".debug_str", img.section(".debug_str")}, {".debug_info", img.section(".debug_info")}, {".strtab", strtab}} {
		r, n := testenv.Resident(t, sec.b)
		if n < 4 && sec.name != ".strtab" { // (.strtab: symbols.TestRelease)
			t.Fatalf("%s: %d whole pages; too small to tell", sec.name, n)
		}
		if r != 0 {
			t.Errorf("%s: %d of its %d pages resident after the scans, want none", sec.name, r, n)
		}
	}
}
