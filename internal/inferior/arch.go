package inferior

import (
	"github.com/rrmcp/rrmcp/dwarf"
)

// Register naming by architecture. The server's target description says
// which registers exist: an i386 target (gdbserver on a -m32 program,
// qemu-i386, qemu-system-i386) has eip/esp/ebp where x86-64 has
// rip/rsp/rbp. Internally registers are numbered as dwarf.Regs numbers
// them (amd64 DWARF numbers; i386 registers share the slot of their
// amd64 counterpart).

// I386 reports whether the target is a 32-bit x86 one.
func (inf *Inferior) I386() bool {
	td := inf.c.Target()
	if td == nil {
		return false
	}
	_, rip := td.Lookup("rip")
	_, eip := td.Lookup("eip")
	return eip && !rip
}

// RegNum returns the dwarf.Regs number of a register name of the target
// ("rax" or "eax", "pc", "sp", "fp").
func (inf *Inferior) RegNum(name string) (int, bool) {
	if inf.I386() {
		return dwarf.RegNum32(name)
	}
	return dwarf.RegNum(name)
}

// RegName is the target's name of dwarf.Regs number n, or "".
func (inf *Inferior) RegName(n int) string {
	if inf.I386() {
		return dwarf.RegName32(n)
	}
	return dwarf.RegName(n)
}

// pcName, spName and fpName are the target's names of the program
// counter, stack pointer and frame pointer.
func (inf *Inferior) PCName() string { return inf.archName("rip", "eip") }
func (inf *Inferior) SPName() string { return inf.archName("rsp", "esp") }
func (inf *Inferior) FPName() string { return inf.archName("rbp", "ebp") }

func (inf *Inferior) archName(amd64, i386 string) string {
	if inf.I386() {
		return i386
	}
	return amd64
}

// PtrSize is the target's pointer size in bytes: the program's, else
// the register set's.
func (inf *Inferior) PtrSize() int {
	if inf.Img != nil {
		return inf.Img.PtrSize()
	}
	if inf.I386() {
		return 4
	}
	return 8
}

// DefaultRegisters are the registers rr_registers shows when none are
// named, as GDB's "info registers" lists them.
// Those the target does not have (fs_base on gdbserver's i386
// description) are left out.
func (inf *Inferior) DefaultRegisters() []string {
	names := []string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "eflags",
		"cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"}
	if inf.I386() {
		names = []string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
			"cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"}
	}
	td := inf.c.Target()
	var out []string
	for _, n := range names {
		if _, ok := td.Lookup(n); ok {
			out = append(out, n)
		}
	}
	return out
}
