package dwarf

import (
	stddwarf "debug/dwarf"
)

// CFAOffset reports whether v, a variable of fn, lives at a fixed offset
// from the CFA for the whole function: its location is DW_OP_fbreg N
// alone and fn's frame base is DW_OP_call_frame_cfa. It returns N.
func (v Variable) CFAOffset(fn *Function) (int64, bool) {
	if v.Image == nil || fn == nil || v.Image.dw == nil {
		return 0, false
	}
	loc, ok := exprAttr(v.Image.dw, v.Offset, stddwarf.AttrLocation)
	if !ok || len(loc) < 2 || loc[0] != opFbreg {
		return 0, false
	}
	off, n, ok := sleb128(loc[1:])
	if !ok || 1+n != len(loc) {
		return 0, false
	}
	fb, ok := exprAttr(v.Image.dw, fn.Offset, stddwarf.AttrFrameBase)
	if !ok || len(fb) != 1 || fb[0] != opCallFrameCFA {
		return 0, false
	}
	return off, true
}

// exprAttr returns an exprloc attribute of the DIE at off.
func exprAttr(dw *stddwarf.Data, off stddwarf.Offset, attr stddwarf.Attr) ([]byte, bool) {
	r := dw.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil, false
	}
	fld := e.AttrField(attr)
	if fld == nil || fld.Class != stddwarf.ClassExprLoc {
		return nil, false
	}
	b, ok := fld.Val.([]byte)
	return b, ok
}
