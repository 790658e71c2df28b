package symbols

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangleLimit bounds demangled output (2^16 bytes) so a hostile name
// cannot make the demangler allocate without limit.
var demangleLimit = demangle.MaxLength(16)

// SplitVersion splits an ELF symbol name into its base name and version
// suffix: "puts@GLIBC_2.2.5" → ("puts", "GLIBC_2.2.5"); "f@@V1" → ("f",
// "V1"). "name@plt" is not a version and is returned unchanged.
func SplitVersion(name string) (base, version string) {
	if strings.HasSuffix(name, "@plt") {
		return name, ""
	}
	i := strings.IndexByte(name, '@')
	if i <= 0 {
		return name, ""
	}
	return name[:i], strings.TrimLeft(name[i:], "@")
}

// Demangle returns the demangled form of an ELF symbol name as nm -C and
// c++filt -i print it (standard abbreviations such as std::string kept),
// the form LookupName finds: version suffixes are dropped, a "@plt"
// suffix is kept, and names that are not mangled C++ are returned as they
// are.
func Demangle(name string) string { return demangled(name, demangleLimit) }

// FrameName is the name GDB gives a function without debug information
// in a backtrace or a stop: Demangle's, with the standard abbreviations
// spelled out as GDB (and c++filt without -i) does: So is
// std::basic_ostream<char, std::char_traits<char> >.
func FrameName(name string) string { return demangled(name, demangle.Verbose, demangleLimit) }

func demangled(name string, opts ...demangle.Option) string {
	base, _ := SplitVersion(name)
	plt := strings.HasSuffix(base, "@plt")
	if plt {
		base = strings.TrimSuffix(base, "@plt")
	}
	out := base
	if strings.HasPrefix(base, "_Z") {
		if s, err := demangle.ToString(base, opts...); err == nil {
			out = s
		}
	}
	if plt {
		out += "@plt"
	}
	return out
}

// DemanglePhysname is Demangle without the return type that a template
// function's mangled name carries ("int twice<int>(int)" is
// "twice<int>(int)"): the name GDB gives a function with debug
// information from its linkage name (dwarf2_physname demangles with
// DMGL_RET_DROP), as <symbol+offset> prints it. An ELF symbol's name
// keeps the return type, as GDB's minimal symbols do.
func DemanglePhysname(name string) string {
	base, _ := SplitVersion(name)
	if !strings.HasPrefix(base, "_Z") {
		return Demangle(name)
	}
	a, err := demangle.ToAST(base, demangleLimit)
	if err != nil {
		return Demangle(name)
	}
	return demangle.ASTToString(dropReturnType(a), demangleLimit)
}

// FunctionName is the name GDB gives a C++ function with debug
// information in a backtrace or a stop, from its linkage name: demangled
// without a template function's return type (dwarf2_physname's
// DMGL_RET_DROP) and without its parameters and qualifiers
// (find_frame_funname's cp_remove_params), so that a template instance
// shows all its arguments ("f<int, 0>", where GCC's DW_AT_name has
// "f<int>"). GDB keeps the parameters where its own C++ name parser
// cannot read the demangled name, whose parse then fails: a name local
// to a function printed with its parameters ("outer<int>(int)::Local::
// get(int) const", a LOCAL_NAME, not a function; main's and an extern "C"
// function's have none: "main::$_0::operator()"), a function type among
// template arguments ("W<void (int)>::get(int) const"), an empty template
// argument list ("g<T<> >(T<>)"), a lambda ("{lambda(int)#1}"), an ABI tag
// ("h[abi:cxx11](int)"), an unnamed type, a ref-qualified method
// ("Box::get() const &"). "" where linkage is not a mangled C++
// function name.
func FunctionName(linkage string) string {
	if !strings.HasPrefix(linkage, "_Z") {
		return ""
	}
	a, err := demangle.ToAST(linkage, demangleLimit)
	if err != nil {
		return ""
	}
	t, ok := dropReturnType(a).(*demangle.Typed)
	if !ok {
		return ""
	}
	unparsable := false
	// A function type other than the function's own, in its name or its
	// parameters' types (a template argument: W<void (int)>::get,
	// f(std::function<double (Shape const&)> const&)), not behind a
	// pointer, reference, array or pointer to member, which GDB's parser
	// reads: void (*)(int).
	own := map[demangle.AST]bool{t.Type: true}
	if mq, ok := t.Type.(*demangle.MethodWithQualifiers); ok {
		own[mq.Method] = true
	}
	behind := map[demangle.AST]bool{}
	t.Traverse(func(n demangle.AST) bool {
		switch n := n.(type) {
		case *demangle.PointerType:
			behind[n.Base] = true
		case *demangle.ReferenceType:
			behind[n.Base] = true
		case *demangle.RvalueReferenceType:
			behind[n.Base] = true
		case *demangle.ArrayType:
			behind[n.Element] = true
		case *demangle.PtrMem:
			behind[n.Member] = true
		case *demangle.FunctionType:
			unparsable = unparsable || !own[n] && !behind[n]
		case *demangle.Template:
			unparsable = unparsable || emptyArgs(n.Args) // T<>
		case *demangle.Qualified:
			// A name local to a function is read where the function is
			// printed without a parameter list, as main and extern "C"
			// functions are (clang's "main::$_0::operator()"), not
			// where it has one ("outer<int>(int)::Local").
			_, typed := n.Scope.(*demangle.Typed)
			unparsable = unparsable || n.LocalName && typed
		case *demangle.Closure, *demangle.LambdaExpr, *demangle.TaggedName, *demangle.UnnamedType, *demangle.UnnamedEnum:
			unparsable = true
		case *demangle.MethodWithQualifiers:
			// GDB's parser has no ref-qualifiers: Box::get() const &
			unparsable = unparsable || n.RefQualifier != ""
			if behind[n] { // void (*)(int) noexcept
				behind[n.Method] = true
			}
		}
		return !unparsable
	})
	if unparsable {
		return demangle.ASTToString(t, demangleLimit)
	}
	return demangle.ASTToString(t.Name, demangleLimit)
}

// emptyArgs reports whether a template argument list prints as "<>":
// none, or only empty packs (T<> of a variadic T).
func emptyArgs(args []demangle.AST) bool {
	for _, a := range args {
		if p, ok := a.(*demangle.ArgumentPack); !ok || len(p.Args) > 0 {
			return false
		}
	}
	return true
}

// dropReturnType leaves out a template function's return type.
func dropReturnType(a demangle.AST) demangle.AST {
	switch t := a.(type) {
	case *demangle.Typed:
		if ft, ok := t.Type.(*demangle.FunctionType); ok && ft.Return != nil {
			c := *ft
			c.ForLocalName = true // printed without its return type
			return &demangle.Typed{Name: t.Name, Type: &c}
		}
		if mq, ok := t.Type.(*demangle.MethodWithQualifiers); ok {
			// a const or ref-qualified member function template
			if ft, ok := mq.Method.(*demangle.FunctionType); ok && ft.Return != nil {
				c, m := *ft, *mq
				c.ForLocalName = true
				m.Method = &c
				return &demangle.Typed{Name: t.Name, Type: &m}
			}
		}
	case *demangle.Clone:
		c := *t
		c.Base = dropReturnType(t.Base)
		return &c
	}
	return a
}

// nameKeys returns the names a symbol can be looked up by, besides its raw
// name: the demangled name without parameters ("ns::Foo::bar",
// "ns::Box<int>::get") and without template arguments ("ns::Box::get").
// Both come from one parse that skips the parameter list, which is the
// expensive part; names with parameters are matched at lookup time (see
// fullName).
func nameKeys(raw string) []string {
	base := raw
	plt := strings.HasSuffix(base, "@plt")
	if plt {
		base = strings.TrimSuffix(base, "@plt")
	}
	if !strings.HasPrefix(base, "_Z") {
		return nil
	}
	a, err := demangle.ToAST(base, demangle.NoParams, demangleLimit)
	if err != nil {
		return nil
	}
	k1 := demangle.ASTToString(a, demangleLimit)
	k2 := demangle.ASTToString(a, demangle.NoTemplateParams, demangleLimit)
	if plt {
		k1, k2 = k1+"@plt", k2+"@plt"
	}
	if k1 == k2 {
		return []string{k1}
	}
	return []string{k1, k2}
}

// lastComponent returns the part of a qualified C++ name without
// parameters after its last top-level "::" (ignoring "::" inside <> and
// ()): "ns::Box<a::b>::get" → "get".
func lastComponent(name string) string {
	depth, start := 0, 0
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '<', '(':
			depth++
		case '>', ')':
			if depth > 0 {
				depth--
			}
		case ':':
			if depth == 0 && i+1 < len(name) && name[i+1] == ':' {
				start = i + 2
				i++
			}
		}
	}
	return name[start:]
}

// StripParams removes a trailing parameter list (and the qualifiers after
// it) from a demangled function name: "a::f(int) const" → "a::f". Names
// without one are returned unchanged ("(anonymous namespace)::g",
// "ns::(anonymous namespace)", "X::operator()"). It is the one parameter
// stripper of the module (symbol lookups and DWARF function names).
func StripParams(name string) string {
	end := strings.LastIndexByte(name, ')')
	if end < 0 || !onlyQualifiers(name[end+1:]) || strings.HasSuffix(name, "(anonymous namespace)") {
		return name
	}
	depth := 0
	for i := end; i >= 0; i-- {
		switch name[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if strings.HasSuffix(name[:i], "operator") {
					return name // "operator()" itself
				}
				return strings.TrimSpace(name[:i])
			}
		}
	}
	return name
}

// onlyQualifiers reports whether s is a (possibly empty) sequence of the
// qualifiers that may follow a parameter list.
func onlyQualifiers(s string) bool {
	for _, f := range strings.Fields(s) {
		switch f {
		case "const", "volatile", "&", "&&", "noexcept", "[clone":
		default:
			if !strings.HasSuffix(f, "]") { // "[clone .cold]"
				return false
			}
		}
	}
	return true
}

// matchQualified reports whether key equals query or ends with "::"+query,
// so that "Foo::bar" and "bar" match "ns::Foo::bar" as in GDB.
// A query that starts with "::" must match from the global scope.
func matchQualified(key, query string) bool {
	if key == query {
		return true
	}
	if len(key) <= len(query) || !strings.HasSuffix(key, query) {
		return false
	}
	before := key[:len(key)-len(query)]
	// "::" separates scopes; a space separates the return type that
	// demangled template functions carry ("int geo::twice<int>(int)").
	return strings.HasSuffix(before, "::") || strings.HasSuffix(before, " ")
}
