package dwarf

import (
	"strconv"
	"strings"
)

// libstdc++'s type printers, as GDB's ptype and whatis apply them
// (libstdc++'s printers.py, register_type_printers, in GDB's
// typeprint.c and cp-support.c replace_typedefs):
//
//   - a specialization that is one of the library's typedefs prints as
//     the typedef: std::__cxx11::basic_string<char, std::char_traits<char>,
//     std::allocator<char> > is std::string;
//   - a container whose trailing template arguments are the defaults
//     prints without them: std::vector<int, std::allocator<int> > is
//     std::vector<int>, its arguments printed by the same rules (a
//     pointer argument "T*", an argument no rule names by its own name,
//     so std::vector<std::pair<std::string, int> > keeps the pair's
//     full name, as GDB prints it);
//   - a type named in a declaration has every template-id in its name
//     printed so (Box<std::string>, std::vector<int> *).
//
// They work on the canonical names types carry.

// stdTypedefs maps canonical names of library specializations to the
// typedef names GDB prints for them, where the program's debug
// information has the typedef (typedefIs).
var stdTypedefs = func() map[string]string {
	m := map[string]string{"std::fpos<__mbstate_t>": "std::streampos"}
	chars := []struct{ ch, pre string }{{"char", ""}, {"wchar_t", "w"}, {"char8_t", "u8"}, {"char16_t", "u16"}, {"char32_t", "u32"}}
	for _, c := range chars {
		traits := "std::char_traits<" + c.ch + ">"
		alloc := "std::allocator<" + c.ch + ">"
		str := "<" + c.ch + ", " + traits + ", " + alloc + " >"
		m["std::basic_string"+str] = "std::" + c.pre + "string"
		m["std::__cxx11::basic_string"+str] = "std::" + c.pre + "string"
		m["std::basic_string_view<"+c.ch+", "+traits+" >"] = "std::" + c.pre + "string_view"
		if c.pre != "" && c.pre != "w" {
			continue
		}
		for _, x := range []string{"ios", "streambuf", "istream", "ostream", "iostream", "filebuf", "ifstream", "ofstream", "fstream"} {
			m["std::basic_"+x+"<"+c.ch+", "+traits+" >"] = "std::" + c.pre + x
		}
		for _, x := range []string{"stringbuf", "istringstream", "ostringstream", "stringstream"} {
			m["std::basic_"+x+str] = "std::" + c.pre + x
			m["std::__cxx11::basic_"+x+str] = "std::" + c.pre + x
		}
	}
	return m
}()

// stdDefaults are the class templates whose default template arguments
// the printers leave out: argument index to its default, where {N} is
// the Nth argument.
var stdDefaults = map[string]map[int]string{
	"unique_ptr":         {1: "std::default_delete<{0}>"},
	"deque":              {1: "std::allocator<{0}>"},
	"forward_list":       {1: "std::allocator<{0}>"},
	"list":               {1: "std::allocator<{0}>"},
	"__cxx11::list":      {1: "std::allocator<{0}>"},
	"vector":             {1: "std::allocator<{0}>"},
	"map":                {2: "std::less<{0}>", 3: "std::allocator<std::pair<{0} const, {1}>>"},
	"multimap":           {2: "std::less<{0}>", 3: "std::allocator<std::pair<{0} const, {1}>>"},
	"set":                {1: "std::less<{0}>", 2: "std::allocator<{0}>"},
	"multiset":           {1: "std::less<{0}>", 2: "std::allocator<{0}>"},
	"unordered_map":      {2: "std::hash<{0}>", 3: "std::equal_to<{0}>", 4: "std::allocator<std::pair<{0} const, {1}>>"},
	"unordered_multimap": {2: "std::hash<{0}>", 3: "std::equal_to<{0}>", 4: "std::allocator<std::pair<{0} const, {1}>>"},
	"unordered_set":      {1: "std::hash<{0}>", 2: "std::equal_to<{0}>", 3: "std::allocator<{0}>"},
	"unordered_multiset": {1: "std::hash<{0}>", 2: "std::equal_to<{0}>", 3: "std::allocator<{0}>"},
}

// stdPrinterName is what a type printer names the type of canonical
// name n, when only the name is known (a template argument inside a
// name GDB rewrites): as GDB looks the name up, a type without a
// definition is only declared. qualified: the type is const or
// volatile, which only the default-argument printers see past (the
// typedef printers compare the whole type).
func (tf typeFmt) stdPrinterName(n string, qualified bool) (string, bool) {
	return tf.stdPrinter(n, nil, qualified, tf.declared(n))
}

// declared reports whether the program's type of canonical name n is
// only declared (the compiler left its definition out: clang's
// std::string).
func (tf typeFmt) declared(n string) bool {
	if tf.types == nil {
		return false
	}
	t, err := tf.types.LookupType(n)
	if err != nil {
		return true // named, and not defined: only declarations have the name
	}
	st, ok := t.(*StructType)
	return ok && st.Incomplete
}

// stdPrinterOf is what a type printer names st, whose template
// arguments' types are known.
func (tf typeFmt) stdPrinterOf(st *StructType, qualified bool) (string, bool) {
	var params []Type
	for _, p := range st.TemplateParams {
		if p.HasValue {
			params = nil // a value argument: compared by name
			break
		}
		params = append(params, p.Type)
	}
	return tf.stdPrinter(st.Name, params, qualified, st.Incomplete)
}

// stdPrinter names the type of canonical name n, only declared (decl)
// or defined, with its template arguments' types where known (params,
// as many as n has arguments; else nil). A typedef printer names it only
// where the typedef is of the same (GDB compares the types: a
// declaration is not the definition); a default-argument printer
// compares each defaulted argument with the type the default names.
func (tf typeFmt) stdPrinter(n string, params []Type, qualified, decl bool) (string, bool) {
	if td, ok := stdTypedefs[n]; ok && !qualified && tf.typedefIs(td, n, decl) {
		return td, true
	}
	open := strings.IndexByte(n, '<')
	if open < 0 || !strings.HasSuffix(n, ">") || matchAngle(n, open) != len(n)-1 {
		return "", false
	}
	tmpl := n[:open]
	short, ok := strings.CutPrefix(tmpl, "std::__debug::")
	if !ok {
		if short, ok = strings.CutPrefix(tmpl, "std::"); !ok {
			return "", false
		}
	}
	defs, ok := stdDefaults[short]
	if !ok {
		return "", false
	}
	args := SplitTopLevel(n[open+1 : len(n)-1])
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	if len(params) != len(args) {
		params = nil
	}
	var shown []string
	defaulted := false
	for i, a := range args {
		var pt Type
		if params != nil {
			pt = params[i]
		}
		def, has := defs[i]
		switch {
		case has:
			for j, b := range args {
				def = strings.ReplaceAll(def, "{"+strconv.Itoa(j)+"}", b)
			}
			if !tf.sameType(def, a, pt) {
				return "", false
			}
			defaulted = true
		case defaulted:
			return "", false
		case pt != nil:
			shown = append(shown, tf.stdArgType(pt))
		default:
			shown = append(shown, tf.stdArgName(a))
		}
	}
	return strings.Replace(tmpl, "std::__cxx11::", "std::", 1) + "<" + strings.Join(shown, ", ") + ">", true
}

// sameType reports whether the default argument def, as the printers
// spell it, is the argument a (a canonical name; pt its type where
// known), as the printers compare them: with the type def names where
// the program's debug information defines one (GDB looks it up; an
// argument only declared is not that definition), else by the names as
// written (a default that the compiler left out of the debug
// information, as clang does, whose spelling differs, is not
// recognized).
func (tf typeFmt) sameType(def, a string, pt Type) bool {
	if tf.types == nil {
		return canonicalCxxName(def) == canonicalCxxName(a)
	}
	if _, err := tf.types.LookupType(canonicalCxxName(def)); err == nil {
		if st, ok := StripTypedefs(pt).(*StructType); ok && st.Incomplete {
			return false
		}
		return canonicalCxxName(def) == canonicalCxxName(a)
	}
	return def == a
}

// stdArgType spells a template argument of known type as the printers
// do: pointers, references and arrays around the argument's own printed
// name ("T*", "T&", "T[4]"), a class a printer names by that name, any
// other type by GDB's name for it.
func (tf typeFmt) stdArgType(t Type) string {
	switch u := t.(type) {
	case *PointerType:
		return tf.stdArgType(u.Elem) + "*"
	case *ReferenceType:
		if u.Rvalue {
			return tf.stdArgType(u.Elem) + "&&"
		}
		return tf.stdArgType(u.Elem) + "&"
	case *ArrayType:
		if u.Count < 0 {
			return tf.stdArgType(u.Elem) + "[]"
		}
		return tf.stdArgType(u.Elem) + "[" + strconv.FormatInt(u.Count, 10) + "]"
	case *StructType:
		if n, ok := tf.stdPrinterOf(u, false); ok {
			return n
		}
	}
	return TypeString(t)
}

// stdArgName is stdArgType for an argument known by its canonical name
// alone.
func (tf typeFmt) stdArgName(a string) string {
	switch {
	case strings.HasSuffix(a, "&&"):
		return tf.stdArgName(strings.TrimSpace(strings.TrimSuffix(a, "&&"))) + "&&"
	case strings.HasSuffix(a, "*") && !strings.HasSuffix(a, ")*"):
		return tf.stdArgName(strings.TrimSpace(strings.TrimSuffix(a, "*"))) + "*"
	case strings.HasSuffix(a, "&"):
		return tf.stdArgName(strings.TrimSpace(strings.TrimSuffix(a, "&"))) + "&"
	case strings.HasSuffix(a, "]"):
		if i := strings.LastIndexByte(a, '['); i > 0 && !strings.Contains(a[:i], "(") {
			return tf.stdArgName(strings.TrimSpace(a[:i])) + a[i:]
		}
	}
	if n, ok := tf.stdPrinterName(a, false); ok {
		return n
	}
	// GDB's spelling puts the qualifiers of a canonical "char const" first
	for _, q := range []string{" const volatile", " volatile", " const"} {
		if base, ok := strings.CutSuffix(a, q); ok && !strings.ContainsAny(base, "*&(") {
			return strings.TrimPrefix(q, " ") + " " + base
		}
	}
	return a
}

// stdNames rewrites the template-ids in a canonical type name by the
// printers, as GDB prints a type named in a declaration: the whole name
// where a printer names it, else each template argument, innermost
// rules alike (Box<std::__cxx11::basic_string<…> > is
// Box<std::string>).
func (tf typeFmt) stdNames(n string) string {
	if !strings.Contains(n, "<") {
		return n
	}
	// GDB's canonicalizer looks up the name inside cv-qualifiers and
	// pointer or reference declarators (std::pair<std::string const*, int>)
	if base := trimDeclaratorSuffix(n); base != n && strings.HasSuffix(base, ">") {
		return tf.stdNames(base) + n[len(base):]
	}
	// GDB looks the name up: a class only declared is not found
	if !tf.declared(n) {
		if p, ok := tf.stdPrinterName(n, false); ok {
			return p
		}
	}
	return substTemplateIDs(n, tf.stdNames)
}

// trimDeclaratorSuffix is n without its trailing cv-qualifiers and
// pointer or reference declarators ("T const*&" is "T").
func trimDeclaratorSuffix(n string) string {
	for {
		m := strings.TrimRight(n, "*& ")
		for _, q := range []string{" const", " volatile"} {
			m = strings.TrimSuffix(m, q)
		}
		if m == n {
			return n
		}
		n = m
	}
}

// whole is the name a type printer gives t as a whole (cv-qualifiers and
// all), where printers are on and t is a struct or class one names.
func (tf typeFmt) whole(t Type) (string, bool) {
	if !tf.printers {
		return "", false
	}
	var quals []string
	for {
		q, ok := t.(*QualType)
		if !ok {
			break
		}
		quals, t = append(quals, q.Qual), q.Elem
	}
	st, ok := t.(*StructType)
	if !ok || st.Name == "" {
		return "", false
	}
	n, ok := tf.stdPrinterOf(st, len(quals) > 0)
	if !ok {
		return "", false
	}
	if len(quals) > 0 {
		return orderQuals(quals) + " " + n, true
	}
	return n, true
}

// named spells a named type in a declaration: a whole type as the
// printers name it, else the printers applied to the template-ids of
// its name; one inside a declarator (tf.inner) by its name alone, which
// GDB looks up: a class only declared (clang's std::string, libstdc++'s
// std::ostream) is then not found, and keeps its name.
func (tf typeFmt) named(t Type) string {
	n := tf.baseName(t)
	if t.Common().Lang != LangCPlusPlus || n != baseName(t) {
		return n // (a C++ class named in C: "class Shape")
	}
	switch u := t.(type) {
	case *StructType:
		if tf.inner {
			return tf.stdNames(n) // by its name
		}
		if p, ok := tf.stdPrinterOf(u, false); ok {
			return p
		}
		return substTemplateIDs(n, tf.stdNames)
	case *TypedefType, *EnumType:
		return tf.stdNames(n)
	}
	return n
}

// typedefIs reports whether the program's types have the typedef td,
// naming the type of canonical name n: the typedef printers look the
// typedef up, and print nothing where the program's debug information
// lacks it (a program that never names std::istream).
func (tf typeFmt) typedefIs(td, n string, decl bool) bool {
	if tf.types == nil {
		return false
	}
	t, err := tf.types.LookupType(td)
	if err != nil {
		return false
	}
	st, ok := StripTypedefs(t).(*StructType)
	return ok && st.Name == n && st.Incomplete == decl
}
