package tools

import "testing"

func TestHexdump(t *testing.T) {
	for _, tc := range []struct{ addr, hex, want string }{
		{"0x1000", "68656c6c6f00", "0x1000: 68 65 6c 6c 6f 00                                hello.\n"},
		{"0x0", "", ""},
		{"0x7ffe0010", "000102030405060708090a0b0c0d0e0f4142", "0x7ffe0010: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  ................\n0x7ffe0020: 41 42                                            AB\n"},
		{"0x10", "zz", "zz"}, // not hex: shown as it came
	} {
		if got := hexdump(tc.addr, tc.hex); got != tc.want {
			t.Errorf("hexdump(%s, %s) =\n%q\nwant\n%q", tc.addr, tc.hex, got, tc.want)
		}
	}
}

func BenchmarkHexdump64(b *testing.B) {
	hx := "000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f"
	for b.Loop() {
		hexdump("0x5555555580e0", hx)
	}
}
