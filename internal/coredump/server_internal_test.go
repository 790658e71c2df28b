package coredump

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestFullTag: the x87 tag word GDB shows is computed from FXSAVE's
// abridged tag and each register's value (valid 0, zero 1, special 2,
// empty 3), numbered by physical register while st(i) is physical
// register top+i.
func TestFullTag(t *testing.T) {
	ext := func(mant uint64, exp uint16) []byte {
		b := binary.LittleEndian.AppendUint64(nil, mant)
		return binary.LittleEndian.AppendUint16(b, exp)
	}
	one := ext(1<<63, 0x3fff)  // 1.0: valid
	zero := ext(0, 0)          // +0: zero
	inf := ext(1<<63, 0x7fff)  // infinity: special
	denormal := ext(1, 0)      // denormal: special
	unnormal := ext(1, 0x3fff) // no integer bit: special
	for _, c := range []struct {
		name     string
		top      int
		abridged byte
		st       [][]byte // st0, st1, ...
		want     uint16
	}{
		{"all empty", 0, 0, nil, 0xffff},
		{"st0 valid, top 0", 0, 0x01, [][]byte{one}, 0xfffc},
		{"st0 zero, top 7", 7, 0x80, [][]byte{zero}, 0x7fff},
		{"two pushed, top 6", 6, 0xc0, [][]byte{inf, one}, 0x2fff},
		{"specials", 0, 0x07, [][]byte{denormal, unnormal, zero}, 0xffda},
	} {
		fp := make([]byte, FPSize)
		binary.LittleEndian.PutUint16(fp[FPStat:], uint16(c.top)<<11)
		fp[FPTag] = c.abridged
		for i, v := range c.st {
			copy(fp[FPSt0+16*i:], v)
		}
		if got := fullTag(fp); got != c.want {
			t.Errorf("%s: tag %#04x, want %#04x", c.name, got, c.want)
		}
	}
}

// TestRegistersWithoutFP: a thread without x87/SSE state in the core has
// them unavailable ("xx"), not zero; the general registers are there.
func TestRegistersWithoutFP(t *testing.T) {
	th := Thread{TID: 1}
	th.Regs[16] = 0x401000 // rip
	s := NewServer(&File{Threads: []Thread{th}}, "")
	g, _ := s.Answer(t.Context(), "g")
	var want strings.Builder
	for _, r := range serverRegs {
		switch {
		case r.name == "rip":
			want.WriteString("0010400000000000")
		case r.fp >= 0:
			want.WriteString(strings.Repeat("xx", r.bits/8))
		default:
			want.WriteString(strings.Repeat("00", r.bits/8))
		}
	}
	if g != want.String() {
		t.Errorf("g = %s\nwant %s", g, want.String())
	}
	if p, _ := s.Answer(t.Context(), "p20"); p != "xxxxxxxx" { // fctrl, register 32
		t.Errorf("p20 (fctrl) = %q", p)
	}
}
