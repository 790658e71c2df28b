// Package format prints the values of a stopped program the way GDB's
// print does: scalars, characters and strings, pointers with their
// <symbol>, structs, unions, arrays with "<repeats N times>" and the
// element limit, references, bitfields, and GDB's print/x-style format
// letters.
//
// A value is a [dwarf.Object] (from package eval, or from a
// [dwarf.FrameScope] lookup); it is read through the [dwarf.ValueEnv]
// that also carries the print settings (MaxElements, Repeats, Raw,
// Letter):
//
//	o, _ := eval.EvalExpr(ctx, sc, "g_map")
//	s := format.Text(sc.Values(), o)                 // what GDB prints after "$1 = "
//	v := format.Structured(sc.Values(), "g_map", o, format.Tree{Depth: 2, Nodes: 100}) // JSON-ready, with children
//
// Text is GDB's in a UTF-8 locale, where its users and the JSON of MCP
// are: a printable character outside ASCII prints as itself (UTF-8 in
// char, UTF-16 in char16_t, UTF-32 in wchar_t and char32_t); an invalid
// or unprintable one as escapes ("\302\205"), and a string that ends
// inside a character as "abc", <incomplete sequence \342\202>.
//
// Unless ValueEnv.Raw is set, the printers of libstdc++ (std::string,
// vector, map, set, unordered containers, list, deque, forward_list,
// smart pointers, optional, variant, tuple, pair, atomic, string_view,
// bitset, span, initializer_list, the container adapters and
// iterators) and of Go (strings, slices, maps, interfaces) apply, and
// print what GDB's Python printers print. A printer that finds a layout
// it does not know falls back to the raw value; one whose layout points to
// memory that cannot be read (a container not constructed yet, or freed)
// says so where GDB's printers do: "std::map with 11 elements<error
// reading variable: Cannot access memory at address 0x18>", and for a
// std::string at address 0 "<error reading variable: Cannot create a lazy
// string with address 0x0, and a non-zero length.>".
//
// Memory that cannot be read, optimized-out values and registers the
// unwinder could not recover print inside the value as GDB does
// ("<error: Cannot access memory at address 0x0>", "<optimized out>",
// "<not saved>"); the functions here do not return errors.
package format
