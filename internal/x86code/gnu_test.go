package x86code

import (
	"encoding/hex"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestGNU: instructions as binutils 2.40's objdump (and so GDB 13)
// prints them, each line taken from `objdump -D -b binary` of the bytes
// (a call's target moved to the address 0x1000 decodes at; objdump's
// "# addr" comments are the caller's).
func TestGNU(t *testing.T) {
	for _, tc := range []struct {
		mode       int
		code, want string
	}{
		{64, "c3", "ret"},
		{64, "c9", "leave"},
		{64, "e800000000", "call 0x1005"},
		{64, "4898", "cltq"},
		{64, "4863d0", "movslq %eax,%rdx"},
		{64, "488b0402", "mov (%rdx,%rax,1),%rax"},
		{64, "660f1f440000", "nopw 0x0(%rax,%rax,1)"},
		{64, "0f1f4000", "nopl 0x0(%rax)"},
		{64, "488d14c500000000", "lea 0x0(,%rax,8),%rdx"},
		{64, "4d8d6c2420", "lea 0x20(%r12),%r13"},
		{64, "662e0f1f840000000000", "cs nopw 0x0(%rax,%rax,1)"},
		{64, "66662e0f1f840000000000", "data16 cs nopw 0x0(%rax,%rax,1)"},
		{64, "488d8560ffffff", "lea -0xa0(%rbp),%rax"},
		{64, "488d05bdffffff", "lea -0x43(%rip),%rax"},
		{64, "ff25e22f0000", "jmp *0x2fe2(%rip)"},
		{64, "6800000000", "push $0x0"},
		{64, "8b05722f0000", "mov 0x2f72(%rip),%eax"},
		{64, "f3c3", "repz ret"},
		{64, "0fb645ff", "movzbl -0x1(%rbp),%eax"},
		{64, "480fbec0", "movsbq %al,%rax"},
		{64, "c5fa10442408", "vmovss 0x8(%rsp),%xmm0"},
		{64, "ff1425e0000000", "call *0xe0"},
		{64, "befeffffff", "mov $0xfffffffe,%esi"},
		{64, "4883c480", "add $0xffffffffffffff80,%rsp"},
		{64, "48c7c0ffffffff", "mov $0xffffffffffffffff,%rax"},
		{64, "48b8deffffffffffff7f", "movabs $0x7fffffffffffffde,%rax"},
		{64, "48b80037000004000000", "movabs $0x400003700,%rax"},
		{64, "6690", "xchg %ax,%ax"},
		{64, "c784987856341201000000", "movl $0x1,0x12345678(%rax,%rbx,4)"},
		{64, "48c784987856341201000000", "movq $0x1,0x12345678(%rax,%rbx,4)"},
		{64, "2e8b4010", "cs mov 0x10(%rax),%eax"},
		{64, "41ff5500", "call *0x0(%r13)"},
		{64, "c744241cffffffff", "movl $0xffffffff,0x1c(%rsp)"},
		{64, "80f9ff", "cmp $0xff,%cl"},
		{64, "6aff", "push $0xffffffffffffffff"},
		{64, "66c745feffff", "movw $0xffff,-0x2(%rbp)"},
		{64, "83e0f0", "and $0xfffffff0,%eax"},
		{64, "4881e4f0ffffff", "and $0xfffffffffffffff0,%rsp"},
		{32, "6aff", "push $0xffffffff"},
		{32, "83e0f0", "and $0xfffffff0,%eax"},
		{32, "b8ffffffff", "mov $0xffffffff,%eax"},
		{32, "ff7508", "push 0x8(%ebp)"},
		{32, "8d862bb0ffff", "lea -0x4fd5(%esi),%eax"},
		{32, "8b1d00f0ffff", "mov 0xfffff000,%ebx"},
		{32, "c3", "ret"},
		{32, "e800000000", "call 0x1005"},
	} {
		b, _ := hex.DecodeString(tc.code)
		in, err := Decode(b, tc.mode)
		if err != nil {
			t.Errorf("%s: %v", tc.code, err)
			continue
		}
		if got := GNU(b, in, 0x1000, tc.mode); got != tc.want {
			t.Errorf("%d-bit %s: GNU = %q, want %q (x86asm: %q)", tc.mode, tc.code, got, tc.want, gnuRaw(in))
		}
	}
}

func gnuRaw(in x86asm.Inst) string { return x86asm.GNUSyntax(in, 0, nil) }
