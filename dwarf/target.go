package dwarf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// ReadMemoryFunc reads len(p) bytes of target memory at addr into p, within
// ctx (the context of the call that needs the bytes), and
// returns how many bytes it read. A short read must come with an error.
type ReadMemoryFunc func(ctx context.Context, addr uint64, p []byte) (int, error)

// ModuleFunc maps a runtime pc to the image that covers it and that image's
// load bias (runtime address minus file address). ok is false when no
// known module covers pc.
type ModuleFunc func(ctx context.Context, pc uint64) (img *Image, bias uint64, ok bool)

// Target is everything the package needs from a stopped target. It is
// owned by the caller; the package only calls its functions.
type Target struct {
	// ReadMemory reads target memory. Required.
	ReadMemory ReadMemoryFunc
	// Modules maps pcs to images for unwinding across shared libraries.
	// When nil, every pc is looked up in the image Unwind was called on,
	// with the bias given to Unwind.
	Modules ModuleFunc
}

// readUint reads a little-endian unsigned integer of size bytes (1..8).
func (t *Target) readUint(ctx context.Context, addr uint64, size int) (uint64, error) {
	if t == nil || t.ReadMemory == nil {
		return 0, fmt.Errorf("read memory at %#x: %w", addr, ErrNoMemory)
	}
	if size < 1 || size > 8 {
		return 0, fmt.Errorf("read %d bytes at %#x: bad size", size, addr)
	}
	var b [8]byte
	n, err := t.ReadMemory(ctx, addr, b[:size])
	if err == nil && n < size {
		err = errors.New("short read")
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("read memory at %#x: %w", addr, err)
		}
		// GDB's words where the target cannot read it (what a
		// backtrace that stops there says), the target's cause kept
		return 0, fmt.Errorf("%w: %w", &MemoryError{addr}, err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// NumRegs is the number of DWARF register numbers a Regs can hold: every
// amd64 DWARF register from rax (0) through the x87 status word (66).
const NumRegs = regnum.AMD64_SW + 1

// Regs holds register values keyed by DWARF register number. The zero
// value has no valid registers. Vector registers (xmm0-15) keep their full
// 16 bytes: the low 8 in the value and the high 8 separately.
type Regs struct {
	val   [NumRegs]uint64
	xmmHi [16]uint64
	stHi  [8]uint16 // sign and exponent of the x87 registers' 80 bits
	valid [2]uint64 // bit set of registers with a known value
}

// Get returns the value of DWARF register reg and whether it is known.
func (r *Regs) Get(reg int) (uint64, bool) {
	if r == nil || reg < 0 || reg >= NumRegs || r.valid[reg/64]&(1<<(reg%64)) == 0 {
		return 0, false
	}
	return r.val[reg], true
}

// Set stores v as the value of DWARF register reg and marks it known.
// For xmm registers it sets the low 8 bytes and clears the high 8.
func (r *Regs) Set(reg int, v uint64) {
	if reg < 0 || reg >= NumRegs {
		return
	}
	r.val[reg] = v
	if x := reg - regnum.AMD64_XMM0; x >= 0 && x < 16 {
		r.xmmHi[x] = 0
	}
	r.valid[reg/64] |= 1 << (reg % 64)
}

// SetBytes stores a register from its little-endian bytes (up to 16 for
// xmm registers, up to 8 for the others).
func (r *Regs) SetBytes(reg int, b []byte) {
	var buf [16]byte
	copy(buf[:], b)
	r.Set(reg, binary.LittleEndian.Uint64(buf[:8]))
	if x := reg - regnum.AMD64_XMM0; x >= 0 && x < 16 {
		r.xmmHi[x] = binary.LittleEndian.Uint64(buf[8:])
	}
	if isX87(reg) {
		r.stHi[reg-regnum.AMD64_ST0] = binary.LittleEndian.Uint16(buf[8:])
	}
}

// Bytes returns the register's value as little-endian bytes: 16 for xmm
// registers, 10 for the x87 ones (st0-st7), 8 for the others.
func (r *Regs) Bytes(reg int) ([]byte, bool) {
	v, ok := r.Get(reg)
	if !ok {
		return nil, false
	}
	if x := reg - regnum.AMD64_XMM0; x >= 0 && x < 16 {
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, v)
		binary.LittleEndian.PutUint64(b[8:], r.xmmHi[x])
		return b, true
	}
	if isX87(reg) {
		return binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint64(nil, v), r.stHi[reg-regnum.AMD64_ST0]), true
	}
	return binary.LittleEndian.AppendUint64(nil, v), true
}

// Invalidate forgets the value of reg.
func (r *Regs) Invalidate(reg int) {
	if reg >= 0 && reg < NumRegs {
		r.valid[reg/64] &^= 1 << (reg % 64)
	}
}

// PC returns rip (DWARF 16).
func (r *Regs) PC() uint64 { v, _ := r.Get(regnum.AMD64_Rip); return v }

// SP returns rsp (DWARF 7).
func (r *Regs) SP() uint64 { v, _ := r.Get(regnum.AMD64_Rsp); return v }

// RegName returns the lower-case name GDB uses for a DWARF register
// ("rax", "rip", "xmm0", "fs_base", "eflags"), or "" if unknown.
func RegName(reg int) string {
	switch {
	case reg == regnum.AMD64_Rflags:
		return "eflags"
	case reg == regnum.AMD64_Fs_base:
		return "fs_base"
	case reg == regnum.AMD64_Gs_base:
		return "gs_base"
	case reg >= regnum.AMD64_ST0 && reg < regnum.AMD64_ST0+8:
		return fmt.Sprintf("st%d", reg-regnum.AMD64_ST0)
	}
	n := regnum.AMD64ToName(uint64(reg))
	if strings.HasPrefix(n, "unknown") {
		return ""
	}
	return strings.ToLower(n)
}

// RegNum returns the DWARF register number for a GDB-style register name
// ("rip", "$rip", "pc", "sp", "fp", "eflags", "fs_base", "xmm3").
func RegNum(name string) (int, bool) { return regNumBy(name, RegName, NumRegs) }

// regNumBy looks a register name up through nameOf, the architecture's
// RegName; "pc", "sp" and "fp" are the generic aliases GDB accepts.
func regNumBy(name string, nameOf func(int) string, n int) (int, bool) {
	name = strings.ToLower(strings.TrimPrefix(name, "$"))
	switch name {
	case "pc":
		return regnum.AMD64_Rip, true
	case "sp":
		return regnum.AMD64_Rsp, true
	case "fp":
		return regnum.AMD64_Rbp, true
	}
	for i := 0; i < n; i++ {
		if s := nameOf(i); s != "" && s == name {
			return i, true
		}
	}
	return 0, false
}

// Error vocabulary of the package. Match with errors.Is. ErrNotFound and
// ErrUnsupported are kinds of internal/errkind (shared by every layer);
// ErrOptimizedOut and ErrNoMemory are this package's own states.
var (
	// ErrNotFound: no function, line, variable or frame matches.
	ErrNotFound = errkind.NotFound
	// ErrOptimizedOut: the compiler did not keep the value at this pc.
	ErrOptimizedOut = errors.New("optimized out")
	// ErrUnsupported: valid DWARF that this package cannot evaluate.
	ErrUnsupported = errkind.New("unsupported", errkind.Unsupported)
	// ErrNoMemory: a read needed target memory but none was supplied.
	ErrNoMemory = errors.New("no target memory")
)

// FormatError reports malformed debug information: which section, at which
// offset, and what was wrong.
type FormatError struct {
	Section string
	Offset  uint64
	Msg     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("dwarf: %s at %#x: %s", e.Section, e.Offset, e.Msg)
}
