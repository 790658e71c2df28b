package dwarf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// gdbBaseNames maps DWARF base type names to the spelling GDB prints.
var gdbBaseNames = map[string]string{
	"long int":               "long",
	"long unsigned int":      "unsigned long",
	"short int":              "short",
	"short unsigned int":     "unsigned short",
	"long long int":          "long long",
	"long long unsigned int": "unsigned long long",
}

// baseName returns the name GDB prints for a named type in declarations,
// each type in its own compile unit's language.
func baseName(t Type) string { return typeFmt{}.baseName(t) }

// baseName returns the name GDB prints for a named type in declarations,
// in tf's language.
func (tf typeFmt) baseName(t Type) string {
	switch t := t.(type) {
	case *BaseType:
		if n, ok := gdbBaseNames[t.Name]; ok {
			return n
		}
		return t.Name
	case *VoidType:
		return "void"
	case *UnspecifiedType:
		if t.Name == "" {
			return "void"
		}
		return t.Name
	case *TypedefType:
		return t.Name
	case *StructType:
		n := t.Name
		if n == "" {
			return t.Kind + " {...}"
		}
		if tf.naming.keyword(t.Lang) {
			return t.Kind + " " + n
		}
		return n
	case *EnumType:
		if t.Name == "" {
			return "enum {...}"
		}
		if tf.naming.keyword(t.Lang) {
			return "enum " + t.Name
		}
		return t.Name
	case *NoDebugType:
		return t.Name
	}
	return "?"
}

// Naming is the language types are named in: GDB's current language,
// which "set language auto" takes from the selected frame. A struct,
// union or enum of C or C++ is named with its keyword where that
// language is C (a C++ class in a C frame is "class Shape *"), without
// it in C++ (a C struct in a C++ frame is "node *"), as GDB's
// c_type_print_base decides by the current language, not by the type's.
// The zero Naming names each type in its own compile unit's language.
type Naming struct {
	Lang Lang
	Set  bool
}

// NamingIn names types in language l.
func NamingIn(l Lang) Naming { return Naming{Lang: l, Set: true} }

// keyword reports whether a struct, union or enum of language l is
// named with its keyword.
func (n Naming) keyword(l Lang) bool {
	if n.Set && (l == LangC || l == LangCPlusPlus) && (n.Lang == LangC || n.Lang == LangCPlusPlus) {
		return n.Lang == LangC
	}
	return l == LangC
}

// typeHook spells a named type in a declaration the way one type print
// needs it (ptype's body, a class template's parameter names): "" where
// it has nothing to say. tf is where in the declaration the type is.
type typeHook func(tf typeFmt, t Type) string

// typeFmt is how types are spelled: printers applies libstdc++'s type
// printers (stdtypes.go), as GDB's ptype and whatis do and its value
// printing does not.
type typeFmt struct {
	naming   Naming
	printers bool
	types    *TypeReader // the program's types, where the typedef printers look their typedefs up (nil: none)
	// inner: the type spelled is inside a declarator (a pointer's,
	// a reference's, a qualified type's), which GDB prints by its name
	// and the printers see only by name; otherwise it is a whole type,
	// which they see as a type.
	inner bool
	// outerSub: the template parameters' names of the class an
	// anonymous struct or union member's body is printed in
	// (anonBodies)
	outerSub typeHook
	// typedefLine: the type is a typedef line's of a class body, which
	// GDB prints without the class's own typedefs in its table
	// (c_type_print_base_struct_union's semi_local_flags): its typedefs
	// by their full names.
	typedefLine bool
}

// TypeString spells t as GDB prints a type's name in a value
// ("(std::vector<int, std::allocator<int> > *) 0x…"): without type
// printers.
func TypeString(t Type) string { return TypeStringIn(t, Naming{}) }

// TypeStringIn is TypeString in the language of n.
func TypeStringIn(t Type, n Naming) string {
	if t != nil && t.Common().Lang == LangRust {
		return rustTypeString(t, 0)
	}
	return typeFmt{naming: n}.declString(t, "", nil)
}

// rustTypeString spells a Rust type as GDB's Rust support does: a
// pointer or reference *mut T, an array [T; N], others by their names
// (rustc names tuples "(i32, f64)", slices "&[i32]").
func rustTypeString(t Type, depth int) string {
	if depth > 32 {
		return "..."
	}
	switch t := t.(type) {
	case *PointerType:
		return "*mut " + rustTypeString(t.Elem, depth+1)
	case *ReferenceType:
		return "*mut " + rustTypeString(t.Elem, depth+1)
	case *ArrayType:
		if t.Name != "" {
			return t.Name // (a string literal's &str)
		}
		return fmt.Sprintf("[%s; %d]", rustTypeString(t.Elem, depth+1), t.Count)
	case *QualType:
		return rustTypeString(t.Elem, depth+1)
	case *VoidType:
		return "()"
	case nil:
		return "()"
	case *FuncType:
		// GDB's rust_print_type: fn (params) -> return, the return left
		// out where it is unit
		var b strings.Builder
		b.WriteString("fn (")
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(rustTypeString(p, depth+1))
		}
		b.WriteString(")")
		if _, unit := t.Return.(*VoidType); !unit && t.Return != nil {
			b.WriteString(" -> " + rustTypeString(t.Return, depth+1))
		}
		return b.String()
	}
	if n := t.Common().Name; n != "" {
		return n
	}
	return typeFmt{}.declString(t, "", nil)
}

// declString builds a C declarator around decl. base, when not nil, is
// used to spell the named types: the innermost, and those of parameter
// lists (a class template's members print its parameters' names).
func (tf typeFmt) declString(t Type, decl string, base typeHook) string {
	return tf.declStringNames(t, decl, base, base)
}

// declStringNames is declString with base for the innermost named type
// and names for those of parameter lists (ptype expands the innermost
// only).
func (tf typeFmt) declStringNames(t Type, decl string, base, names typeHook) string {
	if names != nil {
		// A class template's member whose whole type is a type argument
		// prints the parameter's name ("Key first_;" where Key is
		// const char *), not the parts inside it (const Key& stays
		// "const char * const&"), as GDB's typedef hash finds only
		// whole types.
		switch t.(type) {
		case *PointerType, *QualType, *ReferenceType, *ArrayType, *PtrToMemberType:
			if n := names(tf, t); n != "" {
				return n + spaced(decl)
			}
		}
	}
	for i := 0; i < maxTypeDepth; i++ {
		if i > 0 {
			tf.inner = true
		}
		switch u := t.(type) {
		case nil:
			return "?" + spaced(decl)
		case *PointerType:
			decl = wrapDecl(u.Elem, "*"+decl, base == nil)
			t = u.Elem
			continue
		case *ReferenceType:
			amp := "&"
			if u.Rvalue {
				amp = "&&"
			}
			decl = wrapDecl(u.Elem, amp+decl, base == nil)
			t = u.Elem
			continue
		case *PtrToMemberType:
			cls := "?"
			if u.Class != nil {
				cls = tf.baseName(StripTypedefs(u.Class))
				if u.Class.Common().Name != "" {
					cls = u.Class.Common().Name
				}
			}
			decl = wrapDecl(u.Elem, cls+"::*"+decl, base == nil)
			t = u.Elem
			continue
		case *QualType:
			switch StripTypedefs(u.Elem).(type) {
			case *PointerType, *ReferenceType, *PtrToMemberType:
				if _, isTD := u.Elem.(*TypedefType); !isTD {
					d := " " + u.Qual
					if decl != "" {
						if c := decl[0]; c == '*' || c == '_' || unicode.IsLetter(rune(c)) {
							// a pointer, or the declared name: "Arena * const arena_";
							// a reference follows at once, as GDB prints it: "char * const&"
							d += " " + decl
						} else {
							d += decl
						}
					}
					decl = d
					t = u.Elem
					continue
				}
			}
			// collect a run of qualifiers and print them in GDB's order
			quals := []string{u.Qual}
			inner := u.Elem
			for {
				q, ok := inner.(*QualType)
				if !ok {
					break
				}
				if _, isPtr := StripTypedefs(q.Elem).(*PointerType); isPtr {
					break
				}
				quals = append(quals, q.Qual)
				inner = q.Elem
			}
			if a, ok := inner.(*ArrayType); ok {
				// A qualified array is an array of qualified elements
				// (C11 6.7.3p9): GCC's const char[8] __PRETTY_FUNCTION__
				// is const(array(const char)), which GDB prints
				// "const char [8]".
				return tf.declStringNames(qualifyElems(a, quals), decl, base, names)
			}
			in := tf
			in.inner = true
			return orderQuals(quals) + " " + in.declStringNames(inner, decl, base, names)
		case *ArrayType:
			n := ""
			switch {
			case u.Count >= 0:
				n = strconv.FormatInt(u.Count, 10)
			case u.bound != nil:
				n = "variable length" // GDB's dynamic bound, unresolved
			}
			decl += "[" + n + "]"
			t = u.Elem
			continue
		case *FuncType:
			if u.Name != "" && base == nil {
				// a code symbol without debug information (NoDebugFunc),
				// which whatis names and ptype spells
				return u.Name + spaced(decl)
			}
			decl += "(" + tf.paramListWith(u, names) + ")"
			t = u.Return
			continue
		default:
			b := ""
			if base != nil {
				b = base(tf, t)
			}
			switch {
			case b != "":
			case tf.printers:
				b = tf.named(t)
			default:
				b = tf.baseName(t)
			}
			return b + spaced(decl)
		}
	}
	return "?"
}

// qualifyElems is array a with quals applied to its innermost element
// type (the ones it has already are not repeated).
func qualifyElems(a *ArrayType, quals []string) Type {
	c := *a
	if inner, ok := a.Elem.(*ArrayType); ok {
		c.Elem = qualifyElems(inner, quals)
		return &c
	}
	var have []string
	for e := a.Elem; ; {
		q, ok := e.(*QualType)
		if !ok {
			break
		}
		have, e = append(have, q.Qual), q.Elem
	}
	c.Elem = a.Elem
	for _, q := range quals {
		if !slicesContains(have, q) {
			c.Elem = &QualType{Qual: q, Elem: c.Elem}
		}
	}
	return &c
}

var qualRank = map[string]int{"const": 0, "volatile": 1, "restrict": 2, "_Atomic": 3}

func orderQuals(q []string) string {
	out := make([]string, 0, len(q))
	for r := 0; r < 4; r++ {
		for _, x := range q {
			if qualRank[x] == r && !slicesContains(out, x) {
				out = append(out, x)
			}
		}
	}
	return strings.Join(out, " ")
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func spaced(decl string) string {
	if decl == "" {
		return ""
	}
	if decl[0] == ' ' {
		return decl
	}
	return " " + decl
}

// wrapDecl parenthesises a pointer declarator whose element is an array or
// a function: int (*)[10], int (*)(int).
func wrapDecl(elem Type, decl string, whatis bool) string {
	for {
		q, ok := elem.(*QualType) // a pointer to a const array
		if !ok {
			break
		}
		elem = q.Elem
	}
	switch e := elem.(type) {
	case *FuncType:
		if whatis && e.Name != "" {
			return decl // spelled by its name (NoDebugFunc)
		}
		return "(" + decl + ")"
	case *ArrayType:
		return "(" + decl + ")"
	}
	return decl
}

// paramListWith spells parameters with base spelling the named types.
func (tf typeFmt) paramListWith(f *FuncType, base typeHook) string {
	if len(f.Params) == 0 {
		if f.Variadic {
			return "..."
		}
		if !f.Prototyped {
			return ""
		}
		return "void"
	}
	ps := make([]string, 0, len(f.Params)+1)
	for _, p := range f.Params {
		ps = append(ps, tf.declString(p, "", base))
	}
	if f.Variadic {
		ps = append(ps, "...")
	}
	return strings.Join(ps, ", ")
}

// PtypeString spells t as GDB's ptype does: like whatis, but typedefs on
// the way to the innermost type are resolved and a struct, union or enum
// there is printed with its members. The result does not include the
// leading "type = ".
//
// In C++, libstdc++'s type printers apply (stdtypes.go): a type they
// name prints by that name alone (ptype of a std::vector<int> is
// "std::vector<int>"), and the names inside by theirs.
//
// types are the program's (nil: the typedef printers print nothing).
func PtypeString(t Type, types *TypeReader, n Naming) string {
	if t != nil && t.Common().Lang == LangRust {
		return rustPtype(StripTypedefs(t))
	}
	tf := typeFmt{naming: n, printers: t != nil && t.Common().Lang == LangCPlusPlus, types: types}
	if n, ok := tf.whole(StripTypedefs(t)); ok {
		return n
	}
	return tf.declStringNames(stripDeclTypedefs(t), "", func(_ typeFmt, b Type) string {
		return tf.typeBody(StripTypedefs(b), 0)
	}, nil)
}

// WhatisString spells the type of an expression as GDB's whatis does:
// as TypeString, with libstdc++'s type printers in C++.
func WhatisString(t Type, types *TypeReader, n Naming) string {
	if t == nil || t.Common().Lang != LangCPlusPlus {
		return TypeStringIn(t, n)
	}
	tf := typeFmt{naming: n, printers: true, types: types}
	if n, ok := tf.whole(t); ok {
		return n
	}
	return tf.declString(t, "", nil)
}

// rustPtype spells a Rust type as GDB's Rust ptype does: an enum with its
// variants, a struct with its fields (name: type), a tuple struct with
// its fields' types, others as whatis.
func rustPtype(t Type) string {
	if at, ok := t.(*ArrayType); ok && at.Name == "&str" {
		// a string literal's (its bytes the debugger's): &str's layout
		return "struct &str {\n  data_ptr: *mut u8,\n  length: usize,\n}"
	}
	if et, ok := t.(*EnumType); ok {
		// a fieldless enum (rustc's DW_TAG_enumeration_type): its
		// variants, each less its type's name (rust_print_type)
		var b strings.Builder
		b.WriteString("enum ")
		if et.Name != "" {
			b.WriteString(et.Name + " ")
		}
		b.WriteString("{\n")
		for _, v := range et.Values {
			name := v.Name
			if et.Name != "" {
				name = strings.TrimPrefix(name, et.Name+"::")
			}
			b.WriteString("  " + name + ",\n")
		}
		b.WriteString("}")
		return b.String()
	}
	st, ok := t.(*StructType)
	if !ok || st.Incomplete || strings.HasPrefix(st.Name, "(") {
		return rustTypeString(t, 0)
	}
	var b strings.Builder
	if st.Variants != nil {
		b.WriteString("enum " + st.Name + " {\n")
		for _, v := range st.Variants.Variants {
			name := v.Name
			if vt, ok := Resolve(v.Type).(*StructType); ok {
				b.WriteString("  " + name + rustFieldList(vt, "", ", ") + ",\n")
				continue
			}
			b.WriteString("  " + name + ",\n")
		}
		b.WriteString("}")
		return b.String()
	}
	if len(st.Fields) == 0 {
		return "struct " + st.Name
	}
	return "struct " + st.Name + " " + rustFieldList(st, "\n  ", ",")
}

// rustFieldList is a struct's fields in Rust syntax: {a: T, b: U}, or
// (T, U) for a tuple's, each after lead and followed by sep; "" for none.
func rustFieldList(st *StructType, lead, sep string) string {
	if len(st.Fields) == 0 {
		return ""
	}
	tuple := true
	for i, f := range st.Fields {
		tuple = tuple && f.Name == "__"+strconv.Itoa(i)
	}
	var b strings.Builder
	open, close := "{", "}"
	if tuple {
		open, close = "(", ")"
	}
	b.WriteString(open)
	for i, f := range st.Fields {
		b.WriteString(lead)
		if !tuple {
			b.WriteString(f.Name + ": ")
		}
		b.WriteString(rustTypeString(f.Type, 0))
		if i < len(st.Fields)-1 || lead != "" {
			b.WriteString(sep)
		}
	}
	if lead != "" {
		b.WriteString("\n")
	}
	b.WriteString(close)
	return b.String()
}

// stripDeclTypedefs resolves the typedefs that a declarator walks
// through, so that "ptype binop" prints int (*)(int, int). It goes
// maxTypeDepth declarators deep, as declString does: a cyclic type (a
// pointer to itself, in malformed DWARF) ends there.
func stripDeclTypedefs(t Type) Type { return stripDeclTypedefsDepth(t, 0) }

func stripDeclTypedefsDepth(t Type, depth int) Type {
	t = StripTypedefs(t)
	if depth >= maxTypeDepth {
		return t
	}
	switch u := t.(type) {
	case *PointerType:
		c := *u
		c.Elem = stripDeclTypedefsDepth(u.Elem, depth+1)
		return &c
	case *ArrayType:
		c := *u
		c.Elem = stripDeclTypedefsDepth(u.Elem, depth+1)
		return &c
	case *QualType:
		c := *u
		c.Elem = stripDeclTypedefsDepth(u.Elem, depth+1)
		return &c
	case *ReferenceType:
		c := *u
		c.Elem = stripDeclTypedefsDepth(u.Elem, depth+1)
		return &c
	}
	return t
}

// typeBody prints a struct/union/enum with its members.
func (tf typeFmt) typeBody(t Type, indent int) string {
	switch u := t.(type) {
	case *StructType:
		return tf.structBody(u.complete(), indent, 1)
	case *EnumType:
		return enumBody(u)
	}
	return tf.baseName(t)
}

func enumBody(t *EnumType) string {
	var b strings.Builder
	b.WriteString("enum ")
	if t.Scoped {
		b.WriteString("class ")
	}
	if t.Name != "" {
		b.WriteString(t.Name + " ")
	}
	if t.Underlying != nil && t.Lang == LangCPlusPlus { // GDB: C++ only
		// GDB's check_typedef: std::uint8_t prints as unsigned char
		b.WriteString(": " + TypeString(StripTypedefs(t.Underlying)) + " ")
	}
	b.WriteString("{")
	next := int64(0)
	for i, v := range t.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.qualName(v.Name)) // (its own: two may have one value)
		if v.Val != next {
			b.WriteString(" = " + strconv.FormatInt(v.Val, 10))
		}
		next = v.Val + 1
	}
	b.WriteString("}")
	return b.String()
}

// structBody prints a struct at GDB's show level (ptype's type is at 1,
// its members at 0): a member of an anonymous struct or union type is
// expanded while show is not negative, else written "struct {...}", as
// GDB's c_type_print_base does.
func (tf typeFmt) structBody(t *StructType, indent, show int) string {
	var b strings.Builder
	pad := strings.Repeat("    ", indent)
	b.WriteString(t.Kind)
	if t.Name != "" && tf.printers {
		b.WriteString(" " + tf.stdNames(t.Name))
	} else if t.Name != "" {
		b.WriteString(" " + t.Name)
	}
	sub, with := tf.templateSubst(t)
	if sub == nil && t.Name == "" {
		sub = tf.outerSub // an anonymous member of a class template: its parameters' names
	}
	b.WriteString(with)
	for i, base := range t.Bases {
		if i == 0 {
			b.WriteString(" : ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(base.Access + " ")
		if base.Virtual {
			b.WriteString("virtual ")
		}
		b.WriteString(tf.declString(base.Type, "", sub))
	}
	if t.Incomplete {
		b.WriteString(" {\n" + pad + "    <incomplete type>\n" + pad + "}")
		return b.String()
	}
	b.WriteString(" {\n")
	cxx := t.Lang == LangCPlusPlus
	labels := cxx && t.Kind == "class"
	for _, f := range t.Fields {
		if f.Artificial || f.Access != "public" {
			labels = labels || cxx
		}
	}
	// GDB's need_access_label_p counts methods and nested typedefs too.
	for _, m := range t.Methods() {
		labels = labels || cxx && !m.Artificial && m.Access != "public"
	}
	for _, td := range t.Typedefs() {
		labels = labels || cxx && td.Access != "public"
	}
	section := ""
	label := func(acc string) {
		if acc != section {
			b.WriteString(pad + "  " + acc + ":\n")
			section = acc
		}
	}
	nfields := 0
	for _, mem := range t.Members() {
		if s := mem.Static; s != nil {
			if labels {
				label(s.Access)
			}
			nfields++
			b.WriteString(pad + "    static " + tf.declString(s.Type, s.Name, sub) + ";\n")
			continue
		}
		f := *mem.Field
		if f.Artificial && strings.HasPrefix(f.Name, "_vptr") {
			continue
		}
		if labels {
			label(f.Access)
		}
		nfields++
		b.WriteString(pad + "    ")
		b.WriteString(tf.declString(f.Type, f.Name, tf.anonBodies(sub, indent, show)))
		if f.BitSize != 0 {
			b.WriteString(" : " + strconv.FormatInt(f.BitSize, 10))
		}
		b.WriteString(";\n")
	}
	first := true
	for _, m := range groupOverloads(t.Methods()) {
		if m.Artificial || m.Type == nil {
			continue
		}
		if first && nfields > 0 && section != "" {
			b.WriteString("\n")
		}
		first = false
		label(m.Access)
		b.WriteString(pad + "    " + tf.methodString(t, m, sub) + ";\n")
	}
	if tds := t.Typedefs(); len(tds) > 0 && cxx {
		b.WriteString("\n")
		for _, td := range tds {
			name := td.Name
			if _, inner, ok := splitScope(name); ok {
				name = inner
			}
			if labels {
				label(td.Access)
			}
			line := tf
			line.typedefLine = true
			b.WriteString(pad + "    typedef " + line.declString(td.Elem, name, sub) + ";\n")
		}
	}
	b.WriteString(pad + "}")
	return b.String()
}

// anonBodies is the hook a ptype body's member is spelled with: an
// anonymous struct, union or enum its type names (itself, or through
// arrays, pointers, qualifiers: struct {...} items[2]) prints its body
// at show, as GDB's c_type_print_base prints a type without a name
// whatever show is but below 0 ("struct {...}"), with the template
// parameters' names of the class around it (sub); named types go to sub.
func (tf typeFmt) anonBodies(sub typeHook, indent, show int) typeHook {
	return func(at typeFmt, t Type) string {
		switch u := t.(type) {
		case *StructType:
			if u.Name == "" {
				if show <= 0 {
					return u.Kind + " {...}"
				}
				in := tf
				in.outerSub = sub
				return in.structBody(u, indent+1, show-1)
			}
		case *EnumType:
			if u.Name == "" && show > 0 {
				return enumBody(u)
			}
		}
		if sub != nil {
			return sub(at, t)
		}
		return ""
	}
}

// groupOverloads orders methods as GDB lists them: all overloads of a
// name together, names in order of first appearance.
func groupOverloads(ms []Method) []Method {
	idx := map[string]int{}
	var groups [][]Method
	for _, m := range ms {
		i, ok := idx[m.Name]
		if !ok {
			i = len(groups)
			idx[m.Name] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], m)
	}
	out := make([]Method, 0, len(ms))
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func (tf typeFmt) methodString(t *StructType, m Method, sub typeHook) string {
	var b strings.Builder
	if m.Virtual {
		b.WriteString("virtual ")
	}
	if m.Static {
		b.WriteString("static ")
	}
	short := t.Name
	if j := strings.IndexByte(short, '<'); j >= 0 {
		short = short[:j]
	}
	if _, inner, ok := splitScope(short); ok {
		short = inner
	}
	params := "(" + tf.paramListWith(m.Type, sub) + ")"
	if params == "(void)" && tf.naming.keyword(LangCPlusPlus) {
		params = "()" // GDB's cp_type_print_method_args: "void" in C++ only
	}
	// GDB's c_type_print_base: a constructor is named as the class (Box,
	// holder in holder<int>; clang's holder<int> too), a destructor starts
	// with ~; a constructor template's instance (Box<char>) is neither and
	// gets its return type, void. Template arguments in the name are
	// canonicalized, as GDB reads them (set<long>, not DWARF's set<long
	// int>).
	name := canonicalCxxName(m.Name)
	isCtor := m.Name == short || m.Name == t.Name || strings.HasPrefix(m.Name, "~")
	if isCtor || strings.HasPrefix(m.Name, "operator ") { // constructors and conversion operators
		b.WriteString(name + params)
	} else {
		// GDB: the return type, a space, then the name
		b.WriteString(tf.declString(m.Type.Return, "", sub) + " " + name + params)
	}
	if m.Const {
		b.WriteString(" const")
	}
	return b.String()
}

// templateSubst returns how ptype spells named types inside a class
// template instance: GDB writes the template parameter's name for every
// type equal to a type argument ("T data[4]" in Buffer<int, 4>, also
// inside template-ids: "std::__pair_base<_T1, _T2>"), and the header
// suffix " [with T = int]". sub is nil for non-templates.
func (tf typeFmt) templateSubst(t *StructType) (sub typeHook, with string) {
	var names, args, shown []string
	for _, p := range t.TemplateParams {
		if p.Type != nil && !p.HasValue && p.Name != "" {
			names = append(names, p.Name)
			// GDB's typedef table matches a type by name, its const and
			// volatile aside (types_equal): _Type = const int stands for
			// every int, whose qualifiers print around it (std::span<int
			// const> in span<const int> is std::span<_Type const>)
			u := p.Type
			for {
				q, ok := u.(*QualType)
				if !ok {
					break
				}
				u = q.Elem
			}
			args = append(args, TypeString(u))
			shown = append(shown, tf.typeName(p.Type))
		}
	}
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = names[i] + " = " + shown[i]
	}
	self := t.Name + "::"
	var subst func(s string, depth int) string
	subst = func(s string, depth int) string {
		for i, a := range args {
			if s == a {
				return names[i]
			}
		}
		if depth > 16 {
			return s
		}
		// a component under const, volatile, a pointer or a reference
		// (GDB's replace_typedefs walks into them: Pair<int const, long>
		// in Pair<T, U> is Pair<T const, U>)
		for _, suf := range []string{" const", " volatile", "*", "&&", "&"} {
			if base, ok := strings.CutSuffix(s, suf); ok && strings.TrimSpace(base) != "" {
				b := strings.TrimSpace(base)
				if r := subst(b, depth+1); r != b {
					return r + suf
				}
			}
		}
		return substTemplateIDs(s, func(a string) string { return subst(a, depth+1) })
	}
	if t.Name == "" {
		return nil, ""
	}
	with = ""
	if len(names) > 0 {
		with = " [with " + strings.Join(parts, ", ") + "]"
	}
	return func(at typeFmt, b Type) string {
		switch b.(type) {
		case *PointerType, *QualType, *ReferenceType, *ArrayType, *PtrToMemberType:
			// a whole declarator type: its parameter's name, or "" (none)
			s := TypeString(b)
			for i, a := range args {
				if s == a {
					return names[i]
				}
			}
			return ""
		}
		// typedefs declared in the class itself print unqualified
		if td, ok := b.(*TypedefType); ok && strings.HasPrefix(td.Name, self) && !strings.Contains(td.Name[len(self):], "::") {
			if at.typedefLine {
				return subst(td.Name, 0) // (its components by parameter name)
			}
			return td.Name[len(self):]
		}
		if !tf.printers {
			return subst(at.baseName(b), 0)
		}
		// GDB's typedef lookup: a type argument's name first, on the
		// whole type and on the template-ids in its name; where
		// none is, "": the type printers then apply as to any named
		// type (typeFmt.named).
		n := subst(at.baseName(b), 0)
		if slices.Contains(names, n) {
			return n
		}
		if !at.inner {
			if w, ok := tf.whole(b); ok {
				return w
			}
		} else if w := tf.stdNames(baseName(b)); w != baseName(b) {
			// the printers see the name before its components are
			// rewritten (GDB's find_global_typedef comes before
			// print_name_maybe_canonical): unique_ptr(std::unique_ptr<Shape> &&)
			return w
		}
		if n == at.baseName(b) {
			return ""
		}
		return tf.stdNames(n)
	}, with
}

// typeName spells t as a whole (whatis), the printers applied.
func (tf typeFmt) typeName(t Type) string {
	if n, ok := tf.whole(t); ok {
		return n
	}
	return tf.declString(t, "", nil)
}

// substTemplateIDs rewrites every template argument of every component
// of a qualified name with f ("a<X>::b<Y>::c").
func substTemplateIDs(s string, f func(string) string) string {
	var out strings.Builder
	depth, start := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if depth == 0 {
				out.WriteByte('<')
				start = i + 1
			}
			depth++
		case '>':
			depth--
			if depth == 0 && start >= 0 {
				args := SplitTopLevel(s[start:i])
				for k := range args {
					args[k] = f(strings.TrimSpace(args[k]))
				}
				inner := strings.Join(args, ", ")
				out.WriteString(inner)
				if strings.HasSuffix(inner, ">") {
					out.WriteByte(' ')
				}
				out.WriteByte('>')
				start = -1
			}
		default:
			if depth == 0 {
				out.WriteByte(s[i])
			}
		}
	}
	if depth != 0 {
		return s
	}
	return out.String()
}

// WhatisTypeName is what GDB's whatis prints when given a type name
// rather than an expression: a typedef is unrolled by one level
// ("whatis node_t" prints "struct node"); other types print as String.
func WhatisTypeName(t Type, types *TypeReader, n Naming) string {
	if td, ok := t.(*TypedefType); ok && td.Elem != nil {
		return WhatisString(td.Elem, types, n)
	}
	return WhatisString(t, types, n)
}

// MembersHint says what the struct has, or that only its declaration is
// known, for the evaluator's "There is no member named x." error.
func (st *StructType) MembersHint() string {
	if st.Incomplete {
		return fmt.Sprintf(" (%s is only declared, and no compile unit of the program defines it: was the file that defines it built without -g?)", TypeString(st))
	}
	var names []string
	for _, m := range st.Members() {
		switch {
		case m.Field != nil && m.Field.Name != "":
			names = append(names, m.Field.Name)
		case m.Static != nil:
			names = append(names, m.Static.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf(" (%s has no data members)", TypeString(st))
	}
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return fmt.Sprintf(" (%s has: %s)", TypeString(st), strings.Join(names, ", "))
}
