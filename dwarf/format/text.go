package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// formatFloat prints like GDB: %g with 9 (float), 17 (double) or 21
// (x87 long double) significant digits.
func formatFloat(b []byte) string {
	f, big, ok := dwarf.DecodeFloat(b)
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
			u := dwarf.DecodeUint(b[:4])
			m, neg = u&(1<<23-1), u&(1<<31) != 0
		case 8:
			u := dwarf.DecodeUint(b)
			m, neg = u&(1<<52-1), u&(1<<63) != 0
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
func (env *printer) formatChars(cs []uint64, prefix string, truncated bool) string {
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
