package dwarf

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// entries lists a location list's entries as "lo-hi:expr" (hex), "def:expr"
// for a default location, or the error.
func entries(err error, f func(yield func(lo, hi uint64, expr []byte, isDefault bool) bool) error) string {
	var out []string
	err = f(func(lo, hi uint64, expr []byte, isDefault bool) bool {
		if isDefault {
			out = append(out, fmt.Sprintf("def:%x", expr))
		} else {
			out = append(out, fmt.Sprintf("%x-%x:%x", lo, hi, expr))
		}
		return true
	})
	if err != nil {
		out = append(out, "error: "+err.Error())
	}
	return strings.Join(out, " ")
}

func TestWalkLoclists(t *testing.T) {
	addr8 := func(a uint64) []byte { return binary.LittleEndian.AppendUint64(nil, a) }
	cat := func(bs ...[]byte) []byte {
		var b []byte
		for _, x := range bs {
			b = append(b, x...)
		}
		return b
	}
	debugAddr := []uint64{0x1000, 0x2000}
	addrx := func(i uint64) (uint64, error) {
		if i >= uint64(len(debugAddr)) {
			return 0, fmt.Errorf("index %d out of range", i)
		}
		return debugAddr[i], nil
	}
	for _, tc := range []struct {
		name string
		list []byte
		want string
	}{
		{"offset pairs from the unit's base, an empty one first",
			[]byte{lleOffsetPair, 0x40, 0x40, 1, 0x55, lleOffsetPair, 0x40, 0x4d, 3, 0x75, 0x02, 0x9f, lleEndOfList},
			"540-540:55 540-54d:75029f"},
		{"base address, start/end, start/length",
			cat([]byte{lleBaseAddress}, addr8(0x9000), []byte{lleOffsetPair, 1, 2, 1, 0x50, lleStartEnd}, addr8(0x10), addr8(0x20), []byte{1, 0x51, lleStartLength}, addr8(0x30), []byte{4, 1, 0x52, lleEndOfList}),
			"9001-9002:50 10-20:51 30-34:52"},
		{"indexed addresses", []byte{lleBaseAddressx, 1, lleOffsetPair, 0, 8, 1, 0x50, lleStartxEndx, 0, 1, 1, 0x51, lleStartxLength, 1, 0x10, 1, 0x52, lleDefault, 1, 0x53, lleEndOfList},
			"2000-2008:50 1000-2000:51 2000-2010:52 def:53"},
		{"a bad index", []byte{lleStartxEndx, 0, 7, 1, 0x51, lleEndOfList}, "error: index 7 out of range"},
		{"truncated expression", []byte{lleOffsetPair, 0, 1, 5, 0x50}, "error: dwarf: location list at 0x4: truncated"},
		{"no end", []byte{lleOffsetPair, 0, 1, 1, 0x50}, "500-501:50 error: dwarf: location list at 0x5: truncated"},
		{"unknown kind", []byte{0x42}, "error: dwarf: .debug_loclists at 0x0: unknown location list entry kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := entries(nil, func(y func(lo, hi uint64, expr []byte, isDefault bool) bool) error {
				return walkLoclists(tc.list, 0, 8, 0x500, addrx, y)
			})
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestWalkLoc(t *testing.T) {
	le32 := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	list := append(le32(0x10, 0x20), 1, 0, 0x50)                 // [base+0x10, base+0x20): 50
	list = append(list, le32(0xffffffff, 0x8000)...)             // base address selection
	list = append(list, append(le32(4, 4), 2, 0, 0x91, 0x7c)...) // empty range
	list = append(list, le32(0, 0)...)
	got := entries(nil, func(y func(lo, hi uint64, expr []byte, isDefault bool) bool) error {
		return walkLoc(list, 0, 4, 0x400, y)
	})
	if want := "410-420:50 8004-8004:917c"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzWalkLoclist: the location list readers end on any input, with an
// error or an end, and report only ranges of expressions inside it.
func FuzzWalkLoclist(f *testing.F) {
	f.Add([]byte{lleOffsetPair, 0x40, 0x40, 1, 0x55, lleEndOfList}, false)
	f.Add([]byte{lleBaseAddressx, 1, lleStartxLength, 0, 4, 1, 0x50, 0}, false)
	f.Add([]byte{0x10, 0, 0, 0, 0x20, 0, 0, 0, 1, 0, 0x50, 0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, b []byte, dwarf4 bool) {
		n := 0
		yield := func(lo, hi uint64, expr []byte, isDefault bool) bool {
			if len(expr) > len(b) {
				t.Fatalf("an expression of %d bytes from %d", len(expr), len(b))
			}
			n++
			return n < 1<<16
		}
		if dwarf4 {
			_ = walkLoc(b, 0, 4, 0x1000, yield)
			_ = walkLoc(b, 0, 8, 0x1000, yield)
			return
		}
		_ = walkLoclists(b, 0, 8, 0x1000, func(i uint64) (uint64, error) { return i * 8, nil }, yield)
	})
}
