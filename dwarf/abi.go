package dwarf

import (
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// A ReturnPart is where a piece of a returned value is: Size bytes from
// the start of register Reg (Regs numbering); X87 where Reg is an x87
// register whose 80-bit value converts to a Size-byte float (X87Bytes).
type ReturnPart struct {
	Reg, Size int
	X87       bool
}

// ReturnConvention says where a function returning a value of type t
// has left it, by the System V ABI (x86-64 when ptrSize is 8, i386 when
// 4), as GDB's finish reads it (amd64_return_value, i386_return_value):
//   - inMemory: at the address in rax (eax), for a struct, union or
//     class larger than 16 bytes, any on i386, a C++ class that is not
//     trivially copyable (a user-declared destructor or copy or move
//     constructor, its own or a member's or base's: std::string), one
//     holding a long double, and on i386 a complex double or long double;
//   - else in parts, in the order of the value's bytes: for x86-64 rax
//     then rdx for an eightbyte with any integer or pointer in it (a
//     __int128 in both), xmm0 then xmm1 for one of floating point only (a
//     complex double's two halves), a long double in st0 and a complex
//     long double in st0 and st1; for i386 eax then edx (a long long, a
//     complex float), any float in st0 but a 2-byte one in xmm0.
//
// ok is false for a void function and for what it cannot place.
func ReturnConvention(t Type, ptrSize int) (parts []ReturnPart, inMemory, ok bool) {
	const rax, rdx, xmm0, xmm1, st0 = regnum.AMD64_Rax, regnum.AMD64_Rdx, regnum.AMD64_XMM0, regnum.AMD64_XMM0 + 1, regnum.AMD64_ST0
	t = Resolve(t)
	switch u := t.(type) {
	case nil, *VoidType, *UnspecifiedType:
		// GDB reads DW_TAG_unspecified_type as void (an assembler
		// function's return type as GNU as writes it): no value
		return nil, false, false
	case *StructType:
		u = u.complete()
		size := u.Size()
		if size <= 0 {
			return nil, false, false
		}
		if ptrSize == 4 || size > 16 || nonTrivialCopy(u, 0) {
			return nil, true, true
		}
		sse, x87 := [2]bool{true, true}, false
		if !classify(u, 0, &sse, &x87, 0) {
			return nil, false, false
		}
		if x87 {
			return nil, true, true // a struct holding a long double: memory
		}
		ints, floats := []int{rax, rdx}, []int{xmm0, xmm1}
		for i := int64(0); i*8 < size; i++ {
			if sse[i] {
				parts, floats = append(parts, ReturnPart{Reg: floats[0], Size: 8}), floats[1:]
			} else {
				parts, ints = append(parts, ReturnPart{Reg: ints[0], Size: 8}), ints[1:]
			}
		}
		return parts, false, true
	case *ArrayType:
		return nil, false, false
	case *BaseType:
		size := int(u.Size())
		switch {
		case u.IsFloat() && ptrSize == 4 && size == 2, u.Encoding == EncComplex && ptrSize == 4 && size == 4:
			return []ReturnPart{{Reg: xmm0, Size: size}}, false, true
		case u.IsFloat() && (ptrSize == 4 || size > 8):
			// a long double, and any float on i386: st0
			return []ReturnPart{{Reg: st0, Size: size, X87: true}}, false, true
		case u.IsFloat():
			return []ReturnPart{{Reg: xmm0, Size: size}}, false, true
		case u.Encoding == EncComplex && ptrSize == 4:
			if size != 8 {
				return nil, true, true // complex double, long double: as a struct
			}
			return []ReturnPart{{Reg: rax, Size: 4}, {Reg: rdx, Size: 4}}, false, true
		case u.Encoding == EncComplex:
			switch size {
			case 4, 8:
				return []ReturnPart{{Reg: xmm0, Size: size}}, false, true
			case 16:
				return []ReturnPart{{Reg: xmm0, Size: 8}, {Reg: xmm1, Size: 8}}, false, true
			case 32: // COMPLEX_X87
				return []ReturnPart{{Reg: st0, Size: 16, X87: true}, {Reg: st0 + 1, Size: 16, X87: true}}, false, true
			}
			return nil, false, false
		}
	}
	switch size := int(t.Size()); {
	case size <= 0:
		return nil, false, false
	case size <= ptrSize:
		return []ReturnPart{{Reg: rax, Size: size}}, false, true
	case size <= 2*ptrSize:
		// a long long on i386, a __int128 on x86-64: the low half in
		// rax, the high in rdx (GDB 13 reads nothing for __int128, which
		// amd64_classify leaves without a class, and prints 0)
		return []ReturnPart{{Reg: rax, Size: ptrSize}, {Reg: rdx, Size: size - ptrSize}}, false, true
	}
	return nil, false, false
}

// classify marks the eightbytes of s (at offset off in the returned
// value) that hold anything but floating point; false for what it cannot
// read.
func classify(s *StructType, off int64, sse *[2]bool, x87 *bool, depth int) bool {
	if depth > 8 {
		return false
	}
	for _, b := range s.Bases {
		bs, ok := Resolve(b.Type).(*StructType)
		if !ok || b.Virtual || !classify(bs.complete(), off+b.Offset, sse, x87, depth+1) {
			return false
		}
	}
	for _, f := range s.Fields {
		if !classifyType(f.Type, off+f.ByteOffset, f.BitSize != 0, sse, x87, depth) {
			return false
		}
	}
	if v := s.Variants; v != nil {
		// a Rust enum: its discriminant and every variant's fields,
		// overlaid as a union's members are (rustc returns
		// Option<&T> in rax; without them it looked like a float)
		if v.Discr != nil && !classifyType(v.Discr.Type, off+v.Discr.ByteOffset, false, sse, x87, depth) {
			return false
		}
		for _, vr := range v.Variants {
			if !classifyType(vr.Type, off+vr.ByteOffset, false, sse, x87, depth) {
				return false
			}
		}
	}
	return true
}

func classifyType(t Type, off int64, bitfield bool, sse *[2]bool, x87 *bool, depth int) bool {
	switch u := Resolve(t).(type) {
	case *StructType:
		return classify(u.complete(), off, sse, x87, depth+1)
	case *ArrayType:
		n := SizeOf(u.Elem)
		for i := int64(0); i < u.Count; i++ {
			if !classifyType(u.Elem, off+i*n, false, sse, x87, depth+1) {
				return false
			}
		}
		return true
	case *BaseType:
		if u.IsFloat() && !bitfield {
			if u.Size() > 8 {
				*x87 = true
			}
			return true
		}
	}
	if off < 0 || off >= 16 {
		return false
	}
	sse[off/8] = false
	return true
}

// DW_AT_calling_convention of a class (DWARF 5).
const (
	dwCCPassByReference = 4
	dwCCPassByValue     = 5
)

// nonTrivialCopy reports whether a C++ class cannot be copied bit for
// bit (the Itanium ABI then returns it through memory), as GDB's
// gnuv3_pass_by_reference decides: it is dynamic (a vtable pointer, a
// virtual base or a virtual method), or it, a base or a member has a
// user-provided destructor or copy or move constructor (one declared
// = default in the class is not user-provided: a class with
// X(const X &) = default comes back in registers).
func nonTrivialCopy(s *StructType, depth int) bool {
	if s.Lang != LangCPlusPlus || depth > 8 {
		return false
	}
	switch s.PassBy { // the compiler's word (clang), which GDB takes first
	case dwCCPassByValue:
		return false
	case dwCCPassByReference:
		return true
	}
	for _, f := range s.Fields {
		if strings.HasPrefix(f.Name, "_vptr.") || strings.HasPrefix(f.Name, "_vptr$") {
			return true
		}
	}
	for _, b := range s.Bases {
		if b.Virtual {
			return true
		}
	}
	name := s.Name
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.IndexByte(name, '<'); i >= 0 {
		name = name[:i]
	}
	for _, m := range s.Methods() {
		if m.Virtual {
			return true
		}
		if m.Artificial || m.DefaultedInClass || m.Type == nil {
			continue
		}
		if strings.HasPrefix(m.Name, "~") {
			return true
		}
		if m.Name == name && len(m.Type.Params) == 1 {
			// X(const X&) or X(X&&); not a converting X(const Y&).
			if r, ok := StripTypedefs(m.Type.Params[0]).(*ReferenceType); ok {
				if rs, ok := Resolve(r.Elem).(*StructType); ok && rs.Name == s.Name {
					return true
				}
			}
		}
	}
	for _, b := range s.Bases {
		if bs, ok := Resolve(b.Type).(*StructType); ok && nonTrivialCopy(bs.complete(), depth+1) {
			return true
		}
	}
	for _, f := range s.Fields {
		if fs, ok := Resolve(f.Type).(*StructType); ok && nonTrivialCopy(fs.complete(), depth+1) {
			return true
		}
	}
	return false
}
