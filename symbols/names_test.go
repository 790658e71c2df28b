package symbols

import "testing"

func TestSplitVersion(t *testing.T) {
	for _, tc := range []struct{ in, base, ver string }{
		{"puts", "puts", ""},
		{"puts@GLIBC_2.2.5", "puts", "GLIBC_2.2.5"},
		{"f@@VERS_1", "f", "VERS_1"},
		{"puts@plt", "puts@plt", ""},
		{"@x", "@x", ""},
		{"_ZNSolsEi@GLIBCXX_3.4", "_ZNSolsEi", "GLIBCXX_3.4"},
	} {
		if b, v := SplitVersion(tc.in); b != tc.base || v != tc.ver {
			t.Errorf("SplitVersion(%q) = %q, %q; want %q, %q", tc.in, b, v, tc.base, tc.ver)
		}
	}
}

func TestStripParamsAndLastComponent(t *testing.T) {
	for _, tc := range []struct{ in, stripped, last string }{
		{"main", "main", "main"},
		{"a::f(int) const", "a::f", "f"},
		{"ns::Box<a::b>::get() const &", "ns::Box<a::b>::get", "get"},
		{"(anonymous namespace)::g(int)", "(anonymous namespace)::g", "g"},
		{"(anonymous namespace)::g", "(anonymous namespace)::g", "g"},
		{"X::operator()(int) const", "X::operator()", "operator()"},
		{"X::operator()", "X::operator()", "operator()"},
		{"X::operator<(X const&) const", "X::operator<", "operator<"},
		{"f(int) [clone .cold]", "f", "f"},
		{"int geo::twice<int>(int)", "int geo::twice<int>", "twice<int>"},
		{"a<(1>2)>::f()", "a<(1>2)>::f", "f"},
		{"s<int>::f(x)::Guard::~Guard()", "s<int>::f(x)::Guard::~Guard", "~Guard"},
		{"e::operator void (e::*)()() const", "e::operator void (e::*)()", "operator void (e::*)()"},
	} {
		if got := StripParams(tc.in); got != tc.stripped {
			t.Errorf("StripParams(%q) = %q, want %q", tc.in, got, tc.stripped)
		}
		if got := lastComponent(StripParams(tc.in)); got != tc.last {
			t.Errorf("lastComponent(%q) = %q, want %q", tc.in, got, tc.last)
		}
	}
}

// TestStripParamsDWARFNames: the names dwarf's function index strips.
func TestStripParamsDWARFNames(t *testing.T) {
	for in, want := range map[string]string{
		"f(int, char*)":                      "f",
		"geo::Circle::area() const":          "geo::Circle::area",
		"geo::Circle::area()":                "geo::Circle::area",
		"geo::(anonymous namespace)::hidden": "geo::(anonymous namespace)::hidden",
		"geo::(anonymous namespace)":         "geo::(anonymous namespace)",
		"S::operator()":                      "S::operator()",
		"S::operator()(int)":                 "S::operator()",
		"twice<int>(int)":                    "twice<int>",
		"main":                               "main",
	} {
		if got := StripParams(in); got != want {
			t.Errorf("StripParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchQualified(t *testing.T) {
	for _, tc := range []struct {
		key, query string
		want       bool
	}{
		{"ns::Foo::bar", "ns::Foo::bar", true},
		{"ns::Foo::bar", "Foo::bar", true},
		{"ns::Foo::bar", "bar", true},
		{"ns::Foo::bar", "oo::bar", false},
		{"ns::Foobar", "bar", false},
		{"int ns::twice<int>(int)", "ns::twice<int>(int)", true},
		{"bar", "ns::bar", false},
	} {
		if got := matchQualified(tc.key, tc.query); got != tc.want {
			t.Errorf("matchQualified(%q, %q) = %v, want %v", tc.key, tc.query, got, tc.want)
		}
	}
}

// TestDemanglePhysname: a template function's mangled name carries its
// return type; the function's name from its linkage name, as GDB's
// physname and <symbol+offset> print it (DMGL_RET_DROP), does not;
// Demangle keeps it, as c++filt and GDB's minimal symbols do.
func TestDemanglePhysname(t *testing.T) {
	for _, tc := range []struct{ mangled, want string }{
		{"_Z5twiceIiET_S0_", "twice<int>(int)"},
		{"_Z5twiceIlET_S0_.constprop.0", "twice<long>(long) [clone .constprop.0]"},
		{"_ZSt8distanceIPKcENSt15iterator_traitsIT_E15difference_typeES3_S3_", "std::distance<char const*>(char const*, char const*)"},
		{"_ZN3BoxIlE4selfEPl", "Box<long>::self(long*)"},
		{"_Z3fooPFivE", "foo(int (*)())"}, // a parameter's return type stays
		{"main", "main"},
	} {
		if got := DemanglePhysname(tc.mangled); got != tc.want {
			t.Errorf("DemanglePhysname(%q) = %q, want %q", tc.mangled, got, tc.want)
		}
	}
	if got := Demangle("_Z5twiceIiET_S0_"); got != "int twice<int>(int)" {
		t.Errorf("Demangle keeps the return type: %q", got)
	}
}

// TestFunctionName: the name GDB's backtrace gives a function from its
// linkage name (GDB 13's bt on g++ builds): without the parameters where
// GDB's parser reads the demangled name, with them where it cannot (a
// local name, a lambda, an ABI tag), also where a parameter's type is
// qualified (std::vector), which does not make it readable again.
func TestFunctionName(t *testing.T) {
	for _, tc := range []struct{ mangled, want string }{
		{"_Z1fIiLi0EEiT_", "f<int, 0>"},
		{"_Z1gISt6vectorIiSaIiEEEiRKT_", "g<std::vector<int, std::allocator<int> > >"},
		{"_ZNK3geo5Shape4areaEv", "geo::Shape::area"},
		{"_Z1hB5cxx11i", "h[abi:cxx11](int)"},
		{"_ZZ5outerIiEiT_ENK5Local3getEi", "outer<int>(int)::Local::get(int) const"},
		{"_ZZ5outerIiEiT_ENK5Local3getERKSt6vectorIiSaIiEE", "outer<int>(int)::Local::get(std::vector<int, std::allocator<int> > const&) const"},
		{"_ZZ5outerIiEiT_ENKUliE_clEi", "outer<int>(int)::{lambda(int)#1}::operator()(int) const"},
		// clang's names local to main and to an extern "C" function:
		// no parameter list in the scope, so GDB reads them.
		{"_ZZ4mainENK3$_0clEii", "main::$_0::operator()"},
		{"_ZZ4mainENK5Local3getEi", "main::Local::get"},
		{"_ZZ4cfunENK2CL3getEi", "cfun::CL::get"},
		{"_ZN9__gnu_cxx5__ops15_Iter_comp_iterIZ4mainE3$_0EclINS_17__normal_iteratorIPiSt6vectorIiSaIiEEEESA_EEbT_T0_",
			"__gnu_cxx::__ops::_Iter_comp_iter<main::$_0>::operator()<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > > >"},
		// g++'s lambda in main: braces
		{"_ZZ4mainENKUliiE_clEii", "main::{lambda(int, int)#1}::operator()(int, int) const"},
		// a function type among template arguments, bare (GDB's parser
		// fails) and behind a pointer, reference or array (it reads
		// them); an empty template argument list (it fails)
		{"_ZNK1WIFviEE3getEi", "W<void (int)>::get(int) const"},
		{"_ZNK1WIPFviEE3getEi", "W<void (*)(int)>::get"},
		{"_ZNK1WIRFidEE3getEi", "W<int (&)(double)>::get"},
		{"_ZNK1WIA2_PFiiEE3getEi", "W<int (* [2])(int)>::get"},
		{"_Z1gI1TIJEEEiT_", "g<T<> >(T<>)"},
		{"_Z1gISt5tupleIJEEEiT_", "g<std::tuple<> >(std::tuple<>)"},
		{"main", ""},
	} {
		if got := FunctionName(tc.mangled); got != tc.want {
			t.Errorf("FunctionName(%q) = %q, want %q", tc.mangled, got, tc.want)
		}
	}
}
