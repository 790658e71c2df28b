package linespec

import (
	"errors"
	"slices"
	"testing"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

func TestParse(t *testing.T) {
	cases := []struct {
		loc  string
		want Spec
	}{
		{"main", Spec{Form: Function, Name: "main"}},
		{"  ns::Widget::draw ", Spec{Form: Function, Name: "ns::Widget::draw"}},
		{"operator::", Spec{Form: Function, Name: "operator::"}},
		{"counter.c:42", Spec{Form: FileLine, File: "counter.c", Line: 42}},
		{"/src/a b/x.c:7", Spec{Form: FileLine, File: "/src/a b/x.c", Line: 7}},
		{`C:\src\x.c:3`, Spec{Form: FileLine, File: `C:\src\x.c`, Line: 3}},
		{"ns::f:3", Spec{Form: FileLine, File: "ns::f", Line: 3}},
		{"ns::3", Spec{Form: Function, Name: "ns::3"}}, // "ns:" ends in a colon: not a file
		{"x.c:", Spec{Form: Function, Name: "x.c:"}},
		{"t.c:helper", Spec{Form: Function, File: "t.c", Name: "helper"}},
		{"src/a.cpp:ns::Widget::draw", Spec{Form: Function, File: "src/a.cpp", Name: "ns::Widget::draw"}},
		{"lib/x:f", Spec{Form: Function, File: "lib/x", Name: "f"}},
		{"ns::Box<std::pair<int, int>>::get", Spec{Form: Function, Name: "ns::Box<std::pair<int, int>>::get"}},
		{"P::Push(const char*, const char*)", Spec{Form: Function, Name: "P::Push(const char*, const char*)"}},
		{"'a.c':12", Spec{Form: FileLine, File: "a.c", Line: 12}},
		{`"src/x y.c":3`, Spec{Form: FileLine, File: "src/x y.c", Line: 3}},
		{"'a.c':'geta'", Spec{Form: Function, File: "a.c", Name: "geta"}},
		{"'ns::f(int)'", Spec{Form: Function, Name: "ns::f(int)"}},
		{"17", Spec{Form: Line, Line: 17}},
		{"*0x401000", Spec{Form: Address, Expr: "0x401000"}},
		{"* &table[2] ", Spec{Form: Address, Expr: "&table[2]"}},
	}
	for _, c := range cases {
		got, err := Parse(c.loc)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.loc, got, err, c.want)
		}
	}
	var ae *errkind.ArgError
	if _, err := Parse("  "); !errors.As(err, &ae) || ae.Arg != "location" {
		t.Errorf("Parse of a blank location: %v, want an argument error on location", err)
	}
}

func TestCloseNames(t *testing.T) {
	names := []string{"lookup", "lookup_all", "ns::Lookup", "look", "main", "", "lookup", "parse_value", "value"}
	cases := []struct {
		name string
		want []string
	}{
		{"lokup", []string{"lookup", "ns::Lookup"}},                // one edit, case ignored, by the last component
		{"lookup", []string{"lookup", "lookup_all", "ns::Lookup"}}, // contained
		{"valu", []string{"parse_value", "value"}},
		{"man", []string{"main"}},
		{"ma", nil}, // two edits from main, and too short to match by containment
		{"xyzzy", nil},
		{"v", nil}, // one edit from "" only; names never empty
	}
	for _, c := range cases {
		if got := CloseNames(c.name, names); !slices.Equal(got, c.want) {
			t.Errorf("CloseNames(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
