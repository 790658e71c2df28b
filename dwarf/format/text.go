package format

import (
	"fmt"
	"math"
	mathbig "math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rrmcp/rrmcp/dwarf"
)

// Characters, strings and floating-point numbers as GDB prints them.

// charPrefix is the literal prefix GDB prints for wide character types.
func charPrefix(t *dwarf.BaseType) string {
	switch t.Name {
	case "char16_t":
		return "u"
	case "char32_t":
		return "U"
	case "wchar_t":
		return "L"
	case "char8_t":
		return "u8"
	}
	return ""
}

// formatFloat prints a value of floating-point type t (nil: known by its
// size alone) like GDB: %g with 5 (IEEE half), 4 (bfloat16), 9 (float),
// 17 (double), 21 (x87 long double) or 36 (IEEE binary128) significant
// digits; a NaN with its mantissa bits (GDB's -nan(0x7f0000)).
func formatFloat(t *dwarf.BaseType, b []byte) string {
	f, big, ok := dwarf.DecodeFloatOf(t, b)
	bfloat := t != nil && dwarf.IsBFloat16(t)
	quad := t != nil && dwarf.IsFloat128(t)
	if !ok {
		return "<invalid float>"
	}
	if math.IsInf(f, 0) {
		if f < 0 {
			return "-inf"
		}
		return "inf"
	}
	if math.IsNaN(f) {
		var m uint64
		neg := false
		switch len(b) {
		case 2:
			u := dwarf.DecodeUint(b)
			m, neg = u&(1<<10-1), u&(1<<15) != 0
			if bfloat {
				m = u & (1<<7 - 1)
			}
		case 4:
			u := dwarf.DecodeUint(b[:4])
			m, neg = u&(1<<23-1), u&(1<<31) != 0
		case 8:
			u := dwarf.DecodeUint(b)
			m, neg = u&(1<<52-1), u&(1<<63) != 0
		case 16:
			if quad {
				hi := dwarf.DecodeUint(b[8:])
				fr := new(mathbig.Int).Lsh(new(mathbig.Int).SetUint64(hi&(1<<48-1)), 64)
				fr.Or(fr, new(mathbig.Int).SetUint64(dwarf.DecodeUint(b[:8])))
				s := "nan(0x" + fr.Text(16) + ")"
				if hi>>63 != 0 {
					s = "-" + s
				}
				return s
			}
			m, neg = dwarf.DecodeUint(b[:8])&(1<<62-1), b[9]&0x80 != 0
		default:
			m, neg = dwarf.DecodeUint(b[:8])&(1<<62-1), b[9]&0x80 != 0
		}
		s := "nan(0x" + strconv.FormatUint(m, 16) + ")"
		if neg {
			s = "-" + s
		}
		return s
	}
	switch len(b) {
	case 2:
		if bfloat {
			return fmt.Sprintf("%.4g", f)
		}
		return fmt.Sprintf("%.5g", f)
	case 4:
		return fmt.Sprintf("%.9g", float32(f))
	case 8:
		return fmt.Sprintf("%.17g", f)
	}
	if big != nil && quad {
		return big.Text('g', 36)
	}
	if big != nil {
		return big.Text('g', 21)
	}
	return fmt.Sprintf("%.17g", f)
}

// Characters are printed as GDB prints them in a UTF-8 locale (its host
// charset then, and its default target charsets: UTF-8 for char, UTF-16
// for char16_t, UTF-32 for wchar_t and char32_t on Linux): a printable
// character outside ASCII as itself, everything else escaped. decodeChars
// turns the code units read into the characters printed, each either a
// code point (ASCII, or printable and outside ASCII) or, marked with
// rawUnit, a code unit that is not part of a printable character (a byte
// of invalid or unprintable UTF-8, a lone surrogate), which is escaped.

// rawUnit marks a code unit that is printed escaped; incompleteUnit one
// of the bytes at the end of a string that begin a UTF-8 sequence the
// string ends before (GDB: <incomplete sequence \342\202>).
const (
	rawUnit        = 1 << 40
	incompleteUnit = 1 << 41
)

// incompleteUTF8 reports whether b, the last bytes of a string, begin a
// sequence that the string ends before, as glibc's UTF-8 decoder (GDB's
// iconv) judges it: besides RFC 3629's sequences, a lead byte 0xF5-0xFD
// still begins one of 4 to 6 bytes there, so "ab\367" ends in
// <incomplete sequence \367>, not in an invalid byte.
func incompleteUTF8(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	need := 0
	switch c := b[0]; {
	case c < 0xf5:
		return !utf8.FullRune(b)
	case c < 0xf8:
		need = 4
	case c < 0xfc:
		need = 5
	case c < 0xfe:
		need = 6
	default:
		return false
	}
	if len(b) >= need {
		return false
	}
	for _, c := range b[1:] {
		if c&0xc0 != 0x80 {
			return false
		}
	}
	return true
}

// decodeChars decodes code units of es bytes each into printed characters.
func decodeChars(cs []uint64, es int) []uint64 {
	out := make([]uint64, 0, len(cs))
	switch es {
	case 1:
		var buf [utf8.UTFMax]byte
		for i := 0; i < len(cs); {
			if cs[i] < utf8.RuneSelf {
				out = append(out, cs[i])
				i++
				continue
			}
			n := 0
			for n < len(buf) && i+n < len(cs) {
				buf[n] = byte(cs[i+n])
				n++
			}
			if i+n == len(cs) && incompleteUTF8(buf[:n]) {
				for _, c := range cs[i:] {
					out = append(out, c|incompleteUnit)
				}
				break
			}
			r, size := utf8.DecodeRune(buf[:n])
			if r == utf8.RuneError && size <= 1 || !printable(r) {
				out = append(out, cs[i]|rawUnit)
				i++
				continue
			}
			out = append(out, uint64(r))
			i += size
		}
	case 2:
		for i := 0; i < len(cs); i++ {
			r := rune(cs[i])
			if utf16.IsSurrogate(r) && i+1 < len(cs) {
				if d := utf16.DecodeRune(r, rune(cs[i+1])); d != utf8.RuneError {
					if printable(d) {
						out = append(out, uint64(d))
					} else {
						out = append(out, cs[i]|rawUnit, cs[i+1]|rawUnit)
					}
					i++
					continue
				}
			}
			out = append(out, wideUnit(cs[i]))
		}
	default:
		for _, c := range cs {
			out = append(out, wideUnit(c))
		}
	}
	return out
}

// charUnit is the printed form of one character value of es bytes (a
// char's byte outside ASCII is not a character by itself in UTF-8).
func charUnit(c uint64, es int) uint64 {
	if es == 1 {
		if c >= utf8.RuneSelf {
			return c | rawUnit
		}
		return c
	}
	return wideUnit(c)
}

// wideUnit is a UTF-16 or UTF-32 code unit taken as a code point.
func wideUnit(c uint64) uint64 {
	if c < utf8.RuneSelf || c <= unicode.MaxRune && !utf16.IsSurrogate(rune(c)) && printable(rune(c)) {
		return c
	}
	return c | rawUnit
}

// printable is GDB's test in a UTF-8 locale (iswprint) for a character
// outside ASCII: a graphic character or a space.
func printable(r rune) bool { return r >= utf8.RuneSelf && unicode.IsGraphic(r) }

// escapeChar spells one printed character (decodeChars, charUnit) inside
// quote q (' or ") as GDB does.
func escapeChar(c uint64, q byte) string {
	if c&rawUnit != 0 {
		c &^= rawUnit
		if c > 0xff {
			return fmt.Sprintf(`\x%x`, c)
		}
		return fmt.Sprintf(`\%03o`, c)
	}
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	case '\\':
		return `\\`
	case uint64(q):
		return `\` + string(rune(q))
	}
	if c >= 0x20 && c < 0x7f || c >= utf8.RuneSelf {
		return string(rune(c))
	}
	return fmt.Sprintf(`\%03o`, c)
}

// formatChars prints a sequence of printed characters (decodeChars) as
// GDB's printstr: quoted runs, runs longer than the repeat threshold as
// 'c' <repeats N times>, and "..." when truncated.
func (env *printer) formatChars(cs []uint64, prefix string, truncated bool) string {
	if len(cs) == 0 {
		if truncated {
			return prefix + `""...`
		}
		return prefix + `""`
	}
	var incomplete []uint64
	for len(cs) > 0 && cs[len(cs)-1]&incompleteUnit != 0 {
		incomplete = append([]uint64{cs[len(cs)-1] &^ incompleteUnit}, incomplete...)
		cs = cs[:len(cs)-1]
	}
	var b strings.Builder
	// The prefix (L, u, U, u8) once, before the first segment, as GDB's
	// c_printstr writes it: a segment after a repeat has none.
	b.WriteString(prefix)
	inQuote := false
	first := true
	thr := env.repeats()
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j] == cs[i] {
			j++
		}
		run := j - i
		if run > thr {
			if inQuote {
				b.WriteString(`"`)
				inQuote = false
			}
			if !first {
				b.WriteString(", ")
			}
			b.WriteString("'" + escapeChar(cs[i], '\'') + "' <repeats " + strconv.Itoa(run) + " times>")
		} else {
			if !inQuote {
				if !first {
					b.WriteString(", ")
				}
				b.WriteString(`"`)
				inQuote = true
			}
			for k := 0; k < run; k++ {
				b.WriteString(escapeChar(cs[i], '"'))
			}
		}
		first = false
		i = j
	}
	if inQuote {
		b.WriteString(`"`)
	}
	if len(incomplete) > 0 {
		if !first {
			b.WriteString(", ")
		}
		b.WriteString("<incomplete sequence ")
		for _, c := range incomplete {
			b.WriteString(escapeChar(c|rawUnit, '"'))
		}
		b.WriteString(">")
	}
	if truncated {
		b.WriteString("...")
	}
	return b.String()
}
