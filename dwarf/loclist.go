package dwarf

import (
	stddwarf "debug/dwarf"
	"encoding/binary"
)

// DWARF 5 location list entry kinds (DW_LLE_*).
const (
	lleEndOfList    = 0x0
	lleBaseAddressx = 0x1
	lleStartxEndx   = 0x2
	lleStartxLength = 0x3
	lleOffsetPair   = 0x4
	lleDefault      = 0x5
	lleBaseAddress  = 0x6
	lleStartEnd     = 0x7
	lleStartLength  = 0x8
)

// loclistExpr finds the expression of the location list f of unit u live
// at file pc: the first entry whose range holds pc, or, where pc is the
// entry of the function (atEntry; not of an inlined call), an empty range
// there if it comes first, which GDB takes for "the value at the entry"
// (dwarf2_find_location_expression); else the list's default location;
// nil if none.
func (img *Image) loclistExpr(u *unit, f *stddwarf.Field, pc uint64, atEntry bool) ([]byte, error) {
	var found, def []byte
	err := img.walkLoclist(u, f, func(lo, hi uint64, expr []byte, isDefault bool) bool {
		switch {
		case isDefault:
			def = expr
		case lo <= pc && pc < hi, atEntry && lo == hi && lo == pc:
			found = expr
			return false
		}
		return true
	})
	if err != nil || found != nil {
		return found, err
	}
	return def, nil
}

// walkLoclist calls yield with each entry of the location list f of unit
// u, in order, until it returns false: [lo, hi) in file addresses (base
// address selections applied, lo == hi for an empty range) and its
// expression; a default location (DWARF 5) comes with isDefault. It reads
// DWARF 5's .debug_loclists (f an offset, or a DW_FORM_loclistx index
// into the unit's offset table) and DWARF 2-4's .debug_loc.
func (img *Image) walkLoclist(u *unit, f *stddwarf.Field, yield func(lo, hi uint64, expr []byte, isDefault bool) bool) error {
	if u == nil {
		return &FormatError{"location list", 0, "no unit"}
	}
	var off uint64
	switch v := f.Val.(type) {
	case int64:
		off = uint64(v)
	case uint64:
		off = v
	}
	if u.version < 5 {
		return walkLoc(img.section(".debug_loc"), off, u.addrSize, u.lowPC, yield)
	}
	ll := img.section(".debug_loclists")
	if f.Class == stddwarf.ClassLocList { // DW_FORM_loclistx: index into the offset table
		p := u.llBase + off*4
		if p+4 > uint64(len(ll)) || p < u.llBase {
			return &FormatError{".debug_loclists", p, "loclistx index out of range"}
		}
		off = u.llBase + uint64(binary.LittleEndian.Uint32(ll[p:]))
	}
	return walkLoclists(ll, off, u.addrSize, u.lowPC, u.addrx, yield)
}

// walkLoclists is walkLoclist for the DWARF 5 list at off in ll, with
// addresses of addrSize bytes, the unit's base address base and its
// .debug_addr entries (addrx).
func walkLoclists(ll []byte, off uint64, addrSize int, base uint64, addrx func(uint64) (uint64, error), yield func(lo, hi uint64, expr []byte, isDefault bool) bool) error {
	if off >= uint64(len(ll)) {
		return &FormatError{".debug_loclists", off, "offset out of range"}
	}
	r := lleReader{b: ll, p: off, addrSize: addrSize, addrx: addrx}
	for {
		kind := r.byte()
		var lo, hi uint64
		switch kind {
		case lleEndOfList:
			return r.err
		case lleBaseAddressx:
			base = r.index()
			if r.err != nil {
				return r.err
			}
			continue
		case lleBaseAddress:
			base = r.addr()
			if r.err != nil {
				return r.err
			}
			continue
		case lleStartxEndx:
			lo = r.index()
			hi = r.index()
		case lleStartxLength:
			lo = r.index()
			hi = lo + r.uleb()
		case lleOffsetPair:
			lo = base + r.uleb()
			hi = base + r.uleb()
		case lleStartEnd:
			lo = r.addr()
			hi = r.addr()
		case lleStartLength:
			lo = r.addr()
			hi = lo + r.uleb()
		case lleDefault:
		default:
			if r.err != nil {
				return r.err
			}
			return &FormatError{".debug_loclists", r.p - 1, "unknown location list entry kind"}
		}
		expr := r.bytes(r.uleb())
		if r.err != nil {
			return r.err
		}
		if !yield(lo, hi, expr, kind == lleDefault) {
			return nil
		}
	}
}

// walkLoc is walkLoclist for the DWARF 2-4 list at off in loc.
func walkLoc(loc []byte, off uint64, addrSize int, base uint64, yield func(lo, hi uint64, expr []byte, isDefault bool) bool) error {
	if off >= uint64(len(loc)) {
		return &FormatError{".debug_loc", off, "offset out of range"}
	}
	r := lleReader{b: loc, p: off, addrSize: addrSize}
	maxAddr := ^uint64(0) >> (64 - 8*uint(addrSize))
	for {
		begin, end := r.addr(), r.addr()
		switch {
		case r.err != nil:
			return r.err
		case begin == 0 && end == 0:
			return nil
		case begin == maxAddr:
			base = end
			continue
		}
		n := uint64(r.byte()) | uint64(r.byte())<<8
		expr := r.bytes(n)
		if r.err != nil {
			return r.err
		}
		if !yield(base+begin, base+end, expr, false) {
			return nil
		}
	}
}

// lleReader reads a location list; err is set, and reads give zeros,
// once it runs past the section's end.
type lleReader struct {
	b        []byte
	p        uint64
	addrSize int
	addrx    func(uint64) (uint64, error)
	err      error
}

func (r *lleReader) fail() {
	if r.err == nil {
		r.err = &FormatError{"location list", r.p, "truncated"}
	}
	r.p = uint64(len(r.b))
}

func (r *lleReader) byte() byte {
	if r.p >= uint64(len(r.b)) {
		r.fail()
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *lleReader) uleb() uint64 {
	if r.p >= uint64(len(r.b)) {
		r.fail()
		return 0
	}
	v, n, ok := uleb128(r.b[r.p:])
	if !ok {
		r.fail()
		return 0
	}
	r.p += uint64(n)
	return v
}

func (r *lleReader) addr() uint64 {
	n := uint64(r.addrSize)
	if n != 4 && n != 8 || r.p+n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	var v uint64
	if n == 4 {
		v = uint64(binary.LittleEndian.Uint32(r.b[r.p:]))
	} else {
		v = binary.LittleEndian.Uint64(r.b[r.p:])
	}
	r.p += n
	return v
}

// index reads an index into .debug_addr and returns the address there.
func (r *lleReader) index() uint64 {
	idx := r.uleb()
	if r.err != nil {
		return 0
	}
	if r.addrx == nil {
		r.err = &FormatError{"location list", r.p, "an address index without .debug_addr"}
		return 0
	}
	a, err := r.addrx(idx)
	if err != nil && r.err == nil {
		r.err = err
	}
	return a
}

func (r *lleReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b))-min(r.p, uint64(len(r.b))) {
		r.fail()
		return nil
	}
	b := r.b[r.p : r.p+n]
	r.p += n
	return b
}
