package dwarf

import "strings"

// canonicalCxxName rewrites the template arguments of a C++ name from
// gcc's DWARF spelling to GDB's canonical one (cp_canonicalize_string):
// cv-qualifiers go after the type they qualify, so
// "std::pair<const std::string, int>" becomes
// "std::pair<std::string const, int>" and "F<const char*>" becomes
// "F<char const*>"; builtin types are spelled the short way
// ("long unsigned int" is "unsigned long"). Names without template
// arguments are returned as is, and so are names GDB's parser cannot read
// (a lambda's "<lambda(int)>": cp_canonicalize_string then keeps them).
func canonicalCxxName(name string) string {
	if !strings.Contains(name, "<") || !gdbParses(name) {
		return name
	}
	var b strings.Builder
	canonArgs(&b, name)
	return b.String()
}

// canonArgs copies s to b, canonicalizing every template argument list.
func canonArgs(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '<' || strings.HasSuffix(s[:i], "operator") {
			b.WriteByte(c)
			continue
		}
		end := matchAngle(s, i)
		if strings.HasSuffix(s[:i], "operator<") && end < 0 {
			b.WriteByte(c) // operator<<, not a template's arguments
			continue
		}
		if end >= 0 && (strings.HasSuffix(s[:i], "operator<") || strings.HasSuffix(s[:i], "operator<<")) {
			// clang's operator<<<int>: GDB writes operator<< <int>
			// (and operator< <int>), as gcc does
			b.WriteByte(' ')
		}
		if end < 0 {
			b.WriteString(s[i:])
			return
		}
		b.WriteByte('<')
		args := SplitTopLevel(s[i+1 : end])
		for j, a := range args {
			if j > 0 {
				b.WriteString(", ")
			}
			var inner strings.Builder
			canonArgs(&inner, strings.TrimSpace(a))
			b.WriteString(lowerIntSuffix(tightDeclarators(moveCV(canonBuiltins(inner.String())))))
		}
		if strings.HasSuffix(b.String(), ">") {
			b.WriteByte(' ') // "> >", as gcc and GDB write it
		}
		b.WriteByte('>')
		i = end
	}
}

// matchAngle returns the index of the '>' closing the '<' at i, or -1.
func matchAngle(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return j
			}
		case '(':
			// skip parenthesized parts (function types, casts)
			d := 0
			for ; j < len(s); j++ {
				if s[j] == '(' {
					d++
				} else if s[j] == ')' {
					d--
					if d == 0 {
						break
					}
				}
			}
		}
	}
	return -1
}

// SplitTopLevel splits a template argument list at top-level commas.
func SplitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(', '[':
			depth++
		case '>', ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// moveCV turns "const T*" into "T const*" (and likewise volatile).
func moveCV(a string) string {
	var quals []string
	for {
		switch {
		case strings.HasPrefix(a, "const "):
			quals, a = append(quals, "const"), a[len("const "):]
			continue
		case strings.HasPrefix(a, "volatile "):
			quals, a = append(quals, "volatile"), a[len("volatile "):]
			continue
		}
		break
	}
	if len(quals) == 0 || strings.ContainsAny(a, "()") {
		return strings.Join(append(quals, a), " ")
	}
	// The qualifiers go right after the base type, before its first
	// declarator: const Edge* const is Edge const* const.
	end := len(a)
	depth := 0
	for i, c := range a {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case '*', '&':
			if depth == 0 && i < end {
				end = i
			}
		}
		if end != len(a) {
			break
		}
	}
	base := strings.TrimRight(a[:end], " ")
	return base + " " + strings.Join(quals, " ") + a[len(base):]
}

// tightDeclarators writes a template argument's pointer and reference
// marks against what they apply to, as gcc names and GDB canonicalizes
// them ("node const*", where clang writes "const node *"); a function
// or array type is left as it is.
func tightDeclarators(a string) string {
	if strings.ContainsAny(a, "([") {
		return a
	}
	for _, m := range []string{" *", " &"} {
		for strings.Contains(a, m) {
			a = strings.ReplaceAll(a, m, m[1:])
		}
	}
	// a qualifier after a declarator is a word apart: Edge* const (clang
	// writes Edge *const)
	for _, m := range []string{"*const", "*volatile", "&const", "&volatile"} {
		a = strings.ReplaceAll(a, m, m[:1]+" "+m[1:])
	}
	return a
}

// lowerIntSuffix spells an integer literal argument's suffix in lower
// case, as GDB's canonical names do ("3ul" where clang writes "3UL");
// any other argument is returned as it is.
func lowerIntSuffix(a string) string {
	num := strings.TrimPrefix(a, "-")
	suffix := strings.TrimLeft(num, "0123456789")
	if len(suffix) == len(num) || suffix == "" || strings.Trim(suffix, "uUlL") != "" {
		return a
	}
	return a[:len(a)-len(suffix)] + strings.ToLower(suffix)
}

// builtinSpellings maps gcc's names of builtin integer types to the
// canonical C++ spelling GDB and c++filt use, longest first.
var builtinSpellings = [][2]string{
	{"long long unsigned int", "unsigned long long"},
	{"long long int", "long long"},
	{"long unsigned int", "unsigned long"},
	{"short unsigned int", "unsigned short"},
	{"short int", "short"},
	{"long int", "long"},
}

// canonBuiltins respells builtin type names in one template argument
// and separates a function type's parameter list: "int(int)" is
// "int (int)".
func canonBuiltins(a string) string {
	if i := strings.IndexByte(a, '('); i > 0 && (isIdentByte(a[i-1]) || a[i-1] == '>') {
		a = a[:i] + " " + a[i:]
	}
	if !strings.Contains(a, " int") {
		return a
	}
	for _, r := range builtinSpellings {
		for from := 0; ; {
			i := strings.Index(a[from:], r[0])
			if i < 0 {
				break
			}
			i += from
			j := i + len(r[0])
			if (i == 0 || !isIdentByte(a[i-1])) && (j == len(a) || !isIdentByte(a[j])) {
				a = a[:i] + r[1] + a[j:]
				from = i + len(r[1])
			} else {
				from = j
			}
		}
	}
	return a
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TemplateBase returns the name of a class template instance without its
// arguments: "std::vector" for "std::vector<int, std::allocator<int> >".
func TemplateBase(name string) string {
	if i := strings.IndexByte(name, '<'); i >= 0 {
		return name[:i]
	}
	return name
}

// canonicalParams returns the parameter list that ends a function name
// ("f(const char*, int)", "A::get() const") in GDB's canonical spelling
// ("char const*, int"; "()" and "(void)" are ""); ok is false when the
// name has none.
func canonicalParams(name string) (params string, ok bool) {
	s := strings.TrimSpace(name)
	for _, q := range []string{" const", " volatile", " &&", " &", "&&", "&"} {
		s = strings.TrimSuffix(s, q)
	}
	if !strings.HasSuffix(s, ")") {
		return "", false
	}
	depth := 0
	open := -1
	for i := len(s) - 1; i >= 0 && open < 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				open = i
			}
		}
	}
	if open <= 0 {
		return "", false
	}
	p := strings.TrimSpace(s[open+1 : len(s)-1])
	if p == "" || p == "void" {
		return "", true
	}
	c := canonicalCxxName("f<" + p + ">")
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(c, "f<"), ">"), " "), true
}
