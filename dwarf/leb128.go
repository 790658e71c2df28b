package dwarf

// The one LEB128 decoder of the module (DWARF expressions, abbreviation
// tables, attribute blocks, location checks in the session all use it).

// uleb decodes the unsigned LEB128 number at the start of b and returns it
// with the number of bytes it took. If b ends inside the number, n is
// len(b) and complete is false. Bits beyond 64 are dropped.
func uleb(b []byte) (v uint64, n int) {
	v, n, _ = uleb128(b)
	return v, n
}

func uleb128(b []byte) (v uint64, n int, complete bool) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return v, len(b), false
}

// sleb decodes the signed LEB128 number at the start of b, as uleb.
func sleb(b []byte) (v int64, n int) {
	v, n, _ = sleb128(b)
	return v, n
}

func sleb128(b []byte) (v int64, n int, complete bool) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1, true
		}
	}
	return v, len(b), false
}
