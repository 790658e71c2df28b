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

// Demangle returns the demangled form of an ELF symbol name in the style of
// c++filt (and nm -C): version suffixes are dropped, a "@plt" suffix is kept,
// and names that are not mangled C++ are returned as they are.
func Demangle(name string) string {
	base, _ := SplitVersion(name)
	plt := strings.HasSuffix(base, "@plt")
	if plt {
		base = strings.TrimSuffix(base, "@plt")
	}
	out := base
	if strings.HasPrefix(base, "_Z") {
		if s, err := demangle.ToString(base, demangle.Verbose, demangleLimit); err == nil {
			out = s
		}
	}
	if plt {
		out += "@plt"
	}
	return out
}

// nameKeys returns the names a symbol can be looked up by, besides its raw
// name: the full demangled name, the name without parameters
// ("ns::Foo::bar"), and without template arguments ("ns::Box::get").
func nameKeys(raw string) []string {
	base := raw
	plt := strings.HasSuffix(base, "@plt")
	if plt {
		base = strings.TrimSuffix(base, "@plt")
	}
	if !strings.HasPrefix(base, "_Z") {
		return nil
	}
	var keys []string
	add := func(s string) {
		if plt {
			s += "@plt"
		}
		for _, k := range keys {
			if k == s {
				return
			}
		}
		keys = append(keys, s)
	}
	full, err := demangle.ToString(base, demangle.Verbose, demangleLimit)
	if err != nil {
		return nil
	}
	add(full)
	if s, err := demangle.ToString(base, demangle.Verbose, demangle.NoParams, demangleLimit); err == nil {
		add(s)
	}
	if s, err := demangle.ToString(base, demangle.Verbose, demangle.NoParams, demangle.NoTemplateParams, demangleLimit); err == nil {
		add(s)
	}
	return keys
}

// lastComponent returns the part of a qualified C++ name after its last
// top-level "::" (ignoring "::" inside <> and ()), with any parameter list
// removed: "ns::Box<a::b>::get(int)" → "get".
func lastComponent(name string) string {
	name = stripParams(name)
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

// stripParams removes a trailing parameter list (and cv-qualifiers after
// it) from a demangled function name: "a::f(int) const" → "a::f". Names of
// operators such as "operator()" keep their own parentheses.
func stripParams(name string) string {
	depth := 0
	for i := len(name) - 1; i >= 0; i-- {
		switch name[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if strings.HasSuffix(name[:i], "operator") {
					continue
				}
				return name[:i]
			}
		}
	}
	return name
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
