package dwarf

import stddwarf "debug/dwarf"

// Function is a function with code: a concrete DW_TAG_subprogram or, for
// inlined frames, the abstract function an inlined call instantiates.
type Function struct {
	// Name is the qualified C++ name ("geo::Circle::area") or the C name.
	Name string
	// LinkageName is the mangled name, if any.
	LinkageName string
	// Entry is the file address of the first instruction (DW_AT_low_pc,
	// or the lowest range start); Ranges are all address ranges
	// [lo, hi), including cold parts.
	Entry  uint64
	Ranges [][2]uint64
	// Offset is the DIE of the concrete subprogram (0 for a function only
	// known as an inline origin).
	Offset   stddwarf.Offset
	DeclFile string
	DeclLine int
	// External is DW_AT_external.
	External bool
	cu       *unit
}
