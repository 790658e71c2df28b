package dwarf

import (
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// ReturnConvention says where a function returning a value of type t
// has left it, by the System V ABI (x86-64 when ptrSize is 8, i386 when
// 4), as GDB's finish reads it:
//   - inMemory: at the address in rax (eax), for a struct, union or
//     class larger than 16 bytes, any on i386, a C++ class that is not
//     trivially copyable (a user-declared destructor or copy or move
//     constructor, its own or a member's or base's: std::string), and
//     one holding a long double;
//   - else in regs, DWARF register numbers in the order of the value's
//     eightbytes: rax then rdx for an eightbyte with any integer or
//     pointer in it, xmm0 then xmm1 for one of floating point only; a
//     scalar in one register; a long double, and on i386 any float, in
//     st0 (whose 80-bit value FromX87 converts).
//
// ok is false for a void function and for what it cannot place.
func ReturnConvention(t Type, ptrSize int) (regs []int, inMemory, ok bool) {
	t = Resolve(t)
	switch u := t.(type) {
	case nil, *VoidType:
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
		ints, floats := []int{0, 1}, []int{17, 18} // rax, rdx; xmm0, xmm1
		for i := int64(0); i*8 < size; i++ {
			if sse[i] {
				regs, floats = append(regs, floats[0]), floats[1:]
			} else {
				regs, ints = append(regs, ints[0]), ints[1:]
			}
		}
		return regs, false, true
	case *ArrayType:
		return nil, false, false
	case *BaseType:
		if u.IsFloat() {
			if u.Size() > 8 || ptrSize == 4 {
				// a long double, and any float on i386: st0 (its
				// 80-bit value: FromX87)
				return []int{regnum.AMD64_ST0}, false, true
			}
			return []int{17}, false, true
		}
	}
	if t.Size() <= 0 || t.Size() > int64(ptrSize) {
		return nil, false, false
	}
	return []int{0}, false, true
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

// nonTrivialCopy reports whether a C++ class cannot be copied bit for
// bit (the Itanium ABI then returns it through memory): it, a base or a
// member declares a destructor or a copy or move constructor.
func nonTrivialCopy(s *StructType, depth int) bool {
	if s.Lang != LangCPlusPlus || depth > 8 {
		return false
	}
	name := s.Name
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.IndexByte(name, '<'); i >= 0 {
		name = name[:i]
	}
	for _, m := range s.Methods() {
		if m.Artificial || m.Type == nil {
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
