package format

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
)

// TestRender: the errors a value's text shows in place of a value come
// back as errors, the one standing for the whole value apart; a value
// printed around an unreadable part, or optimized out, is no error.
func TestRender(t *testing.T) {
	intT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "int", ByteSize: 4}, Encoding: dwarf.EncSigned}
	pair := &dwarf.StructType{CommonType: dwarf.CommonType{Name: "pair", ByteSize: 8}, Kind: "struct",
		Fields: []dwarf.Field{{Name: "a", Type: intT}, {Name: "b", Type: intT, ByteOffset: 4}}}
	// Memory: readable at 0x1000 (8 bytes: a = 1, b = 2); 0x2004 onward is
	// not, so a pair at 0x2000 has a and not b.
	mem := func(addr uint64, p []byte) (int, error) {
		n := 0
		for i := range p {
			a := addr + uint64(i)
			switch {
			case a >= 0x1000 && a < 0x1008:
				p[i] = []byte{1, 0, 0, 0, 2, 0, 0, 0}[a-0x1000]
			case a >= 0x2000 && a < 0x2004:
				p[i] = 7
			default:
				return n, fmt.Errorf("read %#x: no such page", a)
			}
			n++
		}
		return n, nil
	}
	env := &dwarf.ValueEnv{Mem: mem}
	for _, tc := range []struct {
		name     string
		o        dwarf.Object
		text     string
		whole    bool
		parts    int
		noMemory bool
	}{
		{"readable", dwarf.MemObject(pair, 0x1000), "{a = 1, b = 2}", false, 0, false},
		{"unreadable", dwarf.MemObject(intT, 0x3000), "<error: Cannot access memory at address 0x3000>", true, 1, false},
		{"one member unreadable", dwarf.MemObject(pair, 0x2000), "", false, 1, false},
		{"optimized out", dwarf.Object{Type: intT, Err: dwarf.ErrOptimizedOut}, "<optimized out>", false, 0, false},
		{"no memory", dwarf.Object{Type: intT, Err: fmt.Errorf("frame base: %w", dwarf.ErrNoMemory)}, "", true, 1, true},
	} {
		text, whole, parts := Render(env, tc.o)
		if tc.text != "" && text != tc.text {
			t.Errorf("%s: text %q, want %q", tc.name, text, tc.text)
		}
		if (whole != nil) != tc.whole || len(parts) != tc.parts {
			t.Errorf("%s: %q: whole %v, parts %v; want whole %v, %d parts", tc.name, text, whole, parts, tc.whole, tc.parts)
		}
		if whole != nil && text != "<error: "+whole.Error()+">" {
			t.Errorf("%s: the whole error %q is not the one shown in %q", tc.name, whole, text)
		}
		if got := len(parts) > 0 && errors.Is(parts[0], dwarf.ErrNoMemory); got != tc.noMemory {
			t.Errorf("%s: parts %v: errors.Is ErrNoMemory = %v", tc.name, parts, got)
		}
		if Text(env, tc.o) != text {
			t.Errorf("%s: Text and Render differ", tc.name)
		}
	}
}
