package traceplan

import (
	"context"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/agentexpr"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

const (
	sp  = 0x7fff0000
	cfa = sp + 0x40
)

func TestLayout(t *testing.T) {
	readOnly := func(a uint64) bool { return a >= 0x400000 && a < 0x401000 }
	// .data at 0x601000; the object at 0x601100 is 64 bytes.
	static := func(r Span) (Span, bool) {
		switch {
		case r.Lo >= 0x601100 && r.Hi <= 0x601140:
			return Span{0x601100, 0x601140}, true
		case r.Lo >= 0x601000 && r.Hi <= 0x602000:
			return r, true
		}
		return r, false
	}
	tests := []struct {
		name    string
		reads   []Span
		cfa     uint64
		winOff  int64
		winLen  uint64
		statics []rsp.TraceMemory
		others  []Span
		why     string
	}{
		{name: "nothing read: the frame to its return address", cfa: cfa, winLen: cfa + 16 - sp},
		{name: "a local above sp", reads: []Span{{sp + 8, sp + 16}}, cfa: cfa, winLen: cfa + 16 - sp},
		{name: "the red zone below sp", reads: []Span{{sp - 64, sp - 56}}, cfa: cfa, winOff: -64, winLen: cfa + 16 - sp + 64},
		{name: "the caller's frame", reads: []Span{{cfa + 32, cfa + 40}}, cfa: cfa, winLen: cfa + 40 - sp},
		{name: "read-only data is read from the file", reads: []Span{{0x400010, 0x400020}}, cfa: cfa, winLen: cfa + 16 - sp},
		{name: "statics merged where they touch, an object whole",
			reads: []Span{{0x601010, 0x601018}, {0x601000, 0x601008}, {0x601008, 0x601010}, {0x601120, 0x601128}, {0x601800, 0x601804}},
			cfa:   cfa, winLen: cfa + 16 - sp,
			statics: []rsp.TraceMemory{{Addr: 0x601000, Len: 0x18}, {Addr: 0x601100, Len: 0x40}, {Addr: 0x601800, Len: 4}}},
		{name: "the heap is left for pointers", reads: []Span{{0x5000010, 0x5000018}, {sp, sp + 8}}, cfa: cfa, winLen: cfa + 16 - sp,
			others: []Span{{0x5000010, 0x5000018}}},
		{name: "a frame too large", cfa: sp + MaxBlock, why: "the stack frame is too large to collect"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Plan
			others, why := p.Layout(tc.reads, sp, tc.cfa, 8, readOnly, static)
			if why != tc.why {
				t.Fatalf("why %q, want %q", why, tc.why)
			}
			if why != "" {
				return
			}
			if p.WinOff != tc.winOff || p.WinLen != tc.winLen {
				t.Errorf("window sp%+d, %#x bytes; want sp%+d, %#x", p.WinOff, p.WinLen, tc.winOff, tc.winLen)
			}
			if !reflect.DeepEqual(p.Statics, tc.statics) {
				t.Errorf("statics %#x, want %#x", p.Statics, tc.statics)
			}
			if !reflect.DeepEqual(others, tc.others) {
				t.Errorf("others %#x, want %#x", others, tc.others)
			}
		})
	}
}

// mem is target memory for the tests: pointer-sized words at addresses.
type mem map[uint64]uint64

func (m mem) read(a, n uint64) []byte {
	b := make([]byte, n)
	found := false
	for off := uint64(0); off+8 <= n; off += 8 {
		if v, ok := m[a+off]; ok {
			binary.LittleEndian.PutUint64(b[off:], v)
			found = true
		}
	}
	if !found && n >= 8 {
		return nil // unmapped
	}
	return b
}

func TestPlanChases(t *testing.T) {
	var regs dwarf.Regs
	regs.Set(7, sp)      // rsp
	regs.Set(5, 0x10000) // rdi: a pointer to the heap
	m := mem{
		sp + 8:  0x20000, // a local pointer
		0x10000: 1, 0x10010: 2,
		0x20008: 0x30000, // the local's ->next
		0x30008: 3,
	}
	base := Plan{Regs: []int{5, 7}, DRegs: []int{5, 7}, SPReg: 7, WinLen: 0x20}
	tests := []struct {
		name   string
		reads  []Span
		chases []Chase
		why    string
	}{
		{name: "through a register", reads: []Span{{0x10010, 0x10018}},
			chases: []Chase{{Addr: agentexpr.Addr{Reg: 5, PtrSize: 8, Offs: []int64{0x10}}, Len: 8, At1: 0x10010}}},
		{name: "reads through one pointer are one block", reads: []Span{{0x10010, 0x10018}, {0x10000, 0x10004}},
			chases: []Chase{{Addr: agentexpr.Addr{Reg: 5, PtrSize: 8, Offs: []int64{0}}, Len: 0x18, At1: 0x10000}}},
		{name: "two pointers deep from the stack", reads: []Span{{0x20008, 0x20010}, {0x30008, 0x30010}},
			chases: []Chase{
				{Addr: agentexpr.Addr{Reg: 7, PtrSize: 8, Offs: []int64{8, 8}}, Len: 8, At1: 0x20008},
				{Addr: agentexpr.Addr{Reg: 7, PtrSize: 8, Offs: []int64{8, 8, 8}}, Len: 8, At1: 0x30008},
			}},
		{name: "out of reach", reads: []Span{{0x90000, 0x90008}},
			why: "the collect expressions read memory at 0x90000 that no pointer of the frame or its static data reaches"},
		{name: "too much behind one pointer", reads: []Span{{0x10000, 0x10008}, {0x10000 + chaseReach - 8, 0x10000 + chaseReach + MaxBlock}},
			why: "the memory reached through pointers is too large to collect"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			why := p.PlanChases(&regs, m.read, 8, tc.reads)
			if why != tc.why {
				t.Fatalf("why %q, want %q", why, tc.why)
			}
			if !reflect.DeepEqual(p.Chases, tc.chases) {
				t.Errorf("chases %+v, want %+v", p.Chases, tc.chases)
			}
		})
	}
}

// plan is a plan with a register, the stack window, a static and a
// chase, for the tests below.
func plan() *Plan {
	return &Plan{
		Addr: 0x401000, Regs: []int{5, 7}, DRegs: []int{5, 7}, PCReg: 16, SPReg: 7,
		WinOff: -8, WinLen: 32, CFAReg: 7, CFAOff: 16,
		Statics: []rsp.TraceMemory{{Addr: 0x601000, Len: 16}},
		Chases:  []Chase{{Addr: agentexpr.Addr{Reg: 5, PtrSize: 8, Offs: []int64{0}}, Len: 8, At1: 0x10000}},
		Cond:    []byte{0x27},
	}
}

func TestRun(t *testing.T) {
	p := plan()
	// 6 + 13 per register + each block and 11 bytes of header.
	if got, want := p.FrameSize(), 6+13*2+(32+11)+(16+11)+(8+11); got != want {
		t.Fatalf("FrameSize = %d, want %d", got, want)
	}
	for _, c := range []struct{ want, limit, chunk int }{
		{10, 0, 10}, {0, 0, 0}, {1 << 30, 0, (maxBuf - 4096) / p.FrameSize()}, {1000, 5, 5},
	} {
		if got := p.Chunk(c.want, c.limit); got != c.chunk {
			t.Errorf("Chunk(%d, %d) = %d, want %d", c.want, c.limit, got, c.chunk)
		}
	}
	run := p.Run(100, 0)
	if run.BufferSize != int64(100*p.FrameSize()+4096) {
		t.Errorf("buffer %d bytes", run.BufferSize)
	}
	var vars []int
	for _, v := range run.Variables {
		vars = append(vars, v.Number)
	}
	// The pad first (the in-process agent loses it), a variable per
	// register, the count, the stop rule's bound at the chunk.
	if want := []int{padVar, regVar0, regVar0 + 1, countVar, stopVar}; !slices.Equal(vars, want) || run.Variables[4].Initial != 100 {
		t.Errorf("variables %+v", run.Variables)
	}
	if len(run.Tracepoints) != 1 {
		t.Fatalf("%d tracepoints", len(run.Tracepoints))
	}
	tp := run.Tracepoints[0]
	want := rsp.Tracepoint{Number: tracepoint, Addr: p.Addr, Enabled: true, Pass: 100, Cond: p.Cond, Memory: p.Statics,
		Exprs: [][]byte{
			agentexpr.RecordRegisters([]int{5, 7}, []int{regVar0, regVar0 + 1}),
			agentexpr.Collect(7, -8, 32),
			agentexpr.Increment(countVar),
			agentexpr.CollectAt(p.Chases[0].Addr, 8),
		}}
	if !reflect.DeepEqual(tp, want) {
		t.Errorf("tracepoint\n%+v\nwant\n%+v", tp, want)
	}
	if fast := p.Run(100, 7).Tracepoints[0]; fast.Fast != 7 {
		t.Errorf("fast tracepoint displaces %d bytes, want 7", fast.Fast)
	}
	if !slices.Equal(StopRule(), agentexpr.VarAtLeast(countVar, stopVar)) {
		t.Error("the stop rule does not compare the count with its bound")
	}
	few := p.Few(7)
	if !slices.Equal(few.Regs, []int{7}) || !slices.Equal(p.Regs, []int{5, 7}) {
		t.Errorf("Few: %v (the plan's own: %v)", few.Regs, p.Regs)
	}
}

// TestFrameRoundTrip: the frame a plan collects at a live stop gives the
// stop's registers, CFA and memory back, and nothing else.
func TestFrameRoundTrip(t *testing.T) {
	p := plan()
	var regs dwarf.Regs
	regs.Set(7, sp)
	regs.Set(5, 0x10000)
	fill := func(addr uint64, b []byte) error {
		for i := range b {
			b[i] = byte(addr + uint64(i))
		}
		return nil
	}
	tf, err := p.LiveFrame(&regs, fill)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []uint64
	for _, b := range tf.Memory {
		blocks = append(blocks, b.Addr, uint64(len(b.Data)))
	}
	if want := []uint64{sp - 8, 32, 0x601000, 16, 0x10000, 8}; !slices.Equal(blocks, want) {
		t.Errorf("blocks %#x, want %#x", blocks, want)
	}
	got, c, ok := p.Registers(tf)
	if !ok || c != sp+16 {
		t.Fatalf("CFA %#x, %v", c, ok)
	}
	for _, r := range []struct {
		n    int
		want uint64
	}{{5, 0x10000}, {7, sp}, {16, p.Addr}} {
		if v, ok := got.Get(r.n); !ok || v != r.want {
			t.Errorf("register %d = %#x, %v; want %#x", r.n, v, ok, r.want)
		}
	}
	if _, _, ok := p.Registers(&rsp.TraceFrame{}); ok {
		t.Error("a frame without the CFA's register has a CFA")
	}
	var missing dwarf.Regs
	missing.Set(7, sp)
	if _, err := p.LiveFrame(&missing, fill); err == nil {
		t.Error("a live frame without a planned register")
	}
	failed := errors.New("unreadable")
	if _, err := p.LiveFrame(&regs, func(uint64, []byte) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("a failed read: %v", err)
	}

	sn := &Snapshot{Frame: tf, File: func(addr uint64, b []byte) int {
		if addr != 0x400000 {
			return 0
		}
		return copy(b, "abc") // the section ends there
	}}
	ctx := context.Background()
	b := make([]byte, 4)
	if n, err := sn.Read(ctx, sp, b); n != 4 || err != nil || b[0] != byte(sp&0xff) {
		t.Errorf("stack read: %d, %v, %x", n, err, b)
	}
	if n, err := sn.Read(ctx, 0x400000, b); n != 4 || err != nil || string(b) != "abc\x00" {
		t.Errorf("read-only read: %d, %v, %q", n, err, b)
	}
	if sn.Missed() != nil {
		t.Errorf("missed %v after reads that hit", sn.Missed())
	}
	_, err = sn.Read(ctx, 0x601008, make([]byte, 16)) // runs past the static
	var nc *NotCollectedError
	if !errors.As(err, &nc) || nc.Addr != 0x601008 || nc.N != 16 || sn.Missed() != nc || !strings.Contains(err.Error(), "16 bytes at 0x601008") {
		t.Errorf("read past the block: %v (missed %v)", err, sn.Missed())
	}
	sn.Read(ctx, 0x90000, b) //nolint:errcheck // the first miss is kept
	if sn.Missed() != nc {
		t.Errorf("Missed = %v, want the first miss", sn.Missed())
	}
	sn.Reset()
	if sn.Missed() != nil {
		t.Error("Reset kept the miss")
	}
}

func TestDropUnreadable(t *testing.T) {
	maps := []symbols.Mapping{
		{Start: 0x1000, End: 0x2000, Perms: "r--p"},
		{Start: 0x2000, End: 0x3000, Perms: "rw-p"},
		{Start: 0x5000, End: 0x6000, Perms: "---p"},
	}
	blocks := []rsp.TraceBlock{
		{Addr: 0x1000, Data: make([]byte, 16)}, // kept
		{Addr: 0x1ff8, Data: make([]byte, 16)}, // kept: two adjacent mappings
		{Addr: 0x2ff8, Data: make([]byte, 16)}, // dropped: runs past the last
		{Addr: 0x5000, Data: make([]byte, 8)},  // dropped: not readable
		{Addr: 0xdead0, Data: make([]byte, 8)}, // dropped: unmapped
		{Addr: 0x2000, Data: make([]byte, 0)},  // kept: empty
	}
	frames := []rsp.TraceFrame{{Tracepoint: 1, Memory: slices.Clone(blocks)}, {Tracepoint: 1}}
	DropUnreadable(frames, maps)
	var got []uint64
	for _, b := range frames[0].Memory {
		got = append(got, b.Addr)
	}
	if want := []uint64{0x1000, 0x1ff8, 0x2000}; !reflect.DeepEqual(got, want) || len(frames[1].Memory) != 0 {
		t.Errorf("kept %#x, want %#x", got, want)
	}
}
