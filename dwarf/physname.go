package dwarf

import (
	stddwarf "debug/dwarf"
	"strings"
)

// GDB names a C++ function in a backtrace by its "physname" less the
// parameters (find_frame_funname's cp_remove_params). Without a linkage
// name (a template instance over a lambda of a function that is no
// template, whose symbol is local) the physname is the qualified DWARF
// name with the parameter types appended (dwarf2_compute_name); where
// GDB's own C++ name parser cannot read that name (a lambda, an unnamed
// type, an ABI tag), removing the parameters fails and GDB shows the
// physname whole, as written: std::sort<…, main()::<lambda(int, int)> >
// (__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, …).

// gdbParses approximates whether GDB's C++ name parser (cp-name-parser.y)
// reads name: it has no lambda ("<lambda(int)>"), no braces ("{unnamed
// type#1}", "struct {...}") and no ABI tag ("[abi:cxx11]").
func gdbParses(name string) bool {
	return !strings.Contains(name, "<lambda") && !strings.ContainsAny(name, "{}") && !strings.Contains(name, "[abi:")
}

// functionTypeArg reports whether a template argument list in name holds
// a function type (which GDB's name parser cannot read): a "(" inside <…> right after a type's name (int(int),
// void (double, char)), not a pointer's or reference's declarator
// ("(*", "(&") nor a parenthesized name after "<" or "," ("(anonymous
// namespace)").
func functionTypeArg(name string) bool {
	depth := 0
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '<':
			depth++
		case '>':
			depth--
		case '(':
			if depth <= 0 {
				continue
			}
			prev := strings.TrimRight(name[:i], " ")
			if prev == "" {
				continue
			}
			next := strings.TrimLeft(name[i+1:], " ")
			c := prev[len(prev)-1]
			if (c == '_' || c == '>' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') &&
				!strings.HasPrefix(next, "*") && !strings.HasPrefix(next, "&") {
				return true
			}
		}
	}
	return false
}

// PhysName is the name GDB shows for f where it differs from f.Name: a
// C++ function without a linkage name whose name GDB cannot parse, shown
// with its parameter types, which types reads; ok is false elsewhere.
// types is called only then: every stop and frame asks, and most
// images need no type reader for it.
func (f *Function) PhysName(types func() *TypeReader) (name string, ok bool) {
	if f.LinkageName != "" || f.cu == nil || !f.cu.isCPlusPlus() || f.dwarfName == "" || gdbParses(f.dwarfName) {
		return "", false
	}
	tr := types()
	if tr == nil {
		return "", false
	}
	args, err := tr.physnameArgs(f.Offset)
	if err != nil {
		return "", false
	}
	return f.dwarfName + args, true
}

// physnameArgs is the parameter list GDB's dwarf2_compute_name appends
// to a C++ function's name (c_type_print_args with linkage_name: the
// artificial this left out, top-level const and volatile dropped,
// "(void)" for none), then " const" for a method whose this points to
// const.
func (r *TypeReader) physnameArgs(off stddwarf.Offset) (string, error) {
	all, err := r.funcTypeOf(off, false)
	if err != nil {
		return "", err
	}
	ft, err := r.funcTypeOf(off, true)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range ft.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		for {
			q, ok := p.(*QualType)
			if !ok || (q.Qual != "const" && q.Qual != "volatile") {
				break
			}
			p = q.Elem
		}
		b.WriteString(TypeString(p))
	}
	if ft.Variadic && len(ft.Params) > 0 {
		b.WriteString(", ...")
	} else if len(ft.Params) == 0 {
		b.WriteString("void")
	}
	b.WriteByte(')')
	if len(all.Params) > len(ft.Params) {
		// this: a const pointer (readFunc) to what may be const
		if q, ok := all.Params[0].(*QualType); ok {
			if pt, ok := q.Elem.(*PointerType); ok && isConst(pt.Elem) {
				b.WriteString(" const")
			}
		}
	}
	return b.String(), nil
}
