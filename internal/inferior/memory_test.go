package inferior

import (
	"slices"
	"testing"
)

// TestMissRun: a miss reads every uncached line the request covers, no
// further, except near the stack pointer, where the first miss of a stop
// reads stackFirst bytes and later ones stackAhead; a cached or
// unreadable line, a page a read could not cross, or the top of the
// address space ends the run.
func TestMissRun(t *testing.T) {
	const sp = 0x7ffc0000_1100
	stack := uint64(sp &^ (memLine - 1))
	cases := []struct {
		name         string
		sp           uint64
		stackReads   int
		cached, bad  []uint64
		badPage      []uint64
		base, reqEnd uint64
		want         uint64
	}{
		{name: "one line", base: 0x1000, reqEnd: 0x1010, want: 0x100},
		{name: "request across lines", base: 0x1000, reqEnd: 0x1201, want: 0x300},
		{name: "stops at a cached line", cached: []uint64{0x1100}, base: 0x1000, reqEnd: 0x1300, want: 0x100},
		{name: "stops at an unreadable line", bad: []uint64{0x1200}, base: 0x1000, reqEnd: 0x1300, want: 0x200},
		{name: "end of the address space", base: ^uint64(0) &^ (memLine - 1), reqEnd: ^uint64(0), want: memLine},
		{name: "a request wrapping past the top", base: ^uint64(0) &^ (memLine - 1), reqEnd: 4, want: memLine},
		{name: "the last page", base: ^uint64(0) &^ (pageSize - 1), reqEnd: 0, want: pageSize},
		{name: "stack, first read of the stop", sp: sp, base: stack, reqEnd: stack + 8, want: stackFirst},
		{name: "stack, later reads", sp: sp, stackReads: 1, base: stack, reqEnd: stack + 8, want: stackAhead},
		{name: "stack read stops at a bad page", sp: sp, stackReads: 1, badPage: []uint64{(stack | (pageSize - 1)) + 1}, base: stack, reqEnd: stack + 8, want: (stack | (pageSize - 1)) + 1 - stack},
		{name: "below the stack pointer's line", sp: sp, base: stack - 2*memLine, reqEnd: stack - 2*memLine + 8, want: memLine},
		{name: "far above the stack", sp: sp, base: stack + stackSpan, reqEnd: stack + stackSpan + 8, want: memLine},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m memCache
			m.init()
			m.sp, m.stack = c.sp, c.stackReads
			for _, a := range c.cached {
				m.lines[a] = make([]byte, memLine)
			}
			for _, a := range c.bad {
				m.bad[a] = true
			}
			for _, a := range c.badPage {
				m.badPage[a] = true
			}
			if got := m.missRun(c.base, c.reqEnd); got != c.want {
				t.Errorf("missRun(%#x, %#x) = %#x, want %#x", c.base, c.reqEnd, got, c.want)
			}
		})
	}
}

// TestLearnedLines: the lines read away from the stack at a stop are
// kept for the next stop at the same pc (at most maxPrefetch), the stack's
// are not, and a stop without a known pc learns nothing.
func TestLearnedLines(t *testing.T) {
	var m memCache
	m.sp = 0x7ffc00001000
	m.stopPC = 0x401000
	for _, a := range []uint64{0x404000, 0x7ffc00001100, 0x404000, 0x405000, 0x406000, 0x407000, 0x408000} {
		m.touch(a)
	}
	m.reset()
	want := []uint64{0x404000, 0x405000, 0x406000, 0x407000}
	if got := m.learned[0x401000]; !slices.Equal(got, want) {
		t.Errorf("learned at 0x401000 = %#x, want %#x", got, want)
	}
	if m.lines != nil || m.sp != 0 || m.stack != 0 || m.stopPC != 0 || m.touched != nil {
		t.Errorf("reset kept per-stop state: %+v", m)
	}
	m.touch(0x409000) // no stop pc: nothing noted
	m.reset()
	if len(m.learned) != 1 {
		t.Errorf("learned %d pcs, want 1", len(m.learned))
	}
}
