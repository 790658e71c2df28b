package session

import "testing"

func TestSameFunc(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		same       bool
	}{
		{"main", "main", true},
		{"ns::Foo::bar", "bar", true},
		{"ns::Foo::bar", "Foo::bar", true},
		{"ns::Foo::bar(int)", "bar", true},
		{"ns::Foo::bar", "bar(int)", true},
		{"maxof<int>", "maxof", true},
		{"std::io::stdio::print_to<std::io::stdio::Stdout>", "std::io::stdio::print_to", true},
		{"ns::Foo<int>::bar<std::vector<int> >", "Foo<int>::bar<std::vector<int> >", true},
		{"maxof<int>", "maxof<long>", false},
		{"ns::Foo<int>::bar", "bar", true},
		{"ns::Foo<int>::bar", "Foo::bar", false},
		{"X::operator>", "operator>", true},
		{"X::operator>>", "operator>>", true},
		{"foobar", "bar", false},
	} {
		if got := sameFunc(tc.name, tc.want); got != tc.same {
			t.Errorf("sameFunc(%q, %q) = %v, want %v", tc.name, tc.want, got, tc.same)
		}
	}
}
