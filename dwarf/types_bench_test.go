package dwarf

import (
	"testing"

	stddwarf "debug/dwarf"
)

// BenchmarkTypeReaderLarge opens the large C++ binary's DWARF, builds a
// TypeReader and reads the types of the first 2,000 variables, then
// looks a type up by name (which scans every compile unit once).
func BenchmarkTypeReaderLarge(b *testing.B) {
	path := largeBinary(b, "stl/stl")
	d, err := openELF(b, path).DWARF()
	if err != nil {
		b.Fatal(err)
	}
	var offs []stddwarf.Offset
	r := d.Reader()
	for len(offs) < 2000 {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == stddwarf.TagVariable {
			if t, ok := e.Val(stddwarf.AttrType).(stddwarf.Offset); ok {
				offs = append(offs, t)
			}
		}
	}
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			NewTypeReader(d)
		}
	})
	b.Run("types", func(b *testing.B) {
		for b.Loop() {
			tr := NewTypeReader(d)
			for _, off := range offs {
				if _, err := tr.Type(off); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			tr := NewTypeReader(d)
			if _, err := tr.LookupType("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
