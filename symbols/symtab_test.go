package symbols

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nmSym is one line of `nm -S --defined-only` output.
type nmSym struct {
	addr, size uint64
	hasSize    bool
	typ        byte
	name       string
}

var nmLine = regexp.MustCompile(`^([0-9a-f]{8,16}) (?:([0-9a-f]{8,16}) )?([A-Za-z]) (.+)$`)

func runNM(t *testing.T, args ...string) []nmSym {
	t.Helper()
	needTool(t, "nm")
	var out []nmSym
	for _, line := range strings.Split(run(t, "nm", append([]string{"-S", "--defined-only"}, args...)...), "\n") {
		m := nmLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := nmSym{typ: m[3][0], name: m[4]}
		s.addr, _ = strconv.ParseUint(m[1], 16, 64)
		if m[2] != "" {
			s.size, _ = strconv.ParseUint(m[2], 16, 64)
			s.hasSize = true
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatalf("nm %v: no symbols parsed", args)
	}
	return out
}

// addressable reports whether an nm symbol type is one this package
// indexes: text, data, bss, read-only data, weak and unique symbols.
func addressable(typ byte) bool {
	return strings.IndexByte("TtWiDdBbRrVu", typ) >= 0
}

func isText(typ byte) bool { return strings.IndexByte("TtWi", typ) >= 0 }

// TestSymbolsMatchNM checks LookupName and LookupAddr against nm for each
// fixture: every symbol nm lists is found by its raw and demangled names at
// nm's address, every text address resolves to a symbol nm names at that
// address (offset 0), and the last byte of every sized function resolves
// into it.
func TestSymbolsMatchNM(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		nmFile  string // file nm reads (differs for stripped binaries)
		dynamic bool   // compare with nm -D
	}{
		{"pie", "pie", false},
		{"libsymt.so", "libsymt.so", false},
		{"cxx", "cxx", false},
		{"pie.stripped", "pie", false}, // .symtab comes from pie.debug
		{"libsymt.stripped.so", "libsymt.so", true},
		{"use32", "use32", false},
		{"libuse32.so", "libuse32.so", false},
		{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", true},
		{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", true},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			path := tc.fixture
			if strings.HasPrefix(path, "/") {
				if _, err := os.Stat(path); err != nil {
					t.Skipf("system library not installed: %v", err)
				}
			} else {
				path = fixture(t, tc.fixture)
			}
			f := openT(t, path)
			f.DebugRoots = []string{t.TempDir()}
			args := []string{tc.nmFile}
			if tc.dynamic {
				args = []string{"-D", tc.nmFile}
			}
			raw := runNM(t, args...)
			demangled := runNM(t, append([]string{"-C"}, args...)...)
			if len(raw) != len(demangled) {
				t.Fatalf("nm and nm -C disagree on the number of symbols: %d vs %d", len(raw), len(demangled))
			}
			namesAt := map[uint64][]string{}
			for _, s := range raw {
				base, _ := SplitVersion(s.name)
				namesAt[s.addr] = append(namesAt[s.addr], base)
			}
			checked := 0
			for i, s := range raw {
				if !addressable(s.typ) {
					continue
				}
				for _, name := range []string{s.name, demangled[i].name} {
					syms, err := f.LookupName(name)
					if err != nil {
						t.Errorf("LookupName(%q): %v", name, err)
						continue
					}
					if !slices.ContainsFunc(syms, func(x Symbol) bool { return x.Addr == s.addr }) {
						t.Errorf("LookupName(%q) = %v, want one at %#x", name, syms, s.addr)
					}
				}
				if !isText(s.typ) {
					continue
				}
				sym, off, err := f.LookupAddr(s.addr)
				if err != nil || off != 0 || !slices.Contains(namesAt[s.addr], sym.Name) {
					t.Errorf("LookupAddr(%#x) = %q+%d, %v; want one of %q", s.addr, sym.Name, off, err, namesAt[s.addr])
				}
				if s.hasSize && s.size > 1 {
					last := s.addr + s.size - 1
					sym, off, err := f.LookupAddr(last)
					if err != nil || !sym.Contains(last) || sym.Addr+off != last || len(namesAt[sym.Addr]) == 0 {
						t.Errorf("LookupAddr(%#x) (end of %s) = %+v+%d, %v", last, s.name, sym, off, err)
					}
				}
				checked++
			}
			if checked < 2 {
				t.Fatalf("only %d text symbols checked", checked)
			}
			t.Logf("%d nm symbols, %d text addresses checked", len(raw), checked)
		})
	}
}

// TestDemangleMatchesCxxfilt compares Demangle with c++filt -i (the
// style GDB and nm -C print) on every symbol of the C++ fixture, its
// versioned imports (_ZdlPvm@GLIBCXX_3.4.9) and, when installed, every
// dynamic symbol of libstdc++.
func TestDemangleMatchesCxxfilt(t *testing.T) {
	needTool(t, "c++filt")
	bin := fixture(t, "cxx")
	var names []string
	for _, s := range runNM(t, bin) {
		names = append(names, s.name)
	}
	needTool(t, "nm")
	for _, line := range strings.Split(run(t, "nm", "-D", "--undefined-only", bin), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			names = append(names, f[1]) // e.g. _ZdlPvm@GLIBCXX_3.4.9
		}
	}
	const libstdcxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
	if _, err := os.Stat(libstdcxx); err == nil {
		for _, s := range runNM(t, "-D", libstdcxx) {
			names = append(names, s.name)
		}
	}
	in := filepath.Join(t.TempDir(), "names")
	if err := os.WriteFile(in, []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Demangle is c++filt -i's form (what LookupName finds), FrameName
	// c++filt's (what GDB shows for a frame without debug information).
	for _, c := range []struct {
		flag string
		fn   func(string) string
	}{{"-i", Demangle}, {"", FrameName}} {
		want := strings.Split(strings.TrimRight(run(t, "sh", "-c", "c++filt "+c.flag+" < "+in), "\n"), "\n")
		if len(want) != len(names) {
			t.Fatalf("c++filt returned %d lines for %d names", len(want), len(names))
		}
		mangled, bad := 0, 0
		for i, n := range names {
			w := want[i]
			if strings.HasPrefix(n, "_Z") {
				mangled++
				if _, v := SplitVersion(n); v != "" { // c++filt keeps "@VERSION"
					w = strings.TrimSuffix(strings.TrimSuffix(w, "@"+v), "@")
				}
			} else {
				w, _ = SplitVersion(w)
			}
			if got := c.fn(n); got != w {
				bad++
				if bad <= 20 {
					t.Errorf("c++filt %s: %q gives %q, c++filt says %q", c.flag, n, got, w)
				}
			}
		}
		t.Logf("c++filt %s: %d names (%d mangled), %d differ", c.flag, len(names), mangled, bad)
		if mangled < 20 {
			t.Fatalf("only %d mangled names compared", mangled)
		}
	}
}

// TestLookupNameCxx checks qualified, partial and overloaded C++ names;
// the expected symbols are given by their nm -C names, and addresses come
// from nm.
func TestLookupNameCxx(t *testing.T) {
	bin := fixture(t, "cxx")
	f := openT(t, bin)
	byName := map[string]uint64{}
	for _, s := range runNM(t, "-C", bin) {
		byName[s.name] = s.addr
	}
	stringT := "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	tests := []struct {
		query string
		want  []string // nm -C names
	}{
		{"main", []string{"main"}},
		{"geo::Circle::area", []string{"geo::Circle::area() const"}},
		{"Circle::area", []string{"geo::Circle::area() const"}},
		{"area", []string{"geo::Circle::area() const", "Shape::area() const"}},
		{"Shape::area", []string{"Shape::area() const"}},
		{"::Shape::area", []string{"Shape::area() const"}},
		{"geo::Circle::area() const", []string{"geo::Circle::area() const"}},
		{"Foo::bar", []string{"geo::inner::Foo::bar(int)", "geo::inner::Foo::bar(double)"}},
		{"geo::inner::Foo::bar(int)", []string{"geo::inner::Foo::bar(int)"}},
		{"Foo::bar(double)", []string{"geo::inner::Foo::bar(double)"}},
		{"Foo::baz", []string{"geo::inner::Foo::baz()"}},
		{"Foo::operator<", []string{"geo::inner::Foo::operator<(geo::inner::Foo const&) const"}},
		{"Foo::operator()", []string{"geo::inner::Foo::operator()(int) const"}},
		{"Box<int>::get", []string{"geo::Box<int>::get() const"}},
		{"geo::Box::get", []string{"geo::Box<int>::get() const", "geo::Box<double>::get() const"}},
		{"twice<int>", []string{"int geo::twice<int>(int)"}},
		{"geo::twice", []string{"int geo::twice<int>(int)", stringT + " geo::twice<" + stringT + " >(" + stringT + ")"}},
		{"overload", []string{"overload(int)", "overload(char const*)", "overload(" + stringT + " const&)"}},
		{"overload(char const*)", []string{"overload(char const*)"}},
		{"anon_func", []string{"(anonymous namespace)::anon_func(int)"}},
		{"Circle::Circle", []string{"geo::Circle::Circle(double)"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			syms, err := f.LookupName(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []uint64
			for _, s := range syms {
				got = append(got, s.Addr)
			}
			for _, n := range tc.want {
				a, ok := byName[n]
				if !ok {
					t.Fatalf("nm -C has no %q", n)
				}
				want = append(want, a)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			slices.Sort(want)
			want = slices.Compact(want)
			if !slices.Equal(got, want) {
				var names []string
				for _, s := range syms {
					names = append(names, s.Demangled())
				}
				t.Errorf("LookupName(%q) = %#x %q; want %#x (%q)", tc.query, got, names, want, tc.want)
			}
		})
	}
	if _, err := f.LookupName("no_such_function"); !errors.Is(err, ErrNoSymbol) {
		t.Errorf("LookupName(no_such_function) error = %v, want ErrNoSymbol", err)
	}
	if _, err := f.LookupName("::area"); !errors.Is(err, ErrNoSymbol) {
		t.Errorf("LookupName(::area) error = %v, want ErrNoSymbol", err)
	}
}

var objdumpLabel = regexp.MustCompile(`^([0-9a-f]+) <([^>]+)>:$`)

// TestPLTMatchesObjdump compares the synthesized name@plt symbols with the
// labels objdump -d prints in the PLT sections, for the classic layout
// (.plt, .plt.got), the IBT layout (.plt + .plt.sec), and i386 PIC
// (jmp *disp(%ebx)) and non-PIC (jmp *abs32) stubs.
func TestPLTMatchesObjdump(t *testing.T) {
	needTool(t, "objdump")
	for _, fx := range []string{"pie", "pie-ibt", "cxx", "libsymt.so", "libuse32.so", "use32"} {
		t.Run(fx, func(t *testing.T) {
			bin := fixture(t, fx)
			f := openT(t, bin)
			var want []string
			args := []string{"-d"}
			for _, s := range pltSections {
				if f.ELF().Section(s) != nil {
					args = append(args, "-j", s)
				}
			}
			out := run(t, "objdump", append(args, bin)...)
			for _, line := range strings.Split(out, "\n") {
				if m := objdumpLabel.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[2], ".") && !strings.Contains(m[2], "-0x") && !strings.Contains(m[2], "+0x") {
					// (PLT0 shows as "<printf@plt-0x10>", a label relative
					// to the next stub, not a symbol.)
					a, _ := strconv.ParseUint(m[1], 16, 64)
					want = append(want, strconv.FormatUint(a, 16)+" "+m[2])
				}
			}
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range syms {
				if s.Source == SourcePLT {
					got = append(got, strconv.FormatUint(s.Addr, 16)+" "+s.Name)
					// A PLT address resolves to its stub.
					if ls, off, err := f.LookupAddr(s.Addr + 4); err != nil || ls.Name != s.Name || off != 4 {
						t.Errorf("LookupAddr(%#x) = %q+%d, %v; want %s+4", s.Addr+4, ls.Name, off, err, s.Name)
					}
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(want) == 0 {
				t.Fatalf("objdump found no PLT stubs in %s", fx)
			}
			if !slices.Equal(got, want) {
				t.Errorf("PLT symbols differ from objdump\n got: %q\nwant: %q", got, want)
			}
			if fx == "pie-ibt" && f.ELF().Section(".plt.sec") == nil {
				t.Errorf("pie-ibt has no .plt.sec; the IBT layout was not exercised")
			}
			if _, err := f.LookupName("puts@plt"); fx == "pie" && err != nil {
				t.Errorf("LookupName(puts@plt): %v", err)
			}
		})
	}
}

// TestLookupAddrPreference checks the tie-breaking rules on synthetic
// tables: global functions beat locals and labels at one address, sized
// symbols cover [Addr, Addr+Size), unsized ones extend to the next symbol
// within their section, and containment by an earlier symbol works.
func TestLookupAddrPreference(t *testing.T) {
	mk := func(name string, addr, size uint64, typ elf.SymType, bind elf.SymBind) Symbol {
		return Symbol{Name: name, Addr: addr, Size: size, Type: typ, Bind: bind, Source: SourceSymtab}
	}
	syms := []Symbol{
		mk("local_f", 0x100, 0x10, elf.STT_FUNC, elf.STB_LOCAL),
		mk("global_f", 0x100, 0x10, elf.STT_FUNC, elf.STB_GLOBAL),
		mk("weak_f", 0x100, 0x10, elf.STT_FUNC, elf.STB_WEAK),
		mk("label", 0x100, 0, elf.STT_NOTYPE, elf.STB_LOCAL),
		mk("big", 0x200, 0x100, elf.STT_FUNC, elf.STB_GLOBAL),
		mk("inner", 0x210, 0x8, elf.STT_OBJECT, elf.STB_LOCAL),
		mk("unsized", 0x400, 0, elf.STT_NOTYPE, elf.STB_GLOBAL),
		mk("after", 0x500, 0x10, elf.STT_FUNC, elf.STB_GLOBAL),
	}
	st := newSymtab(syms, []secRange{{0x100, 0x480}, {0x500, 0x600}})
	tests := []struct {
		addr uint64
		want string
		ok   bool
	}{
		// GDB makes no difference between global and weak: the last by
		// strcmp wins (a libc function's weak alias, zzz_weak over
		// mid_impl, as GDB 13 prints them)
		{0x100, "weak_f", true},
		{0x10f, "weak_f", true},
		{0x110, "label", true}, // past the sized ones: the unsized label extends
		{0x218, "big", true},   // past inner, still inside big
		{0x212, "inner", true},
		{0x2ff, "big", true},
		{0x47f, "unsized", true},
		{0x480, "", false}, // outside unsized's section
		{0x50f, "after", true},
		{0x510, "", false},
		{0x50, "", false},
	}
	for _, tc := range tests {
		s, ok := st.lookup(tc.addr)
		if ok != tc.ok || s.Name != tc.want {
			t.Errorf("lookup(%#x) = %q, %v; want %q, %v", tc.addr, s.Name, ok, tc.want, tc.ok)
		}
	}
}
