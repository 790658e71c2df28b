package format

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/rrmcp/rrmcp/dwarf"
)

// GDB print format letters (print/x, /d, /a ...).

// formatLetter prints a scalar in a GDB print format letter; ok is false
// for aggregates (which recurse into their members).
func (env *printer) formatLetter(o dwarf.Object) (string, bool) {
	var size int
	var signed bool
	var v uint64
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.BaseType, *dwarf.EnumType, *dwarf.PointerType:
		b, err := env.Bytes(o)
		if err != nil {
			return env.errorText(err), true
		}
		if bt, ok := t.(*dwarf.BaseType); ok && bt.IsFloat() && env.Letter == 'c' {
			return "", false
		}
		if env.Letter == 'a' {
			// an address: the value as a 64-bit integer (floats
			// converted, signed values sign-extended), with <sym>
			if bt, ok := t.(*dwarf.BaseType); ok && bt.IsFloat() {
				f, _, _ := dwarf.DecodeFloatOf(bt, b)
				return env.addrWithSym(uint64(int64(f))), true
			}
			if len(b) > 8 {
				return "", false
			}
			return env.addrWithSym(uint64(dwarf.DecodeInt(b, dwarf.IsSignedType(o.Type)))), true
		}
		if len(b) > 8 {
			// x87 long double: its 10 significant bytes, as GDB
			if bt, ok := t.(*dwarf.BaseType); ok && bt.IsFloat() && len(b) >= 10 {
				b = b[:10]
			}
			if env.Letter == 'x' {
				return "0x" + bigInt(b, false).Text(16), true
			}
			return "", false
		}
		size = len(b)
		v = dwarf.DecodeUint(b)
		signed = dwarf.IsSignedType(o.Type)
	default:
		return "", false
	}
	if size == 0 {
		return "", false
	}
	m := mask(size)
	switch env.Letter {
	case 's':
		return "", false // natural format (strings are already strings)
	case 'x':
		return "0x" + strconv.FormatUint(v&m, 16), true
	case 'z':
		return fmt.Sprintf("0x%0*x", 2*size, v&m), true
	case 'o':
		if v&m == 0 {
			return "0", true
		}
		return "0" + strconv.FormatUint(v&m, 8), true
	case 't':
		return strconv.FormatUint(v&m, 2), true
	case 'd':
		return strconv.FormatInt(dwarf.DecodeInt(binary.LittleEndian.AppendUint64(nil, v)[:size], true), 10), true
	case 'u':
		return strconv.FormatUint(v&m, 10), true
	case 'c':
		c := int64(int8(v))
		if !signed {
			c = int64(uint8(v))
		}
		return strconv.FormatInt(c, 10) + " '" + escapeChar(charUnit(uint64(c)&0xff, 1), '\'') + "'", true
	}
	return "", false
}
