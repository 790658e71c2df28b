package dwarf

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// typeCase is one ptype/whatis comparison: cmd is "ptype" or "whatis";
// arg is a variable or (for ptype) a type name.
type typeCase struct {
	cmd, arg string
}

var cTypes = []typeCase{
	{"ptype", "struct mixed"}, {"ptype", "struct node"}, {"ptype", "node_t"}, {"ptype", "binop"},
	{"ptype", "enum color"}, {"ptype", "union num"}, {"ptype", "struct bits"}, {"ptype", "head"},
	{"ptype", "g_ops"}, {"ptype", "g_matrix"}, {"ptype", "g_strs"}, {"ptype", "g_mixed"},
	{"whatis", "g_mixed"}, {"whatis", "head"}, {"whatis", "g_arr"}, {"whatis", "g_cp"}, {"whatis", "g_op"},
	{"whatis", "g_ops"}, {"whatis", "g_d"}, {"whatis", "g_ld"}, {"whatis", "g_short"}, {"whatis", "g_ulong"},
	{"whatis", "g_ll"}, {"whatis", "g_uc"}, {"whatis", "g_sc"}, {"whatis", "g_bool"}, {"whatis", "g_i32"},
	{"whatis", "g_u8"}, {"whatis", "g_ipp"}, {"whatis", "g_vp"}, {"whatis", "g_nodes"},
	{"whatis", "g_matrix"}, {"whatis", "g_u"}, {"whatis", "g_size"}, {"whatis", "g_strs"},
	{"whatis", "g_col"}, {"whatis", "g_esc"}, {"whatis", "node_t"}, {"whatis", "binop"}, {"whatis", "struct node"},
}

var cxxTypes = []typeCase{
	{"ptype", "geo::Point"}, {"ptype", "geo::Shape"}, {"ptype", "geo::Circle"}, {"ptype", "Holder"},
	{"ptype", "Counter"}, {"ptype", "Diamond"}, {"ptype", "Mode"}, {"ptype", "g_holder"},
	{"whatis", "g_pt"}, {"whatis", "g_buf"}, {"whatis", "g_mode"}, {"whatis", "g_s"}, {"whatis", "g_vec"},
	{"whatis", "g_map"}, {"whatis", "g_up"}, {"whatis", "g_sp"}, {"whatis", "g_circle"},
	{"whatis", "g_shape"}, {"whatis", "g_diamond"}, {"whatis", "g_holder"}, {"whatis", "g_ref"},
	{"whatis", "g_cstr"}, {"whatis", "g_aref"}, {"whatis", "g_holder.pm"}, {"whatis", "g_holder.pmf"},
	{"whatis", "g_holder.rref"}, {"whatis", "g_holder.c16"}, {"whatis", "g_holder.np"},
	{"ptype", "Outer"}, {"ptype", "Outer::Inner"}, {"ptype", "Outer::Kind"}, {"whatis", "g_outer.in"},
	{"whatis", "g_outer.k"}, {"ptype", "g_dir"}, {"ptype", "g_buf"}, {"ptype", "g_pair"},
}

// gdbTypes runs GDB on bin without running it, with the libstdc++ Python
// printers off (their type printers abbreviate std names), and returns
// what each command printed after "type = ".
func gdbTypes(t *testing.T, bin string, cases []typeCase) map[typeCase]string {
	t.Helper()
	args := []string{"-nx", "-batch", "-iex", "set auto-load python-scripts off", "-ex", "set width 0"}
	for i, c := range cases {
		args = append(args, "-ex", "echo <<<"+strconv.Itoa(i)+">>>\\n", "-ex", c.cmd+" "+c.arg)
	}
	args = append(args, bin)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gdb", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, _ := cmd.CombinedOutput()
	res := map[typeCase]string{}
	cur := -1
	var buf []string
	flush := func() {
		if cur >= 0 && cur < len(cases) {
			res[cases[cur]] = strings.TrimPrefix(strings.Join(buf, "\n"), "type = ")
		}
		buf = nil
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if m := markRe.FindStringSubmatch(line); m != nil {
			flush()
			cur, _ = strconv.Atoi(m[1])
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return res
}

// typeKnownDiff: ptype output we knowingly spell differently.
var typeKnownDiff = map[typeCase]string{}

func checkTypes(t *testing.T, bin string, s *gdbStop, cases []typeCase) {
	t.Helper()
	want := gdbTypes(t, bin, cases)
	sc := &coreScope{s, s.types.LangAt(0)}
	agree := 0
	for _, c := range cases {
		var typ Type
		isTypeName := false
		if tt, err := s.types.LookupType(c.arg); err == nil {
			typ, isTypeName = tt, true
		} else {
			o, err := EvalExpr(context.Background(), sc, c.arg)
			if err != nil {
				t.Errorf("%s %s: %v", c.cmd, c.arg, err)
				continue
			}
			typ = o.Type
		}
		got := typeString(typ)
		switch {
		case c.cmd == "ptype":
			got = PtypeString(typ)
		case isTypeName:
			got = WhatisTypeName(typ)
		}
		if reason, ok := typeKnownDiff[c]; ok {
			t.Logf("%s %s: known difference (%s)", c.cmd, c.arg, reason)
			continue
		}
		if got != want[c] {
			t.Errorf("%s %s:\n got: %s\nwant: %s", c.cmd, c.arg, got, want[c])
			continue
		}
		agree++
	}
	t.Logf("types: %d commands, %d agree with gdb", len(cases), agree)
}

func TestCanonicalTemplateName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"std::pair<const int, double>", "std::pair<int const, double>"},
		{"std::pair<const char*, int>", "std::pair<char const*, int>"},
		{"std::vector<int, std::allocator<int> >", "std::vector<int, std::allocator<int> >"},
		{"std::map<int, int, std::less<int>, std::allocator<std::pair<const int, int> > >",
			"std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >"},
		{"plain", "plain"},
		{"geo::Buffer<int, 4>", "geo::Buffer<int, 4>"},
	}
	for _, tt := range tests {
		if got := canonicalCxxName(tt.in); got != tt.want {
			t.Errorf("canonicalCxxName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAbbreviateStd(t *testing.T) {
	str := "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	tests := []struct{ in, want string }{
		{str, "std::string"},
		{"std::vector<int, std::allocator<int> >", "std::vector<int>"},
		{"std::vector<" + str + ", std::allocator<" + str + "> >", "std::vector<std::string>"},
		{"std::map<" + str + ", int, std::less<" + str + " >, std::allocator<std::pair<" + str + " const, int> > >",
			"std::map<std::string, int>"},
		{"std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >", "std::unique_ptr<geo::Shape>"},
		{"std::vector<int, my_alloc<int> >", "std::vector<int, my_alloc<int> >"},
		{"int", "int"},
	}
	for _, tt := range tests {
		if got := abbreviateStd(tt.in); got != tt.want {
			t.Errorf("abbreviateStd(%q) = %q, want %q", tt.in, got, tt.want)
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
	intT := &BaseType{CommonType: CommonType{Name: "int", ByteSize: 4}, Encoding: ateSigned}
	charT := &BaseType{CommonType: CommonType{Name: "char", ByteSize: 1}, Encoding: ateSignedChar}
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
	}
	for _, tt := range tests {
		if got := declString(tt.t, tt.name, nil); got != tt.want {
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
				_ = PtypeString(typ)
				_ = sizeOf(typ)
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
