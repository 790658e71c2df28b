package gdbdiff

import (
	"strings"
	"testing"
)

// FuzzParseStop: the stops-table decoder never panics, and what it accepts
// is well formed.
func FuzzParseStop(f *testing.F) {
	for _, s := range []string{
		"null_deref | use1 | break use | *u; u->name",
		"p | b | break x.c:12 @3",
		"p | c | watch total @2 | total",
		"p | d | signal SIGSEGV |",
		"p | e | break f | a || b; c | d",
		"p | f | break @",
		"|||",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		sp, err := parseStop(line)
		if err != nil {
			return
		}
		if sp.Prog == "" || sp.ID == "" || sp.Where == "" || sp.Hit < 1 {
			t.Fatalf("parseStop(%q) accepted %+v", line, *sp)
		}
		for _, e := range sp.Exprs {
			if e == "" || strings.TrimSpace(e) != e {
				t.Fatalf("parseStop(%q): expression %q not trimmed", line, e)
			}
		}
	})
}

// FuzzMIValue: the print-to-MI normalisation never panics and only ever
// removes a leading "(TYPE) " or turns "<error: …>" into "error: …".
func FuzzMIValue(f *testing.F) {
	for _, s := range []string{
		"(struct node *) 0x555555558080 <n1>",
		"(int &) @0x7ffe0000: 5",
		"(void (*)(int)) 0x1189 <on_usr1>",
		"(struct node **) <synthetic pointer>",
		"<error: Cannot access memory at address 0x0>",
		"{a = 1, b = (",
		"((",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := miValue(s)
		switch {
		case got == s:
		case strings.HasPrefix(got, "error: ") && strings.HasPrefix(s, "<error: "):
		case strings.HasSuffix(s, " "+got) && strings.HasPrefix(s, "("):
		default:
			t.Fatalf("miValue(%q) = %q", s, got)
		}
	})
}

func TestMIValue(t *testing.T) {
	for in, want := range map[string]string{
		"(struct node *) 0x555555558080 <n1>":                "0x555555558080 <n1>",
		"(int &) @0x7ffe0000: 5":                             "@0x7ffe0000: 5",
		"(void (*)(int)) 0x1189 <on_usr1>":                   "0x1189 <on_usr1>",
		"(struct node **) <synthetic pointer>":               "<synthetic pointer>",
		"<error: Cannot access memory at address 0x0>":       "error: Cannot access memory at address 0x0",
		"{a = 1, b = 0x0}":                                   "{a = 1, b = 0x0}",
		"<optimized out>":                                    "<optimized out>",
		"{x = <error: Cannot access memory at address 0x8>}": "{x = <error: Cannot access memory at address 0x8>}",
	} {
		if got := miValue(in); got != want {
			t.Errorf("miValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrintValue(t *testing.T) {
	for in, want := range map[string]string{
		"{a = <optimized out>, b = <optimized out>}":                              "<optimized out>",
		"{next = <optimized out>, u = {x = <optimized out>, <optimized out>}}":    "<optimized out>",
		"{<Base<char, int>> = {m = <optimized out>}, _M_p = <optimized out>}":     "<optimized out>",
		"{a = <optimized out>, b = 2}":                                            "{a = <optimized out>, b = 2}",
		"{<Base> = {<No data fields>}, a = <optimized out>}":                      "{<Base> = {<No data fields>}, a = <optimized out>}",
		"{s = 0x0 <error: Cannot access memory at address 0x0>, <optimized out>}": "{s = 0x0 <error: Cannot access memory at address 0x0>, <optimized out>}",
		"<optimized out>": "<optimized out>",
		"{a = 1}":         "{a = 1}",
	} {
		if got := printValue(in); got != want {
			t.Errorf("printValue(%q) = %q, want %q", in, got, want)
		}
	}
}
