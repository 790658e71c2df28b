package dwarf

import "testing"

func TestCanonicalParams(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"P::Push(const char*, const char*)", "char const*, char const*", true},
		{"P::Push(char const*, char const*)", "char const*, char const*", true},
		{"P::Push(const char *, int)", "char const*, int", true},
		{"A::get() const", "", true},
		{"f(void)", "", true},
		{"operator()(int)", "int", true},
		{"f(std::pair<const int, long unsigned int>&)", "std::pair<int const, unsigned long>&", true},
		{"P::Push", "", false},
		{"(int)", "", false},
	} {
		got, ok := canonicalParams(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("canonicalParams(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
