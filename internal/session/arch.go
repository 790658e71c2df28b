package session

import (
	"github.com/rrmcp/rrmcp/dwarf"
)

// Register naming by architecture. The server's target description says
// which registers exist: an i386 target (gdbserver on a -m32 program,
// qemu-i386, qemu-system-i386) has eip/esp/ebp where x86-64 has
// rip/rsp/rbp. Internally registers are numbered as dwarf.Regs numbers
// them (amd64 DWARF numbers; i386 registers share the slot of their
// amd64 counterpart).

// i386 reports whether the target is a 32-bit x86 one.
func (s *Session) i386() bool {
	td := s.c.Target()
	if td == nil {
		return false
	}
	_, rip := td.Lookup("rip")
	_, eip := td.Lookup("eip")
	return eip && !rip
}

// regNum returns the dwarf.Regs number of a register name of the target
// ("rax" or "eax", "pc", "sp", "fp").
func (s *Session) regNum(name string) (int, bool) {
	if s.i386() {
		return dwarf.RegNum32(name)
	}
	return dwarf.RegNum(name)
}

// regName is the target's name of dwarf.Regs number n, or "".
func (s *Session) regName(n int) string {
	if s.i386() {
		return dwarf.RegName32(n)
	}
	return dwarf.RegName(n)
}

// pcName, spName and fpName are the target's names of the program
// counter, stack pointer and frame pointer.
func (s *Session) pcName() string { return s.archName("rip", "eip") }
func (s *Session) spName() string { return s.archName("rsp", "esp") }
func (s *Session) fpName() string { return s.archName("rbp", "ebp") }

func (s *Session) archName(amd64, i386 string) string {
	if s.i386() {
		return i386
	}
	return amd64
}

// ptrSize is the target's pointer size in bytes: the program's, else
// the register set's.
func (s *Session) ptrSize() int {
	if s.img != nil {
		return s.img.PtrSize()
	}
	if s.i386() {
		return 4
	}
	return 8
}

// defaultRegisters are the registers rr_registers shows when none are
// named, as GDB's "info registers" lists them.
// Those the target does not have (fs_base on gdbserver's i386
// description) are left out.
func (s *Session) defaultRegisters() []string {
	names := defaultRegs
	if s.i386() {
		names = []string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
			"cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"}
	}
	td := s.c.Target()
	var out []string
	for _, n := range names {
		if _, ok := td.Lookup(n); ok {
			out = append(out, n)
		}
	}
	return out
}
