package session

import "testing"

// TestLeHex: register bytes (little-endian) as the hex GDB's p/x prints.
func TestLeHex(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{0x40, 0x17, 0xdd, 0xf7, 0xff, 0x7f, 0, 0}, "0x7ffff7dd1740"},
		{[]byte{0, 0, 0, 0}, "0x0"},
		{make([]byte, 10), "0x0"}, // st0 of an empty x87 stack
		{[]byte{0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "0x100000000000000000000000000ffff"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xab}, "0xab000000000000000000000000000000"},
		{[]byte{0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0}, "0x1234"},
	} {
		if got := leHex(c.b); got != c.want {
			t.Errorf("leHex(% x) = %s, want %s", c.b, got, c.want)
		}
	}
}
