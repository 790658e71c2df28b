package dwarf

import (
	"fmt"
)

// NoDebugType is the type of a data symbol found only in the ELF symbol
// table (a binary or library built without debug information), as GDB
// types a minimal symbol: "<data variable, no debug info>". Its value
// cannot be printed; a cast reads the memory at the symbol as the cast's
// type (`(int)counter`), and & gives its address.
type NoDebugType struct {
	CommonType
	// Sym is the symbol's name, for the error that asks for a cast.
	Sym string
}

func (t *NoDebugType) String() string { return typeString(t) }
func (t *NoDebugType) Size() int64    { return -1 }

// NoDebugObject returns the object of a data symbol without debug
// information at runtime address addr.
func NoDebugObject(sym string, addr uint64) Object {
	return MemObject(&NoDebugType{CommonType: CommonType{Name: "<data variable, no debug info>", ByteSize: -1}, Sym: sym}, addr)
}

// noDebugError is GDB's error for using such a value without a cast.
func noDebugError(t *NoDebugType) error {
	return fmt.Errorf("'%s' has unknown type; cast it to its declared type", t.Sym)
}
