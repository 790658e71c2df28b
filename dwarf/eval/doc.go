// Package eval evaluates C and C++ expressions the way GDB's print does,
// over a stopped program's typed objects.
//
// An evaluation runs in an [EvalScope]: the names, registers, types and
// memory of one frame. In the server that is a [dwarf.FrameScope]; tests
// use small fakes. [EvalExpr] parses the text with package cexpr and
// evaluates it to a [dwarf.Object] (a type and where its bytes are);
// package format prints it:
//
//	sc := dwarf.NewFrameScope(ctx, frame, dwarf.ScopeOptions{Target: t, Types: types})
//	o, err := eval.EvalExpr(ctx, sc, "p->next->value + 1")
//	if err == nil {
//		fmt.Println(format.Text(sc.Values(), o)) // what GDB prints after "$1 = "
//	}
//	cond, err := eval.Parse(ctx, sc, "i == 3") // a breakpoint condition,
//	ok, err := eval.Truth(ctx, sc, cond)        // at each hit of its pc
//
// The evaluator follows GDB's C rules: integer promotion and the usual
// arithmetic conversions, pointer arithmetic, GDB's @ operator, casts
// (upcasts through virtual bases), sizeof, registers as GDB types them,
// its $_streq-style convenience functions, and the libstdc++ xmethods
// GDB offers for smart pointers and containers (operator*, operator->,
// operator[], size(), ...). Beyond GDB's, the container methods a
// debugging session asks for and GDB could only call in the program
// (containers.go): a map's operator[] and at() with a key, count() and
// contains() on maps and sets, a std::string compared with ==, an
// iterator's element (*it, it->second), a std::optional's value; and the
// deque methods are answered right where GDB's count from the wrong
// element. GDB's convenience variables ($name = expr, then $name) are
// kept in [Vars] by a scope made with [WithVars]. Function calls and
// assignments to the program's objects are not evaluated.
//
// # Errors
//
// Syntax errors are a *cexpr.SyntaxError; valid C/C++ the evaluator does
// not handle wraps [ErrUnsupportedExpr] (the server asks GDB for those);
// unknown names wrap dwarf.ErrNotFound; the rest carry GDB's wording
// ("Division by zero", "Cannot access memory at address 0x0"). A panic
// inside the evaluator is returned as an error. Evaluation is bounded
// in steps and in the bytes it reads.
package eval
