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
	v, _, n, _, complete = leb128(b)
	return v, n, complete
}

// leb128 accumulates the 7-bit groups of a LEB128 number; shift is the
// number of bits read and last the final byte (its 0x40 bit is the sign
// of a signed number).
func leb128(b []byte) (v uint64, shift uint, n int, last byte, complete bool) {
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, shift, i + 1, c, true
		}
	}
	return v, shift, len(b), 0, false
}

// sleb decodes the signed LEB128 number at the start of b, as uleb.
func sleb(b []byte) (v int64, n int) {
	v, n, _ = sleb128(b)
	return v, n
}

func sleb128(b []byte) (v int64, n int, complete bool) {
	u, shift, n, last, complete := leb128(b)
	v = int64(u)
	if complete && shift < 64 && last&0x40 != 0 {
		v |= -1 << shift
	}
	return v, n, complete
}
