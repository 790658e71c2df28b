package format

import "testing"

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
