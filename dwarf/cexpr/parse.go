package cexpr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// ErrUnsupported is returned (wrapped with what was not supported, e.g.
// "assignment") for valid C/C++ that the parser accepts but no evaluator
// handles; callers may hand such expressions to GDB instead. It is
// errkind.UnsupportedExpr.
var ErrUnsupported = errkind.UnsupportedExpr

// SyntaxError is a parse error at byte offset Pos of the expression.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at offset %d: %s", e.Pos, e.Msg)
}

func unsupported(what string) error { return fmt.Errorf("%w: %s", ErrUnsupported, what) }

// Expr is a parsed C/C++ expression.
type Expr interface{ Pos() int }

type (
	Ident struct {
		At   int
		Name string
	} // may be qualified: "geo::Shape::count_", "::g"
	IntLit struct {
		At       int
		Val      uint64
		Unsigned bool
		Long     int
	}
	FloatLit struct {
		At    int
		Val   float64
		Float bool
	}
	CharLit struct {
		At     int
		Val    int64
		Prefix string
	}
	StringLit struct {
		At     int
		Val    []uint64
		Prefix string
	}
	Register struct {
		At   int
		Name string
	}
	Unary struct {
		At int
		Op string
		X  Expr
	}
	Binary struct {
		At   int
		Op   string
		X, Y Expr
	}
	Conditional struct {
		At      int
		C, X, Y Expr
	}
	Member struct {
		At    int
		X     Expr
		Name  string
		Arrow bool
	}
	Index struct {
		At     int
		X, Sub Expr
	}
	// Range is Rust's range lo..hi, lo..=hi (Inclusive), ..hi, lo.. or
	// .. (Lo, Hi nil where left out), read as the subscript of an Index:
	// &a[1..3] is a slice of a.
	Range struct {
		At        int
		Lo, Hi    Expr
		Inclusive bool
	}
	// ArrayLit is Rust's array expression: [a, b, c], or [v; N] (Elems
	// holds v, Repeat N).
	ArrayLit struct {
		At     int
		Elems  []Expr
		Repeat Expr
	}
	Call struct {
		At   int
		Fn   Expr
		Args []Expr
	}
	Cast struct {
		At   int
		Type *TypeSpec
		X    Expr
		// Dynamic: dynamic_cast, which checks the object's dynamic
		// type (its vtable) at run time.
		Dynamic bool
	}
	Sizeof struct {
		At   int
		Type *TypeSpec
		X    Expr
	}
	This     struct{ At int }
	ConvFunc struct {
		At   int
		Name string // "_streq", "_strlen", "_memeq", "_regex"
	} // a GDB convenience function, only valid as a callee
	// Assign is an assignment to a convenience variable: $name = Y, or
	// $name op= Y (Op is "=", "+=", ...). An assignment to anything else
	// parses as Unsupported.
	Assign struct {
		At int
		Op string
		X  *Register
		Y  Expr
	}
	// History is a value of GDB's value history: $N (the Nth, Rel
	// false), $ (the last), $$ (the one before it) and $$N (N before
	// the last), Rel true.
	History struct {
		At  int
		Rel bool
		N   int
	}
	Unsupported struct {
		At   int
		What string
	} // parsed but not evaluable
)

// TypeSpec is a type name in a cast or sizeof: a base name and
// declarator operators applied left to right ("*", "&", "&&", "const",
// "[N]").
type TypeSpec struct {
	Base string
	Ops  []string
}

func (t *TypeSpec) String() string {
	s := t.Base
	for _, o := range t.Ops {
		s += " " + o
	}
	return s
}

func (e *Range) Pos() int       { return e.At }
func (e *ArrayLit) Pos() int    { return e.At }
func (e *Ident) Pos() int       { return e.At }
func (e *IntLit) Pos() int      { return e.At }
func (e *FloatLit) Pos() int    { return e.At }
func (e *CharLit) Pos() int     { return e.At }
func (e *StringLit) Pos() int   { return e.At }
func (e *Register) Pos() int    { return e.At }
func (e *History) Pos() int     { return e.At }
func (e *Assign) Pos() int      { return e.At }
func (e *Unary) Pos() int       { return e.At }
func (e *Binary) Pos() int      { return e.At }
func (e *Conditional) Pos() int { return e.At }
func (e *Member) Pos() int      { return e.At }
func (e *Index) Pos() int       { return e.At }
func (e *Call) Pos() int        { return e.At }
func (e *Cast) Pos() int        { return e.At }
func (e *Sizeof) Pos() int      { return e.At }
func (e *This) Pos() int        { return e.At }
func (e *Unsupported) Pos() int { return e.At }
func (e *ConvFunc) Pos() int    { return e.At }

type parser struct {
	toks   []token
	i      int
	isType func(string) bool
	depth  int
}

// maxExprDepth bounds parser recursion.
const maxExprDepth = 200

// Parse parses a C/C++ expression. isType, when not nil, says whether an
// identifier (possibly qualified) names a type, which decides whether
// "(x) y" is a cast. Errors are *SyntaxError.
func Parse(src string, isType func(name string) bool) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, isType: isType}
	e, err := p.comma()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %q", t.s)}
	}
	return e, nil
}

// ParseType parses src as a type name alone ("unsigned long long",
// "struct node *", "const char[4]"), as ptype and whatis take one; isType
// is Parse's.
func ParseType(src string, isType func(name string) bool) (*TypeSpec, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, isType: isType}
	ts, err := p.typeName()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %q", t.s)}
	}
	return ts, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}
func (p *parser) is(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.s == s
}
func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.next()
		return true
	}
	return false
}
func (p *parser) expect(s string) error {
	if !p.accept(s) {
		t := p.peek()
		if t.kind == tEOF {
			return &SyntaxError{t.pos, fmt.Sprintf("expected %q at end of expression", s)}
		}
		return &SyntaxError{t.pos, fmt.Sprintf("expected %q, found %q", s, t.s)}
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxExprDepth {
		return &SyntaxError{p.peek().pos, "expression nested too deeply"}
	}
	return nil
}

// closedBy runs parse and then expects the token close after what it
// parsed: "(x)", "a[i]", "c ? x :", "static_cast<T>".
func closedBy[T any](p *parser, parse func() (T, error), close string) (T, error) {
	x, err := parse()
	if err != nil {
		var zero T
		return zero, err
	}
	if err := p.expect(close); err != nil {
		var zero T
		return zero, err
	}
	return x, nil
}

// subscript reads what is between an index's brackets: an expression,
// or Rust's range (lo..hi, lo..=hi, ..hi, lo.., ..).
func (p *parser) subscript() (Expr, error) {
	at := p.peek().pos
	var lo Expr
	if !p.is("..") && !p.is("..=") {
		x, err := p.comma()
		if err != nil || !p.is("..") && !p.is("..=") {
			return x, err
		}
		lo = x
	}
	r := &Range{At: at, Lo: lo, Inclusive: p.next().s == "..="}
	if !p.is("]") {
		hi, err := p.assign()
		if err != nil {
			return nil, err
		}
		r.Hi = hi
	} else if r.Inclusive {
		return nil, &SyntaxError{p.peek().pos, "an inclusive range needs its end"}
	}
	return r, nil
}

func (p *parser) comma() (Expr, error) {
	x, err := p.assign()
	if err != nil {
		return nil, err
	}
	for p.is(",") {
		t := p.next()
		y, err := p.assign()
		if err != nil {
			return nil, err
		}
		x = &Binary{t.pos, ",", x, y}
	}
	return x, nil
}

var assignOps = map[string]bool{"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true,
	"<<=": true, ">>=": true, "&=": true, "|=": true, "^=": true}

func (p *parser) assign() (Expr, error) {
	x, err := p.cond()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tPunct && assignOps[t.s] {
		p.next()
		y, err := p.assign()
		if err != nil {
			return nil, err
		}
		if r, ok := x.(*Register); ok {
			return &Assign{t.pos, t.s, r, y}, nil
		}
		return &Unsupported{t.pos, "assignment"}, nil
	}
	return x, nil
}

func (p *parser) cond() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	c, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if !p.is("?") {
		return c, nil
	}
	t := p.next()
	x, err := closedBy(p, p.comma, ":")
	if err != nil {
		return nil, err
	}
	y, err := p.cond()
	if err != nil {
		return nil, err
	}
	return &Conditional{t.pos, c, x, y}, nil
}

// binary operator precedence, lowest first (GDB's c-exp.y order).
var binPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "@": 9,
	"+": 10, "-": 10, "*": 11, "/": 11, "%": 11, ".*": 12, "->*": 12,
}

// rustType reads the type of a Rust cast: a path (u8, std::ffi::c_int),
// after *const or *mut for a raw pointer. A * after it multiplies, as in
// Rust: x as u32 * 2.
func (p *parser) rustType() (*TypeSpec, error) {
	ptrs := 0
	for p.is("*") && p.toks[p.i+1].kind == tIdent && (p.toks[p.i+1].s == "const" || p.toks[p.i+1].s == "mut") {
		p.i += 2
		ptrs++
	}
	t := p.peek()
	if t.kind != tIdent {
		return nil, &SyntaxError{t.pos, "expected a type after as"}
	}
	name, j := p.qualifiedAt(p.i)
	p.i = j
	ts := &TypeSpec{Base: name}
	for range ptrs {
		ts.Ops = append(ts.Ops, "*")
	}
	return ts, nil
}

func (p *parser) binary(minPrec int) (Expr, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t.kind == tIdent && t.s == "as"; t = p.peek() {
		// Rust's cast, tighter than * and looser than unary operators
		// (no C operand is followed by a name)
		p.next()
		ts, err := p.rustType()
		if err != nil {
			return nil, err
		}
		x = &Cast{At: t.pos, Type: ts, X: x}
	}
	for {
		t := p.peek()
		prec, ok := binPrec[t.s]
		if t.kind != tPunct || !ok || prec <= minPrec {
			return x, nil
		}
		p.next()
		y, err := p.binary(prec)
		if err != nil {
			return nil, err
		}
		if t.s == ".*" || t.s == "->*" {
			x = &Unsupported{t.pos, "pointer-to-member operators"}
			continue
		}
		x = &Binary{t.pos, t.s, x, y}
	}
}

func (p *parser) unary() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t := p.peek()
	if t.kind == tPunct {
		switch t.s {
		case "-", "+", "!", "~", "*", "&":
			p.next()
			x, err := p.unary()
			if err != nil {
				return nil, err
			}
			return &Unary{t.pos, t.s, x}, nil
		case "++", "--":
			p.next()
			if _, err := p.unary(); err != nil {
				return nil, err
			}
			return &Unsupported{t.pos, "increment and decrement"}, nil
		case "(":
			if p.startsType(p.i + 1) {
				p.next()
				ts, err := closedBy(p, p.typeName, ")")
				if err != nil {
					return nil, err
				}
				x, err := p.unary()
				if err != nil {
					return nil, err
				}
				return &Cast{At: t.pos, Type: ts, X: x}, nil
			}
		}
	}
	if t.kind == tIdent {
		switch t.s {
		case "sizeof", "alignof", "_Alignof":
			p.next()
			var ts *TypeSpec
			var x Expr
			var err error
			if p.is("(") && p.startsType(p.i+1) {
				p.next()
				ts, err = closedBy(p, p.typeName, ")")
			} else {
				x, err = p.unary()
			}
			if err != nil {
				return nil, err
			}
			if t.s != "sizeof" {
				return &Unsupported{t.pos, "alignof"}, nil
			}
			return &Sizeof{t.pos, ts, x}, nil
		case "new", "delete", "throw":
			return nil, unsupportedSyntax(t, p)
		}
	}
	return p.postfix()
}

// unsupportedSyntax consumes the rest and reports an unsupported
// construct.
func unsupportedSyntax(t token, p *parser) error {
	p.i = len(p.toks) - 1
	return unsupported("operator " + t.s)
}

var typeKeywords = map[string]bool{
	"int": true, "char": true, "short": true, "long": true, "unsigned": true, "signed": true,
	"float": true, "double": true, "void": true, "bool": true, "_Bool": true, "const": true,
	"volatile": true, "struct": true, "union": true, "enum": true, "class": true, "wchar_t": true,
	"char16_t": true, "char32_t": true, "char8_t": true, "typename": true,
}

// startsType reports whether the tokens at i begin a type name.
func (p *parser) startsType(i int) bool {
	t := p.toks[i]
	if t.kind != tIdent {
		if t.kind == tPunct && t.s == "::" && p.toks[i+1].kind == tIdent {
			name, _ := p.qualifiedAt(i)
			return p.isType != nil && p.isType(name)
		}
		return false
	}
	if typeKeywords[t.s] {
		return true
	}
	if p.isType == nil {
		return false
	}
	name, _ := p.qualifiedAt(i)
	return p.isType(name)
}

// qualifiedAt reads a (possibly qualified, possibly templated) name at
// token i and returns it and the index after it.
func (p *parser) qualifiedAt(i int) (string, int) {
	var b strings.Builder
	if p.toks[i].kind == tPunct && p.toks[i].s == "::" {
		i++
	}
	for {
		t := p.toks[i]
		if t.kind != tIdent {
			return b.String(), i
		}
		b.WriteString(t.s)
		i++
		if p.toks[i].kind == tPunct && p.toks[i].s == "<" && p.isType != nil {
			// a template-id such as std::vector<int>: take the
			// balanced argument list if the whole thing is a type.
			if j, args, ok := p.templateArgs(i); ok && p.isType(b.String()+args) {
				b.WriteString(args)
				i = j
			}
		}
		if p.toks[i].kind == tPunct && p.toks[i].s == "::" && p.toks[i+1].kind == tIdent {
			b.WriteString("::")
			i++
			continue
		}
		return b.String(), i
	}
}

// templateArgs spells the balanced <...> starting at token i as GDB
// prints template arguments ("<int, std::allocator<int> >").
func (p *parser) templateArgs(i int) (int, string, bool) {
	depth := 0
	var b strings.Builder
	for ; i < len(p.toks) && p.toks[i].kind != tEOF; i++ {
		t := p.toks[i]
		switch {
		case t.kind == tPunct && t.s == "<":
			depth++
			b.WriteString("<")
			continue
		case t.kind == tPunct && t.s == ">":
			depth--
			s := b.String()
			if strings.HasSuffix(s, ">") {
				b.WriteString(" ")
			}
			b.WriteString(">")
			if depth == 0 {
				return i + 1, b.String(), true
			}
			continue
		case t.kind == tPunct && t.s == ">>":
			return 0, "", false
		case t.kind == tPunct && t.s == ",":
			b.WriteString(", ")
			continue
		}
		s := b.String()
		if len(s) > 0 && s[len(s)-1] != '<' && s[len(s)-1] != ' ' && !(t.kind == tPunct && t.s == "::") && !strings.HasSuffix(s, "::") {
			b.WriteString(" ")
		}
		b.WriteString(t.s)
	}
	return 0, "", false
}

// typeName parses a type name: specifiers then abstract declarator
// operators.
func (p *parser) typeName() (*TypeSpec, error) {
	ts := &TypeSpec{}
	var words []string
	var quals []string
	for {
		t := p.peek()
		if t.kind == tIdent && (t.s == "const" || t.s == "volatile") {
			quals = append(quals, t.s)
			p.next()
			continue
		}
		if t.kind == tIdent && (t.s == "struct" || t.s == "union" || t.s == "enum" || t.s == "class" || t.s == "typename") {
			p.next()
			name, j := p.qualifiedAt(p.i)
			if name == "" {
				return nil, &SyntaxError{p.peek().pos, "expected a name after " + t.s}
			}
			p.i = j
			if t.s == "typename" {
				words = append(words, name)
			} else {
				words = append(words, t.s+" "+name)
			}
			continue
		}
		if t.kind == tIdent && typeKeywords[t.s] {
			words = append(words, t.s)
			p.next()
			continue
		}
		if len(words) == 0 && (t.kind == tIdent || (t.kind == tPunct && t.s == "::")) {
			name, j := p.qualifiedAt(p.i)
			if name != "" {
				words = append(words, name)
				p.i = j
				continue
			}
		}
		break
	}
	if len(words) == 0 {
		return nil, &SyntaxError{p.peek().pos, "expected a type name"}
	}
	ts.Base = normalizeBaseWords(words)
	ops, err := p.declarator()
	if err != nil {
		return nil, err
	}
	ts.Ops = append(quals, ops...)
	return ts, nil
}

// declarator parses the abstract declarator after a type's specifiers
// and returns its operators in the order they apply to the base type:
// the pointer operators, then the array suffixes from the right (int
// [2][3] is two arrays of three ints), then what a parenthesized inner
// declarator adds (char (*)[16] points to an array of 16 chars).
// Function types are not read.
func (p *parser) declarator() ([]string, error) {
	var ops []string
	for {
		t := p.peek()
		if t.kind == tPunct && (t.s == "*" || t.s == "&" || t.s == "&&") || t.kind == tIdent && (t.s == "const" || t.s == "volatile") {
			ops = append(ops, t.s)
			p.next()
			continue
		}
		break
	}
	var inner []string
	if t := p.peek(); t.kind == tPunct && t.s == "(" {
		if n := p.toks[min(p.i+1, len(p.toks)-1)]; n.kind != tPunct || n.s != "*" && n.s != "&" && n.s != "&&" {
			return nil, unsupported("function and pointer-to-function type names")
		}
		p.next()
		in, err := p.declarator()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		inner = in
	}
	var dims []string
	for {
		t := p.peek()
		if t.kind == tPunct && t.s == "(" {
			return nil, unsupported("function and pointer-to-function type names")
		}
		if t.kind != tPunct || t.s != "[" {
			break
		}
		p.next()
		n := p.next()
		if n.kind != tInt {
			return nil, &SyntaxError{n.pos, "expected an array size"}
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		dims = append(dims, "["+n.s+"]")
	}
	for i := len(dims) - 1; i >= 0; i-- {
		ops = append(ops, dims[i])
	}
	return append(ops, inner...), nil
}

var baseWords = map[string]bool{"signed": true, "unsigned": true, "long": true, "short": true}

// normalizeBaseWords turns "unsigned long int" into GDB's canonical
// "unsigned long" and so on.
func normalizeBaseWords(words []string) string {
	if len(words) == 1 && !baseWords[words[0]] {
		return words[0]
	}
	var signed, unsigned bool
	longs, shorts := 0, 0
	base := ""
	for _, w := range words {
		switch w {
		case "signed":
			signed = true
		case "unsigned":
			unsigned = true
		case "long":
			longs++
		case "short":
			shorts++
		case "int":
		default:
			base = w
		}
	}
	switch {
	case base == "char":
		if unsigned {
			return "unsigned char"
		}
		if signed {
			return "signed char"
		}
		return "char"
	case base == "double" && longs > 0:
		return "long double"
	case base != "":
		return strings.Join(words, " ")
	}
	n := "int"
	switch {
	case shorts > 0:
		n = "short"
	case longs == 1:
		n = "long"
	case longs >= 2:
		n = "long long"
	}
	if unsigned {
		if n == "int" {
			return "unsigned int"
		}
		return "unsigned " + n
	}
	return n
}

func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tFloat && tupleIndex(t.s) {
			// Rust's tuple field t.0 (the lexer read ".0", or ".0.1",
			// as a number): the member rustc names __0, as GDB's Rust
			// parser reads it
			p.next()
			for _, i := range strings.Split(t.s[1:], ".") {
				x = &Member{t.pos, x, "__" + i, false}
			}
			continue
		}
		if t.kind != tPunct {
			return x, nil
		}
		switch t.s {
		case "[":
			p.next()
			i, err := closedBy(p, p.subscript, "]")
			if err != nil {
				return nil, err
			}
			x = &Index{t.pos, x, i}
		case ".", "->":
			p.next()
			n := p.next()
			if n.kind != tIdent {
				if n.kind == tPunct && n.s == "~" {
					return nil, unsupported("destructor calls")
				}
				return nil, &SyntaxError{n.pos, "expected a member name after " + t.s}
			}
			name := n.s
			if p.is("::") {
				// a qualified member, p->Base::w: the member of that base
				p.i--
				var j int
				name, j = p.qualifiedAt(p.i)
				p.i = j
			}
			x = &Member{t.pos, x, name, t.s == "->"}
		case "(":
			p.next()
			var args []Expr
			for !p.is(")") {
				a, err := p.assign()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if !p.accept(",") {
					break
				}
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			x = &Call{t.pos, x, args}
		case "++", "--":
			p.next()
			x = &Unsupported{t.pos, "increment and decrement"}
		default:
			return x, nil
		}
	}
}

// history reads a value history reference ($, $N, $$, $$N) from the
// text after a $.
func history(t token) (*History, bool) {
	digits := func(s string) (int, bool) {
		if s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
			return 0, false
		}
		n, _ := strconv.Atoi(s)
		return n, true
	}
	switch {
	case t.s == "":
		return &History{At: t.pos, Rel: true}, true
	case t.s == "$":
		return &History{At: t.pos, Rel: true, N: 1}, true
	case t.s[0] == '$':
		n, ok := digits(t.s[1:])
		return &History{At: t.pos, Rel: true, N: n}, ok
	}
	n, ok := digits(t.s)
	return &History{At: t.pos, N: n}, ok
}

// convFuncs are the GDB convenience functions evaluated natively.
var convFuncs = map[string]bool{"_streq": true, "_strlen": true, "_memeq": true, "_regex": true}

var cxxCasts = map[string]bool{"static_cast": true, "reinterpret_cast": true, "const_cast": true, "dynamic_cast": true}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tEOF:
		return nil, &SyntaxError{t.pos, "unexpected end of expression"}
	case tInt, tFloat:
		if digits, suf := RustSuffix(t.s); suf != "" || digits != t.s {
			// Rust's 5u8, 1_000i32, 2.5f32: the number as its type
			p.next()
			lit, err := numberLit(token{t.kind, digits, t.pos})
			if err != nil || suf == "" {
				return lit, err
			}
			return &Cast{At: t.pos, Type: &TypeSpec{Base: suf}, X: lit}, nil
		}
	}
	switch t.kind {
	case tInt:
		p.next()
		return parseIntLit(t)
	case tFloat:
		p.next()
		s := strings.TrimRight(t.s, "fFlL")
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, &SyntaxError{t.pos, "invalid number " + t.s}
		}
		return &FloatLit{t.pos, v, strings.ContainsAny(t.s[len(s):], "fF")}, nil
	case tChar:
		p.next()
		prefix, body := splitPrefix(t.s)
		cs, err := unescape(body[1:len(body)-1], t.pos)
		if err != nil {
			return nil, err
		}
		if len(cs) != 1 {
			return nil, &SyntaxError{t.pos, "character literal must hold one character"}
		}
		return &CharLit{t.pos, int64(cs[0]), prefix}, nil
	case tString:
		p.next()
		prefix, body := splitPrefix(t.s)
		cs, err := unescape(body[1:len(body)-1], t.pos)
		if err != nil {
			return nil, err
		}
		// adjacent literals concatenate
		for p.peek().kind == tString {
			n := p.next()
			_, b2 := splitPrefix(n.s)
			more, err := unescape(b2[1:len(b2)-1], n.pos)
			if err != nil {
				return nil, err
			}
			cs = append(cs, more...)
		}
		return &StringLit{t.pos, cs, prefix}, nil
	case tDollar:
		p.next()
		if h, ok := history(t); ok {
			return h, nil
		}
		if convFuncs[t.s] && p.is("(") {
			return &ConvFunc{t.pos, t.s}, nil
		}
		if isDigit(t.s[0]) || t.s[0] == '$' {
			return nil, &SyntaxError{Pos: t.pos, Msg: "bad value history reference $" + t.s}
		}
		// A register, or else a convenience variable: the evaluator
		// tells them apart, as GDB does.
		return &Register{t.pos, t.s}, nil
	case tIdent:
		switch t.s {
		case "this":
			p.next()
			return &This{t.pos}, nil
		case "true", "false":
			p.next()
			v := uint64(0)
			if t.s == "true" {
				v = 1
			}
			return &IntLit{At: t.pos, Val: v, Long: -1}, nil
		case "nullptr", "NULL":
			p.next()
			return &IntLit{At: t.pos, Val: 0, Long: -2}, nil
		case "typeid", "operator", "template", "co_await", "noexcept", "decltype":
			return nil, unsupported(t.s)
		}
		if cxxCasts[t.s] {
			p.next()
			if err := p.expect("<"); err != nil {
				return nil, err
			}
			ts, err := closedBy(p, p.typeName, ">")
			if err != nil {
				return nil, err
			}
			if err := p.expect("("); err != nil {
				return nil, err
			}
			x, err := closedBy(p, p.comma, ")")
			if err != nil {
				return nil, err
			}
			return &Cast{At: t.pos, Type: ts, X: x, Dynamic: t.s == "dynamic_cast"}, nil
		}
		name, j := p.qualifiedAt(p.i)
		p.i = j
		return &Ident{t.pos, name}, nil
	case tPunct:
		switch t.s {
		case "(":
			p.next()
			return closedBy(p, p.comma, ")")
		case "::":
			if p.toks[p.i+1].kind == tIdent {
				name, j := p.qualifiedAt(p.i)
				p.i = j
				return &Ident{t.pos, "::" + name}, nil
			}
		case "{":
			return nil, unsupported("brace initializers and {type} addr")
		case "[":
			return p.arrayLit()
		}
	}
	return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %q", t.s)}
}

// arrayLit reads Rust's [a, b, c] or [v; N], at its "[".
func (p *parser) arrayLit() (Expr, error) {
	at := p.next().pos
	if p.is("]") {
		return nil, &SyntaxError{at, "an empty array has no element type"}
	}
	first, err := p.assign()
	if err != nil {
		return nil, err
	}
	a := &ArrayLit{At: at, Elems: []Expr{first}}
	if p.accept(";") {
		if a.Repeat, err = p.assign(); err != nil {
			return nil, err
		}
		return a, p.expect("]")
	}
	for p.accept(",") && !p.is("]") {
		e, err := p.assign()
		if err != nil {
			return nil, err
		}
		a.Elems = append(a.Elems, e)
	}
	return a, p.expect("]")
}

// tupleIndex says whether a number token is tuple field indexes after an
// expression: "." and digits, once or more (t.0, t.0.1).
func tupleIndex(s string) bool {
	if len(s) < 2 || s[0] != '.' {
		return false
	}
	for _, part := range strings.Split(s[1:], ".") {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

func splitPrefix(s string) (string, string) {
	i := strings.IndexAny(s, `'"`)
	return s[:i], s[i:]
}

// numberLit is the literal of a number token without suffixes' types.
func numberLit(t token) (Expr, error) {
	if t.kind == tInt {
		return parseIntLit(t)
	}
	v, err := strconv.ParseFloat(t.s, 64)
	if err != nil {
		return nil, &SyntaxError{t.pos, "invalid number " + t.s}
	}
	return &FloatLit{t.pos, v, false}, nil
}

func parseIntLit(t token) (Expr, error) {
	s := t.s
	lit := &IntLit{At: t.pos}
	for len(s) > 0 && strings.IndexByte("uUlL", s[len(s)-1]) >= 0 {
		switch s[len(s)-1] {
		case 'u', 'U':
			lit.Unsigned = true
		default:
			lit.Long++
		}
		s = s[:len(s)-1]
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return nil, &SyntaxError{t.pos, "invalid number " + t.s}
	}
	lit.Val = v
	if base != 10 {
		lit.Long += 8 // marks hex/octal: may become unsigned
	}
	return lit, nil
}

// TypeName is the C type of an integer literal (C11 6.4.4.1): the first of
// its candidate types whose range holds the value, where long is
// longSize bytes (8, or 4 on i386); "bool" for true and false, "long" for
// nullptr. A value no candidate holds (a decimal one above the largest
// signed type) is unsigned, as GDB types it.
func (l *IntLit) TypeName(longSize int) string {
	switch l.Long {
	case -1:
		return "bool"
	case -2:
		return "long"
	}
	hexOct, longs := l.Long >= 8, l.Long%8
	var names []string
	switch {
	case longs == 0:
		names = []string{"int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long"}
	case longs == 1:
		names = []string{"long", "unsigned long", "long long", "unsigned long long"}
	default:
		names = []string{"long long", "unsigned long long"}
	}
	for _, n := range names {
		unsigned := strings.HasPrefix(n, "unsigned")
		if unsigned && !l.Unsigned && !hexOct || !unsigned && l.Unsigned {
			continue // decimal: signed types only; a u suffix: unsigned only
		}
		size := 4
		switch strings.TrimPrefix(n, "unsigned ") {
		case "long":
			size = longSize
		case "long long":
			size = 8
		}
		bits := 8 * size
		if !unsigned {
			bits--
		}
		if bits >= 64 || l.Val>>bits == 0 {
			return n
		}
	}
	if longSize == 8 && longs < 2 {
		return "unsigned long"
	}
	return "unsigned long long"
}
