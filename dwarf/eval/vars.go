package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// Vars are GDB's convenience variables: $name values of the debugger's
// own, kept from one evaluation to the next ("$p = list->next", then
// "$p->value"). A variable holds a copy of the value it was given, not a
// reference to where that value was, as in GDB. A name never set reads
// as void. The zero Vars is empty and ready to use; it is not safe for
// concurrent use.
type Vars struct {
	m map[string]dwarf.Object
	// hist is GDB's value history: the values printed, $1 first, each a
	// copy of the value as it was printed.
	hist []dwarf.Object
	// warnings are what evaluations in a scope of these variables
	// warned of since TakeWarnings (GDB's "warning: left shift count
	// >= width of type"), each once.
	warnings []string
}

// TakeWarnings returns the warnings given since the last call and
// forgets them.
func (v *Vars) TakeWarnings() []string {
	w := v.warnings
	v.warnings = nil
	return w
}

// warn notes a warning of an evaluation (once: an expression evaluated
// again in a fuller frame warns again).
func (v *Vars) warn(msg string) {
	if v != nil && !slices.Contains(v.warnings, msg) {
		v.warnings = append(v.warnings, msg)
	}
}

// Record adds a copy of a printed value (type t, bytes b, read at addr
// where it was in memory, else 0) to the value history and returns its
// number: $N names it from then on. The address is kept with the copy,
// as GDB keeps a history value's lval: a virtual base is found through
// it. A value larger than max-value-size takes its number but is not
// kept.
func (v *Vars) Record(t dwarf.Type, b []byte, addr uint64) int {
	if len(b) > maxVarSize {
		return v.RecordUnkept(t, fmt.Errorf("value requires %d bytes, which is more than max-value-size (%d)", len(b), maxVarSize))
	}
	o := dwarf.BytesObject(t, append([]byte(nil), b...))
	o.Loc.Addr = addr
	v.hist = append(v.hist, o)
	return len(v.hist)
}

// RecordOptimizedOut keeps a printed value of type t that was optimized
// out as GDB keeps one: an entry that prints as <optimized out> (and
// whose use in arithmetic says so), not one that was never kept.
func (v *Vars) RecordOptimizedOut(t dwarf.Type) int {
	v.hist = append(v.hist, dwarf.Object{Type: t, Loc: dwarf.Location{Kind: dwarf.LocOptimizedOut}})
	return len(v.hist)
}

// RecordUnkept gives a printed value that cannot be copied (a synthetic
// pointer, a value partly optimized out) its number in the value
// history, so that the numbers stay those GDB gives; using it is the
// error why.
func (v *Vars) RecordUnkept(t dwarf.Type, why error) int {
	v.hist = append(v.hist, dwarf.Object{Type: t, Err: why})
	return len(v.hist)
}

// History returns the value history's $N (rel false) or, with rel, the
// value N before the last ($ is 0, $$ 1), with GDB's errors where there
// is none.
func (v *Vars) History(rel bool, n int) (dwarf.Object, error) {
	var size int
	if v != nil {
		size = len(v.hist)
	}
	num := n
	if rel {
		num = -n
	}
	abs := num
	if abs <= 0 {
		abs += size
	}
	switch {
	case abs <= 0 && num == 0:
		return dwarf.Object{}, errors.New("The history is empty.")
	case abs <= 0:
		return dwarf.Object{}, fmt.Errorf("History does not go back to $$%d.", -num)
	case abs > size:
		return dwarf.Object{}, fmt.Errorf("History has not yet reached $%d.", abs)
	}
	if o := v.hist[abs-1]; o.Err != nil {
		return dwarf.Object{}, fmt.Errorf("$%d was printed but not kept (%v)", abs, o.Err)
	}
	return v.hist[abs-1], nil
}

// maxVarSize bounds a value a convenience variable keeps: GDB's default
// max-value-size.
const maxVarSize = 64 << 10

// Get returns the variable's value; ok is false where it was never set.
func (v *Vars) Get(name string) (o dwarf.Object, ok bool) {
	if v == nil {
		return dwarf.Object{}, false
	}
	o, ok = v.m[name]
	return o, ok
}

// Set gives the variable a value whose bytes are b (its own copy).
func (v *Vars) Set(name string, t dwarf.Type, b []byte) {
	if v.m == nil {
		v.m = map[string]dwarf.Object{}
	}
	v.m[name] = dwarf.BytesObject(t, append([]byte(nil), b...))
}

// Void makes the variable void, the value of one never set; unlike one
// never set, a void variable whose name has a leading underscore is
// answered here (the debugger's own $_exitcode before the program
// exits).
func (v *Vars) Void(name string) {
	v.Set(name, &dwarf.VoidType{CommonType: dwarf.CommonType{Name: "void"}}, nil)
}

// WithVars returns s with the convenience variables v: $name, where
// name is no register of s, reads v, and "$name = expr" (or op=) sets
// it. s may be nil: an evaluation with no frame (the program has ended),
// where only literals and the variables have values.
func WithVars(s EvalScope, v *Vars) EvalScope {
	if s == nil {
		s = noFrame{}
	}
	return varScope{s, v}
}

type varScope struct {
	EvalScope
	vars *Vars
}

// noFrame is the scope of no frame: no names, no registers, no memory.
type noFrame struct{}

func (noFrame) Values() *dwarf.ValueEnv { return &dwarf.ValueEnv{} }
func (noFrame) Lang() dwarf.Lang        { return dwarf.LangC }
func (noFrame) Local(_ context.Context, name string) (dwarf.Object, error) {
	return dwarf.Object{}, noSymbol(name)
}
func (noFrame) Global(_ context.Context, name string) (dwarf.Object, error) {
	return dwarf.Object{}, noSymbol(name)
}
func (noFrame) Register(name string) (dwarf.Object, error) {
	return dwarf.Object{}, fmt.Errorf("register $%s without a frame: %w", name, dwarf.ErrNotFound)
}
func (noFrame) LookupType(name string) (dwarf.Type, error) {
	return nil, fmt.Errorf("no type named %s without a frame: %w", name, dwarf.ErrNotFound)
}

// dollar evaluates $name: a register of the scope, else a convenience
// variable. An unset variable is void, as in GDB, except a name with a
// leading underscore, which is one of GDB's own ($_siginfo, $_thread,
// $_exitcode…) where this scope does not keep it: that is left to GDB
// (unsupported).
func (ev *evaluator) dollar(e *cexpr.Register) (dwarf.Object, error) {
	regErr := fmt.Errorf("register $%s: %w", e.Name, dwarf.ErrNotFound)
	if ev.s != nil {
		o, err := ev.s.Register(e.Name)
		if err == nil || !errors.Is(err, dwarf.ErrNotFound) {
			return o, err
		}
		regErr = err
	}
	if o, ok := ev.vars.Get(e.Name); ok {
		return o, nil
	}
	switch {
	case strings.HasPrefix(e.Name, "_"):
		return dwarf.Object{}, unsupported("convenience variable $" + e.Name)
	case ev.vars == nil:
		return dwarf.Object{}, regErr
	}
	return ev.void(), nil
}

// history evaluates a value history reference; without the session's
// variables it is left to GDB.
func (ev *evaluator) history(e *cexpr.History) (dwarf.Object, error) {
	if ev.vars == nil {
		return dwarf.Object{}, unsupported("value history")
	}
	return ev.vars.History(e.Rel, e.N)
}

// void is GDB's void value, what an unset convenience variable holds.
func (ev *evaluator) void() dwarf.Object {
	return dwarf.BytesObject(&dwarf.VoidType{CommonType: dwarf.CommonType{Name: "void", Lang: ev.lang}}, nil)
}

// assign evaluates "$name = y" or "$name op= y": the variable keeps a
// copy of the value, which is also the result. An assignment to a
// register is left to GDB.
func (ev *evaluator) assign(e *cexpr.Assign) (dwarf.Object, error) {
	if ev.vars == nil {
		return dwarf.Object{}, unsupported("assignment")
	}
	if ev.s != nil {
		if _, err := ev.s.Register(e.X.Name); err == nil || !errors.Is(err, dwarf.ErrNotFound) {
			return dwarf.Object{}, unsupported("assignment to a register")
		}
	}
	var rhs cexpr.Expr = e.Y
	if op := strings.TrimSuffix(e.Op, "="); op != "" {
		rhs = &cexpr.Binary{At: e.At, Op: op, X: e.X, Y: e.Y}
	}
	o, err := ev.eval(rhs)
	if err != nil {
		return dwarf.Object{}, err
	}
	if o.Err != nil {
		return dwarf.Object{}, o.Err
	}
	if isVoid(o) {
		if !ev.onlyType {
			ev.vars.Void(e.X.Name)
		}
		return ev.void(), nil
	}
	size := dwarf.SizeOf(o.Type)
	if size > maxVarSize {
		return dwarf.Object{}, fmt.Errorf("value requires %d bytes, which is more than max-value-size (%d)", size, maxVarSize)
	}
	b, err := ev.env.Bytes(o)
	if err != nil {
		return dwarf.Object{}, err
	}
	if ev.onlyType {
		return dwarf.BytesObject(o.Type, b), nil
	}
	ev.vars.Set(e.X.Name, o.Type, b)
	v, _ := ev.vars.Get(e.X.Name)
	return v, nil
}
