package cexpr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// exprString prints an AST fully parenthesised, for parser tests.
func exprString(e Expr) string {
	switch e := e.(type) {
	case *Ident:
		return e.Name
	case *IntLit:
		return fmt.Sprint(e.Val)
	case *FloatLit:
		return fmt.Sprint(e.Val)
	case *CharLit:
		return fmt.Sprintf("%s'%d'", e.Prefix, e.Val)
	case *StringLit:
		return fmt.Sprintf("%s%q", e.Prefix, fmt.Sprint(e.Val))
	case *Register:
		return "$" + e.Name
	case *Unary:
		return "(" + e.Op + exprString(e.X) + ")"
	case *Binary:
		return "(" + exprString(e.X) + " " + e.Op + " " + exprString(e.Y) + ")"
	case *Conditional:
		return "(" + exprString(e.C) + " ? " + exprString(e.X) + " : " + exprString(e.Y) + ")"
	case *Member:
		op := "."
		if e.Arrow {
			op = "->"
		}
		return "(" + exprString(e.X) + op + e.Name + ")"
	case *Index:
		return "(" + exprString(e.X) + "[" + exprString(e.Sub) + "])"
	case *ArrayLit:
		var es []string
		for _, x := range e.Elems {
			es = append(es, exprString(x))
		}
		if e.Repeat != nil {
			return "[" + es[0] + "; " + exprString(e.Repeat) + "]"
		}
		return "[" + strings.Join(es, ", ") + "]"
	case *Range:
		op := ".."
		if e.Inclusive {
			op = "..="
		}
		var lo, hi string
		if e.Lo != nil {
			lo = exprString(e.Lo)
		}
		if e.Hi != nil {
			hi = exprString(e.Hi)
		}
		return lo + op + hi
	case *Call:
		var as []string
		for _, a := range e.Args {
			as = append(as, exprString(a))
		}
		return "(" + exprString(e.Fn) + "(" + strings.Join(as, ", ") + "))"
	case *Cast:
		return "((" + e.Type.String() + ")" + exprString(e.X) + ")"
	case *Sizeof:
		if e.Type != nil {
			return "sizeof(" + e.Type.String() + ")"
		}
		return "sizeof(" + exprString(e.X) + ")"
	case *This:
		return "this"
	case *Assign:
		return "(" + exprString(e.X) + " " + e.Op + " " + exprString(e.Y) + ")"
	case *Unsupported:
		return "<unsupported " + e.What + ">"
	}
	return fmt.Sprintf("%T", e)
}

func TestParse(t *testing.T) {
	isType := func(n string) bool { return n == "node" || n == "geo::Circle" || n == "T" }
	tests := []struct{ src, want string }{
		{"a + b * c", "(a + (b * c))"},
		{"a * b + c", "((a * b) + c)"},
		{"a - b - c", "((a - b) - c)"},
		{"a || b && c", "(a || (b && c))"},
		{"a | b ^ c & d", "(a | (b ^ (c & d)))"},
		{"a == b < c", "(a == (b < c))"},
		{"a << 1 + 2", "(a << (1 + 2))"},
		{"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
		{"-a[1]", "(-(a[1]))"},
		{"*p->next", "(*(p->next))"},
		{"&s.f", "(&(s.f))"},
		{"!x", "(!x)"},
		{"~0", "(~0)"},
		{"arr[1]@3", "((arr[1]) @ 3)"},
		{"*p@n + 1", "((*p) @ (n + 1))"},
		{"a.b.c->d[2]", "((((a.b).c)->d)[2])"},
		{"(node *)p", "((node *)p)"},
		{"(struct node *)p", "((struct node *)p)"},
		{"(unsigned long)x", "((unsigned long)x)"},
		{"(unsigned)x", "((unsigned int)x)"},
		{"(long long int)x", "((long long)x)"},
		{"(const char *)p", "((char const *)p)"},
		{"(x)", "x"},
		{"(x) + 1", "(x + 1)"},
		{"(geo::Circle &)*s", "((geo::Circle &)(*s))"},
		{"static_cast<long>(x)", "((long)x)"},
		{"sizeof(int)", "sizeof(int)"},
		{"'a.c'::counter + 1", "(a.c::counter + 1)"},
		{"t.0 + p.1", "((t.__0) + (p.__1))"},
		{"t.0.1", "((t.__0).__1)"},
		{"5u8 + 1_000i32", "(((u8)5) + ((i32)1000))"},
		// Rust's ranges, as subscripts only, and byte literals
		{"&a[2..4]", "(&(a[2..4]))"},
		{"&a[..n + 1]", "(&(a[..(n + 1)]))"},
		{"&a[1..]", "(&(a[1..]))"},
		{"&a[..]", "(&(a[..]))"},
		{"&a[i..=j]", "(&(a[i..=j]))"},
		{"a[1.5]", "(a[1.5])"},
		{"b'a' + b'\\n'", "(((u8)97) + ((u8)10))"},
		{"[1, x + 1]", "[1, (x + 1)]"},
		{"[7; n]", "[7; n]"},
		{"2.5f32", "((f32)2.5)"},
		{"x as u32 * 2", "(((u32)x) * 2)"},
		{"p as *const u8", "((u8 *)p)"},
		{"0xffu8", "((u8)255)"},
		{"a * b as u8 + 1", "((a * ((u8)b)) + 1)"},
		{"'ns::f(int)'", "ns::f(int)"},
		{"'x' + 'abc'", "('120' + abc)"},
		{"sizeof x", "sizeof(x)"},
		{"sizeof(node)", "sizeof(node)"},
		{"sizeof (x)", "sizeof(x)"},
		{"geo::Shape::count_", "geo::Shape::count_"},
		{"::g", "::g"},
		{"this->x", "(this->x)"},
		{"$rip", "$rip"},
		{"$pc + 4", "($pc + 4)"},
		{"0x10", "16"},
		{"010", "8"},
		{"10u", "10"},
		{"1.5e3", "1500"},
		{"'A'", "'65'"},
		{`'\n'`, "'10'"},
		{`'\x41'`, "'65'"},
		{`'\101'`, "'65'"},
		{`L'x'`, "L'120'"},
		{`"ab" "c"`, `"[97 98 99]"`},
		{"f(1, 2)", "(f(1, 2))"},
		{"a, b", "(a , b)"},
		{"x = 1", "<unsupported assignment>"},
		{"*p = 1", "<unsupported assignment>"},
		{"$n = 1", "($n = 1)"},
		{"$n += $pc - 2", "($n += ($pc - 2))"},
		{"$a = $b = 3", "($a = ($b = 3))"},
		{"$_exitcode == 0", "($_exitcode == 0)"},
		{"x++", "<unsupported increment and decrement>"},
		{"true", "1"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src, isType)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := exprString(e); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src string
		pos int
	}{
		{"", 0},
		{"a +", 3},
		{"(a", 2},
		{"a[1", 3},
		{"a ? b", 5},
		{"a # b", 2},
		{"'ab'", 0},
		{`"abc`, 0},
		{"a.", 2},
		{"a b", 2},
		{"(int", 4},
		{")", 0},
		{"1 + * ", 6},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src, nil)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want *SyntaxError", tt.src, err)
			continue
		}
		if se.Pos != tt.pos {
			t.Errorf("Parse(%q): error at %d (%s), want %d", tt.src, se.Pos, se.Msg, tt.pos)
		}
	}
	deep := strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000)
	if _, err := Parse(deep, nil); err == nil {
		t.Errorf("Parse of 1000 nested parentheses: no error")
	}
}

// FuzzParse: the parser never panics and fails only with the typed
// errors.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a + b * c", "(node *)p->next[3]@2", "sizeof(struct node)", "'\\x41'",
		`"a\"b"`, "geo::Shape::count_", "x ? y : z", "static_cast<long>(x)", "$rip", "((((", "1e", "0x",
		"a<b>c", "std::vector<int>::size_type", "-!~*&x", "'", "\"", "(unsigned long long int)1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src, func(n string) bool { return len(n)%3 == 0 })
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Parse(%q): untyped error %v", src, err)
			}
			if se != nil && (se.Pos < 0 || se.Pos > len(src)) {
				t.Fatalf("Parse(%q): position %d out of range", src, se.Pos)
			}
			return
		}
		if e == nil {
			t.Fatalf("Parse(%q): nil expression without error", src)
		}
	})
}

// TestParseTypeDeclarators: the operators of an abstract declarator in
// the order they apply to the base type, as C reads them: array suffixes
// from the right, a parenthesized declarator last (char (*)[16] was
// refused as a function type; int [2][3] was three arrays of two).
func TestParseTypeDeclarators(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"int *", "int *"},
		{"const char * const", "char const * const"},
		{"int [2][3]", "int [3] [2]"},
		{"int *[4]", "int * [4]"},
		{"char (*)[16]", "char [16] *"},
		{"int (*)[2][5]", "int [5] [2] *"},
		{"int *(*)[3]", "int * [3] *"},
		{"int (**)[3]", "int [3] * *"},
		{"long (&)[8]", "long [8] &"},
	} {
		ts, err := ParseType(tc.src, func(string) bool { return false })
		if err != nil {
			t.Errorf("ParseType(%q): %v", tc.src, err)
			continue
		}
		if got := ts.String(); got != tc.want {
			t.Errorf("ParseType(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{"void (*)(int)", "int (int)", "int (*)()"} {
		if _, err := ParseType(src, func(string) bool { return false }); err == nil {
			t.Errorf("ParseType(%q): no error, want function types refused", src)
		}
	}
}

func TestIntLitTypeName(t *testing.T) {
	for _, tc := range []struct {
		src      string
		longSize int
		want     string
	}{
		{"7", 8, "int"},
		{"2147483648", 8, "long"},
		{"2147483648", 4, "long long"},
		{"4294967295", 4, "long long"},
		{"0xffffffff", 8, "unsigned int"},
		{"0xffffffff", 4, "unsigned int"},
		{"0x100000000", 4, "long long"},
		{"0xffffffffffffffff", 8, "unsigned long"},
		{"0xffffffffffffffff", 4, "unsigned long long"},
		{"18446744073709551615", 8, "unsigned long"},
		{"7u", 8, "unsigned int"},
		{"7L", 4, "long"},
		{"4294967295L", 4, "long long"},
		{"4294967295UL", 4, "unsigned long"},
		{"7LL", 8, "long long"},
		{"7ULL", 8, "unsigned long long"},
		{"017", 8, "int"},
		{"true", 8, "bool"},
	} {
		e, err := Parse(tc.src, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		l, ok := e.(*IntLit)
		if !ok {
			t.Fatalf("%s: %T", tc.src, e)
		}
		if got := l.TypeName(tc.longSize); got != tc.want {
			t.Errorf("%s with %d-byte long: %s, want %s", tc.src, tc.longSize, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"x", []string{"x"}},
		{"p->next->val + a[i].n", []string{"p", "a", "i"}},
		{"c ? f(x, y) : *(int *)q", []string{"c", "f", "x", "y", "q"}},
		{"this->n", []string{"this"}},
		{"sizeof(buf) + $rax + 3", []string{"buf"}},
		{"ns::g", []string{"ns::g"}},
	} {
		e, err := Parse(tc.src, func(name string) bool { return name == "int" })
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := Names(e); !slices.Equal(got, tc.want) {
			t.Errorf("Names(%s) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestDollars(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"$ + $$ + $$3 + $4", []string{"", "$", "$3", "4"}},
		{"$_exitcode == 0 && $rip", []string{"_exitcode", "rip"}},
		{`strcmp(s, "$1") + '$'`, nil},
		{`"unterminated`, nil},
		{"x.y", nil},
	} {
		if got := Dollars(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("Dollars(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
