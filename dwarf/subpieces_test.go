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
	} {
		l, ok := subPieces(tc.l, tc.off, tc.size)
		if got := describeLoc(l); !ok || got != tc.want {
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
	case LocPieces:
		var parts []string
		for _, p := range l.Pieces {
			parts = append(parts, fmt.Sprintf("%s (%d)", describeLoc(p.Loc), p.Size))
		}
		return "pieces [" + strings.Join(parts, " ") + "]"
	}
	return l.String()
}
