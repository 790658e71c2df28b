package dwarf

import (
	"context"
	"errors"
	"fmt"

	stddwarf "debug/dwarf"
)

// LocKind says where a variable's value lives.
type LocKind uint8

const (
	// LocOptimizedOut: the compiler kept no value at this pc.
	LocOptimizedOut LocKind = iota
	// LocAddress: the object is in target memory at Addr.
	LocAddress
	// LocRegister: the object is in DWARF register Reg; its bytes are in
	// Bytes when the frame knew the register.
	LocRegister
	// LocValue: the value itself is in Bytes (DW_OP_stack_value,
	// DW_OP_implicit_value, DW_AT_const_value). Little-endian.
	LocValue
	// LocImplicitPointer: a pointer that was optimized away; it points
	// PtrOffset bytes into the object described by the DIE at PtrDIE.
	LocImplicitPointer
	// LocPieces: a composite made of Pieces, in order.
	LocPieces
)

var locKindNames = [...]string{"optimized out", "address", "register", "value", "implicit pointer", "pieces"}

func (k LocKind) String() string { return kindName(locKindNames[:], k, "LocKind") }

// kindName is the String of a kind enumeration: names[k], or typ(k) for a
// value past the table.
func kindName[K ~uint8](names []string, k K, typ string) string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(k))
}

// Location is where the value of a variable lives at one pc in one frame.
type Location struct {
	Kind LocKind
	// Addr is the runtime address for LocAddress.
	Addr uint64
	// Reg is the DWARF register number for LocRegister.
	Reg int
	// Bytes holds the value for LocValue and the register contents for
	// LocRegister (nil if the frame did not know the register).
	Bytes []byte
	// PtrDIE and PtrOffset describe a LocImplicitPointer.
	PtrDIE    stddwarf.Offset
	PtrOffset int64
	// Pieces of a LocPieces location.
	Pieces []Piece
}

// Piece is one part of a composite location.
type Piece struct {
	Loc Location
	// Size of the piece in bytes (DW_OP_piece); for DW_OP_bit_piece,
	// BitSize and BitOffset are set and Size is rounded up.
	Size      int
	BitSize   int
	BitOffset int
}

func (l Location) String() string {
	switch l.Kind {
	case LocAddress:
		return fmt.Sprintf("address %#x", l.Addr)
	case LocRegister:
		if n := RegName(l.Reg); n != "" {
			return "register $" + n
		}
		return fmt.Sprintf("register DW_OP_reg%d", l.Reg)
	case LocValue:
		return fmt.Sprintf("value % x", l.Bytes)
	case LocImplicitPointer:
		return fmt.Sprintf("implicit pointer to DIE %#x%+d", l.PtrDIE, l.PtrOffset)
	case LocPieces:
		s := "pieces {"
		for i, p := range l.Pieces {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%d: %v", p.Size, p.Loc)
		}
		return s + "}"
	}
	return "<optimized out>"
}

// Read returns the first size bytes of the object at l. Memory is read
// with mem. Missing parts (optimized-out pieces, unknown registers) give
// an error wrapping ErrOptimizedOut; an implicit pointer gives one
// wrapping ErrUnsupported (resolve PtrDIE instead).
func (l Location) Read(ctx context.Context, mem ReadMemoryFunc, size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("read %v: negative size", l)
	}
	switch l.Kind {
	case LocAddress:
		if mem == nil {
			return nil, ErrNoMemory
		}
		b := make([]byte, size)
		n, err := mem(ctx, l.Addr, b)
		if err == nil && n < size {
			err = fmt.Errorf("short read (%d of %d bytes)", n, size)
		}
		if err != nil {
			return nil, fmt.Errorf("read %d bytes at %#x: %w", size, l.Addr, err)
		}
		return b, nil
	case LocRegister, LocValue:
		if l.Bytes == nil {
			return nil, fmt.Errorf("%v: %w", l, ErrOptimizedOut)
		}
		b := make([]byte, size)
		copy(b, l.Bytes) // zero-extend short values
		return b, nil
	case LocImplicitPointer:
		return nil, fmt.Errorf("%v: %w", l, ErrUnsupported)
	case LocPieces:
		var out []byte
		for _, p := range l.Pieces {
			if len(out) >= size {
				break
			}
			if p.BitSize%8 != 0 || p.BitOffset%8 != 0 {
				return nil, fmt.Errorf("bit piece: %w", ErrUnsupported)
			}
			b, err := p.Loc.Read(ctx, mem, p.Size+p.BitOffset/8)
			if err != nil {
				return nil, err
			}
			out = append(out, b[p.BitOffset/8:]...)
		}
		if len(out) < size {
			return nil, fmt.Errorf("pieces cover %d of %d bytes: %w", len(out), size, ErrOptimizedOut)
		}
		return out[:size], nil
	}
	return nil, ErrOptimizedOut
}

// ReadPartial is Read for values of which only some parts survive (GDB
// prints those as {97 'a', <optimized out>, ...}): it returns size bytes
// and, per byte, whether it is known. Optimized-out pieces and unknown
// registers give unknown bytes instead of an error; memory errors and
// unsupported locations still fail.
func (l Location) ReadPartial(ctx context.Context, mem ReadMemoryFunc, size int) ([]byte, []bool, error) {
	out := make([]byte, size)
	known := make([]bool, size)
	if l.Kind != LocPieces {
		b, err := l.Read(ctx, mem, size)
		if errors.Is(err, ErrOptimizedOut) {
			return out, known, nil
		}
		if err != nil {
			return nil, nil, err
		}
		for i := range known {
			known[i] = true
		}
		return b, known, nil
	}
	pos := 0
	for _, p := range l.Pieces {
		if pos >= size {
			break
		}
		n := min(p.Size, size-pos)
		if p.BitSize%8 != 0 || p.BitOffset%8 != 0 {
			pos += n // bit pieces: left unknown
			continue
		}
		b, err := p.Loc.Read(ctx, mem, p.Size+p.BitOffset/8)
		switch {
		case errors.Is(err, ErrOptimizedOut):
		case err != nil:
			return nil, nil, err
		default:
			copy(out[pos:pos+n], b[p.BitOffset/8:])
			for i := pos; i < pos+n; i++ {
				known[i] = true
			}
		}
		pos += n
	}
	return out, known, nil
}
