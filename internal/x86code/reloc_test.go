package x86code

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

func TestRelocate(t *testing.T) {
	const from, to = 0x401000, 0x40000000
	for _, tc := range []struct {
		name, code, want string
		err              error
	}{
		{"no pc-relative operand", "4889e5" + "90", "4889e5", nil},
		// mov 0x2eee(%rip),%eax reads 0x401000+6+0x2eee = 0x403ef4,
		// which is 0x403ef4-0x40000006 = -0x3fbfc112 from the new end.
		{"rip-relative load", "8b05ee2e0000", "8b05ee3e40c0", nil},
		// movl $1,0x10(%rip): the immediate follows the displacement.
		{"rip-relative with immediate", "c7051000000001000000", "c705101040c001000000", nil},
		{"jmp rel8", "eb10", "e90d1040c0", nil},
		{"jmp rel32", "e910000000", "e9101040c0", nil},
		{"jcc rel8", "7410", "0f840c1040c0", nil},
		{"jcc rel32", "0f8410000000", "0f84101040c0", nil},
		// call rel32 to 0x401015: push 0x401005, jmp 0x401015.
		{"call rel32", "e810000000", "488d6424f8c7042405104000c744240400000000e9fc0f40c0", nil},
		{"loop", "e2fe", "", ErrCannotRelocate},
		{"out of range", "8b0500000000", "", ErrCannotRelocate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _ := hex.DecodeString(tc.code)
			dst := uint64(to)
			if tc.name == "out of range" {
				dst = 0x7fff00000000
			}
			got, err := Relocate(code, from, dst)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if hex.EncodeToString(got) != tc.want {
				t.Fatalf("got %x, want %s", got, tc.want)
			}
		})
	}
}

// FuzzRelocate: a relocated instruction decodes, and one without a
// pc-relative operand is copied as it is.
func FuzzRelocate(f *testing.F) {
	for _, s := range []string{"8b05ee2e0000", "e810000000", "7410", "4889e5"} {
		b, _ := hex.DecodeString(s)
		f.Add(b, uint64(0x401000), uint64(0x40000000))
	}
	f.Fuzz(func(t *testing.T, code []byte, from, to uint64) {
		out, err := Relocate(code, from, to)
		if err != nil {
			return
		}
		inst, derr := x86asm.Decode(out, 64)
		if derr != nil {
			t.Fatalf("%x relocated to %x, which does not decode: %v", code, out, derr)
		}
		orig, _ := x86asm.Decode(code, 64)
		if orig.PCRel == 0 && !bytes.Equal(out, code[:orig.Len]) {
			t.Fatalf("%x changed to %x", code, out)
		}
		_ = inst
	})
}

// TestRelocateSpan: the instructions a 5-byte jump displaces when the
// first is shorter, each relocated for its own new address; control
// may leave only at the last.
func TestRelocateSpan(t *testing.T) {
	const from, to = 0x401000, 0x40000000
	for _, tc := range []struct {
		name, code string
		n          int
		want       string
		err        error
	}{
		// tock's first statement (gcc -O0): two 3-byte moves.
		{"two moves", "8b45e4" + "8945f4" + "90", 6, "8b45e48945f4", nil},
		// push %rbp; mov %rsp,%rbp; then a RIP-relative load (at
		// 0x401004, reading 0x401004+6+0x2eee = 0x403ef8, which is
		// -0x3fbfc112 from its new end 0x4000000a).
		{"prologue and a rip-relative load", "55" + "4889e5" + "8b05ee2e0000", 10, "554889e58b05ee3e40c0", nil},
		// the last may be a jump: nop; jmp rel8 to 0x401013 (rel32 from
		// the new 0x40000006).
		{"a jump last", "90" + "90" + "90" + "eb10", 5, "909090e90d1040c0", nil},
		{"a jump before the end", "eb00" + "909090", 5, "", ErrCannotRelocate},
		{"a call before the end", "e800000000" + "90", 6, "", ErrCannotRelocate},
		{"n inside an instruction", "8b45e4" + "8945f4", 5, "", ErrCannotRelocate},
		{"n past what was read", "8b45e4", 6, "", ErrCannotRelocate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _ := hex.DecodeString(tc.code)
			got, err := RelocateSpan(code, from, to, tc.n)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err == nil && hex.EncodeToString(got) != tc.want {
				t.Errorf("got %x, want %s", got, tc.want)
			}
		})
	}
}
