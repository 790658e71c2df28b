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

// Written says where store, an instruction that has just executed in
// mode (64 or 32), wrote, from the registers after it (reg returns a
// register's value, if known): a push or call wrote a word at the new
// stack pointer; a destination based on the stack or frame pointer,
// without index or segment, wrote MemBytes at base+disp (the instruction
// did not change its base). ok is false otherwise.
func Written(store x86asm.Inst, mode int, reg func(x86asm.Reg) (uint64, bool)) (addr uint64, n int, ok bool) {
	sp := x86asm.RSP
	if mode == 32 {
		sp = x86asm.ESP
	}
	switch store.Op {
	case x86asm.PUSH, x86asm.CALL:
		v, ok := reg(sp)
		return v, mode / 8, ok
	}
	m, isMem := store.Args[0].(x86asm.Mem)
	if !isMem || m.Index != 0 || m.Segment != 0 || store.MemBytes <= 0 || StoresElsewhere(store) {
		return 0, 0, false
	}
	switch m.Base {
	case x86asm.RBP, x86asm.EBP, x86asm.RSP, x86asm.ESP:
	default:
		return 0, 0, false
	}
	base, ok := reg(m.Base)
	if mode == 32 {
		return uint64(uint32(base + uint64(m.Disp))), store.MemBytes, ok
	}
	return base + uint64(m.Disp), store.MemBytes, ok
}
