package dwarf

import "testing"

func TestAdaDecodes(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"calls.1", "calls", true},
		{"buf.0", "buf", true},
		{"my_buf2.12", "my_buf2", true},
		{"__PRETTY_FUNCTION__.0", "", false}, // leading underscore, upper case
		{"Calls.1", "", false},
		{"my__var.0", "", false}, // Ada reads "__" as "."
		{"foo.constprop.0", "", false},
		{"calls", "", false},
		{"calls.", "", false},
		{"calls.x1", "", false},
	} {
		got, ok := adaDecodes(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("adaDecodes(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
