package dwarf

import (
	stddwarf "debug/dwarf"
	"testing"
)

// The GDB comparisons (value_test.go, expr_gdb_test.go, ...) are in
// package dwarf_test, which may import dwarf/eval and dwarf/format; these
// are the helpers they share with this package's own tests.

var (
	Compile   = compile
	NeedTools = needTools
	OpenCore  = openCore
	OpenELF   = openELF
	OpenImage = openImage
	Vec128    = vec128
)

// Target is the core's memory and modules as a Target.
func (c *core) Target(t testing.TB) *Target { return c.target(t) }

// Regs is the registers of the core's thread.
func (c *core) Regs() Regs { return c.regs }

// PrefixOf is prefixOf for the tests that index globals like GDB.
func (r *TypeReader) PrefixOf(off stddwarf.Offset) string { return r.prefixOf(off) }
