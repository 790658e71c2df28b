package dwarf

// unit is the index of one compile unit.
type unit struct {
	img *Image
}
