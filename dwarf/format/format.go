package format

import (
	"encoding/binary"
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// printer prints the values of one environment: the printers of this
// package are its methods, and it reads through the embedded ValueEnv.
type printer struct {
	*dwarf.ValueEnv
	tree  Tree // Structured's bounds
	nodes int  // children Structured may still add (tree.Nodes > 0)
	// errs: the errors printed as "<error: ...>" in place of a value or
	// a part of it, in order (Render).
	errs []error
	// seenStatics are the addresses of the static members of struct
	// type printed so far (staticText).
	seenStatics map[uint64]bool
	// referent is the address of the reference target being handed to
	// a printer (prettyPrintReferent).
	referent *uint64
	// plain: Plain's form (info locals) at the top
	plain bool
}

// Text prints o as GDB's print command does at top level: pointers carry
// their type ("(struct node *) 0x5555... <n1>"), references their
// address ("(int &) @0x...: 5").
func Text(env *dwarf.ValueEnv, o dwarf.Object) string { return (&printer{ValueEnv: env}).text(o) }

// Plain prints o as GDB's info locals and info args do
// (print_variable_and_value: common_val_print), which is Text without
// the type a pointer or reference carries at the top ("0x5555... <n1>",
// "@0x7ffe...: 5"): the type is told apart.
func Plain(env *dwarf.ValueEnv, o dwarf.Object) string {
	p := &printer{ValueEnv: env, plain: true}
	if rt, ok := dwarf.Resolve(o.Type).(*dwarf.ReferenceType); ok {
		// a reference shows its referent, as at the top ("@0x…: 5")
		return strings.TrimPrefix(p.text(o), "("+env.TypeString(rt)+") ")
	}
	return p.memberText(o)
}

// Render is Text with the errors the text shows as "<error: ...>" in
// place of a value: whole is the one that stands for the entire value
// (nil when anything of it printed), parts every one of them, a member's
// or a pointee's included, in order. Callers judge them with errors.Is
// and errors.As, not by reading the text. A pretty printer's failure to
// read what a container points to (a std::string not constructed yet)
// is printed as GDB prints it and is not among them: GDB's print shows
// it as the value, not as a failure of the print.
func Render(env *dwarf.ValueEnv, o dwarf.Object) (text string, whole error, parts []error) {
	p := &printer{ValueEnv: env}
	text = p.text(o)
	if len(p.errs) > 0 && text == errorString(p.errs[0]) {
		whole = p.errs[0]
		var me *dwarf.MemoryError
		if errors.As(whole, &me) {
			whole = me // the error the text shows
		}
	}
	return text, whole, p.errs
}

func (env *printer) text(o dwarf.Object) string {
	return env.format(o, true, 0, nil)
}

// memberText prints o as GDB prints it inside an aggregate (pointers
// without the type prefix).
func (env *printer) memberText(o dwarf.Object) string {
	return env.format(o, false, 0, nil)
}

// errorText renders a read error the way GDB shows it inside a value,
// and keeps the errors shown as "<error: ...>" for Render.
func (env *printer) errorText(err error) string {
	if !errors.Is(err, dwarf.ErrNotSaved) && !errors.Is(err, dwarf.ErrOptimizedOut) {
		env.errs = append(env.errs, err)
	}
	return errorString(err)
}

// errorString is errorText's text.
func errorString(err error) string {
	if errors.Is(err, dwarf.ErrNotSaved) {
		return "<not saved>"
	}
	if errors.Is(err, dwarf.ErrOptimizedOut) {
		return "<optimized out>"
	}
	return "<error: " + firstMemoryError(err).Error() + ">"
}

// optimizedOutText is how GDB prints a member whose location is gone at
// this pc: "<optimized out>", but a struct, class or union member by
// member ("{a = <optimized out>, b = <optimized out>}") and an array
// element by element (with its repeats), as its common_val_print does.
// A whole value is "<optimized out>" (its value_check_printable, which
// print and info locals use).
func (env *printer) optimizedOutText(t dwarf.Type, depth int) string {
	if depth > maxFormatDepth {
		return "<optimized out>"
	}
	switch u := dwarf.Resolve(t).(type) {
	case *dwarf.ArrayType:
		// element by element, as GDB's valprint_check_validity passes
		// an array to its elements
		if u.Count <= 0 {
			return "<optimized out>"
		}
		e := env.optimizedOutText(u.Elem, depth+1)
		if u.Count > int64(env.repeats()) {
			return "{" + e + " <repeats " + strconv.FormatInt(u.Count, 10) + " times>}"
		}
		parts := make([]string, u.Count)
		for i := range parts {
			parts[i] = e
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *dwarf.StructType:
		if u.Incomplete {
			return "<optimized out>"
		}
		var parts []string
		for _, b := range u.Bases {
			parts = append(parts, "<"+dwarf.TypeString(b.Type)+"> = "+env.optimizedOutText(b.Type, depth+1))
		}
		for _, f := range u.Fields {
			v := env.optimizedOutText(f.Type, depth+1)
			if f.Name == "" {
				parts = append(parts, v)
				continue
			}
			parts = append(parts, f.Name+" = "+v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "<optimized out>"
}

// maxFormatDepth stops runaway recursion through self-containing values.
const maxFormatDepth = 64

func (env *printer) format(o dwarf.Object, top bool, depth int, seenVB map[dwarf.Type]bool) string {
	if o.Err != nil {
		return env.errorText(o.Err)
	}
	if o.Loc.Kind == dwarf.LocOptimizedOut {
		if top {
			return "<optimized out>"
		}
		if st, ok := dwarf.Resolve(o.Type).(*dwarf.StructType); ok && st.Lang == dwarf.LangRust && !st.Incomplete && st.Variants == nil && depth <= maxFormatDepth {
			// in Rust's syntax, member by member (GDB's
			// rust_value_print_struct): NonNull<T> {pointer: <optimized out>}
			return env.rustStruct(o, st, st.Name, " ", depth)
		}
		return env.optimizedOutText(o.Type, 0)
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
	if rt := dwarf.Resolve(o.Type); rt != nil && rt.Common().Lang == dwarf.LangRust {
		if s, ok := env.formatRust(o, top, depth); ok {
			return s
		}
	}
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.BaseType:
		b, err := env.Bytes(o)
		if err != nil {
			return env.errorText(err)
		}
		if ct, ok := dwarf.IsCharType(o.Type); ok && !t.IsChar() {
			t = ct
			t.Encoding = dwarf.EncUTF // print as a character
			if dwarf.DecodeInt(b, true) < 0 {
				t.Encoding = dwarf.EncSignedChar
			}
		}
		return formatBase(t, b)
	case *dwarf.EnumType:
		v, err := env.Int(o)
		if err != nil {
			return env.errorText(err)
		}
		return t.ValueText(v)
	case *dwarf.PointerType:
		return env.formatPointer(o, t, top)
	case *dwarf.ReferenceType:
		if o.Loc.Kind == dwarf.LocImplicitPointer {
			target, err := env.ImplicitTarget(o, t.Elem)
			if err != nil {
				return env.errorText(err)
			}
			if !env.Raw && !t.Rvalue {
				// GDB hands the referent to a pretty printer, as for a
				// reference in memory: print shows the printer's text
				// alone, info locals after the marker, without ": "
				// (<synthetic pointer>"one two").
				if p, ok := env.prettyPrintReferent(target); ok {
					txt := env.formatPretty(p, depth+1)
					if top && !env.plain {
						return txt
					}
					return "<synthetic pointer>" + txt
				}
			}
			v := env.format(target, false, depth+1, nil)
			if !top {
				return "<synthetic pointer>"
			}
			return "(" + env.TypeString(t) + ") <synthetic pointer>: " + v
		}
		a, err := env.Uint(o)
		if err != nil {
			return env.errorText(err)
		}
		if !env.Raw && !t.Rvalue {
			// GDB applies a pretty printer to the referenced object and
			// shows only its text (top level and in members alike). Not
			// through an rvalue reference: libstdc++'s lookup strips an
			// lvalue reference only (Printer.get_basic_type), so GDB
			// prints the reference, the printer then the referent.
			if p, ok := env.prettyPrintReferent(dwarf.MemObject(t.Elem, a)); ok {
				return env.formatPretty(p, depth+1)
			}
		}
		if !top {
			// a member: GDB prints the address alone, without reading
			// the referent (generic_val_print_ref, deref_ref off)
			return "@" + hex(a)
		}
		if err := env.referentUnreadable(t.Elem, a); err != nil {
			// GDB reads the whole referenced object before printing any
			// of it, and says so in place of the value.
			return "(" + env.TypeString(t) + ") " + errorReading(err)
		}
		return "(" + env.TypeString(t) + ") @" + hex(a) + ": " +
			env.format(dwarf.MemObject(t.Elem, a), false, depth+1, nil)
	case *dwarf.PtrToMemberType:
		return env.formatPtrToMember(o, t)
	case *dwarf.StructType:
		return env.formatStruct(o, t, depth, seenVB)
	case *dwarf.ArrayType:
		return env.formatArray(o, t, depth)
	case *dwarf.FuncType:
		if t.Lang == dwarf.LangGo {
			return env.goFuncValue(o, t)
		}
		a, ok := o.Addr()
		if !ok {
			return "{" + env.TypeString(t) + "} <not in memory>"
		}
		return "{" + env.TypeString(t) + "} " + env.addrWithSym(a)
	case *dwarf.UnspecifiedType:
		return "<incomplete type>"
	case *dwarf.VoidType:
		return "void"
	}
	return "<unknown type>"
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

func (env *printer) addrWithSym(a uint64) string {
	s := hex(a)
	if env.Symbolize != nil && a != 0 {
		if name, ok := env.Symbolize(a); ok {
			s += " <" + name + ">"
		}
	}
	return s
}

func formatBase(t *dwarf.BaseType, b []byte) string {
	switch {
	case t.Lang == dwarf.LangRust && t.Name == "()":
		return "()" // the unit value (a zero-size base type)
	case t.Lang == dwarf.LangRust && t.IsChar():
		v := dwarf.DecodeUint(b)
		return strconv.FormatUint(v, 10) + " '" + rustChar(v) + "'"
	case t.IsBool():
		switch dwarf.DecodeUint(b) {
		case 0:
			return "false"
		case 1:
			return "true"
		}
		return strconv.FormatUint(dwarf.DecodeUint(b), 10)
	case t.IsFloat():
		return formatFloat(t, b)
	case t.Encoding == dwarf.EncComplex:
		h := len(b) / 2
		return formatFloat(nil, b[:h]) + " + " + formatFloat(nil, b[h:]) + "i"
	case t.IsChar():
		v := dwarf.DecodeInt(b, t.IsSigned())
		return strconv.FormatInt(v, 10) + " " + charPrefix(t) + "'" + escapeChar(charUnit(uint64(v)&mask(len(b)), len(b)), '\'') + "'"
	case t.IsSigned():
		if len(b) > 8 {
			return bigInt(b, true).String()
		}
		return strconv.FormatInt(dwarf.DecodeInt(b, true), 10)
	}
	if len(b) > 8 { // __int128
		return bigInt(b, false).String()
	}
	return strconv.FormatUint(dwarf.DecodeUint(b), 10)
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

// plainTextPointer reports whether print leaves out a pointer's type
// before its string, as GDB's c_value_print does: only for a pointer type
// without a name of its own whose target is named char, wchar_t, char16_t
// or char32_t (const and volatile aside), so "unsigned char *" and a
// typedef'd pointer keep it.
func plainTextPointer(t dwarf.Type) bool {
	p, ok := unqualified(t).(*dwarf.PointerType)
	if !ok {
		return false
	}
	elem := unqualified(p.Elem)
	if elem == nil {
		return false
	}
	switch elem.Common().Name {
	case "char", "wchar_t", "char16_t", "char32_t":
		return true
	}
	return false
}

// unqualified is t without its const and volatile (typedefs kept).
func unqualified(t dwarf.Type) dwarf.Type {
	for {
		q, ok := t.(*dwarf.QualType)
		if !ok {
			return t
		}
		t = q.Elem
	}
}

func (env *printer) formatPointer(o dwarf.Object, t *dwarf.PointerType, top bool) string {
	if o.Loc.Kind == dwarf.LocImplicitPointer {
		if top && !plainTextPointer(o.Type) { // GDB's (char *) hack, as below
			return "(" + env.TypeString(o.Type) + ") <synthetic pointer>"
		}
		return "<synthetic pointer>"
	}
	a, err := env.Uint(o)
	if err != nil {
		return env.errorText(err)
	}
	if ct, ok := dwarf.IsCharType(t.Elem); ok {
		s := env.addrWithSym(a)
		if top && !plainTextPointer(o.Type) {
			s = "(" + env.TypeString(o.Type) + ") " + s
		}
		if a == 0 {
			return s
		}
		cs, trunc, err := env.ReadCString(a, int(ct.ByteSize), env.maxElements())
		if err != nil && len(cs) == 0 {
			return s + " " + env.errorText(err)
		}
		s += " " + env.formatChars(decodeChars(cs, int(ct.ByteSize)), charPrefix(ct), trunc)
		if err != nil {
			// the characters up to memory that cannot be read, then
			// why, as GDB's val_print_string
			s += errorString(err)
		}
		return s
	}
	s := env.addrWithSym(a)
	if top {
		return "(" + env.TypeString(o.Type) + ") " + s
	}
	return s
}

func (env *printer) formatPtrToMember(o dwarf.Object, t *dwarf.PtrToMemberType) string {
	b, err := env.Bytes(o)
	if err != nil {
		return env.errorText(err)
	}
	cls, _ := dwarf.Resolve(t.Class).(*dwarf.StructType)
	clsName := ""
	if t.Class != nil {
		clsName = env.TypeString(t.Class)
	}
	if _, ok := dwarf.Resolve(t.Elem).(*dwarf.FuncType); ok {
		ptr := dwarf.DecodeUint(b[:min(8, len(b))])
		if ptr == 0 {
			return "NULL"
		}
		if ptr&1 == 1 {
			return "&virtual table offset " + strconv.FormatUint(ptr-1, 10)
		}
		return "(" + env.TypeString(o.Type) + ") " + env.addrWithSym(ptr)
	}
	off := dwarf.DecodeInt(b, true)
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

// maxReferentCheck bounds the referenced objects whose bytes
// referentUnreadable reads up front.
const maxReferentCheck = 1 << 12

// referentUnreadable is the memory error of reading the object of type
// elem at a, which GDB fetches whole when it prints a reference (nil:
// readable, or too large or of no size to check).
func (env *printer) referentUnreadable(elem dwarf.Type, a uint64) error {
	n := dwarf.SizeOf(elem)
	if n <= 0 || n > maxReferentCheck {
		return nil
	}
	_, err := env.Read(a, int(n))
	var me *dwarf.MemoryError
	if !errors.As(err, &me) {
		return nil
	}
	return me
}

// staticText prints a static member as GDB's cp_print_static_field: one
// of struct type field by field, without its pretty printer, and once
// per address in a print: after that "<same as static member of an
// already seen type>" (a class holding a static of its own type).
func (env *printer) staticText(s dwarf.StaticMember, depth int) string {
	o := env.StaticObject(s)
	st, ok := dwarf.Resolve(s.Type).(*dwarf.StructType)
	if !ok || o.Err != nil || o.Loc.Kind == dwarf.LocOptimizedOut || depth > maxFormatDepth {
		return env.format(o, false, depth, nil)
	}
	if a, ok := o.Addr(); ok {
		if env.seenStatics[a] {
			return "<same as static member of an already seen type>"
		}
		if env.seenStatics == nil {
			env.seenStatics = map[uint64]bool{}
		}
		env.seenStatics[a] = true
	}
	return env.formatStruct(o, st, depth, nil)
}

func (env *printer) formatStruct(o dwarf.Object, t *dwarf.StructType, depth int, seenVB map[dwarf.Type]bool) string {
	if t.Incomplete {
		return "<incomplete type>"
	}
	if seenVB == nil {
		seenVB = map[dwarf.Type]bool{}
	}
	var parts []string
	for _, b := range t.Bases {
		if b.Virtual {
			if seenVB[dwarf.Resolve(b.Type)] {
				continue
			}
			seenVB[dwarf.Resolve(b.Type)] = true
		}
		if bt, ok := dwarf.Resolve(b.Type).(*dwarf.StructType); ok && bt.Incomplete {
			// A base known by its declaration alone (std::runtime_error
			// from a library without debug information): GDB prints
			// its fields, none.
			parts = append(parts, "<"+dwarf.TypeString(b.Type)+"> = {<No data fields>}")
			continue
		}
		sub := env.BaseObject(o, b)
		parts = append(parts, "<"+dwarf.TypeString(b.Type)+"> = "+env.format(sub, false, depth+1, seenVB))
	}
	// Virtual bases reachable only through the bases printed above are
	// printed inside them; a class's own vbases are handled above.
	for _, m := range t.Members() {
		if s := m.Static; s != nil {
			parts = append(parts, "static "+s.Name+" = "+env.staticText(*s, depth+1))
			continue
		}
		f := *m.Field
		v := env.format(env.Field(o, f), false, depth+1, nil)
		if f.Name == "" {
			parts = append(parts, v)
			continue
		}
		parts = append(parts, f.Name+" = "+v)
	}
	if len(t.Fields)+len(t.Statics) == 0 {
		parts = append(parts, "<No data fields>") // GDB: also after bases
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (env *printer) formatArray(o dwarf.Object, t *dwarf.ArrayType, depth int) string {
	if t.Count <= 0 {
		if t.Count == 0 {
			return "{}"
		}
		// unknown bound (flexible array member): GDB shows the address,
		// and of characters the string there, as of a pointer to its
		// first element (c_value_print_array)
		if _, ok := dwarf.IsCharType(t.Elem); ok && o.Loc.Kind == dwarf.LocAddress && (env.Letter == 0 || env.Letter == 's') {
			size := int64(env.PointerSize())
			pt := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: size, Lang: t.Lang}, Elem: t.Elem}
			return env.formatPointer(dwarf.BytesObject(pt, binary.LittleEndian.AppendUint64(nil, o.Loc.Addr)[:size]), pt, false)
		}
		return env.addrWithSym(o.Loc.Addr)
	}
	if ct, ok := dwarf.IsCharType(t.Elem); ok && ct.ByteSize <= 4 && (env.Letter == 0 || env.Letter == 's') {
		es := int(ct.ByteSize)
		n := int(t.Count)
		const maxCharArray = 1 << 20 // bytes read for one char array
		sub := o
		if n*es > maxCharArray {
			n = maxCharArray / es
			sub = env.Part(o, &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: int64(n * es)}, Elem: t.Elem, Count: int64(n)}, 0)
		}
		b, err := env.Bytes(sub)
		if err != nil {
			if o.Loc.Kind != dwarf.LocPieces {
				return env.errorText(err)
			}
			// partly optimized out: print element by element as GDB
			return env.formatElems(o, t, depth)
		}
		if len(b) < n*es {
			n = len(b) / es
		}
		cs := make([]uint64, n)
		for i := range cs {
			cs[i] = dwarf.DecodeUint(b[i*es : i*es+es])
		}
		if int64(n) == t.Count && n > 0 && cs[n-1] == 0 {
			cs = cs[:n-1] // GDB drops one trailing NUL
		}
		cs = decodeChars(cs, es)
		// GDB consumes whole runs of equal characters until it has
		// printed "print elements" characters (characters, not bytes, in
		// an array): a long run is printed as one <repeats N times> even
		// past the limit.
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

func (env *printer) formatElems(o dwarf.Object, t *dwarf.ArrayType, depth int) string {
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

func (env *printer) maxElements() int {
	if env.MaxElements > 0 {
		return env.MaxElements
	}
	return 200
}

func (env *printer) repeats() int {
	if env.Repeats > 0 {
		return env.Repeats
	}
	return 10
}
