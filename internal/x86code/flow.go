package x86code

import "golang.org/x/arch/x86/x86asm"

// TransfersControl reports whether inst may go elsewhere than the next
// instruction: a jump, call, return, loop, system call, interrupt or
// trap.
func TransfersControl(inst x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.JMP, x86asm.LJMP, x86asm.CALL, x86asm.LCALL, x86asm.RET, x86asm.LRET,
		x86asm.SYSCALL, x86asm.SYSENTER, x86asm.SYSEXIT, x86asm.SYSRET, x86asm.INT, x86asm.INTO,
		x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.UD2, x86asm.HLT:
		return true
	}
	_, rel := inst.Args[0].(x86asm.Rel) // jcc, loop, jrcxz
	return rel
}

// Leaves reports whether inst always goes elsewhere: a jump, or a return
// from a call, an interrupt or a system call.
func Leaves(inst x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.JMP, x86asm.LJMP, x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.SYSRET, x86asm.SYSEXIT:
		return true
	}
	return false
}

// EndsFlow reports whether nothing after inst is reached by falling
// through it: it leaves (Leaves), or it stops the processor or raises
// an invalid-opcode fault.
func EndsFlow(inst x86asm.Inst) bool {
	return Leaves(inst) || inst.Op == x86asm.UD2 || inst.Op == x86asm.HLT
}

// IsCall reports a near or far call.
func IsCall(inst x86asm.Inst) bool { return inst.Op == x86asm.CALL || inst.Op == x86asm.LCALL }

// IsReturn reports a near or far return from a call.
func IsReturn(inst x86asm.Inst) bool { return inst.Op == x86asm.RET || inst.Op == x86asm.LRET }

// IsTrap reports int3 (a breakpoint trap), not int $n (a system call).
func IsTrap(inst x86asm.Inst) bool {
	imm, ok := inst.Args[0].(x86asm.Imm)
	return inst.Op == x86asm.INT && ok && imm == 3
}

// DirectTarget returns where inst, at address a, jumps when it is a
// direct jump, jcc or loop (its target held in the instruction).
func DirectTarget(inst x86asm.Inst, a uint64) (uint64, bool) {
	switch inst.Op {
	case x86asm.CALL, x86asm.LCALL:
		return 0, false
	}
	if rel, ok := inst.Args[0].(x86asm.Rel); ok {
		return a + uint64(inst.Len) + uint64(int64(rel)), true
	}
	return 0, false
}

// MayBranchTo reports whether inst, at address a, may send the thread to
// target other than by running on: a direct jump, jcc or loop there, or
// a jump or return whose target the instruction does not hold.
func MayBranchTo(inst x86asm.Inst, a, target uint64) bool {
	for _, arg := range inst.Args {
		if rel, ok := arg.(x86asm.Rel); ok {
			return a+uint64(inst.Len)+uint64(int64(rel)) == target
		}
	}
	return Leaves(inst) // a target the instruction does not hold
}

// maxWalk bounds the instructions ReturnsWithout decodes.
const maxWalk = 4096

// ReturnsWithout walks code (loaded at lo, decoded in mode 32 or 64)
// from the instruction at pc: true when every path ends in a return (or
// a trap) without reaching pc again, calling, making a system call, or
// jumping indirectly or outside code. A finish from a breakpoint at pc
// may then leave the breakpoint out until the function returns.
func ReturnsWithout(code []byte, lo, pc uint64, mode int) bool {
	hi := lo + uint64(len(code))
	seen := map[uint64]bool{}
	work := []uint64{pc}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		if a < lo || a >= hi {
			return false // out of the function (a tail call, a cold part)
		}
		if seen[a] {
			continue
		}
		if seen[a] = true; len(seen) > maxWalk {
			return false
		}
		in, err := Decode(code[a-lo:], mode)
		if err != nil {
			return false
		}
		next := a + uint64(in.Len)
		var succ []uint64
		rel, isRel := in.Args[0].(x86asm.Rel)
		switch {
		case IsReturn(in) || in.Op == x86asm.UD2 || in.Op == x86asm.HLT || IsTrap(in):
			// returns, or traps (a stop)
		case in.Op == x86asm.JMP && isRel:
			succ = append(succ, uint64(int64(next)+int64(rel)))
		case isRel && !IsCall(in):
			// a conditional jump, a loop, jcxz
			succ = append(succ, uint64(int64(next)+int64(rel)), next)
		case TransfersControl(in):
			return false // a call, a system call, an indirect jump, ...
		default:
			succ = append(succ, next)
		}
		for _, t := range succ {
			if t == pc {
				return false
			}
			work = append(work, t)
		}
	}
	return true
}
