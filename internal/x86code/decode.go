package x86code

import (
	"errors"
	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

// ErrTruncated: the code ends inside an instruction.
var ErrTruncated = errors.New("the code ends inside an instruction")

// maxLen is the longest x86 instruction, in bytes.
const maxLen = 15

// Decode decodes the instruction at the start of code in mode (64, or 32
// for i386), like x86asm.Decode, except where code ends inside the
// instruction: x86asm then returns, with no error, a one-byte instruction
// of a prefix alone (the first three bytes of "mov 0x8(%rax),%rsi" decode
// as a lone REX.W), which would put every later boundary in the wrong
// place. Such a decode is ErrTruncated: where code is shorter than the
// longest instruction, it is decoded again with bytes after it (two
// different fillers), and must come out the same length (an instruction that ends inside code does
// not depend on what follows). x86asm's own view of an instruction it
// does not know is kept: endbr64 is a REP prefix, then a nop.
//
// A memory operand's 32-bit displacement is sign-extended, as the
// processor does (x86asm reads it unsigned: -0xa0(%rbp) came out as
// 0xffffff60(%rbp), 4 GiB above the frame), but for an absolute i386
// address (no base, no index), which is an address, not an offset.
func Decode(code []byte, mode int) (x86asm.Inst, error) {
	in, err := x86asm.Decode(code, mode)
	if err != nil {
		return in, err
	}
	for i, a := range in.Args {
		if m, ok := a.(x86asm.Mem); ok && m.Disp >= 1<<31 && m.Disp < 1<<32 && (mode == 64 || m.Base != 0 || m.Index != 0) {
			m.Disp -= 1 << 32
			in.Args[i] = m
		}
	}
	if len(code) < maxLen {
		// Two fillers: a lone prefix before nops may still decode as a
		// lone prefix (66 90), never before 00 00 (an add with a ModRM).
		for _, fill := range []byte{0x00, 0x90} {
			padded := make([]byte, len(code), len(code)+maxLen)
			copy(padded, code)
			for range maxLen {
				padded = append(padded, fill)
			}
			if p, err := x86asm.Decode(padded, mode); err != nil || p.Len != in.Len {
				return in, fmt.Errorf("% x: %w", code, ErrTruncated)
			}
		}
	}
	return in, nil
}
