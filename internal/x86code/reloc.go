package x86code

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"golang.org/x/arch/x86/x86asm"
)

// Moving instructions, as a fast tracepoint's jump pad needs it
// (gdbserver's qRelocInsn, rsp.Relocator): the displaced instruction
// runs in the pad, then the pad jumps back. Where the first instruction
// is shorter than the jump, the few it needs move together
// (RelocateSpan).
//
// What changes with the address (GDB's amd64_relocate_instruction is
// the reference for the cases): a RIP-relative memory operand and a
// rel32 jmp, jcc or call get their displacement recomputed; a rel8 jmp
// or jcc becomes its rel32 form; a direct call becomes a push of the
// original return address and a jmp, so the callee returns to the code
// after the original instruction and unwinds through it. Instructions
// without a pc-relative operand are copied as they are.

// ErrCannotRelocate is returned for an instruction that cannot run at
// the new address (a loop or jrcxz, whose rel8 has no rel32 form, or a
// displacement the move puts out of rel32 range).
var ErrCannotRelocate = errors.New("cannot relocate the instruction")

// Relocate returns the instruction at the start of code, which was at
// address from, rewritten to run at address to. code may hold bytes
// after the instruction.
func Relocate(code []byte, from, to uint64) ([]byte, error) {
	inst, err := Decode(code, 64)
	if err != nil {
		return nil, fmt.Errorf("decode at %#x: %w", from, err)
	}
	n := inst.Len
	out := append([]byte(nil), code[:n]...)
	if inst.PCRel == 0 {
		return out, nil
	}
	off := inst.PCRelOff
	var disp int64
	switch inst.PCRel {
	case 1:
		disp = int64(int8(code[off]))
	case 4:
		disp = int64(int32(binary.LittleEndian.Uint32(code[off:])))
	default:
		return nil, fmt.Errorf("%v at %#x: %d-byte pc-relative field: %w", inst.Op, from, inst.PCRel, ErrCannotRelocate)
	}
	target := from + uint64(n) + uint64(disp)
	rel32 := func(end uint64) ([]byte, error) { // the rel32 reaching target from end
		d := int64(target - end)
		if d < math.MinInt32 || d > math.MaxInt32 {
			return nil, fmt.Errorf("%v at %#x: its target %#x is out of rel32 range from %#x: %w", inst.Op, from, target, to, ErrCannotRelocate)
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(d))), nil
	}
	switch {
	case inst.Op == x86asm.CALL && code[off-1] == 0xe8:
		// lea -8(%rsp),%rsp (flags untouched); movl $lo,(%rsp);
		// movl $hi,4(%rsp); jmp target.
		ret := from + uint64(n)
		b := []byte{0x48, 0x8d, 0x64, 0x24, 0xf8, 0xc7, 0x04, 0x24}
		b = binary.LittleEndian.AppendUint32(b, uint32(ret))
		b = append(b, 0xc7, 0x44, 0x24, 0x04)
		b = binary.LittleEndian.AppendUint32(b, uint32(ret>>32))
		r, err := rel32(to + uint64(len(b)) + 5)
		if err != nil {
			return nil, err
		}
		return append(append(b, 0xe9), r...), nil
	case inst.PCRel == 1 && inst.Op == x86asm.JMP:
		r, err := rel32(to + 5)
		if err != nil {
			return nil, err
		}
		return append([]byte{0xe9}, r...), nil
	case inst.PCRel == 1 && code[off-1] >= 0x70 && code[off-1] <= 0x7f: // jcc rel8
		r, err := rel32(to + 6)
		if err != nil {
			return nil, err
		}
		return append([]byte{0x0f, 0x80 | code[off-1]&0xf}, r...), nil
	case inst.PCRel == 1: // loop, loope, loopne, jrcxz
		return nil, fmt.Errorf("%v at %#x: a rel8 with no rel32 form: %w", inst.Op, from, ErrCannotRelocate)
	}
	// A rel32 in place: jmp, jcc, call through memory, RIP-relative
	// operands (the field need not end the instruction: an immediate
	// may follow).
	r, err := rel32(to + uint64(n))
	if err != nil {
		return nil, err
	}
	copy(out[off:], r)
	return out, nil
}

// RelocateSpan relocates the whole instructions in code[:n] (which was at
// from) to run at to, one after the other, as one fast tracepoint's
// jump displaces when the first instruction is shorter than the jump:
// each is rewritten as Relocate does for its own new address. Only the
// last may transfer control (a jump or call in the middle would skip or
// return into the rest); n must end an instruction.
func RelocateSpan(code []byte, from, to uint64, n int) ([]byte, error) {
	if n > len(code) {
		return nil, fmt.Errorf("%d bytes at %#x, %d read: %w", n, from, len(code), ErrCannotRelocate)
	}
	var out []byte
	for off := 0; off < n; {
		inst, err := Decode(code[off:], 64)
		if err != nil {
			return nil, fmt.Errorf("decode at %#x: %w", from+uint64(off), err)
		}
		if off+inst.Len > n {
			return nil, fmt.Errorf("the instruction at %#x ends past %d bytes: %w", from+uint64(off), n, ErrCannotRelocate)
		}
		if off+inst.Len < n && TransfersControl(inst) {
			return nil, fmt.Errorf("%v at %#x transfers control before the end of the %d bytes: %w", inst.Op, from+uint64(off), n, ErrCannotRelocate)
		}
		b, err := Relocate(code[off:], from+uint64(off), to+uint64(len(out)))
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		off += inst.Len
	}
	return out, nil
}
