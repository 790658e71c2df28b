package traceplan

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/agentexpr"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// The tracepoint's number, its trace state variables and the limits of
// a plan.
const (
	tracepoint = 1
	// gdbserver's own variable #1 is $trace_timestamp (a getter that
	// QTinit keeps and QTDV does not replace), so ours start higher.
	padVar   = 0x100 // defined first, lost to the in-process agent (Run)
	countVar = 0x101 // frames collected in this run
	stopVar  = 0x102 // frames after which the query's breakpoint stops
	regVar0  = 0x110 // the variable of the first recorded register
	maxBuf   = 64 << 20
	// MaxBlock is the most bytes of one block a frame collects: the
	// stack window, a static object, memory reached through pointers.
	MaxBlock = 16 << 10
	redZone  = 128 // bytes below sp the window may start
	// Pointer chasing: at most this many pointers deep, and this far
	// past where a pointer points.
	chaseDepth = 3
	chaseReach = 4096
)

// Span is a range of addresses [Lo, Hi).
type Span struct{ Lo, Hi uint64 }

// Chase is memory a tracepoint reaches through pointers: Len bytes at
// Addr, computed at each hit; At1 is where it was at the first hit.
type Chase struct {
	Addr agentexpr.Addr
	Len  uint64
	At1  uint64
}

// Plan is what a tracepoint at Addr collects at each hit.
type Plan struct {
	Addr    uint64
	Regs    []int // target register numbers recorded
	DRegs   []int // their DWARF numbers
	PCReg   int   // DWARF number of the pc
	SPReg   int   // target register number of the stack pointer
	WinOff  int64 // the stack window starts at sp + WinOff
	WinLen  uint64
	Statics []rsp.TraceMemory
	Chases  []Chase // memory found through pointers
	CFAReg  int     // CFA rule at Addr: DWARF register + offset
	CFAOff  int64
	Cond    []byte // the query's condition as agent bytecode; nil for none
}

// Layout places the reads the query's expressions made at the first hit
// (sp and cfa that frame's stack pointer and CFA): near the stack pointer
// in the stack window, which covers the frame up to its return address;
// read-only data nowhere (the file has it: readOnly); writable static data
// in Statics (static gives the whole object of a read, and whether the
// read is static data at all), merged where they touch. others are the
// reads left, for PlanChases; why says what cannot be collected.
func (p *Plan) Layout(reads []Span, sp, cfa uint64, ptrSize int, readOnly func(addr uint64) bool, static func(Span) (Span, bool)) (others []Span, why string) {
	lo, hi := sp, cfa+2*uint64(ptrSize)
	var statics []Span
	for _, r := range reads {
		if r.Lo >= sp-redZone && r.Hi <= sp+MaxBlock {
			lo, hi = min(lo, r.Lo), max(hi, r.Hi)
			continue
		}
		if readOnly(r.Lo) { // a string read in chunks may run past its section
			continue
		}
		if whole, ok := static(r); ok {
			statics = append(statics, whole)
			continue
		}
		others = append(others, r)
	}
	if hi-lo > MaxBlock {
		return nil, "the stack frame is too large to collect"
	}
	p.WinOff, p.WinLen = int64(lo-sp), hi-lo
	slices.SortFunc(statics, func(a, b Span) int { return cmp.Compare(a.Lo, b.Lo) })
	p.Statics = nil
	for _, r := range statics {
		if n := len(p.Statics); n > 0 && r.Lo <= p.Statics[n-1].Addr+p.Statics[n-1].Len {
			m := &p.Statics[n-1]
			m.Len = max(m.Len, r.Hi-m.Addr)
			continue
		}
		p.Statics = append(p.Statics, rsp.TraceMemory{Addr: r.Lo, Len: r.Hi - r.Lo})
	}
	return others, ""
}

// PlanChases plans the collection of reads, which are neither stack nor
// static data, through pointers: a read at a is reached from a
// pointer-sized word (a register of regs, a word of the stack window or
// of the statics, or of memory reached so, read with read) whose value at
// the first hit is at most chaseReach below a; the nearest wins. Whatever
// the choice, a later hit where the expression reads elsewhere reads
// <not collected>, never another object's bytes. why says what cannot be
// reached.
func (p *Plan) PlanChases(regs *dwarf.Regs, read func(addr, n uint64) []byte, ptrSize int, reads []Span) (why string) {
	type source struct {
		at  agentexpr.Addr // evaluates to the pointer (Offs: see agentexpr.Addr)
		val uint64         // its value at the first hit
	}
	ps := uint64(ptrSize)
	var sources []source
	for i, r := range p.DRegs {
		if v, ok := regs.Get(r); ok {
			sources = append(sources, source{agentexpr.Addr{Reg: p.Regs[i], PtrSize: ptrSize}, v})
		}
	}
	// words of memory whose address is at (at.Offs[-1] the start of buf)
	words := func(at agentexpr.Addr, start uint64, buf []byte) {
		last := at.Offs[len(at.Offs)-1]
		for e := (ps - start%ps) % ps; e+ps <= uint64(len(buf)); e += ps {
			var v uint64
			if ps == 4 {
				v = uint64(binary.LittleEndian.Uint32(buf[e:]))
			} else {
				v = binary.LittleEndian.Uint64(buf[e:])
			}
			w := agentexpr.Addr{Reg: at.Reg, PtrSize: ptrSize, Offs: append(slices.Clone(at.Offs[:len(at.Offs)-1]), last+int64(e))}
			sources = append(sources, source{w, v})
		}
	}
	sp := regs.SP()
	if buf := read(sp+uint64(p.WinOff), p.WinLen); buf != nil {
		words(agentexpr.Addr{Reg: p.SPReg, Offs: []int64{p.WinOff}}, sp+uint64(p.WinOff), buf)
	}
	for _, m := range p.Statics {
		if buf := read(m.Addr, m.Len); buf != nil {
			words(agentexpr.Addr{Reg: -1, Offs: []int64{int64(m.Addr)}}, m.Addr, buf)
		}
	}
	type chase struct {
		src    int
		lo, hi uint64
	}
	var chases []*chase
	bySrc := map[int]*chase{}
	for depth := 0; depth < chaseDepth && len(reads) > 0; depth++ {
		var left []Span
		var grown []*chase
		for _, r := range reads {
			best := -1
			for i, src := range sources {
				if src.val >= 0x1000 && src.val <= r.Lo && r.Lo-src.val < chaseReach && (best < 0 || src.val > sources[best].val) {
					best = i
				}
			}
			if best < 0 {
				left = append(left, r)
				continue
			}
			c := bySrc[best]
			if c == nil {
				c = &chase{src: best, lo: r.Lo, hi: r.Hi}
				bySrc[best] = c
				chases = append(chases, c)
			}
			c.lo, c.hi = min(c.lo, r.Lo), max(c.hi, r.Hi)
			grown = append(grown, c)
		}
		for _, c := range grown {
			src := sources[c.src]
			at := agentexpr.Addr{Reg: src.at.Reg, PtrSize: ptrSize, Offs: append(slices.Clone(src.at.Offs), int64(c.lo-src.val))}
			if buf := read(c.lo, c.hi-c.lo); buf != nil {
				words(at, c.lo, buf)
			}
		}
		reads = left
	}
	if len(reads) > 0 {
		return fmt.Sprintf("the collect expressions read memory at %#x that no pointer of the frame or its static data reaches", reads[0].Lo)
	}
	for _, c := range chases {
		if c.hi-c.lo > MaxBlock {
			return "the memory reached through pointers is too large to collect"
		}
		src := sources[c.src]
		at := agentexpr.Addr{Reg: src.at.Reg, PtrSize: ptrSize, Offs: append(slices.Clone(src.at.Offs), int64(c.lo-src.val))}
		p.Chases = append(p.Chases, Chase{Addr: at, Len: c.hi - c.lo, At1: c.lo})
	}
	return ""
}

// Few is p recording only the registers that locate the frame (the
// CFA's and the stack pointer, spDwarf its DWARF number): enough where the
// values live in memory, as at -O0, and a third of the frame's size.
func (p *Plan) Few(spDwarf int) *Plan {
	few := *p
	few.Regs, few.DRegs = nil, nil
	for i, n := range p.DRegs {
		if n == p.CFAReg || n == spDwarf {
			few.Regs, few.DRegs = append(few.Regs, p.Regs[i]), append(few.DRegs, n)
		}
	}
	return &few
}

// FrameSize is the most bytes one frame of p takes in the trace buffer.
func (p *Plan) FrameSize() int {
	blocks := func(n uint64) int { return int(n) + 11*int((n+65534)/65535) }
	size := 6 + 13*len(p.Regs) + blocks(p.WinLen)
	for _, m := range p.Statics {
		size += blocks(m.Len)
	}
	for _, c := range p.Chases {
		size += blocks(c.Len) // at most: a NULL on the way records nothing
	}
	return size
}

// Chunk is how many calls one trace run of p collects: want at most, as
// many frames as the trace buffer holds, and no more than limit where
// limit > 0.
func (p *Plan) Chunk(want, limit int) int {
	chunk := min(want, max(1, (maxBuf-4096)/p.FrameSize()))
	if limit > 0 {
		chunk = min(chunk, limit)
	}
	return chunk
}

// Run is the trace run that collects p for chunk calls: the registers as
// trace state variables (gdbserver records every register for an R
// action: 2.4 KB a frame with AVX-512), the stack window, the statics,
// the chases, and a count of the frames collected, which the query's
// breakpoint compares with StopRule. fast > 0 makes the tracepoint a fast
// one whose jump displaces fast bytes of code; its pass count ends the
// run.
func (p *Plan) Run(chunk, fast int) rsp.TraceRun {
	// gdbserver copies the variables to the in-process agent of a fast
	// tracepoint and drops the one defined first: its fix-up after the
	// copy loop clears the next pointer of the last-but-one entry
	// (tracepoint.cc, download_trace_state_variables, gdb 13.1 lines
	// 6275-6281), so the agent's setv and tracev find no such variable
	// and the frame records 0. That one is a pad nobody reads.
	run := rsp.TraceRun{
		BufferSize: int64(chunk*p.FrameSize() + 4096),
		Variables:  []rsp.TraceVariable{{Number: padVar, Name: "rrmcp_pad"}},
	}
	vars := make([]int, len(p.Regs))
	for i := range vars {
		vars[i] = regVar0 + i
		run.Variables = append(run.Variables, rsp.TraceVariable{Number: vars[i], Name: fmt.Sprintf("rrmcp_r%d", i)})
	}
	run.Variables = append(run.Variables,
		rsp.TraceVariable{Number: countVar, Name: "rrmcp_rows"},
		rsp.TraceVariable{Number: stopVar, Initial: int64(chunk), Name: "rrmcp_stop_at"})
	tp := rsp.Tracepoint{
		Number: tracepoint, Addr: p.Addr, Enabled: true, Pass: uint64(chunk), Cond: p.Cond,
		Memory: p.Statics,
		Exprs: [][]byte{
			agentexpr.RecordRegisters(p.Regs, vars),
			agentexpr.Collect(p.SPReg, p.WinOff, p.WinLen),
			agentexpr.Increment(countVar),
		},
		Fast: fast,
	}
	for _, c := range p.Chases {
		tp.Exprs = append(tp.Exprs, agentexpr.CollectAt(c.Addr, c.Len))
	}
	run.Tracepoints = []rsp.Tracepoint{tp}
	return run
}

// StopRule is the server-side condition of the query's breakpoint during
// a trap tracepoint's run: the frames collected have reached the run's
// chunk, so the program stops exactly at the last row wanted, with that
// row collected.
func StopRule() []byte { return agentexpr.VarAtLeast(countVar, stopVar) }

// LiveFrame is the trace frame p would collect at a live stop with
// registers regs, its memory read with read.
func (p *Plan) LiveFrame(regs *dwarf.Regs, read func(addr uint64, b []byte) error) (*rsp.TraceFrame, error) {
	tf := &rsp.TraceFrame{Tracepoint: tracepoint, Vars: map[int]int64{}}
	for i, r := range p.DRegs {
		v, ok := regs.Get(r)
		if !ok {
			return nil, fmt.Errorf("DWARF register %d unknown", r)
		}
		tf.Vars[regVar0+i] = int64(v)
	}
	block := func(addr, n uint64) error {
		buf := make([]byte, n)
		if err := read(addr, buf); err != nil {
			return err
		}
		tf.Memory = append(tf.Memory, rsp.TraceBlock{Addr: addr, Data: buf})
		return nil
	}
	if err := block(regs.SP()+uint64(p.WinOff), p.WinLen); err != nil {
		return nil, err
	}
	for _, m := range p.Statics {
		if err := block(m.Addr, m.Len); err != nil {
			return nil, err
		}
	}
	for _, c := range p.Chases {
		if err := block(c.At1, c.Len); err != nil {
			return nil, err
		}
	}
	return tf, nil
}

// Registers are the registers of trace frame tf of p, the pc included,
// and the frame's CFA; ok is false where the frame lacks the CFA rule's
// register.
func (p *Plan) Registers(tf *rsp.TraceFrame) (regs dwarf.Regs, cfa uint64, ok bool) {
	for i, r := range p.DRegs {
		if v, ok := tf.Vars[regVar0+i]; ok {
			regs.Set(r, uint64(v))
		}
	}
	regs.Set(p.PCReg, p.Addr)
	base, ok := regs.Get(p.CFAReg)
	if !ok {
		return regs, 0, false
	}
	return regs, base + uint64(p.CFAOff), true
}

// NotCollectedError is a read of memory a trace frame does not have.
type NotCollectedError struct {
	Addr uint64
	N    int
}

func (e *NotCollectedError) Error() string {
	return fmt.Sprintf("not collected by the tracepoint: %d bytes at %#x", e.N, e.Addr)
}

// Snapshot reads memory from one trace frame; read-only data of the
// program comes from its file.
type Snapshot struct {
	Frame *rsp.TraceFrame
	// File reads read-only data of the program from its file, returning
	// the bytes read: 0 where addr is not in such data.
	File func(addr uint64, p []byte) int
	miss *NotCollectedError // the first read that missed since Reset
}

// Read reads len(p) bytes at addr (a dwarf.ReadMemoryFunc). Bytes past
// the end of a read-only section read as zeros: a string read in chunks
// ends there.
func (sn *Snapshot) Read(_ context.Context, addr uint64, p []byte) (int, error) {
	if sn.Frame.ReadMemory(addr, p) {
		return len(p), nil
	}
	if sn.File != nil {
		if n := sn.File(addr, p); n > 0 {
			clear(p[n:])
			return len(p), nil
		}
	}
	err := &NotCollectedError{Addr: addr, N: len(p)}
	if sn.miss == nil {
		sn.miss = err
	}
	return 0, err
}

// Reset forgets the reads that missed.
func (sn *Snapshot) Reset() { sn.miss = nil }

// Missed is the first read that missed since Reset, or nil.
func (sn *Snapshot) Missed() *NotCollectedError { return sn.miss }

// DropUnreadable drops the memory blocks of frames that no readable
// mapping of maps holds: gdbserver records a block even where its read
// failed (a wild pointer followed by agent bytecode), with bytes that are
// not the program's; without the block the value reads <not collected>.
func DropUnreadable(frames []rsp.TraceFrame, maps []symbols.Mapping) {
	readable := func(lo, hi uint64) bool { // by one or adjacent mappings
		for cur := lo; cur < hi; {
			i := slices.IndexFunc(maps, func(m symbols.Mapping) bool {
				return len(m.Perms) > 0 && m.Perms[0] == 'r' && m.Start <= cur && cur < m.End
			})
			if i < 0 {
				return false
			}
			cur = maps[i].End
		}
		return true
	}
	for i := range frames {
		f := &frames[i]
		f.Memory = slices.DeleteFunc(f.Memory, func(b rsp.TraceBlock) bool {
			return !readable(b.Addr, b.Addr+uint64(len(b.Data)))
		})
	}
}
