package cexpr

// Names returns the names e uses as variables, in the order they appear:
// identifiers, and "this" (explicit or not). Member names, type names
// and registers are not variables.
func Names(e Expr) []string {
	var out []string
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Ident:
			out = append(out, e.Name)
		case *This:
			out = append(out, "this")
		case *Unary:
			walk(e.X)
		case *Binary:
			walk(e.X)
			walk(e.Y)
		case *Conditional:
			walk(e.C)
			walk(e.X)
			walk(e.Y)
		case *Member:
			walk(e.X)
		case *Index:
			walk(e.X)
			walk(e.Sub)
		case *ArrayLit:
			for _, x := range e.Elems {
				walk(x)
			}
			if e.Repeat != nil {
				walk(e.Repeat)
			}
		case *Range:
			if e.Lo != nil {
				walk(e.Lo)
			}
			if e.Hi != nil {
				walk(e.Hi)
			}
		case *Call:
			walk(e.Fn)
			for _, a := range e.Args {
				walk(a)
			}
		case *Cast:
			walk(e.X)
		case *Sizeof:
			if e.X != nil {
				walk(e.X)
			}
		}
	}
	walk(e)
	return out
}

// Dollars returns what follows each "$" token of src, in order: "" for
// $, "$" for $$, "3" for $3, "$2" for $$2, "_exitcode" or "rip" for a
// convenience variable or register. A "$" in a string or character
// literal is none. Text that does not lex has none.
func Dollars(src string) []string {
	toks, err := lex(src)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range toks {
		if t.kind == tDollar {
			out = append(out, t.s)
		}
	}
	return out
}
