package x86code

import (
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestFullReg: every general-purpose register name maps to the 64-bit
// register holding it, and Truncate keeps the bits it names.
func TestFullReg(t *testing.T) {
	const v = 0x1122334455667788
	for _, tc := range []struct {
		r, full x86asm.Reg
		val     uint64
	}{
		{x86asm.AL, x86asm.RAX, 0x88},
		{x86asm.AH, x86asm.RAX, 0x77},
		{x86asm.BH, x86asm.RBX, 0x77},
		{x86asm.SPB, x86asm.RSP, 0x88},
		{x86asm.DIB, x86asm.RDI, 0x88},
		{x86asm.R15B, x86asm.R15, 0x88},
		{x86asm.AX, x86asm.RAX, 0x7788},
		{x86asm.R9W, x86asm.R9, 0x7788},
		{x86asm.EAX, x86asm.RAX, 0x55667788},
		{x86asm.ESI, x86asm.RSI, 0x55667788},
		{x86asm.R8L, x86asm.R8, 0x55667788},
		{x86asm.RCX, x86asm.RCX, v},
		{x86asm.R12, x86asm.R12, v},
		{x86asm.RIP, x86asm.RIP, v},
		{x86asm.X0, x86asm.X0, v},
	} {
		if got := FullReg(tc.r); got != tc.full {
			t.Errorf("FullReg(%v) = %v, want %v", tc.r, got, tc.full)
		}
		if got := Truncate(tc.r, v); got != tc.val {
			t.Errorf("Truncate(%v, %#x) = %#x, want %#x", tc.r, uint64(v), got, tc.val)
		}
	}
}
