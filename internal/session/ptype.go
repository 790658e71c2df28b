package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/eval"
)

// TypeResult is the type of an expression or a type name, spelled as
// GDB's ptype or whatis spell it.
type TypeResult struct {
	Expression string `json:"expression"`
	// Type is what follows GDB's "type = ".
	Type   string `json:"type" jsonschema:"the type as GDB's ptype (members expanded) or whatis (the name) prints it, without the leading 'type = '"`
	Size   int64  `json:"size,omitempty" jsonschema:"sizeof the type in bytes (0 for void and functions)"`
	Whatis bool   `json:"whatis,omitempty"`
	// Engine is "gdb" where GDB's ptype answered (an expression the
	// native evaluator does not support), else empty.
	Engine string `json:"engine,omitempty" jsonschema:"gdb where the GDB fallback answered"`
}

// Ptype gives the type of expr in the selected frame, or of the type
// named expr ("struct node", "node_t", "geo::Shape"), like GDB's ptype
// (whatis false: typedefs resolved, struct, union and enum bodies
// printed) or whatis (the type's name; a typedef name unrolled once).
func (s *Session) Ptype(ctx context.Context, expr string, whatis bool) (TypeResult, error) {
	out := TypeResult{Expression: expr, Whatis: whatis}
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return out, argErrorf("expression", "is empty; give an expression (n->next) or a type name (struct node)")
	}
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		fs, err := s.scope(ctx)
		if err != nil {
			return err
		}
		t, terr := eval.NamedType(ctx, s.evalScope(fs), expr)
		named := terr == nil
		if !named && errors.Is(terr, dwarf.ErrNotFound) && strings.ContainsAny(expr, " ") && slices.Contains([]string{"struct", "class", "union", "enum"}, strings.Fields(expr)[0]) {
			return exprError(expr, terr) // a tag no unit defines ("No struct type named S.")
		}
		if !named {
			o, err := s.evalType(ctx, expr)
			if errors.Is(err, eval.ErrUnsupportedExpr) {
				// what only GDB evaluates (a Go conversion int64(x))
				gt, gerr := s.gdbPtype(ctx, expr, whatis)
				if gerr == nil {
					out.Type, out.Engine = gt, "gdb"
					return nil
				}
				return fmt.Errorf("%v; the GDB fallback could not help either: %v: %w", err, gerr, ErrUnsupportedExpr)
			}
			if err != nil {
				return exprError(expr, err)
			}
			if o.Type == nil {
				return fmt.Errorf("%q has no type: %w", expr, ErrNoDebugInfo)
			}
			t = o.Type
		}
		switch {
		case whatis && named:
			out.Type = dwarf.WhatisTypeName(t, fs.Types(), fs.Naming())
		case whatis:
			out.Type = dwarf.WhatisString(t, fs.Types(), fs.Naming())
		default:
			out.Type = dwarf.PtypeString(t, fs.Types(), fs.Naming())
		}
		out.Size = max(t.Size(), 0)
		return nil
	})
	return out, err
}
