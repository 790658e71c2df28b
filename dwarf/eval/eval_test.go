package eval

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/format"
)

// fakeScope is an EvalScope over hand-made types and a small memory.
type fakeScope struct {
	env    *dwarf.ValueEnv
	lang   dwarf.Lang
	locals map[string]dwarf.Object
	global map[string]dwarf.Object
	types  map[string]dwarf.Type
	regs   map[string]uint64
}

func (f *fakeScope) Values() *dwarf.ValueEnv { return f.env }
func (f *fakeScope) Lang() dwarf.Lang        { return f.lang }
func (f *fakeScope) Local(_ context.Context, n string) (dwarf.Object, error) {
	if o, ok := f.locals[n]; ok {
		return o, nil
	}
	return dwarf.Object{}, fmt.Errorf("local %s: %w", n, dwarf.ErrNotFound)
}
func (f *fakeScope) Global(_ context.Context, n string) (dwarf.Object, error) {
	if o, ok := f.global[n]; ok {
		return o, nil
	}
	return dwarf.Object{}, fmt.Errorf("global %s: %w", n, dwarf.ErrNotFound)
}
func (f *fakeScope) Register(n string) (dwarf.Object, error) {
	v, ok := f.regs[n]
	if !ok {
		return dwarf.Object{}, fmt.Errorf("register %s: %w", n, dwarf.ErrNotFound)
	}
	return dwarf.BytesObject(f.types["long"], binary.LittleEndian.AppendUint64(nil, v)), nil
}
func (f *fakeScope) LookupType(n string) (dwarf.Type, error) {
	if t, ok := f.types[strings.TrimPrefix(n, "struct ")]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("type %s: %w", n, dwarf.ErrNotFound)
}

// newFakeScope builds: struct node {int value; struct node *next;} n1
// at 0x1000 -> n2 at 0x1010; int arr[4] at 0x2000; a Counter object
// {int hits = 3} at 0x3000 with this pointing to it; char msg[] at
// 0x4000; $rip = 0x401000.
func newFakeScope(lang dwarf.Lang) *fakeScope {
	c := dwarf.CommonType{Lang: lang}
	intT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "int", ByteSize: 4, Lang: lang}, Encoding: dwarf.EncSigned}
	longT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "long", ByteSize: 8, Lang: lang}, Encoding: dwarf.EncSigned}
	charT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "char", ByteSize: 1, Lang: lang}, Encoding: dwarf.EncSignedChar}
	node := &dwarf.StructType{CommonType: dwarf.CommonType{Name: "node", ByteSize: 16, Lang: lang}, Kind: "struct"}
	nodePtr := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: 8, Lang: lang}, Elem: node}
	node.Fields = []dwarf.Field{{Name: "value", Type: intT}, {Name: "next", Type: nodePtr, ByteOffset: 8}}
	counter := &dwarf.StructType{CommonType: dwarf.CommonType{Name: "Counter", ByteSize: 4, Lang: lang}, Kind: "struct",
		Fields: []dwarf.Field{{Name: "hits", Type: intT}}}
	arr := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: 16, Lang: lang}, Elem: intT, Count: 4}
	msg := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: 6, Lang: lang}, Elem: charT, Count: 6}
	_ = c
	mem := map[uint64][]byte{}
	put := func(a uint64, b []byte) { mem[a] = b }
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	put(0x1000, append(append(le32(1), 0, 0, 0, 0), le64(0x1010)...))
	put(0x1010, append(append(le32(2), 0, 0, 0, 0), le64(0)...))
	put(0x2000, append(append(append(le32(10), le32(20)...), le32(30)...), le32(40)...))
	put(0x3000, le32(3))
	put(0x4000, []byte("hello\x00"))
	read := func(addr uint64, p []byte) (int, error) {
		for base, b := range mem {
			if addr >= base && addr-base <= uint64(len(b)) && uint64(len(p)) <= uint64(len(b))-(addr-base) {
				return copy(p, b[addr-base:]), nil
			}
		}
		return 0, fmt.Errorf("no memory at %#x", addr)
	}
	counterPtr := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: 8, Lang: lang}, Elem: counter}
	return &fakeScope{
		env:  &dwarf.ValueEnv{Mem: read},
		lang: lang,
		locals: map[string]dwarf.Object{
			"np":   dwarf.BytesObject(nodePtr, le64(0x1000)),
			"this": dwarf.BytesObject(counterPtr, le64(0x3000)),
			"x":    dwarf.BytesObject(intT, le32(7)),
			"gone": {Type: nodePtr, Err: dwarf.ErrOptimizedOut}, // a pointer optimized out
		},
		global: map[string]dwarf.Object{
			"n1":  dwarf.MemObject(node, 0x1000),
			"arr": dwarf.MemObject(arr, 0x2000),
			"msg": dwarf.MemObject(msg, 0x4000),
			"x":   dwarf.BytesObject(intT, le32(99)), // shadowed by the local
			"g":   dwarf.BytesObject(longT, le64(5)),
		},
		types: map[string]dwarf.Type{"int": intT, "long": longT, "node": node, "Counter": counter, "char": charT},
		regs:  map[string]uint64{"rip": 0x401000, "rsp": 0x7ffe0000},
	}
}

func TestEvalFakeScope(t *testing.T) {
	s := newFakeScope(dwarf.LangCPlusPlus)
	tests := []struct{ src, want string }{
		{"x", "7"},
		{"::x", "99"},
		{"hits", "3"}, // implicit this->hits
		{"this->hits + 1", "4"},
		{"(*this).hits", "3"},
		{"np->next->value", "2"},
		{"n1.next->value", "2"},
		{"np == &n1", "true"},
		{"arr[2]", "30"},
		{"arr", "{10, 20, 30, 40}"},
		{"arr[1]@2", "{20, 30}"},
		{"*arr@2", "{10, 20}"},
		{"&arr[3] - &arr[0]", "3"},
		{"*(arr + 1)", "20"},
		{"sizeof(node)", "16"},
		{"sizeof arr / sizeof arr[0]", "4"},
		{"msg", `"hello"`},
		{"msg[1]", "101 'e'"},
		{"$rip", "4198400"},
		{"$rsp - 8", "2147352568"},
		{"(node *)0x1010", "(node *) 0x1010"},
		{"((node *)0x1010)->value", "2"},
		{"g * 2 + x", "17"},
		{"x > 5 ? 1 : 2", "1"},
		{"x / 2", "3"},
		{"x % 4", "3"},
		{"-x", "-7"},
		{"x / 2.0", "3.5"},
		{"(char)66", "66 'B'"},
		{"!np", "false"},
		{"np && x", "true"},
		{"(long)np", "4096"},
		{`$_streq(msg, "hello")`, "1"},
		{`$_streq(msg, "help")`, "0"},
		{"$_strlen(msg)", "5"},
		{`$_regex(msg, "^h.l+o$")`, "1"},
		{"$_memeq(&n1, &n1, 8)", "1"},
		{"$_memeq(arr, arr + 1, 4)", "0"},
		{`x > 5 && $_streq(msg, "hello")`, "true"},
		// shifts as GDB 13's check_valid_shift_count: a count of the
		// promoted left operand's width or more, or a negative one,
		// gives 0 (it wrapped at 64: 1L << 65 was 2)
		{"1 << 31", "-2147483648"},
		{"1 << 32", "0"},
		{"1L << 63", "-9223372036854775808"},
		{"1L << 64", "0"},
		{"1L << 65", "0"},
		{"8 >> 64", "0"},
		{"x << -1", "0"},
		{"-16 >> 2", "-4"},
		{"(char)1 << 8", "256"},
	}
	for _, tt := range tests {
		o, err := EvalExpr(context.Background(), s, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := format.Text(s.env, o); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	s := newFakeScope(dwarf.LangC)
	unsupportedCases := []string{
		"f(1)", "x = 1", "x++", "--x", "n1.*p", "$1", "$$", "$_", "typeid(x)", "dynamic_cast<node *>(np)",
		"new int", "{int} 0x1000", "(int (*)(int))x",
	}
	for _, src := range unsupportedCases {
		_, err := EvalExpr(context.Background(), s, src)
		if !errors.Is(err, ErrUnsupportedExpr) {
			t.Errorf("%s: got %v, want ErrUnsupportedExpr", src, err)
		}
	}
	notFound := []string{"nosuch", "n1.nosuch", "np->nosuch", "(struct nosuch *)0", "$nosuchreg"}
	for _, src := range notFound {
		_, err := EvalExpr(context.Background(), s, src)
		if !errors.Is(err, dwarf.ErrNotFound) {
			t.Errorf("%s: got %v, want ErrNotFound", src, err)
		}
	}
	other := map[string]string{
		"x / 0":                 "Division by zero",
		"*x":                    "Cannot access memory at address 0x7",
		"np->next->next->value": "Cannot access memory at address 0x0",
		"x@2":                   "Only values in memory can be extended with '@'.",
		"&x":                    "Attempt to take address of value not located in memory.",
		"x.value":               "Attempt to extract a component of a value that is not a structure.",
	}
	for src, want := range other {
		o, err := EvalExpr(context.Background(), s, src)
		if err == nil {
			// reads are lazy: the error shows when the value is printed
			if got := format.Text(s.env, o); !strings.Contains(got, want) {
				t.Errorf("%s: printed %s, want error %q", src, got, want)
			}
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q, want %q", src, err, want)
		}
	}
}

func TestStructuredValue(t *testing.T) {
	s := newFakeScope(dwarf.LangC)
	o, err := EvalExpr(context.Background(), s, "np")
	if err != nil {
		t.Fatal(err)
	}
	v := format.Structured(s.env, "np", o, format.Tree{Depth: 4})
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"np","type":"struct node *","value":"(struct node *) 0x1000","children":[{"name":"*np","type":"struct node","value":"{value = 1, next = 0x1010}","address":"0x1000","children":[{"name":"value","type":"int","value":"1","address":"0x1000"},{"name":"next","type":"struct node *","value":"0x1010","address":"0x1008","children":[{"name":"*next","type":"struct node","value":"{value = 2, next = 0x0}","address":"0x1010","children":[{"name":"value","type":"int","value":"2","address":"0x1010"},{"name":"next","type":"struct node *","value":"0x0","address":"0x1018"}]}]}]}]}`
	if string(b) != want {
		t.Errorf("Structured(np):\n got %s\nwant %s", b, want)
	}
	v = format.Structured(s.env, "arr", s.global["arr"], format.Tree{Depth: 1})
	if len(v.Children) != 4 || v.Children[3].Name != "[3]" || v.Children[3].Value != "40" {
		t.Errorf("Structured(arr) children = %+v", v.Children)
	}
	v = format.Structured(s.env, "np", s.locals["np"], format.Tree{Depth: 1})
	if len(v.Children) != 1 || !v.Children[0].Truncated || len(v.Children[0].Children) != 0 {
		t.Errorf("Structured(np) at depth 1 = %+v", v)
	}
	// The node bound: two of arr's four elements, then Truncated.
	v = format.Structured(s.env, "arr", s.global["arr"], format.Tree{Depth: 1, Nodes: 2})
	if len(v.Children) != 2 || !v.Truncated || v.Children[1].Name != "[1]" {
		t.Errorf("Structured(arr) with 2 nodes = %+v", v)
	}
}

// FuzzEvalExpr: evaluation and printing on the fake scope never panic.
func FuzzEvalExpr(f *testing.F) {
	for _, s := range []string{"np->next->value", "arr[1]@2", "*(node *)0x1010", "x / 0", "hits",
		"msg", "(char)x", "sizeof arr", "$rip + 1", "&arr[1]", "arr[-1]", "*(int *)0", "x << 70",
		"-9223372036854775808 / -1", "(long)&n1 % 0", "1.0 / 0", "(int)1e300", `$_streq(msg, "hello")`,
		`$_regex(msg, "(")`, "$_memeq(np, np, 100000)", "$_strlen(x)", "$", "$$2 + $1", "$v = $1", "$3"} {
		f.Add(s)
	}
	s := newFakeScope(dwarf.LangCPlusPlus)
	x, err := EvalExpr(context.Background(), s, "np")
	if err != nil {
		f.Fatal(err)
	}
	xb, err := s.env.Bytes(x)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// with the convenience variables and a value history of two
		var vars Vars
		vars.Record(x.Type, xb, 0)
		vars.RecordUnkept(x.Type, errors.New("not kept"))
		o, err := EvalExpr(context.Background(), WithVars(s, &vars), src)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("EvalExpr(%q) panicked: %v", src, err)
			}
			return
		}
		_ = format.Text(s.env, o)
		_ = format.Structured(s.env, "x", o, format.Tree{Depth: 4, Nodes: 1000})
	})
}

// TestTypeOfOptimizedOutPointee: whatis *p needs no value, so a pointer
// optimized out still types its pointee, as GDB's whatis does (zstd
// clang -O2, readsize); its value is still optimized out.
func TestTypeOfOptimizedOutPointee(t *testing.T) {
	s := newFakeScope(dwarf.LangC)
	o, err := EvalType(context.Background(), s, "*gone")
	if err != nil || dwarf.TypeString(o.Type) != "struct node" {
		t.Errorf("whatis *gone: %+v %v, want struct node", o, err)
	}
	if o, err := EvalType(context.Background(), s, "gone->next"); err != nil || dwarf.TypeString(o.Type) != "struct node *" {
		t.Errorf("whatis gone->next: %+v %v, want struct node *", o, err)
	}
	if _, err := EvalExpr(context.Background(), s, "*gone"); err == nil {
		t.Errorf("print *gone: no error, want optimized out")
	}
}

// TestConvenienceVariables: $name that is no register is a convenience
// variable, as in GDB: void until set, a copy of the value it was given
// (later writes to where that value was do not change it), op= combines,
// a register cannot be assigned here (GDB's), and GDB's own $_names
// that this scope does not keep are left to GDB.
func TestConvenienceVariables(t *testing.T) {
	s := newFakeScope(dwarf.LangC)
	var vars Vars
	sc := WithVars(s, &vars)
	steps := []struct{ src, want, err string }{
		{src: "$n", want: "void"},
		{src: "$n = 5", want: "5"},
		{src: "$n + 1", want: "6"},
		{src: "$n += 10", want: "15"},
		{src: "$n", want: "15"},
		{src: "$p = np", want: "(struct node *) 0x1000"},
		{src: "$p->next->value", want: "2"},
		{src: "$s = *np", want: "{value = 1, next = 0x1010}"},
		{src: "$s.value + $s.next->value", want: "3"},
		{src: "$a = $b = x", want: "7"},
		{src: "$b", want: "7"},
		{src: "$rip", want: "4198400"}, // a register, not a variable
		{src: "$rip = 1", err: "assignment to a register"},
		{src: "$_siginfo", err: "convenience variable $_siginfo"},
		{src: "$n = $unset", want: "void"},
		{src: "$n", want: "void"},
		{src: "x = 1", err: "assignment"},
	}
	for _, st := range steps {
		o, err := EvalExpr(context.Background(), sc, st.src)
		if st.err != "" {
			if err == nil || !strings.Contains(err.Error(), st.err) || !errors.Is(err, ErrUnsupportedExpr) {
				t.Errorf("%s: %v, want an unsupported error with %q", st.src, err, st.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", st.src, err)
			continue
		}
		if got := format.Text(sc.Values(), o); got != st.want {
			t.Errorf("%s = %s, want %s", st.src, got, st.want)
		}
	}
	// The copy: memory changing under $s leaves it as it was.
	s.env.Mem = func(addr uint64, p []byte) (int, error) { clear(p); return len(p), nil }
	for src, want := range map[string]string{"np->value": "0", "$s.value": "1"} {
		if o, err := EvalExpr(context.Background(), sc, src); err != nil || format.Text(sc.Values(), o) != want {
			t.Errorf("%s after memory changed: %v %v, want %s", src, format.Text(sc.Values(), o), err, want)
		}
	}
	// Without a frame only literals and the variables have values.
	nf := WithVars(nil, &vars)
	if o, err := EvalExpr(context.Background(), nf, "$b * 2"); err != nil || format.Text(nf.Values(), o) != "14" {
		t.Errorf("$b * 2 without a frame: %v %v, want 14", o, err)
	}
	if _, err := EvalExpr(context.Background(), nf, "x"); !errors.Is(err, dwarf.ErrNotFound) {
		t.Errorf("x without a frame: %v, want not found", err)
	}
	// Without Vars, $name that is no register stays an unknown register.
	if _, err := EvalExpr(context.Background(), s, "$n"); !errors.Is(err, dwarf.ErrNotFound) {
		t.Errorf("$n without vars: %v, want not found", err)
	}
}

// TestValueHistory: $N, $, $$ and $$N read the values recorded, as
// copies, with GDB's errors past either end.
func TestValueHistory(t *testing.T) {
	s := newFakeScope(dwarf.LangC)
	var vars Vars
	sc := WithVars(s, &vars)
	for _, tt := range []struct{ src, want string }{
		{"$", "The history is empty."}, {"$$", "History does not go back to $$1."}, {"$1", "History has not yet reached $1."},
	} {
		if _, err := EvalExpr(context.Background(), sc, tt.src); err == nil || err.Error() != tt.want {
			t.Errorf("%s with an empty history: %v, want %s", tt.src, err, tt.want)
		}
	}
	for _, src := range []string{"x", "x * 2", "np->value"} {
		o, err := EvalExpr(context.Background(), sc, src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.env.Bytes(o)
		if err != nil {
			t.Fatal(err)
		}
		vars.Record(o.Type, b, 0)
	}
	for _, tt := range []struct{ src, want string }{
		{"$", "1"}, {"$0", "1"}, {"$$0", "1"}, {"$$", "14"}, {"$$2", "7"}, {"$1", "7"}, {"$2 + $3", "15"}, {"$1 * $$1", "98"},
		{"$4", "History has not yet reached $4."}, {"$$3", "History does not go back to $$3."},
	} {
		o, err := EvalExpr(context.Background(), sc, tt.src)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = format.Text(s.env, o)
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s", tt.src, got, tt.want)
		}
	}
	// a value printed but not copyable takes its number
	if n := vars.RecordUnkept(nil, errors.New("synthetic pointer")); n != 4 {
		t.Errorf("RecordUnkept numbered it $%d, want $4", n)
	}
	if _, err := EvalExpr(context.Background(), sc, "$4"); err == nil || err.Error() != "$4 was printed but not kept (synthetic pointer)" {
		t.Errorf("$4: %v", err)
	}
	if o, err := EvalExpr(context.Background(), sc, "$$1 + 1"); err != nil || format.Text(s.env, o) != "2" {
		t.Errorf("$$1 + 1 past an unkept value: %v %v", o, err)
	}
}
