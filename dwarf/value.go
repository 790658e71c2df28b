package dwarf

import (
	"context"
	stddwarf "debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
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
	// SymbolAddr gives the runtime address of an ELF symbol of the
	// program (nil or ok false: unknown). Go's type names use it to find
	// the type descriptors' block (runtime.types).
	SymbolAddr func(name string) (addr uint64, ok bool)
	// Limits; zero means GDB's defaults.
	MaxElements int // "print elements": 200
	MaxDepth    int // nesting depth of Structured children: 4
	// Repeats is the "repeat count threshold" (10).
	Repeats int
	// Raw disables the libstdc++ pretty printers (GDB's print/r).
	Raw bool
	// Letter is a GDB print format letter applied to scalars: 0 for the
	// natural format, or 'x', 'z', 'o', 't', 'd', 'u', 'c', 'a', 's'
	// (print/x ...).
	Letter byte
	// ImplicitPointee returns the object described by the variable DIE
	// that a DW_OP_implicit_pointer refers to (nil: such pointers cannot
	// be dereferenced).
	ImplicitPointee func(die stddwarf.Offset) (Object, error)
}

func (env *ValueEnv) maxElements() int {
	if env.MaxElements > 0 {
		return env.MaxElements
	}
	return 200
}

func (env *ValueEnv) repeats() int {
	if env.Repeats > 0 {
		return env.Repeats
	}
	return 10
}

func (env *ValueEnv) maxDepth() int {
	if env.MaxDepth > 0 {
		return env.MaxDepth
	}
	return 4
}

// memError is GDB's wording for an unreadable address.
type memError struct{ addr uint64 }

func (e *memError) Error() string { return fmt.Sprintf("Cannot access memory at address %#x", e.addr) }

// read returns n bytes at runtime address addr.
func (env *ValueEnv) read(addr uint64, n int) ([]byte, error) {
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
		return nil, &memError{addr}
	}
	got, err := env.Mem(addr, b)
	if err != nil || got < n {
		return nil, &memError{addr}
	}
	return b, nil
}

func (env *ValueEnv) readUint(addr uint64, n int) (uint64, error) {
	b, err := env.read(addr, n)
	if err != nil {
		return 0, err
	}
	return leUint(b), nil
}

func leUint(b []byte) uint64 {
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
	size := sizeOf(o.Type)
	if size < 0 {
		return nil, fmt.Errorf("size of %s unknown: %w", typeString(o.Type), ErrUnsupported)
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
		if isSignedType(o.Type) && o.BitSize < 64 && u&(1<<(o.BitSize-1)) != 0 {
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
		return env.read(l.Addr, n)
	}
	var mem ReadMemoryFunc
	if env != nil && env.Mem != nil {
		mem = func(_ context.Context, a uint64, p []byte) (int, error) { return env.Mem(a, p) }
	}
	return l.Read(context.Background(), mem, n) // env.Mem is bound to its call's context
}

func isSignedType(t Type) bool {
	switch u := Resolve(t).(type) {
	case *BaseType:
		return u.IsSigned()
	case *EnumType:
		return !u.Unsigned
	}
	return false
}

// sub returns the part of o at byte offset off with type t.
func (env *ValueEnv) sub(o Object, t Type, off int64) Object {
	if o.Err != nil {
		return Object{Type: t, Err: o.Err}
	}
	switch o.Loc.Kind {
	case LocAddress:
		return MemObject(t, o.Loc.Addr+uint64(off))
	case LocOptimizedOut:
		return Object{Type: t, Loc: o.Loc}
	case LocPieces:
		if l, ok := subPieces(o.Loc, off, sizeOf(t)); ok {
			return Object{Type: t, Loc: l}
		}
	}
	size := sizeOf(t)
	b, err := env.Bytes(o)
	if err != nil {
		return Object{Type: t, Err: err}
	}
	if off < 0 || size < 0 || off+size > int64(len(b)) {
		return Object{Type: t, Err: fmt.Errorf("member at %d outside the object: %w", off, ErrOptimizedOut)}
	}
	return BytesObject(t, b[off:off+size])
}

// Field returns member f of struct object o.
func (env *ValueEnv) Field(o Object, f Field) Object {
	s := env.sub(o, f.Type, f.ByteOffset)
	if f.BitSize > 0 {
		if o.Err != nil {
			return s
		}
		if o.Loc.Kind == LocAddress {
			s.Loc = Location{Kind: LocAddress, Addr: o.Loc.Addr + uint64(f.ByteOffset)}
		} else {
			b, err := env.Bytes(o)
			if err != nil {
				return Object{Type: f.Type, Err: err}
			}
			if f.ByteOffset > int64(len(b)) {
				return Object{Type: f.Type, Err: ErrOptimizedOut}
			}
			s = BytesObject(f.Type, b[f.ByteOffset:])
		}
		s.BitOffset, s.BitSize = f.BitOffset, f.BitSize
	}
	return s
}

// subPieces returns the location of bytes [off, off+size) of a
// composite location when they lie within one piece (so a member of a
// partly optimized-out object can still be read).
func subPieces(l Location, off, size int64) (Location, bool) {
	pos := int64(0)
	for _, p := range l.Pieces {
		if p.BitSize%8 != 0 || p.BitOffset != 0 {
			return Location{}, false
		}
		end := pos + int64(p.Size)
		if off >= pos && off+size <= end {
			d := off - pos
			switch p.Loc.Kind {
			case LocAddress:
				return Location{Kind: LocAddress, Addr: p.Loc.Addr + uint64(d)}, true
			case LocOptimizedOut:
				return p.Loc, true
			case LocRegister, LocValue:
				if p.Loc.Bytes == nil {
					return Location{Kind: LocOptimizedOut}, true
				}
				b := make([]byte, size)
				if d < int64(len(p.Loc.Bytes)) {
					copy(b, p.Loc.Bytes[d:])
				}
				return Location{Kind: LocValue, Bytes: b}, true
			}
			return Location{}, false
		}
		pos = end
	}
	return Location{}, false
}

// BaseObject returns the base-class subobject b of o, evaluating the
// offset of a virtual base.
func (env *ValueEnv) BaseObject(o Object, b Base) Object {
	if b.OffsetExpr == nil {
		return env.sub(o, b.Type, b.Offset)
	}
	addr, ok := o.Addr()
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
			v, err := env.readUint(a, 8)
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
			v := leUint(expr[i : i+n])
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
	es := sizeOf(at.Elem)
	return env.sub(o, at.Elem, i*es)
}

// implicitTarget resolves an implicit pointer (an optimized-away pointer
// whose target GDB shows) to the object it points to.
func (env *ValueEnv) implicitTarget(o Object, elem Type) (Object, error) {
	if env.ImplicitPointee == nil {
		return Object{}, fmt.Errorf("implicit pointer: %w", ErrUnsupported)
	}
	target, err := env.ImplicitPointee(o.Loc.PtrDIE)
	if err != nil {
		return Object{}, err
	}
	return env.sub(target, elem, o.Loc.PtrOffset), nil
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
		return env.implicitTarget(o, elem)
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
	return leUint(b), nil
}

// Int reads o as an integer, sign-extended when its type is signed.
func (env *ValueEnv) Int(o Object) (int64, error) {
	b, err := env.Bytes(o)
	if err != nil {
		return 0, err
	}
	return bytesToInt(b, isSignedType(o.Type)), nil
}

func bytesToInt(b []byte, signed bool) int64 {
	if len(b) > 8 {
		b = b[:8]
	}
	v := leUint(b)
	if signed && len(b) > 0 && len(b) < 8 && b[len(b)-1]&0x80 != 0 {
		v |= ^uint64(0) << (8 * len(b))
	}
	return int64(v)
}

// Float reads a floating-point object (4, 8, or x87 10/16-byte).
func floatValue(b []byte) (float64, *big.Float, bool) {
	switch len(b) {
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

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// ptr is the target's pointer size in bytes (PtrSize, 8 when unset).
func (env *ValueEnv) ptr() uint64 {
	if env != nil && env.PtrSize > 0 {
		return uint64(env.PtrSize)
	}
	return 8
}
