package x86code

import (
	"encoding/hex"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// decode decodes the x86-64 instruction in hex text.
func decode(t *testing.T, code string) x86asm.Inst {
	t.Helper()
	b, err := hex.DecodeString(code)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := x86asm.Decode(b, 64)
	if err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	return inst
}

// TestFlow: each instruction's answers to the control-flow questions.
func TestFlow(t *testing.T) {
	for _, tc := range []struct {
		code, what                               string
		transfers, leaves, ends, call, ret, trap bool
	}{
		{"c3", "ret", true, true, true, false, true, false},
		{"cb", "lret", true, true, true, false, true, false},
		{"e800000000", "call rel32", true, false, false, true, false, false},
		{"ffd0", "call *%rax", true, false, false, true, false, false},
		{"ffe0", "jmp *%rax", true, true, true, false, false, false},
		{"eb00", "jmp rel8", true, true, true, false, false, false},
		{"7400", "je", true, false, false, false, false, false},
		{"e2fe", "loop", true, false, false, false, false, false},
		{"0f05", "syscall", true, false, false, false, false, false},
		{"cd80", "int $0x80", true, false, false, false, false, false},
		{"cc", "int3", true, false, false, false, false, true},
		{"0f0b", "ud2", true, false, true, false, false, false},
		{"f4", "hlt", true, false, true, false, false, false},
		{"4889e5", "mov %rsp,%rbp", false, false, false, false, false, false},
		{"8b05ee2e0000", "mov rip-relative", false, false, false, false, false, false},
		{"90", "nop", false, false, false, false, false, false},
		{"55", "push %rbp", false, false, false, false, false, false},
	} {
		inst := decode(t, tc.code)
		got := [6]bool{TransfersControl(inst), Leaves(inst), EndsFlow(inst), IsCall(inst), IsReturn(inst), IsTrap(inst)}
		want := [6]bool{tc.transfers, tc.leaves, tc.ends, tc.call, tc.ret, tc.trap}
		if got != want {
			t.Errorf("%s (%v): TransfersControl, Leaves, EndsFlow, IsCall, IsReturn, IsTrap = %v, want %v", tc.what, inst, got, want)
		}
	}
}

// TestMayBranchTo: a direct branch goes where its displacement says; an
// indirect jump or a return may go anywhere; other instructions only run
// on.
func TestMayBranchTo(t *testing.T) {
	const a = 0x1000
	for _, tc := range []struct {
		code   string
		target uint64
		want   bool
	}{
		{"ebfe", a, true},             // jmp . (to itself)
		{"ebfe", a + 2, false},        // ... not to the next
		{"75fc", a - 2, true},         // jne -4
		{"75fc", a, false},            //
		{"e2fe", a, true},             // loop .
		{"ffe0", 0x4242, true},        // jmp *%rax: anywhere
		{"c3", 0x4242, true},          // ret: anywhere
		{"e800000000", a, false},      // call +0: to the next instruction
		{"4889e5", a + 3, false},      // mov: runs on
		{"0f8400000000", a + 6, true}, // je rel32 +0: the next instruction either way
	} {
		if got := MayBranchTo(decode(t, tc.code), a, tc.target); got != tc.want {
			t.Errorf("%s to %#x: %v, want %v", tc.code, tc.target, got, tc.want)
		}
	}
}

// TestDirectTarget: the target a jump, jcc or loop holds; none for
// calls, indirect jumps, returns and other instructions.
func TestDirectTarget(t *testing.T) {
	const a = 0x1000
	for _, tc := range []struct {
		code   string
		target uint64
		ok     bool
	}{
		{"ebfe", a, true},                // jmp .
		{"75fc", a - 2, true},            // jne -4
		{"e2fe", a, true},                // loop .
		{"0f8410000000", a + 0x16, true}, // je rel32 +0x10
		{"e910000000", a + 0x15, true},   // jmp rel32 +0x10
		{"e800000000", 0, false},         // call rel32: stepped over or into, not jumped
		{"ffe0", 0, false},               // jmp *%rax
		{"c3", 0, false},                 // ret
		{"4889e5", 0, false},             // mov
	} {
		got, ok := DirectTarget(decode(t, tc.code), a)
		if got != tc.target || ok != tc.ok {
			t.Errorf("%s: %#x %v, want %#x %v", tc.code, got, ok, tc.target, tc.ok)
		}
	}
}

// TestReturnsWithout: the code walk behind a finish that leaves the
// breakpoint at its pc out (x86-64 code loaded at 0x1000, walked from
// pc 0x1000).
func TestReturnsWithout(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
		want bool
	}{
		{"straight to ret", []byte{0xb8, 1, 0, 0, 0, 0xc3}, true},                                                              // mov $1,%eax; ret
		{"forward branch", []byte{0x74, 0x01, 0x90, 0xc3}, true},                                                               // je +1; nop; ret
		{"both arms return", []byte{0x74, 0x01, 0xc3, 0x90, 0xc3}, true},                                                       // je +1; ret; nop; ret
		{"loop back to pc", []byte{0x83, 0xc0, 0x01, 0x75, 0xfb, 0xc3}, false},                                                 // L: add $1,%eax; jne L; ret
		{"loop not through pc", []byte{0x90, 0x83, 0xc0, 0x01, 0x75, 0xfb, 0xc3}, true},                                        // nop; L: add; jne L; ret
		{"loop instruction to pc", []byte{0x90, 0xe2, 0xfd, 0xc3}, false},                                                      // nop; loop -3 (to pc); ret
		{"call", []byte{0xe8, 0, 0, 0, 0, 0xc3}, false},                                                                        // call; ret
		{"indirect jump", []byte{0xff, 0xe0}, false},                                                                           // jmp *%rax
		{"indirect call", []byte{0xff, 0xd0, 0xc3}, false},                                                                     // call *%rax
		{"syscall", []byte{0x0f, 0x05, 0xc3}, false},                                                                           // syscall; ret
		{"int 0x80", []byte{0xcd, 0x80, 0xc3}, false},                                                                          // int $0x80; ret
		{"int3 traps", []byte{0xcc}, true},                                                                                     // int3
		{"jump out of the function", []byte{0xe9, 0x00, 0x10, 0, 0}, false},                                                    // jmp +0x1000
		{"falls off the end", []byte{0x90, 0x90}, false},                                                                       // nop; nop
		{"undecodable", []byte{0x0f, 0xff}, false},                                                                             // (no instruction)
		{"jump back before pc, then ret", []byte{0x90, 0xeb, 0x01, 0xc3, 0xeb, 0xfd}, true},                                    // nop; jmp +1; ret; jmp -3
		{"back edge to pc after a detour", []byte{0x90, 0xeb, 0x01, 0xc3, 0xeb, 0xfa}, false},                                  // nop; jmp +1; ret; jmp -6 (pc)
		{"conditional back edge to pc", []byte{0x85, 0xc0, 0x7e, 0x01, 0xc3, 0x0f, 0x8f, 0xf5, 0xff, 0xff, 0xff, 0xc3}, false}, // test; jle +1; ret; jg -11 (pc); ret
	} {
		if got := ReturnsWithout(tc.code, 0x1000, 0x1000, 64); got != tc.want {
			t.Errorf("%s: ReturnsWithout = %v, want %v", tc.name, got, tc.want)
		}
	}
}
