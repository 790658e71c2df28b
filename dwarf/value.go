package dwarf

import (
	"context"
	stddwarf "debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// Object is a typed piece of target data: its type and where its bytes
// are (target memory, a register, or bytes computed by DWARF or by the
// expression evaluator). A bitfield has BitSize > 0; its bits start
// BitOffset bits into the bytes at Loc.
type Object struct {
	Type Type
	Loc  Location
	// BitOffset and BitSize describe a bitfield (little-endian bit
	// numbering from the first byte at Loc).
	BitOffset int64
	BitSize   int64
	// Err, when set, is why the value cannot be read (printed as
	// <error: ...> or <optimized out>).
	Err error
}

// MemObject returns an object of type t in target memory at runtime
// address addr.
func MemObject(t Type, addr uint64) Object {
	return Object{Type: t, Loc: Location{Kind: LocAddress, Addr: addr}}
}

// BytesObject returns an object of type t whose value is b
// (little-endian), not in memory.
func BytesObject(t Type, b []byte) Object {
	return Object{Type: t, Loc: Location{Kind: LocValue, Bytes: b}}
}

// VarObject returns the object for a variable found by the core lookup,
// given its type.
func VarObject(t Type, v *Variable) Object {
	o := Object{Type: t, Loc: v.Location}
	if l := o.Loc; l.Kind == LocRegister && isX87(l.Reg) && l.Bytes != nil {
		// a float kept in the x87 stack (i386 -O2): its register holds
		// it in the 80-bit format
		if b, ok := FromX87(t, l.Bytes); ok {
			o.Loc.Bytes = b
		}
	}
	if v.LocErr != nil {
		o.Err = v.LocErr
	}
	return o
}

// InMemory reports whether the object lives in target memory.
func (o Object) InMemory() bool { return o.Loc.Kind == LocAddress && o.Err == nil }

// Addr returns the object's runtime address when it is in memory.
func (o Object) Addr() (uint64, bool) {
	if o.Loc.Kind != LocAddress || o.BitSize != 0 {
		return 0, false
	}
	return o.Loc.Addr, true
}

// HomeAddr is where o lives in memory, or, for a copy that keeps where it
// was read (a value-history entry: GDB's history values keep their
// lval), where it was read: the address & takes, an array decays to and
// a printer finds a container's own links by. Its bytes are the copy's
// still (Bytes).
//
// A bit-field's is its container's, as GDB's value_primitive_field
// places it: the unit of its type's size that holds all its bits, else
// the byte holding its first bit.
func (o Object) HomeAddr() (uint64, bool) {
	if a, ok := o.Addr(); ok {
		return a, true
	}
	if o.Err != nil || o.Loc.Addr == 0 && o.Loc.Kind != LocAddress {
		return 0, false
	}
	switch {
	case o.BitSize > 0 && (o.Loc.Kind == LocAddress || o.Loc.Kind == LocValue):
		size := uint64(max(SizeOf(o.Type), 1))
		bit := o.Loc.Addr*8 + uint64(o.BitOffset) // its first bit
		if cb := size * 8; size <= 8 && bit%cb+uint64(o.BitSize) <= cb {
			return (bit - bit%cb) / 8, true
		}
		return bit / 8, true
	case o.Loc.Kind == LocValue:
		return o.Loc.Addr, true
	}
	return 0, false
}

// WordAt reads the n-byte word off bytes into o: from memory where o is
// there, else from o's own bytes (a copy's).
func (env *ValueEnv) WordAt(o Object, off int64, n int) (uint64, error) {
	if a, ok := o.Addr(); ok {
		return env.ReadUint(a+uint64(off), n)
	}
	b, err := env.Bytes(o)
	if err != nil {
		return 0, err
	}
	if off < 0 || off+int64(n) > int64(len(b)) {
		return 0, fmt.Errorf("word at %d outside the object: %w", off, ErrOptimizedOut)
	}
	return DecodeUint(b[off : off+int64(n)]), nil
}

// ValueEnv is what reading and printing values needs from the target. All
// fields but Mem may be nil/zero. A ValueEnv is not safe for concurrent
// use while its fields are being changed.
type ValueEnv struct {
	// Mem reads target memory for the one evaluation this environment
	// serves: the caller binds its ReadMemoryFunc to that call's context
	// (a ValueEnv is made per evaluation and never cached across calls).
	Mem func(addr uint64, p []byte) (int, error)
	// PtrSize is the target's pointer (and long) size in bytes: 4 on
	// i386; 0 means 8 (x86-64).
	PtrSize int
	// Types reads types; it resolves static members and declarations.
	Types *TypeReader
	// Bias is the load bias of the image Types belongs to.
	Bias uint64
	// Symbolize names a runtime address as GDB's <sym+off> does
	// ("n1", "g_arr+4", "vtable for geo::Circle+16"); ok false if no
	// symbol covers it.
	Symbolize func(addr uint64) (name string, ok bool)
	// RustDynType is the concrete type behind a Rust trait object whose
	// vtable is at runtime address vtable (Image.RustDynType); nil or ok
	// false: unknown.
	RustDynType func(vtable uint64) (Type, bool)
	// SymbolAddr gives the runtime address of a defined ELF symbol of the
	// program, else of a loaded library (nil or ok false: unknown): an
	// extern declaration's (Variable.Unresolved), a static member's
	// defined elsewhere, Go's type descriptors' block (runtime.types).
	SymbolAddr func(name string) (addr uint64, ok bool)
	// Print settings, read by package dwarf/format; zero means GDB's
	// defaults.
	MaxElements int // "print elements": 200
	// Repeats is the "repeat count threshold" (10).
	Repeats int
	// Raw disables the libstdc++ pretty printers (GDB's print/r).
	Raw bool
	// Letter is a GDB print format letter applied to scalars: 0 for the
	// natural format, or 'x', 'z', 'o', 't', 'd', 'u', 'c', 'a', 's'
	// (print/x ...).
	Letter byte
	// Naming is the language types are named in where values print
	// ("(node *) 0x…" for a C struct in a C++ frame): the frame's.
	Naming Naming
	// ImplicitPointee returns the object described by the variable DIE
	// that a DW_OP_implicit_pointer refers to (nil: such pointers cannot
	// be dereferenced).
	ImplicitPointee func(die stddwarf.Offset) (Object, error)
}

// MemoryError is GDB's wording for an unreadable address.
type MemoryError struct{ addr uint64 }

func (e *MemoryError) Error() string {
	return fmt.Sprintf("Cannot access memory at address %#x", e.addr)
}

// Addr is the address that could not be read.
func (e *MemoryError) Addr() uint64 { return e.addr }

// TypeString spells t as TypeString does, in the environment's Naming.
func (env *ValueEnv) TypeString(t Type) string { return TypeStringIn(t, env.Naming) }

// Read returns n bytes at runtime address addr.
func (env *ValueEnv) Read(addr uint64, n int) ([]byte, error) {
	if env == nil || env.Mem == nil {
		return nil, ErrNoMemory
	}
	if n < 0 || n > 1<<26 {
		return nil, fmt.Errorf("read %d bytes: bad size", n)
	}
	b := make([]byte, n)
	if n == 0 {
		return b, nil
	}
	if addr+uint64(n) < addr { // wraps around the address space
		return nil, &MemoryError{addr}
	}
	got, err := env.Mem(addr, b)
	if err != nil || got < n {
		// the first byte that could not be read, as GDB names it
		return nil, &MemoryError{addr + uint64(max(got, 0))}
	}
	return b, nil
}

// ReadUint reads an n-byte little-endian unsigned integer at runtime
// address addr.
func (env *ValueEnv) ReadUint(addr uint64, n int) (uint64, error) {
	b, err := env.Read(addr, n)
	if err != nil {
		return 0, err
	}
	return DecodeUint(b), nil
}

// DecodeUint decodes up to 8 little-endian bytes as an unsigned integer.
func DecodeUint(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

// Bytes returns the object's bytes (for a bitfield: the field's value,
// shifted down and zero-extended to the type's size).
func (env *ValueEnv) Bytes(o Object) ([]byte, error) {
	if o.Err != nil {
		return nil, o.Err
	}
	size := SizeOf(o.Type)
	if size < 0 {
		return nil, fmt.Errorf("size of %s unknown: %w", TypeString(o.Type), ErrUnsupported)
	}
	if o.BitSize > 0 {
		nbytes := (o.BitOffset + o.BitSize + 7) / 8
		raw, err := env.locBytes(o.Loc, int(nbytes))
		if err != nil {
			return nil, err
		}
		var v big.Int
		for i := len(raw) - 1; i >= 0; i-- {
			v.Lsh(&v, 8)
			v.Or(&v, big.NewInt(int64(raw[i])))
		}
		v.Rsh(&v, uint(o.BitOffset))
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(o.BitSize)), big.NewInt(1))
		v.And(&v, mask)
		u := v.Uint64()
		if IsSignedType(o.Type) && o.BitSize < 64 && u&(1<<(o.BitSize-1)) != 0 {
			u |= ^uint64(0) << o.BitSize
		}
		out := make([]byte, max(size, 8))
		binary.LittleEndian.PutUint64(out, u)
		return out[:size], nil
	}
	return env.locBytes(o.Loc, int(size))
}

func (env *ValueEnv) locBytes(l Location, n int) ([]byte, error) {
	if l.Kind == LocAddress {
		return env.Read(l.Addr, n)
	}
	var mem ReadMemoryFunc
	if env != nil && env.Mem != nil {
		mem = func(_ context.Context, a uint64, p []byte) (int, error) { return env.Mem(a, p) }
	}
	return l.Read(context.Background(), mem, n) // env.Mem is bound to its call's context
}

// IsSignedType reports whether t (through typedefs and qualifiers) is a
// signed integer or signed enum type.
func IsSignedType(t Type) bool {
	switch u := Resolve(t).(type) {
	case *BaseType:
		return u.IsSigned()
	case *EnumType:
		return !u.Unsigned
	}
	return false
}

// Part returns the part of o at byte offset off with type t.
func (env *ValueEnv) Part(o Object, t Type, off int64) Object {
	if o.Err != nil {
		return Object{Type: t, Err: o.Err}
	}
	switch o.Loc.Kind {
	case LocAddress:
		return MemObject(t, o.Loc.Addr+uint64(off))
	case LocOptimizedOut:
		return Object{Type: t, Loc: o.Loc}
	case LocImplicitPointer:
		if off == 0 {
			// the pointer, in a class that wraps it (std::tuple's
			// _Head_base<…, const char *>)
			return Object{Type: t, Loc: o.Loc}
		}
	case LocPieces:
		if l, ok := subPieces(o.Loc, off, SizeOf(t)); ok {
			return Object{Type: t, Loc: l}
		}
	}
	size := SizeOf(t)
	b, err := env.bitsOf(o, off*8, size*8)
	if err != nil {
		return Object{Type: t, Err: err}
	}
	if off < 0 || size < 0 || off+size > int64(len(b)) {
		return Object{Type: t, Err: fmt.Errorf("member at %d outside the object: %w", off, ErrOptimizedOut)}
	}
	p := BytesObject(t, b[off:off+size])
	if o.Loc.Kind == LocValue && o.Loc.Addr != 0 {
		p.Loc.Addr = o.Loc.Addr + uint64(off) // (a copy's part: where it was read)
	}
	return p
}

// bitsOf returns o's bytes where bits [from, from+n) of them are known:
// all of them must be, but for a composite location (gcc -O2's bit-field
// struct, DW_OP_bit_piece by DW_OP_bit_piece), where only those bits
// must be (the padding past its last member has no value).
func (env *ValueEnv) bitsOf(o Object, from, n int64) ([]byte, error) {
	if o.Err != nil || o.Loc.Kind != LocPieces || o.BitSize > 0 {
		return env.Bytes(o)
	}
	size := SizeOf(o.Type)
	if size < 0 {
		return env.Bytes(o)
	}
	var mem ReadMemoryFunc
	if env != nil && env.Mem != nil {
		mem = func(_ context.Context, a uint64, p []byte) (int, error) { return env.Mem(a, p) }
	}
	b, known, missing, err := o.Loc.readBits(context.Background(), mem, int(size))
	if err != nil {
		return nil, err
	}
	for i := from; i < from+n; i++ {
		if i < 0 || i >= int64(len(known)) || !known[i] {
			if missing == nil {
				missing = fmt.Errorf("bits %d-%d of %d bytes: %w", from, from+n-1, size, ErrOptimizedOut)
			}
			return nil, missing
		}
	}
	return b, nil
}

// Field returns member f of struct object o.
func (env *ValueEnv) Field(o Object, f Field) Object {
	s := env.Part(o, f.Type, f.ByteOffset)
	if f.BitSize > 0 {
		if o.Err != nil {
			return s
		}
		if o.Loc.Kind == LocAddress {
			s.Loc = Location{Kind: LocAddress, Addr: o.Loc.Addr + uint64(f.ByteOffset)}
		} else {
			b, err := env.bitsOf(o, f.ByteOffset*8+f.BitOffset, f.BitSize)
			if err != nil {
				return Object{Type: f.Type, Err: err}
			}
			if f.ByteOffset > int64(len(b)) {
				return Object{Type: f.Type, Err: ErrOptimizedOut}
			}
			s = BytesObject(f.Type, b[f.ByteOffset:])
			if o.Loc.Kind == LocValue && o.Loc.Addr != 0 {
				s.Loc.Addr = o.Loc.Addr + uint64(f.ByteOffset) // (a copy's part: where it was read)
			}
		}
		s.BitOffset, s.BitSize = f.BitOffset, f.BitSize
	}
	return s
}

// subPieces returns the location of bytes [off, off+size) of a
// composite location: the one piece's they lie in, or the pieces they
// span, with what lies past the last piece optimized out (so a member of
// a partly optimized-out object can still be read, and one that is partly
// known prints part by part: {k = {0, <optimized out>}}).
func subPieces(l Location, off, size int64) (Location, bool) {
	if off < 0 || size < 0 {
		return Location{}, false
	}
	var parts []Piece
	covered, pos := int64(0), int64(0)
	for _, p := range l.Pieces {
		if p.BitSize%8 != 0 || p.BitOffset != 0 {
			return Location{}, false
		}
		end := pos + int64(p.Size)
		if lo, hi := max(off, pos), min(off+size, end); lo < hi {
			sub, ok := pieceSlice(p.Loc, lo-pos, hi-lo)
			if !ok {
				return Location{}, false
			}
			parts = append(parts, Piece{Loc: sub, Size: int(hi - lo)})
			covered += hi - lo
		}
		pos = end
	}
	if covered < size {
		parts = append(parts, Piece{Loc: Location{Kind: LocOptimizedOut}, Size: int(size - covered)})
	}
	if len(parts) == 1 {
		return parts[0].Loc, true
	}
	return Location{Kind: LocPieces, Pieces: parts}, true
}

// pieceSlice is bytes [d, d+n) of a piece's location l.
func pieceSlice(l Location, d, n int64) (Location, bool) {
	switch l.Kind {
	case LocAddress:
		return Location{Kind: LocAddress, Addr: l.Addr + uint64(d)}, true
	case LocOptimizedOut:
		return l, true
	case LocImplicitPointer:
		// the pointer a piece is (a struct's member): whole, from its start
		return l, d == 0
	case LocRegister, LocValue:
		if l.Bytes == nil {
			return Location{Kind: LocOptimizedOut}, true
		}
		b := make([]byte, n)
		if d < int64(len(l.Bytes)) {
			copy(b, l.Bytes[d:])
		}
		return Location{Kind: LocValue, Bytes: b}, true
	}
	return Location{}, false
}

// BaseObject returns the base-class subobject b of o, evaluating the
// offset of a virtual base.
func (env *ValueEnv) BaseObject(o Object, b Base) Object {
	if b.OffsetExpr == nil {
		return env.Part(o, b.Type, b.Offset)
	}
	addr, ok := o.Addr()
	if home, isCopy := o.HomeAddr(); !ok && isCopy {
		// a copy that keeps where it was read (the value history, as
		// GDB's lval): the base's offset from the object's vtable in
		// memory, the base itself from the copy where it lies inside it
		a, err := env.evalMemberLoc(b.OffsetExpr, home)
		if err != nil {
			return Object{Type: b.Type, Err: err}
		}
		if off := a - home; off < uint64(len(o.Loc.Bytes)) {
			return env.Part(o, b.Type, int64(off))
		}
		return MemObject(b.Type, a)
	}
	if !ok {
		return Object{Type: b.Type, Err: fmt.Errorf("virtual base of a value not in memory: %w", ErrUnsupported)}
	}
	a, err := env.evalMemberLoc(b.OffsetExpr, addr)
	if err != nil {
		return Object{Type: b.Type, Err: err}
	}
	return MemObject(b.Type, a)
}

// evalMemberLoc runs the small DWARF expressions compilers emit for
// virtual base offsets, with the object address pushed.
func (env *ValueEnv) evalMemberLoc(expr []byte, addr uint64) (uint64, error) {
	stack := []uint64{addr}
	pop := func() (uint64, error) {
		if len(stack) == 0 {
			return 0, errors.New("member location: stack underflow")
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v, nil
	}
	for i := 0; i < len(expr); {
		op := expr[i]
		i++
		switch {
		case op == 0x12: // dup
			if len(stack) == 0 {
				return 0, errors.New("member location: stack underflow")
			}
			stack = append(stack, stack[len(stack)-1])
		case op == 0x06: // deref
			a, err := pop()
			if err != nil {
				return 0, err
			}
			v, err := env.ReadUint(a, 8)
			if err != nil {
				return 0, err
			}
			stack = append(stack, v)
		case op == 0x10: // constu
			v, n := uleb(expr[i:])
			i += n
			stack = append(stack, v)
		case op == 0x11: // consts
			v, n := sleb(expr[i:])
			i += n
			stack = append(stack, uint64(v))
		case op >= 0x08 && op <= 0x0f: // const1u..const8s
			n := 1 << ((op - 0x08) / 2)
			if i+n > len(expr) {
				return 0, errors.New("member location: truncated")
			}
			v := DecodeUint(expr[i : i+n])
			if op%2 == 1 && n < 8 && v&(1<<(8*n-1)) != 0 {
				v |= ^uint64(0) << (8 * n)
			}
			i += n
			stack = append(stack, v)
		case op >= 0x30 && op <= 0x4f: // lit
			stack = append(stack, uint64(op-0x30))
		case op == 0x1c, op == 0x22: // minus, plus
			b, err := pop()
			if err != nil {
				return 0, err
			}
			a, err := pop()
			if err != nil {
				return 0, err
			}
			if op == 0x1c {
				stack = append(stack, a-b)
			} else {
				stack = append(stack, a+b)
			}
		case op == 0x23: // plus_uconst
			v, n := uleb(expr[i:])
			i += n
			a, err := pop()
			if err != nil {
				return 0, err
			}
			stack = append(stack, a+v)
		default:
			return 0, fmt.Errorf("member location opcode %#x: %w", op, ErrUnsupported)
		}
	}
	return pop()
}

// Elem returns element i of array object o.
func (env *ValueEnv) Elem(o Object, i int64) Object {
	at, ok := Resolve(o.Type).(*ArrayType)
	if !ok {
		return Object{Type: o.Type, Err: errors.New("not an array")}
	}
	es := SizeOf(at.Elem)
	return env.Part(o, at.Elem, i*es)
}

// ImplicitTarget resolves an implicit pointer (an optimized-away pointer
// whose target GDB shows) to the object it points to.
func (env *ValueEnv) ImplicitTarget(o Object, elem Type) (Object, error) {
	if env.ImplicitPointee == nil {
		return Object{}, fmt.Errorf("implicit pointer: %w", ErrUnsupported)
	}
	target, err := env.ImplicitPointee(o.Loc.PtrDIE)
	if err != nil {
		return Object{}, err
	}
	if off := o.Loc.PtrOffset; target.Loc.Kind != LocAddress && (off < 0 || off+SizeOf(elem) > SizeOf(target.Type)) {
		// GDB's invalid_synthetic_pointer
		return Object{}, errors.New("access outside bounds of object referenced via synthetic pointer")
	}
	return env.Part(target, elem, o.Loc.PtrOffset), nil
}

// Deref returns the object a pointer or reference object points to.
func (env *ValueEnv) Deref(o Object) (Object, error) {
	var elem Type
	switch p := Resolve(o.Type).(type) {
	case *PointerType:
		elem = p.Elem
	case *ReferenceType:
		elem = p.Elem
	default:
		return Object{}, fmt.Errorf("attempt to take contents of a non-pointer value")
	}
	if o.Loc.Kind == LocImplicitPointer {
		return env.ImplicitTarget(o, elem)
	}
	a, err := env.Uint(o)
	if err != nil {
		return Object{}, err
	}
	return MemObject(elem, a), nil
}

// Uint reads o as an unsigned integer (pointers, enums, integers, bool).
func (env *ValueEnv) Uint(o Object) (uint64, error) {
	b, err := env.Bytes(o)
	if err != nil {
		return 0, err
	}
	if len(b) > 8 {
		b = b[:8]
	}
	return DecodeUint(b), nil
}

// AsAddress reads o as GDB's value_as_address does: a pointer or an
// unsigned integer as it is, a signed integer sign-extended (-1 is
// 0xffffffffffffffff), a floating-point value truncated (1.5 is 1).
func (env *ValueEnv) AsAddress(o Object) (uint64, error) {
	if bt, ok := Resolve(o.Type).(*BaseType); ok && bt.IsFloat() {
		b, err := env.Bytes(o)
		if err != nil {
			return 0, err
		}
		f, _, ok := DecodeFloatOf(bt, b)
		if !ok {
			return 0, fmt.Errorf("a %d-byte floating-point value is no address", len(b))
		}
		return uint64(int64(f)), nil
	}
	if IsSignedType(o.Type) {
		v, err := env.Int(o)
		return uint64(v), err
	}
	return env.Uint(o)
}

// Int reads o as an integer, sign-extended when its type is signed.
func (env *ValueEnv) Int(o Object) (int64, error) {
	b, err := env.Bytes(o)
	if err != nil {
		return 0, err
	}
	return DecodeInt(b, IsSignedType(o.Type)), nil
}

// DecodeInt decodes up to 8 little-endian bytes as an integer,
// sign-extended when signed.
func DecodeInt(b []byte, signed bool) int64 {
	if len(b) > 8 {
		b = b[:8]
	}
	v := DecodeUint(b)
	if signed && len(b) > 0 && len(b) < 8 && b[len(b)-1]&0x80 != 0 {
		v |= ^uint64(0) << (8 * len(b))
	}
	return int64(v)
}

// DecodeFloat decodes a floating-point value of 2 (IEEE half: _Float16;
// see DecodeBFloat16 for the other 2-byte format), 4, 8, or x87 10/12/16
// bytes; x87 values also come as a *big.Float (nil otherwise). ok is
// false for other sizes.
func DecodeFloat(b []byte) (float64, *big.Float, bool) {
	switch len(b) {
	case 2:
		return float16(binary.LittleEndian.Uint16(b), 5, 10), nil, true
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil, true
	case 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil, true
	case 10, 12, 16:
		mant := binary.LittleEndian.Uint64(b[:8])
		se := binary.LittleEndian.Uint16(b[8:10])
		neg := se&0x8000 != 0
		exp := int(se & 0x7fff)
		if exp == 0x7fff {
			if mant<<1 == 0 {
				return math.Inf(sign(neg)), nil, true
			}
			return math.NaN(), nil, true
		}
		f := new(big.Float).SetPrec(64).SetUint64(mant)
		if exp == 0 {
			exp = 1
		}
		f.SetMantExp(f, exp-16383-63)
		if neg {
			f.Neg(f)
		}
		v, _ := f.Float64()
		return v, f, true
	}
	return 0, nil, false
}

// FromX87 converts b, the 80-bit extended value of an x87 register, to
// the bytes of t, a floating-point type, as GDB's i387_register_to_value:
// rounded to a float or a double, as it is (padded) for a long double.
// ok is false for another type.
func FromX87(t Type, b []byte) ([]byte, bool) {
	bt, ok := Resolve(t).(*BaseType)
	if !ok || !bt.IsFloat() {
		return nil, false
	}
	return X87Bytes(int(bt.Size()), b)
}

// X87Bytes is FromX87 for a float of size bytes.
func X87Bytes(size int, b []byte) ([]byte, bool) {
	if len(b) < 10 {
		return nil, false
	}
	v, f, _ := DecodeFloat(b[:10])
	switch {
	case size >= 10:
		out := make([]byte, size)
		copy(out, b[:10])
		return out, true
	case size == 8:
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)), true
	case size == 4:
		v32 := float32(v)
		if f != nil {
			v32, _ = f.Float32() // one rounding, not two
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v32)), true
	}
	return nil, false
}

// isX87 says whether reg (Regs' numbering) is one of the x87 stack
// registers st0-st7.
func isX87(reg int) bool { return reg >= regnum.AMD64_ST0 && reg < regnum.AMD64_ST0+8 }

// DecodeBFloat16 decodes a bfloat16 (the upper half of a float: 8 bits
// of exponent, 7 of mantissa).
func DecodeBFloat16(b []byte) float64 {
	return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
}

// IsFloat128 reports whether t is IEEE binary128 (GCC's _Float128,
// clang's __float128), as GDB's floatformat_for_type reads it
// (floatformats_ieee_quad) where a 16-byte long double is x87's.
func IsFloat128(t *BaseType) bool {
	return t.ByteSize == 16 && (t.Name == "_Float128" || t.Name == "__float128")
}

// DecodeFloat128 decodes little-endian IEEE binary128 bytes (1 sign bit,
// 15 of exponent, 112 of fraction), exactly as a big.Float.
func DecodeFloat128(b []byte) (float64, *big.Float) {
	lo, hi := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16])
	neg := hi>>63 != 0
	exp := int(hi>>48) & 0x7fff
	mhi := hi & (1<<48 - 1)
	if exp == 0x7fff {
		if mhi == 0 && lo == 0 {
			return math.Inf(sign(neg)), nil
		}
		return math.NaN(), nil
	}
	m := new(big.Int).Lsh(new(big.Int).SetUint64(mhi), 64)
	m.Or(m, new(big.Int).SetUint64(lo))
	if exp != 0 {
		m.SetBit(m, 112, 1)
	} else {
		exp = 1
	}
	f := new(big.Float).SetPrec(113).SetInt(m)
	f.SetMantExp(f, exp-16383-112)
	if neg {
		f.Neg(f)
	}
	v, _ := f.Float64()
	return v, f
}

// DecodeFloatOf is DecodeFloat for a value of the floating-point type
// t: bfloat16 and IEEE binary128 as such.
func DecodeFloatOf(t *BaseType, b []byte) (float64, *big.Float, bool) {
	switch {
	case t != nil && IsBFloat16(t) && len(b) == 2:
		return DecodeBFloat16(b), nil, true
	case t != nil && IsFloat128(t) && len(b) == 16:
		v, f := DecodeFloat128(b)
		return v, f, true
	}
	return DecodeFloat(b)
}

// EncodeFloat128 encodes f (nil: a NaN) as little-endian IEEE binary128
// bytes, rounded to its 113 bits; a value too small for a normal one is
// zero, one too large infinity.
func EncodeFloat128(f *big.Float) []byte {
	b := make([]byte, 16)
	var hi, lo uint64
	switch {
	case f == nil:
		hi = 0x7fff<<48 | 1<<47
	case f.IsInf():
		hi = 0x7fff << 48
	case f.Sign() != 0:
		m := new(big.Float)
		exp := f.MantExp(m) // f = m * 2^exp, 0.5 <= |m| < 1
		m.Abs(m).SetMantExp(m, 113)
		mant, _ := m.Int(nil)
		if mant.BitLen() > 113 { // rounded up to the next power of two
			mant.Rsh(mant, 1)
			exp++
		}
		switch e := exp - 1 + 16383; {
		case e >= 0x7fff:
			hi = 0x7fff << 48
		case e > 0:
			mant.SetBit(mant, 112, 0)
			lo = new(big.Int).And(mant, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
			hi = uint64(e)<<48 | new(big.Int).Rsh(mant, 64).Uint64()
		}
	}
	if f != nil && f.Signbit() {
		hi |= 1 << 63
	}
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return b
}

// IsBFloat16 reports whether t is the bfloat16 format (GDB's bfloat16 of
// vector registers, GCC's __bf16) rather than IEEE half.
func IsBFloat16(t *BaseType) bool {
	return t.ByteSize == 2 && (t.Name == "bfloat16" || t.Name == "__bf16")
}

// float16 decodes a 16-bit IEEE binary float of expBits exponent and
// mantBits mantissa bits.
func float16(u uint16, expBits, mantBits uint) float64 {
	neg := u>>15 != 0
	exp := int(u>>mantBits) & (1<<expBits - 1)
	mant := float64(u & (1<<mantBits - 1))
	bias := 1<<(expBits-1) - 1
	var f float64
	switch exp {
	case 1<<expBits - 1:
		if mant != 0 {
			return math.NaN()
		}
		f = math.Inf(1)
	case 0:
		f = math.Ldexp(mant, 1-bias-int(mantBits))
	default:
		f = math.Ldexp(mant+float64(uint(1)<<mantBits), exp-bias-int(mantBits))
	}
	if neg {
		f = -f
	}
	return f
}

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// PointerSize is the target's pointer size in bytes (PtrSize, 8 when unset).
func (env *ValueEnv) PointerSize() uint64 {
	if env != nil && env.PtrSize > 0 {
		return uint64(env.PtrSize)
	}
	return 8
}

// Member finds a data member by name in o's type or its bases.
func (env *ValueEnv) Member(o Object, name string) (Object, error) {
	st, ok := Resolve(o.Type).(*StructType)
	if !ok {
		return Object{}, fmt.Errorf("member %s of non-struct %s", name, TypeString(o.Type))
	}
	f, path, ok := st.FieldByName(name)
	if !ok {
		return Object{}, fmt.Errorf("no member %s in %s: %w", name, st.Name, ErrNotFound)
	}
	for _, b := range path {
		o = env.BaseObject(o, b)
	}
	r := env.Field(o, f)
	return r, r.Err
}

// MemberPath follows a chain of member names.
func (env *ValueEnv) MemberPath(o Object, names ...string) (Object, error) {
	var err error
	for _, n := range names {
		if o, err = env.Member(o, n); err != nil {
			return Object{}, err
		}
	}
	return o, nil
}

// FindPointerMember searches o depth-first (members and bases) for a
// member named name whose type is a pointer.
func (env *ValueEnv) FindPointerMember(o Object, name string, depth int) (Object, bool) {
	st, ok := Resolve(o.Type).(*StructType)
	if !ok || depth > 12 {
		return Object{}, false
	}
	for _, f := range st.Fields {
		fo := env.Field(o, f)
		if f.Name == name {
			if _, ok := Resolve(f.Type).(*PointerType); ok {
				return fo, true
			}
		}
		if r, ok := env.FindPointerMember(fo, name, depth+1); ok {
			return r, true
		}
	}
	for _, b := range st.Bases {
		if r, ok := env.FindPointerMember(env.BaseObject(o, b), name, depth+1); ok {
			return r, true
		}
	}
	return Object{}, false
}

// TemplateArg is the i-th template type argument of st: from its
// DW_TAG_template_type_param children, or, when the compiler left those
// out, parsed from the type name and looked up by name as GDB does.
func (env *ValueEnv) TemplateArg(st *StructType, i int) Type {
	if t := st.TemplateArg(i); t != nil {
		return t
	}
	j := strings.IndexByte(st.Name, '<')
	if j < 0 || !strings.HasSuffix(st.Name, ">") || env.Types == nil {
		return nil
	}
	args := SplitTopLevel(st.Name[j+1 : len(st.Name)-1])
	if i >= len(args) {
		return nil
	}
	return env.typeFromName(strings.TrimSpace(args[i]), 0)
}

// typeFromName builds a type from a C++ type name: named types looked up
// in Types, with trailing "*", "&" and "const" applied.
func (env *ValueEnv) typeFromName(name string, depth int) Type {
	if depth > 8 || name == "" {
		return nil
	}
	lang := LangCPlusPlus
	switch {
	case strings.HasSuffix(name, "*"):
		if e := env.typeFromName(strings.TrimSpace(name[:len(name)-1]), depth+1); e != nil {
			return &PointerType{CommonType: CommonType{ByteSize: int64(env.PointerSize()), Lang: lang}, Elem: e}
		}
		return nil
	case strings.HasSuffix(name, " const"):
		if e := env.typeFromName(strings.TrimSuffix(name, " const"), depth+1); e != nil {
			return &QualType{CommonType: CommonType{Lang: lang}, Qual: "const", Elem: e}
		}
		return nil
	case strings.HasPrefix(name, "const "):
		return env.typeFromName(strings.TrimPrefix(name, "const ")+" const", depth+1)
	}
	t, err := env.Types.LookupType(name)
	if err != nil {
		return nil
	}
	return t
}

// IsCharType reports whether t is a character type and returns it. In C,
// wchar_t, char16_t and char32_t are typedefs of integer types; GDB
// still prints them as characters, and so does this.
func IsCharType(t Type) (*BaseType, bool) {
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

// ReadCString reads a NUL-terminated string of element size es at addr,
// up to limit characters; truncated is true when the limit cut the
// string: the character after the last one read is not a NUL (as GDB's
// val_print_string, which prints "..." only then).
func (env *ValueEnv) ReadCString(addr uint64, es int, limit int) (cs []uint64, truncated bool, err error) {
	cs, truncated, err = env.readCString(addr, es, limit)
	if truncated && err == nil && limit >= 0 {
		if next, err := env.Read(addr+uint64(len(cs)*es), es); err == nil && DecodeUint(next) == 0 {
			truncated = false
		}
	}
	return cs, truncated, err
}

func (env *ValueEnv) readCString(addr uint64, es int, limit int) ([]uint64, bool, error) {
	var out []uint64
	const chunk = 64
	for len(out) < limit {
		// to the next chunk boundary, in whole characters (a wide
		// string need not be aligned: at least one character)
		n := (chunk - int(addr%chunk) + es - 1) / es * es
		buf, err := env.Read(addr, n)
		if err != nil {
			if len(out) == 0 {
				return nil, false, err
			}
			return out, false, err
		}
		for i := 0; i+es <= len(buf); i += es {
			c := DecodeUint(buf[i : i+es])
			if c == 0 {
				return out, false, nil
			}
			out = append(out, c)
			if len(out) >= limit {
				return out, true, nil
			}
		}
		addr += uint64(n)
	}
	return out, true, nil
}

// StaticObject locates the definition of a static data member.
func (env *ValueEnv) StaticObject(s StaticMember) Object {
	if s.Const != nil {
		b := make([]byte, max(SizeOf(s.Type), 0))
		copy(b, s.Const)
		return BytesObject(s.Type, b)
	}
	if env.Types == nil {
		return Object{Type: s.Type, Err: ErrOptimizedOut}
	}
	a, ok := env.Types.StaticAddr(s.Decl)
	if !ok {
		// A definition whose address the DWARF gives otherwise than by
		// DW_OP_addr (clang's DW_OP_addrx, in another unit): the ELF
		// symbol of the member's qualified name, as GDB's minimal
		// symbols find it.
		if env.SymbolAddr != nil {
			if name := env.Types.QualifiedName(s.Decl); name != "" {
				if ra, ok := env.SymbolAddr("::" + name); ok {
					return MemObject(s.Type, ra)
				}
			}
		}
		return Object{Type: s.Type, Err: ErrOptimizedOut}
	}
	return MemObject(s.Type, a+env.Bias)
}
