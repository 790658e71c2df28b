package dwarf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Characters, strings and floating-point numbers as GDB prints them.

// charPrefix is the literal prefix GDB prints for wide character types.
func charPrefix(t *BaseType) string {
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

// formatFloat prints like GDB: %g with 9 (float), 17 (double) or 21
// (x87 long double) significant digits.
func formatFloat(b []byte) string {
	f, big, ok := floatValue(b)
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
		case 4:
			u := leUint(b[:4])
			m, neg = u&(1<<23-1), u&(1<<31) != 0
		case 8:
			u := leUint(b)
			m, neg = u&(1<<52-1), u&(1<<63) != 0
		default:
			m, neg = leUint(b[:8])&(1<<62-1), b[9]&0x80 != 0
		}
		s := "nan(0x" + strconv.FormatUint(m, 16) + ")"
		if neg {
			s = "-" + s
		}
		return s
	}
	switch len(b) {
	case 4:
		return fmt.Sprintf("%.9g", float32(f))
	case 8:
		return fmt.Sprintf("%.17g", f)
	}
	if big != nil {
		return big.Text('g', 21)
	}
	return fmt.Sprintf("%.17g", f)
}

// escapeChar spells one character inside quote q (' or ") as GDB does.
func escapeChar(c uint64, q byte) string {
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
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	if c > 0xff {
		if c < 0x10000 {
			return fmt.Sprintf(`\x%x`, c)
		}
		return fmt.Sprintf(`\x%x`, c)
	}
	return fmt.Sprintf(`\%03o`, c)
}

// formatChars prints a character sequence as GDB's printstr: quoted runs,
// runs longer than the repeat threshold as 'c' <repeats N times>, and
// "..." when truncated.
func (env *ValueEnv) formatChars(cs []uint64, prefix string, truncated bool) string {
	if len(cs) == 0 {
		if truncated {
			return prefix + `""...`
		}
		return prefix + `""`
	}
	var b strings.Builder
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
			b.WriteString(prefix + "'" + escapeChar(cs[i], '\'') + "' <repeats " + strconv.Itoa(run) + " times>")
		} else {
			if !inQuote {
				if !first {
					b.WriteString(", ")
				}
				b.WriteString(prefix + `"`)
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
	if truncated {
		b.WriteString("...")
	}
	return b.String()
}

// isCharType reports whether t is a character type and returns it. In C,
// wchar_t, char16_t and char32_t are typedefs of integer types; GDB
// still prints them as characters, and so does this.
func isCharType(t Type) (*BaseType, bool) {
	b, ok := Resolve(t).(*BaseType)
	if !ok || b.ByteSize <= 0 {
		return nil, false
	}
	if b.IsChar() {
		return b, true
	}
	if w := wideTypedef(t); w != "" && !b.IsFloat() {
		c := *b
		c.Name = w
		return &c, true
	}
	return nil, false
}

// wideTypedef returns "wchar_t", "char16_t" or "char32_t" when t is (a
// typedef chain through) a typedef of that name.
func wideTypedef(t Type) string {
	for i := 0; i < 100 && t != nil; i++ {
		switch u := t.(type) {
		case *TypedefType:
			switch u.Name {
			case "wchar_t", "char16_t", "char32_t":
				return u.Name
			}
			t = u.Elem
		case *QualType:
			t = u.Elem
		default:
			return ""
		}
	}
	return ""
}

// readCString reads a NUL-terminated string of element size es at addr,
// up to limit characters.
func (env *ValueEnv) readCString(addr uint64, es int, limit int) ([]uint64, bool, error) {
	var out []uint64
	const chunk = 64
	for len(out) < limit {
		n := chunk - int(addr%chunk)
		buf, err := env.read(addr, n)
		if err != nil {
			if len(out) == 0 {
				return nil, false, err
			}
			return out, false, err
		}
		for i := 0; i+es <= len(buf); i += es {
			c := leUint(buf[i : i+es])
			if c == 0 {
				return out, false, nil
			}
			out = append(out, c)
			if len(out) >= limit {
				return out, true, nil
			}
		}
		addr += uint64(n - n%es)
	}
	return out, true, nil
}
