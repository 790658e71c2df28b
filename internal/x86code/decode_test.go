package x86code

import (
	"errors"
	"testing"
)

// TestDecode: code cut inside an instruction is ErrTruncated (x86asm
// alone decodes a lone prefix without an error); whole instructions
// decode whatever follows them.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		code []byte
		mode int
		len  int // 0: ErrTruncated
	}{
		{[]byte{0x48, 0x8b, 0x70, 0x08}, 64, 4},       // mov 0x8(%rax),%rsi
		{[]byte{0x48, 0x8b, 0x70}, 64, 0},             // the same, cut: x86asm says REX.W, 1 byte
		{[]byte{0xc1, 0xea, 0x03, 0xcc}, 64, 3},       // shr $0x3,%edx, then anything
		{[]byte{0xc1, 0xea}, 64, 0},                   //
		{[]byte{0xe8, 0x01, 0x02}, 64, 0},             // a call without its displacement
		{[]byte{0xe8, 0x01, 0x02, 0x03, 0x04}, 64, 5}, //
		{[]byte{0xf3, 0x0f, 0x1e, 0xfa}, 64, 1},       // endbr64: x86asm's lone REP, then a nop
		{[]byte{0xf3, 0x0f, 0x1e}, 64, 1},             // the same boundary, cut or not
		{[]byte{0x55}, 64, 1},                         // push %rbp: complete in one byte
		{[]byte{0x66}, 64, 0},                         // the first byte of cs nopw 0x0(%rax,%rax,1)
		{[]byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 64, 10},
		{[]byte{0xc3}, 32, 1},       // ret
		{[]byte{0x8b, 0x45}, 32, 0}, // mov -0x..(%ebp),%eax, cut
	} {
		in, err := Decode(c.code, c.mode)
		switch {
		case c.len == 0 && !errors.Is(err, ErrTruncated):
			t.Errorf("% x: %v (len %d), want ErrTruncated", c.code, err, in.Len)
		case c.len != 0 && (err != nil || in.Len != c.len):
			t.Errorf("% x: len %d, %v; want len %d", c.code, in.Len, err, c.len)
		}
	}
}
