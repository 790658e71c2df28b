package dwarf

import (
	"fmt"
	"strings"
	"testing"
)

// TestSubPieces: the location of a member of a composite location: within
// one piece, across pieces, and past the last piece (optimized out), as
// clang -O2 describes expat's struct sipkey {unsigned long k[2]} with
// only k[0] known (DW_OP_lit0, DW_OP_stack_value, DW_OP_piece 8).
func TestSubPieces(t *testing.T) {
	val := func(b ...byte) Location { return Location{Kind: LocValue, Bytes: b} }
	key := Location{Kind: LocPieces, Pieces: []Piece{{Loc: val(0, 0, 0, 0, 0, 0, 0, 0), Size: 8}}}
	mixed := Location{Kind: LocPieces, Pieces: []Piece{
		{Loc: Location{Kind: LocAddress, Addr: 0x1000}, Size: 4},
		{Loc: val(1, 2, 3, 4), Size: 4},
		{Loc: Location{Kind: LocOptimizedOut}, Size: 8},
	}}
	// gcc -O2's struct trio {const char *name; …} and std::tuple's last
	// element: an implicit pointer to a string literal as one piece
	ptrs := Location{Kind: LocPieces, Pieces: []Piece{
		{Loc: val(1, 0, 0, 0, 0, 0, 0, 0), Size: 8},
		{Loc: Location{Kind: LocImplicitPointer, PtrDIE: 0x2b9}, Size: 8},
	}}
	for _, tc := range []struct {
		name      string
		l         Location
		off, size int64
		want      string
	}{
		{"the known element", key, 0, 8, "value 0000000000000000"},
		{"past the last piece", key, 8, 8, "optimized out"},
		{"the whole array", key, 0, 16, "pieces [value 0000000000000000 (8) optimized out (8)]"},
		{"inside memory", mixed, 2, 2, "address 0x1002"},
		{"inside a value", mixed, 5, 2, "value 0203"},
		{"across memory and value", mixed, 2, 4, "pieces [address 0x1002 (2) value 0102 (2)]"},
		{"across value and optimized out", mixed, 6, 4, "pieces [value 0304 (2) optimized out (2)]"},
		{"an implicit pointer piece", ptrs, 8, 8, "implicit pointer"},
		{"inside an implicit pointer", ptrs, 10, 2, "none"},
	} {
		l, ok := subPieces(tc.l, tc.off, tc.size)
		got := describeLoc(l)
		if !ok {
			got = "none"
		}
		if got != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.name, got, ok, tc.want)
		}
	}
}

// describeLoc spells a location for TestSubPieces.
func describeLoc(l Location) string {
	switch l.Kind {
	case LocAddress:
		return fmt.Sprintf("address %#x", l.Addr)
	case LocValue:
		return fmt.Sprintf("value %x", l.Bytes)
	case LocOptimizedOut:
		return "optimized out"
	case LocImplicitPointer:
		return "implicit pointer"
	case LocPieces:
		var parts []string
		for _, p := range l.Pieces {
			parts = append(parts, fmt.Sprintf("%s (%d)", describeLoc(p.Loc), p.Size))
		}
		return "pieces [" + strings.Join(parts, " ") + "]"
	}
	return l.String()
}

// TestPartOfImplicitPointer: the member at offset 0 of an object that is
// an implicit pointer (std::tuple's _Head_base<2, const char *> around
// it) is that pointer, which prints <synthetic pointer>.
func TestPartOfImplicitPointer(t *testing.T) {
	ptr := &PointerType{CommonType: CommonType{ByteSize: 8}, Elem: &BaseType{CommonType: CommonType{Name: "char", ByteSize: 1}}}
	o := Object{Type: &StructType{CommonType: CommonType{Name: "_Head_base", ByteSize: 8}}, Loc: Location{Kind: LocImplicitPointer, PtrDIE: 0x2b9}}
	env := &ValueEnv{}
	if p := env.Part(o, ptr, 0); p.Loc.Kind != LocImplicitPointer || p.Err != nil {
		t.Fatalf("Part at 0: %+v", p)
	}
}
