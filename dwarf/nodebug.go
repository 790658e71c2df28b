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

func (t *NoDebugType) String() string { return TypeString(t) }
func (t *NoDebugType) Size() int64    { return -1 }

// NoDebugObject returns the object of a data symbol without debug
// information at runtime address addr.
func NoDebugObject(sym string, addr uint64) Object {
	return MemObject(&NoDebugType{CommonType: CommonType{Name: "<data variable, no debug info>", ByteSize: -1}, Sym: sym}, addr)
}

// NoDebugFunc returns the object of a code symbol without debug
// information at runtime address addr, as GDB types a text minimal symbol:
// a function of unknown return type named "<text variable, no debug info>" (an
// IFUNC's "<text gnu-indirect-function variable, no debug info>"). Unlike
// a data symbol's, its value prints ({<text variable, no debug info>}
// 0x401020 <_start>), decays to a pointer, and a cast converts its
// address (`(long)_start`), as a function's does.
func NoDebugFunc(addr uint64, ifunc bool, lang Lang) Object {
	name := "<text variable, no debug info>"
	if ifunc {
		name = "<text gnu-indirect-function variable, no debug info>"
	}
	// GDB's type has no return type: ptype says so, and a call needs a
	// cast.
	ret := &NoDebugType{CommonType: CommonType{Name: "<unknown return type>", ByteSize: -1, Lang: lang}}
	return MemObject(&FuncType{CommonType: CommonType{Name: name, ByteSize: 1, Lang: lang}, Return: ret}, addr)
}

// NoDebugError is GDB's error for using such a value without a cast.
func NoDebugError(t *NoDebugType) error {
	return fmt.Errorf("'%s' has unknown type; cast it to its declared type", t.Sym)
}

// GlobalNames returns the names of the image's CU-level variables (plain
// and qualified), for suggestions when a name is not found.
func (img *Image) GlobalNames() []string {
	img.indexAll()
	out := make([]string, 0, len(img.globals))
	for n := range img.globals {
		out = append(out, n)
	}
	return out
}

// NoSymbolError is a scope's "not found" for a name, with a hint saying
// where it looked and which names are close; the evaluator keeps the hint
// in GDB's "No symbol" error.
type NoSymbolError struct {
	Name string
	Hint string // " (looked in …); close names: …", or ""
}

func (e *NoSymbolError) Error() string {
	return fmt.Sprintf("no symbol %q in current context%s", e.Name, e.Hint)
}

func (e *NoSymbolError) Unwrap() error { return ErrNotFound }
