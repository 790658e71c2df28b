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
		return l.readPieces(ctx, mem, size)
	}
	return nil, ErrOptimizedOut
}

// readPieces assembles a composite location's size bytes (readBits),
// all of whose bits must be known: a piece without a value (optimized
// out, or an implicit pointer, which only a member of its own reads)
// makes the whole unreadable.
func (l Location) readPieces(ctx context.Context, mem ReadMemoryFunc, size int) ([]byte, error) {
	out, known, missing, err := l.readBits(ctx, mem, size)
	if err != nil {
		return nil, err
	}
	for i, k := range known {
		if !k {
			if missing == nil {
				missing = fmt.Errorf("pieces cover %d of %d bytes: %w", i/8, size, ErrOptimizedOut)
			}
			return nil, missing
		}
	}
	return out, nil
}

// readBits assembles a composite location's size bytes bit by bit, as
// GDB's rw_pieced_value copies them: each piece gives its size in bits
// (DW_OP_bit_piece's, or DW_OP_piece's bytes), taken from its bit
// offset in its own location (a register's or a value's low bits first,
// little-endian), at the running bit position. known says, per bit,
// which have a value; missing is why the first that has none has none;
// a memory error is the error.
func (l Location) readBits(ctx context.Context, mem ReadMemoryFunc, size int) (out []byte, known []bool, missing, err error) {
	out, known = make([]byte, size), make([]bool, size*8)
	pos := 0 // in bits
	for _, p := range l.Pieces {
		if pos >= size*8 {
			break
		}
		bits := p.Size * 8
		if p.BitSize > 0 {
			bits = p.BitSize
		}
		n := min(bits, size*8-pos)
		b, rerr := p.Loc.Read(ctx, mem, (p.BitOffset+n+7)/8)
		switch {
		case rerr == nil:
			copyBits(out, pos, b, p.BitOffset, n)
			for i := pos; i < pos+n; i++ {
				known[i] = true
			}
		case errors.Is(rerr, ErrOptimizedOut) || p.Loc.Kind == LocImplicitPointer:
			if missing == nil {
				missing = rerr
			}
		default:
			return nil, nil, nil, rerr
		}
		pos += bits
	}
	return out, known, missing, nil
}

// copyBits copies n bits of src starting at bit from into dst starting
// at bit to (little-endian bit numbering: bit 0 is the low bit of byte 0).
func copyBits(dst []byte, to int, src []byte, from, n int) {
	if to%8 == 0 && from%8 == 0 && n%8 == 0 {
		copy(dst[to/8:to/8+n/8], src[from/8:])
		return
	}
	for i := 0; i < n; i++ {
		s, d := from+i, to+i
		bit := src[s/8] >> (s % 8) & 1
		dst[d/8] = dst[d/8]&^(1<<(d%8)) | bit<<(d%8)
	}
}
