package dwarf

import (
	"sync"
	"testing"
)

func TestCanonicalTemplateName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"std::pair<const int, double>", "std::pair<int const, double>"},
		{"std::pair<const char*, int>", "std::pair<char const*, int>"},
		{"std::vector<int, std::allocator<int> >", "std::vector<int, std::allocator<int> >"},
		{"std::map<int, int, std::less<int>, std::allocator<std::pair<const int, int> > >",
			"std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >"},
		{"plain", "plain"},
		{"geo::Buffer<int, 4>", "geo::Buffer<int, 4>"},
		// clang's spellings
		{"std::pair<const YAML::detail::node *, const YAML::detail::node *>", "std::pair<YAML::detail::node const*, YAML::detail::node const*>"},
		{"std::vector<int *, std::allocator<int *> >", "std::vector<int*, std::allocator<int*> >"},
		{"Holder<char * const, const int &>", "Holder<char* const, int const&>"},
		{"std::function<void (int *)>", "std::function<void (int *)>"},
		{"std::array<std::string, 3UL>", "std::array<std::string, 3ul>"},
		{"Buf<-2LL, 7u, 9>", "Buf<-2ll, 7u, 9>"},
		{"Tag<ULONG, L>", "Tag<ULONG, L>"},
	}
	for _, tt := range tests {
		if got := canonicalCxxName(tt.in); got != tt.want {
			t.Errorf("canonicalCxxName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitScope(t *testing.T) {
	tests := []struct{ in, outer, inner string }{
		{"a::b", "a", "b"},
		{"std::vector<std::pair<a::b, c> >::iterator", "std::vector<std::pair<a::b, c> >", "iterator"},
		{"x", "", ""},
		{"::x", "", "x"},
		{"ns::Outer<int>::Inner<a::b>", "ns::Outer<int>", "Inner<a::b>"},
	}
	for _, tt := range tests {
		o, i, _ := splitScope(tt.in)
		if o != tt.outer || i != tt.inner {
			t.Errorf("splitScope(%q) = %q, %q; want %q, %q", tt.in, o, i, tt.outer, tt.inner)
		}
	}
}

func TestDeclString(t *testing.T) {
	intT := &BaseType{CommonType: CommonType{Name: "int", ByteSize: 4}, Encoding: EncSigned}
	charT := &BaseType{CommonType: CommonType{Name: "char", ByteSize: 1}, Encoding: EncSignedChar}
	ptr := func(e Type) Type { return &PointerType{CommonType: CommonType{ByteSize: 8}, Elem: e} }
	cnst := func(e Type) Type { return &QualType{Qual: "const", Elem: e} }
	arr := func(e Type, n int64) Type { return &ArrayType{Elem: e, Count: n} }
	fn := &FuncType{Return: intT, Params: []Type{intT, ptr(charT)}, Prototyped: true}
	tests := []struct {
		t    Type
		name string
		want string
	}{
		{ptr(intT), "", "int *"},
		{ptr(ptr(charT)), "p", "char **p"},
		{cnst(ptr(charT)), "", "char * const"},
		{ptr(cnst(charT)), "", "const char *"},
		{ptr(cnst(ptr(charT))), "", "char * const *"},
		{arr(arr(intT, 3), 2), "g", "int g[2][3]"},
		{ptr(arr(intT, 10)), "", "int (*)[10]"},
		{ptr(fn), "op", "int (*op)(int, char *)"},
		{arr(ptr(fn), 2), "", "int (*[2])(int, char *)"},
		{fn, "", "int (int, char *)"},
		{&FuncType{Return: &VoidType{}, Prototyped: true}, "", "void (void)"},
		{&FuncType{Return: intT, Variadic: true, Params: []Type{ptr(cnst(charT))}, Prototyped: true}, "", "int (const char *, ...)"},
		{&ReferenceType{Elem: arr(intT, 3)}, "", "int (&)[3]"},
		{&ReferenceType{Elem: intT, Rvalue: true}, "r", "int &&r"},
		// A qualified array qualifies its elements, once (GCC's
		// __PRETTY_FUNCTION__: const(array(const char))).
		{cnst(arr(cnst(charT), 8)), "", "const char [8]"},
		{cnst(arr(charT, 8)), "s", "const char s[8]"},
		{&QualType{Qual: "volatile", Elem: arr(arr(cnst(intT), 3), 2)}, "m", "const volatile int m[2][3]"},
		{ptr(cnst(arr(cnst(charT), 4))), "", "const char (*)[4]"},
	}
	for _, tt := range tests {
		if got := (typeFmt{}).declString(tt.t, tt.name, nil); got != tt.want {
			t.Errorf("declString(%s) = %q, want %q", tt.want, got, tt.want)
		}
	}
}

// TestTypeReaderConcurrent reads, completes and prints types from many
// goroutines at once (run with -race).
func TestTypeReaderConcurrent(t *testing.T) {
	bin := compile(t, "g++", "edge.cpp")
	img := openImage(t, bin)
	tr := NewTypeReader(img.DWARF())
	names := []string{"C", "Person", "ns::inner::T", "std::string", "A", "B"}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(names))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range names {
				typ, err := tr.LookupType(n)
				if err != nil {
					errs <- err
					continue
				}
				_ = PtypeString(typ, nil, Naming{})
				_ = SizeOf(typ)
				if st, ok := Resolve(typ).(*StructType); ok {
					_ = st.Methods()
					_, _, _ = st.FieldByName("name")
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestEflagsText: $eflags as GDB prints it (i386_eflags, gdb's
// features/i386/64bit-core.xml), RF and the other high flags included.
func TestEflagsText(t *testing.T) {
	for v, want := range map[uint64]string{
		0x10246:  "[ PF ZF IF RF ]",
		0x246:    "[ PF ZF IF ]",
		0x2:      "[ ]",
		0x244a97: "[ CF PF AF SF IF OF NT AC ID ]", // bits 0 1 2 4 7 9 11 14 18 21
		0x3e0000: "[ VM AC VIF VIP ID ]",
	} {
		if got := EflagsText(v); got != want {
			t.Errorf("EflagsText(%#x) = %q, want %q", v, got, want)
		}
	}
}

// TestCppVisible: what a bare or partly qualified name means from code
// of a function, as C++ lookup (and GDB) finds it.
func TestCppVisible(t *testing.T) {
	for _, tc := range []struct {
		qual, name, from string
		want             bool
	}{
		{"main", "main", "inspect", true},
		{"reg::tally", "tally", "inspect", false}, // a namespace's function, from the global namespace
		{"reg::tally", "reg::tally", "inspect", true},
		{"reg::tally", "tally", "reg::Registry::lookup", true},        // from inside the namespace
		{"reg::Registry::lookup", "lookup", "inspect", false},         // only a member's name
		{"reg::Registry::lookup", "lookup", "reg::Registry::f", true}, // from a member of the class
		{"reg::Registry::created", "Registry::created", "reg::tally", true},
		{"(anonymous namespace)::helper", "helper", "main", true},
		{"ns::(anonymous namespace)::helper", "helper", "ns::f", true},
		{"ns::max<int>", "max", "ns::g", true}, // template arguments left out
		{"ns::Outer<a::b>::get", "get", "ns::Outer<a::b>::run", true},
		{"ns::Outer<a::b>::get", "get", "ns::Other::run", false},
		{"counter", "counter", "", true},
		{"app::counter", "counter", "", false},
	} {
		if got := cppVisible(tc.qual, tc.name, tc.from); got != tc.want {
			t.Errorf("cppVisible(%q, %q, from %q) = %v, want %v", tc.qual, tc.name, tc.from, got, tc.want)
		}
	}
}
