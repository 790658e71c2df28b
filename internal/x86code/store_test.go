package x86code

import "testing"

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
