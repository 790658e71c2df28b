package dwarf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format prints o as GDB's print command does at top level: pointers carry
// their type ("(struct node *) 0x5555... <n1>"), references their
// address ("(int &) @0x...: 5").
func (env *ValueEnv) Format(o Object) string {
	return env.format(o, true, 0, nil)
}

// FormatMember prints o as GDB prints it inside an aggregate (pointers
// without the type prefix).
func (env *ValueEnv) FormatMember(o Object) string {
	return env.format(o, false, 0, nil)
}

// errorText renders a read error the way GDB shows it inside a value.
func errorText(err error) string {
	if errors.Is(err, ErrOptimizedOut) {
		return "<optimized out>"
	}
	var me *memError
	if errors.As(err, &me) {
		return "<error: " + me.Error() + ">"
	}
	return "<error: " + err.Error() + ">"
}

// maxFormatDepth stops runaway recursion through self-containing values.
const maxFormatDepth = 64

func (env *ValueEnv) format(o Object, top bool, depth int, seenVB map[Type]bool) string {
	if o.Err != nil {
		return errorText(o.Err)
	}
	if o.Loc.Kind == LocOptimizedOut {
		return "<optimized out>"
	}
	if depth > maxFormatDepth {
		return "..."
	}
	if !env.Raw {
		if p, ok := env.prettyPrint(o); ok {
			return env.formatPretty(p, depth)
		}
	}
	if env.Letter != 0 {
		if s, ok := env.formatLetter(o); ok {
			return s
		}
	}
	switch t := Resolve(o.Type).(type) {
	case *BaseType:
		b, err := env.Bytes(o)
		if err != nil {
			return errorText(err)
		}
		if ct, ok := isCharType(o.Type); ok && !t.IsChar() {
			t = ct
			t.Encoding = ateUTF // print as a character
			if bytesToInt(b, true) < 0 {
				t.Encoding = ateSignedChar
			}
		}
		return formatBase(t, b)
	case *EnumType:
		v, err := env.Int(o)
		if err != nil {
			return errorText(err)
		}
		return t.formatEnum(v)
	case *PointerType:
		return env.formatPointer(o, t, top)
	case *ReferenceType:
		a, err := env.Uint(o)
		if err != nil {
			return errorText(err)
		}
		if !env.Raw {
			// GDB applies a pretty printer to the referenced object and
			// shows only its text (top level and in members alike).
			if p, ok := env.prettyPrint(MemObject(t.Elem, a)); ok {
				return env.formatPretty(p, depth+1)
			}
		}
		if !top {
			return "@" + hex(a)
		}
		return "(" + typeString(o.Type) + ") @" + hex(a) + ": " +
			env.format(MemObject(t.Elem, a), false, depth+1, nil)
	case *PtrToMemberType:
		return env.formatPtrToMember(o, t)
	case *StructType:
		return env.formatStruct(o, t, depth, seenVB)
	case *ArrayType:
		return env.formatArray(o, t, depth)
	case *FuncType:
		a, ok := o.Addr()
		if !ok {
			return "{" + typeString(o.Type) + "} <not in memory>"
		}
		return "{" + typeString(o.Type) + "} " + env.addrWithSym(a)
	case *UnspecifiedType:
		return "<incomplete type>"
	case *VoidType:
		return "void"
	}
	return "<unknown type>"
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

func (env *ValueEnv) addrWithSym(a uint64) string {
	s := hex(a)
	if env.Symbolize != nil && a != 0 {
		if name, ok := env.Symbolize(a); ok {
			s += " <" + name + ">"
		}
	}
	return s
}

func formatBase(t *BaseType, b []byte) string {
	switch {
	case t.IsBool():
		switch leUint(b) {
		case 0:
			return "false"
		case 1:
			return "true"
		}
		return strconv.FormatUint(leUint(b), 10)
	case t.IsFloat():
		return formatFloat(b)
	case t.Encoding == ateComplex:
		h := len(b) / 2
		return formatFloat(b[:h]) + " + " + formatFloat(b[h:]) + "i"
	case t.IsChar():
		v := bytesToInt(b, t.IsSigned())
		return strconv.FormatInt(v, 10) + " " + charPrefix(t) + "'" + escapeChar(uint64(v)&mask(len(b)), '\'') + "'"
	case t.IsSigned():
		if len(b) > 8 {
			return bigInt(b, true).String()
		}
		return strconv.FormatInt(bytesToInt(b, true), 10)
	}
	if len(b) > 8 { // __int128
		return bigInt(b, false).String()
	}
	return strconv.FormatUint(leUint(b), 10)
}

// bigInt decodes a little-endian integer of any size.
func bigInt(b []byte, signed bool) *big.Int {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	v := new(big.Int).SetBytes(r)
	if signed && len(b) > 0 && b[len(b)-1]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

func mask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

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

func (env *ValueEnv) formatPointer(o Object, t *PointerType, top bool) string {
	if o.Loc.Kind == LocImplicitPointer {
		if top {
			return "(" + typeString(o.Type) + ") <synthetic pointer>"
		}
		return "<synthetic pointer>"
	}
	a, err := env.Uint(o)
	if err != nil {
		return errorText(err)
	}
	if ct, ok := isCharType(t.Elem); ok {
		s := env.addrWithSym(a)
		if a == 0 {
			return s
		}
		cs, trunc, err := env.readCString(a, int(ct.ByteSize), env.maxElements())
		if err != nil && len(cs) == 0 {
			return s + " " + errorText(err)
		}
		return s + " " + env.formatChars(cs, charPrefix(ct), trunc)
	}
	s := env.addrWithSym(a)
	if top {
		return "(" + typeString(o.Type) + ") " + s
	}
	return s
}

func (env *ValueEnv) formatPtrToMember(o Object, t *PtrToMemberType) string {
	b, err := env.Bytes(o)
	if err != nil {
		return errorText(err)
	}
	cls, _ := Resolve(t.Class).(*StructType)
	clsName := ""
	if t.Class != nil {
		clsName = typeString(t.Class)
	}
	if _, ok := Resolve(t.Elem).(*FuncType); ok {
		ptr := leUint(b[:min(8, len(b))])
		if ptr&1 == 1 {
			return "&virtual table offset " + strconv.FormatUint(ptr-1, 10)
		}
		return "(" + typeString(o.Type) + ") " + env.addrWithSym(ptr)
	}
	off := bytesToInt(b, true)
	if off == -1 {
		return "NULL"
	}
	if cls != nil {
		for _, f := range cls.Fields {
			if f.ByteOffset == off && f.BitSize == 0 {
				return "&" + clsName + "::" + f.Name
			}
		}
	}
	return strconv.FormatInt(off, 10)
}

func (env *ValueEnv) formatStruct(o Object, t *StructType, depth int, seenVB map[Type]bool) string {
	if t.Incomplete {
		return "<incomplete type>"
	}
	if seenVB == nil {
		seenVB = map[Type]bool{}
	}
	var parts []string
	for _, b := range t.Bases {
		if b.Virtual {
			if seenVB[Resolve(b.Type)] {
				continue
			}
			seenVB[Resolve(b.Type)] = true
		}
		sub := env.BaseObject(o, b)
		parts = append(parts, "<"+typeString(b.Type)+"> = "+env.format(sub, false, depth+1, seenVB))
	}
	// Virtual bases reachable only through the bases printed above are
	// printed inside them; a class's own vbases are handled above.
	for _, f := range t.Fields {
		v := env.format(env.Field(o, f), false, depth+1, nil)
		if f.Name == "" {
			parts = append(parts, v)
			continue
		}
		parts = append(parts, f.Name+" = "+v)
	}
	for _, s := range t.Statics {
		parts = append(parts, "static "+s.Name+" = "+env.format(env.staticObject(s), false, depth+1, nil))
	}
	if len(t.Fields)+len(t.Statics) == 0 {
		parts = append(parts, "<No data fields>") // GDB: also after bases
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// staticObject locates the definition of a static data member.
func (env *ValueEnv) staticObject(s StaticMember) Object {
	if env.Types == nil {
		return Object{Type: s.Type, Err: ErrOptimizedOut}
	}
	a, ok := env.Types.StaticAddr(s.Decl)
	if !ok {
		return Object{Type: s.Type, Err: ErrOptimizedOut}
	}
	return MemObject(s.Type, a+env.Bias)
}

func (env *ValueEnv) formatArray(o Object, t *ArrayType, depth int) string {
	if t.Count <= 0 {
		if t.Count == 0 {
			return "{}"
		}
		// unknown bound (flexible array member): GDB shows the address
		return env.addrWithSym(o.Loc.Addr)
	}
	if ct, ok := isCharType(t.Elem); ok && ct.ByteSize <= 4 && (env.Letter == 0 || env.Letter == 's') {
		es := int(ct.ByteSize)
		n := int(t.Count)
		const maxCharArray = 1 << 20 // bytes read for one char array
		sub := o
		if n*es > maxCharArray {
			n = maxCharArray / es
			sub = env.sub(o, &ArrayType{CommonType: CommonType{ByteSize: int64(n * es)}, Elem: t.Elem, Count: int64(n)}, 0)
		}
		b, err := env.Bytes(sub)
		if err != nil {
			if o.Loc.Kind != LocPieces {
				return errorText(err)
			}
			// partly optimized out: print element by element as GDB
			return env.formatElems(o, t, depth)
		}
		if len(b) < n*es {
			n = len(b) / es
		}
		cs := make([]uint64, n)
		for i := range cs {
			cs[i] = leUint(b[i*es : i*es+es])
		}
		if int64(n) == t.Count && n > 0 && cs[n-1] == 0 {
			cs = cs[:n-1] // GDB drops one trailing NUL
		}
		// GDB consumes whole runs of equal characters until it has
		// printed "print elements" characters: a long run is printed as
		// one <repeats N times> even past the limit.
		limit := env.maxElements()
		i, consumed := 0, 0
		for i < len(cs) && consumed < limit {
			j := i + 1
			for j < len(cs) && cs[j] == cs[i] {
				j++
			}
			consumed += j - i
			i = j
		}
		return env.formatChars(cs[:i], charPrefix(ct), i < len(cs) || int64(n) < t.Count)
	}
	return env.formatElems(o, t, depth)
}

func (env *ValueEnv) formatElems(o Object, t *ArrayType, depth int) string {
	var parts []string
	limit := env.maxElements()
	thr := env.repeats()
	printed := 0
	i := int64(0)
	for ; i < t.Count && printed < limit; i++ {
		v := env.format(env.Elem(o, i), false, depth+1, nil)
		run := int64(1)
		for i+run < t.Count {
			w := env.format(env.Elem(o, i+run), false, depth+1, nil)
			if w != v {
				break
			}
			run++
		}
		if run > int64(thr) {
			parts = append(parts, v+" <repeats "+strconv.FormatInt(run, 10)+" times>")
			i += run - 1
			printed += thr
			continue
		}
		parts = append(parts, v)
		printed++
	}
	s := "{" + strings.Join(parts, ", ")
	if i < t.Count {
		s += "..."
	}
	return s + "}"
}

// formatLetter prints a scalar in a GDB print format letter; ok is false
// for aggregates (which recurse into their members).
func (env *ValueEnv) formatLetter(o Object) (string, bool) {
	var size int
	var signed bool
	var v uint64
	switch t := Resolve(o.Type).(type) {
	case *BaseType, *EnumType, *PointerType:
		b, err := env.Bytes(o)
		if err != nil {
			return errorText(err), true
		}
		if bt, ok := t.(*BaseType); ok && bt.IsFloat() && env.Letter == 'c' {
			return "", false
		}
		if env.Letter == 'a' {
			// an address: the value as a 64-bit integer (floats
			// converted, signed values sign-extended), with <sym>
			if bt, ok := t.(*BaseType); ok && bt.IsFloat() {
				f, _, _ := floatValue(b)
				return env.addrWithSym(uint64(int64(f))), true
			}
			if len(b) > 8 {
				return "", false
			}
			return env.addrWithSym(uint64(bytesToInt(b, isSignedType(o.Type)))), true
		}
		if len(b) > 8 {
			// x87 long double: its 10 significant bytes, as GDB
			if bt, ok := t.(*BaseType); ok && bt.IsFloat() && len(b) >= 10 {
				b = b[:10]
			}
			if env.Letter == 'x' {
				return "0x" + bigInt(b, false).Text(16), true
			}
			return "", false
		}
		size = len(b)
		v = leUint(b)
		signed = isSignedType(o.Type)
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
		return strconv.FormatInt(bytesToInt(binary.LittleEndian.AppendUint64(nil, v)[:size], true), 10), true
	case 'u':
		return strconv.FormatUint(v&m, 10), true
	case 'c':
		c := int64(int8(v))
		if !signed {
			c = int64(uint8(v))
		}
		return strconv.FormatInt(c, 10) + " '" + escapeChar(uint64(c)&0xff, '\'') + "'", true
	}
	return "", false
}
