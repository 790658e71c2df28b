package x86code

import "golang.org/x/arch/x86/x86asm"

// FullReg is the 64-bit general-purpose register holding r (AL, AH, AX,
// EAX → RAX; SPB → RSP; R8B, R8W, R8L → R8); any other register is
// returned as it is. (x86asm lists the byte registers AL CL DL BL, AH CH
// DH BH, then SPB BPB SIB DIB R8B…R15B.)
func FullReg(r x86asm.Reg) x86asm.Reg {
	switch {
	case r >= x86asm.AL && r <= x86asm.BL:
		return r - x86asm.AL + x86asm.RAX
	case r >= x86asm.AH && r <= x86asm.BH:
		return r - x86asm.AH + x86asm.RAX
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return r - x86asm.SPB + x86asm.RSP
	case r >= x86asm.AX && r <= x86asm.R15W:
		return r - x86asm.AX + x86asm.RAX
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return r - x86asm.EAX + x86asm.RAX
	}
	return r
}

// Truncate is the part of v, the value of FullReg(r), that r names.
func Truncate(r x86asm.Reg, v uint64) uint64 {
	switch {
	case r >= x86asm.AH && r <= x86asm.BH:
		return v >> 8 & 0xff
	case r >= x86asm.AL && r <= x86asm.R15B:
		return v & 0xff
	case r >= x86asm.AX && r <= x86asm.R15W:
		return v & 0xffff
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return v & 0xffffffff
	}
	return v
}
