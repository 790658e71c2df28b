package format

import "testing"

func TestAbbreviateStd(t *testing.T) {
	str := "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	tests := []struct{ in, want string }{
		{str, "std::string"},
		{"std::vector<int, std::allocator<int> >", "std::vector<int>"},
		{"std::vector<" + str + ", std::allocator<" + str + " > >", "std::vector<std::string>"},
		{"std::map<" + str + ", int, std::less<" + str + " >, std::allocator<std::pair<" + str + " const, int> > >",
			"std::map<std::string, int>"},
		{"std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >", "std::unique_ptr<geo::Shape>"},
		{"std::vector<int, my_alloc<int> >", "std::vector<int, my_alloc<int> >"},
		{"int", "int"},
		// GDB's TemplateTypePrinter: no "> >" spacing; pointers through
		// _recognize_subtype; a template it has no printer for as it is.
		{"std::vector<std::vector<int, std::allocator<int> >, std::allocator<std::vector<int, std::allocator<int> > > >", "std::vector<std::vector<int>>"},
		{"std::vector<" + str + " *, std::allocator<" + str + " *> >", "std::vector<std::string*>"},
		{"std::pair<" + str + ", int>", "std::pair<" + str + ", int>"},
		{"std::__cxx11::list<int, std::allocator<int> >", "std::list<int>"},
		{str + " *", str + " *"},
	}
	has := func(name string) bool { return name == "std::string" }
	for _, tt := range tests {
		if got := abbreviateStd(tt.in, has); got != tt.want {
			t.Errorf("abbreviateStd(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Without the typedef std::string in the program, GDB's type printer
	// for it recognizes nothing.
	none := func(string) bool { return false }
	if got, want := abbreviateStd("std::vector<"+str+", std::allocator<"+str+" > >", none), "std::vector<"+str+">"; got != want {
		t.Errorf("without std::string: %q, want %q", got, want)
	}
}
