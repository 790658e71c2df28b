package x86code

import "golang.org/x/arch/x86/x86asm"

// MayWrite reports whether inst may write memory: a memory destination
// (x86asm lists the destination first), an exchange with memory, or an
// implicit store (push, call, string stores, system calls, which may
// write anything). Unsure means yes.
func MayWrite(inst x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.NOP, x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHW,
		x86asm.LEA, x86asm.CMP, x86asm.TEST, x86asm.BT:
		return false
	case x86asm.PUSH, x86asm.PUSHF, x86asm.PUSHFD, x86asm.PUSHFQ, x86asm.PUSHA, x86asm.PUSHAD,
		x86asm.CALL, x86asm.LCALL, x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT, x86asm.INTO, x86asm.ENTER,
		x86asm.XCHG, x86asm.CMPXCHG8B, x86asm.CMPXCHG16B, x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ,
		x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ, x86asm.XSAVE, x86asm.XSAVEOPT, x86asm.FXSAVE, x86asm.FXSAVE64:
		return true
	}
	_, ok := inst.Args[0].(x86asm.Mem)
	return ok
}

// StoresElsewhere reports instructions whose stores are not (only) to
// their first operand: stack pushes, string stores, exchanges, state
// saves, system calls.
func StoresElsewhere(inst x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.PUSH, x86asm.CALL, x86asm.LCALL, x86asm.ENTER, x86asm.XCHG, x86asm.CMPXCHG8B, x86asm.CMPXCHG16B,
		x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ,
		x86asm.XSAVE, x86asm.XSAVEOPT, x86asm.FXSAVE, x86asm.FXSAVE64, x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT:
		return true
	}
	return false
}
