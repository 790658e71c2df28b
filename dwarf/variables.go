package dwarf

import (
	"fmt"

	stddwarf "debug/dwarf"
)

// VarKind classifies a variable the way GDB's "info locals/args" does.
type VarKind uint8

const (
	VarLocal  VarKind = iota // automatic variable of a function or block
	VarParam                 // formal parameter
	VarStatic                // function-static or file-static (CU-local)
	VarGlobal                // external variable visible across CUs
)

var varKindNames = [...]string{"local", "param", "static", "global"}

func (k VarKind) String() string {
	if int(k) < len(varKindNames) {
		return varKindNames[k]
	}
	return fmt.Sprintf("VarKind(%d)", uint8(k))
}

// Variable is a variable found by scope lookup, with its location
// evaluated in the frame it was looked up in.
type Variable struct {
	Name string
	Kind VarKind
	// Image holds the DWARF of the variable and its type.
	Image *Image
	// Offset is the variable's own DIE (the concrete one for inlined or
	// out-of-line copies).
	Offset stddwarf.Offset
	// TypeOff is the offset of the type DIE in Image's .debug_info; 0 if
	// the variable has no type attribute.
	TypeOff  stddwarf.Offset
	DeclFile string
	DeclLine int
	// Location of the value at the frame's pc. Kind is LocOptimizedOut
	// when the compiler kept no value; LocErr then says why when the
	// reason is something else (an unsupported expression).
	Location Location
	LocErr   error
	// Shadowed is true when an inner scope has a variable of the same
	// name (GDB still lists such variables in "info locals").
	Shadowed bool
}
