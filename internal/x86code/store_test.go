package x86code

import (
	"encoding/hex"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestMayWrite: which instructions may store to memory, and which store
// elsewhere than their first operand.
func TestMayWrite(t *testing.T) {
	for _, tc := range []struct {
		code, what       string
		write, elsewhere bool
	}{
		{"48890424", "mov %rax,(%rsp)", true, false},
		{"c7050000000001000000", "movl $1,rip-relative", true, false},
		{"488b0424", "mov (%rsp),%rax", false, false},
		{"4889c3", "mov %rax,%rbx", false, false},
		{"48830001", "addq $1,(%rax)", true, false},
		{"483900", "cmp %rax,(%rax)", false, false},
		{"488d0424", "lea (%rsp),%rax", false, false},
		{"55", "push %rbp", true, true},
		{"e800000000", "call", true, true},
		{"f348ab", "rep stos", true, true},
		{"488700", "xchg %rax,(%rax)", true, true},
		{"0f05", "syscall", true, true},
		{"90", "nop", false, false},
		{"0f1800", "prefetchnta", false, false},
	} {
		inst := decode(t, tc.code)
		if got := MayWrite(inst); got != tc.write {
			t.Errorf("%s (%v): MayWrite = %v, want %v", tc.what, inst, got, tc.write)
		}
		if got := StoresElsewhere(inst); got != tc.elsewhere {
			t.Errorf("%s (%v): StoresElsewhere = %v, want %v", tc.what, inst, got, tc.elsewhere)
		}
	}
}

// TestWritten: where a store just executed wrote, from the stack and
// frame pointers after it; nothing where the address needs more.
func TestWritten(t *testing.T) {
	regs := map[x86asm.Reg]uint64{x86asm.RSP: 0x7ff0, x86asm.RBP: 0x8000, x86asm.ESP: 0xfff0, x86asm.EBP: 0xfffff000}
	reg := func(r x86asm.Reg) (uint64, bool) { v, ok := regs[r]; return v, ok }
	for _, tc := range []struct {
		code, what string
		mode       int
		addr       uint64
		n          int
		ok         bool
	}{
		{"55", "push %rbp", 64, 0x7ff0, 8, true},
		{"e800000000", "call", 64, 0x7ff0, 8, true},
		{"8945fc", "mov %eax,-4(%rbp)", 64, 0x7ffc, 4, true},
		{"48890424", "mov %rax,(%rsp)", 64, 0x7ff0, 8, true},
		{"c6442408ff", "movb $-1,8(%rsp)", 64, 0x7ff8, 1, true},
		{"488900", "mov %rax,(%rax)", 64, 0, 0, false},
		{"48890c0500000000", "mov %rcx,(,%rax,1): an index", 64, 0, 0, false},
		{"644889042500000000", "mov %rax,%fs:0: a segment", 64, 0, 0, false},
		{"f348ab", "rep stos", 64, 0, 0, false},
		{"8945fc", "mov %eax,-4(%ebp), i386", 32, 0xffffeffc, 4, true},
		// A 32-bit displacement is signed (x86asm reads it unsigned).
		{"48898560ffffff", "mov %rax,-0xa0(%rbp)", 64, 0x7f60, 8, true},
		{"898560ffffff", "mov %eax,-0xa0(%ebp), i386", 32, 0xffffef60, 4, true},
		{"48898424a0000000", "mov %rax,0xa0(%rsp)", 64, 0x8090, 8, true},
	} {
		b, _ := hex.DecodeString(tc.code)
		inst, err := Decode(b, tc.mode)
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		addr, n, ok := Written(inst, tc.mode, reg)
		if ok != tc.ok || ok && (addr != tc.addr || n != tc.n) {
			t.Errorf("%s (%v): Written = %#x, %d, %v; want %#x, %d, %v", tc.what, inst, addr, n, ok, tc.addr, tc.n, tc.ok)
		}
	}
}
