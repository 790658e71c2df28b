// Package cexpr parses the C and C++ expressions a debugger user types
// (GDB's print syntax): literals, names (qualified "geo::Shape::count_",
// "::g"), $registers, the C operators with their precedence, casts in C
// and C++ spelling, sizeof, member access, indexing, GDB's @ operator and
// its $_streq-style convenience functions as callees.
//
// It knows nothing of DWARF or of a target: [Parse] turns text into an
// [Expr] tree, asking only whether a name is a type (which decides whether
// "(x) y" is a cast). Evaluation lives in package dwarf/eval (eval.EvalExpr),
// which resolves names and types in a frame.
//
// Errors: a *[SyntaxError] with the byte offset of the problem, or
// [ErrUnsupported] (wrapped) for valid syntax no evaluator handles
// (assignment, increment), which callers may hand to GDB instead.
package cexpr
