package inferior

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"slices"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/rsp"
)

// Target memory is cached per stop in aligned lines. A miss reads the
// lines the request covers in one round trip; near the stack pointer the
// first miss of a stop reads stackFirst bytes (frame 0's locals and return
// address: what most calls need) and later ones stackAhead (an unwind
// going deeper), so a backtrace costs a few reads. Small reads keep a
// data read cheap: the server's reply is hex, and a 4 KiB block costs
// several times a 64-byte read.
const (
	memLine    = 256
	stackFirst = 512
	// redZone is the x86-64 ABI's 128 bytes below the stack pointer that
	// a function may use without moving it.
	redZone    = 128
	stackAhead = 4096
	// stackSpan is how far above sp the stack prefetch applies.
	stackSpan = 1 << 20
)

// memCache holds target memory in aligned lines for one stop.
type memCache struct {
	lines map[uint64][]byte
	bad   map[uint64]bool // lines that could not be read whole
	// badPage marks page boundaries a read-ahead must not cross (the
	// page there could not be read).
	badPage map[uint64]bool
	sp      uint64 // stack pointer of the selected thread; 0 = unknown
	stack   int    // stack reads since the stop
	// At a stop that RegsAtStop read (stopPC), the lines read away from
	// the stack are noted (touched); reset keeps them as learned[stopPC],
	// which RegsAtStop reads with the registers at the next stop there:
	// what a breakpoint's condition, or an agent at each hit, reads (a
	// global, a structure behind a pointer) then costs no round trip of
	// its own.
	stopPC  uint64
	touched []uint64
	learned map[uint64][]uint64
}

// maxPrefetch bounds the lines learned for a pc; maxLearned the pcs.
const (
	maxPrefetch = 4
	maxLearned  = 256
)

// touch notes that line base was read at this stop.
func (m *memCache) touch(base uint64) {
	if m.stopPC == 0 || len(m.touched) == maxPrefetch || slices.Contains(m.touched, base) {
		return
	}
	if stack := m.sp &^ (memLine - 1); m.sp != 0 && base >= stack && base < stack+stackSpan {
		return // the stack: RegsAtStop reads its top anyway
	}
	m.touched = append(m.touched, base)
}

func (m *memCache) reset() {
	if m.stopPC != 0 {
		if m.learned == nil || len(m.learned) >= maxLearned {
			m.learned = map[uint64][]uint64{}
		}
		m.learned[m.stopPC] = m.touched
		m.stopPC, m.touched = 0, nil
	}
	m.lines = nil
	m.bad = nil
	m.badPage = nil
	m.sp = 0
	m.stack = 0
}

// missRun returns how many bytes to read on a miss at the line base, for
// a request that ends at reqEnd: every uncached line up to reqEnd, and up
// to stackAhead bytes when base is in the stack, never past the top of
// the address space. It works in lengths from base: an end address at
// the top is 2^64, which wraps to 0 (as reqEnd may).
func (m *memCache) missRun(base, reqEnd uint64) uint64 {
	n := (reqEnd - base + memLine - 1) &^ (memLine - 1)
	if m.sp != 0 && base+memLine > m.sp && base < m.sp+stackSpan {
		ahead := uint64(stackFirst)
		if m.stack > 0 {
			ahead = stackAhead
		}
		m.stack++
		n = max(n, ahead)
	}
	if top := -base; top != 0 { // base 0 has the whole space above it
		n = min(n, top)
	}
	for off := uint64(memLine); off < n; off += memLine {
		a := base + off
		if _, ok := m.lines[a]; ok || m.bad[a] || a&(pageSize-1) == 0 && m.badPage[a] {
			return off
		}
	}
	return max(n, memLine)
}

const pageSize = 4096

// pageLeft is how many bytes from addr to the end of its page. Lengths,
// not end addresses, are compared: the last page's end is 2^64, which
// wraps to 0.
func pageLeft(addr uint64) uint64 { return pageSize - addr&(pageSize-1) }

func (m *memCache) init() {
	if m.lines == nil {
		m.lines = map[uint64][]byte{}
		m.bad = map[uint64]bool{}
		m.badPage = map[uint64]bool{}
	}
}

// store caches the whole lines of b, read at the line address base.
func (m *memCache) store(base uint64, b []byte) {
	for l := 0; l+memLine <= len(b); l += memLine {
		m.lines[base+uint64(l)] = b[l : l+memLine : l+memLine]
	}
}

// ReadMem reads target memory through the line cache. Lines that cannot
// be read whole (the edge of a mapping) are read byte-exact, uncached.
func (inf *Inferior) ReadMem(ctx context.Context, addr uint64, p []byte) (int, error) {
	inf.settle(ctx)
	inf.mem.init()
	n := 0
	for n < len(p) {
		a := addr + uint64(n)
		base := a &^ (memLine - 1)
		off := int(a - base)
		want := min(len(p)-n, memLine-off)
		blk, ok := inf.mem.lines[base]
		if !ok && !inf.mem.bad[base] {
			if m := inf.ReadOnlyFile(a, p[n:]); m > 0 {
				n += m // never cached: the file is at hand
				continue
			}
			b := make([]byte, inf.mem.missRun(base, addr+uint64(len(p))))
			got, err := inf.c.ReadMemory(ctx, base, b)
			if err != nil && (ctx.Err() != nil || errors.Is(err, rsp.ErrClosed)) {
				return n, err
			}
			if err != nil {
				got = 0 // which bytes are good is unclear: use whole lines only if re-read
				if inPage := pageLeft(base); uint64(len(b)) > inPage {
					// The run crossed into a page that may be unmapped
					// (the top of the stack): read up to the boundary and
					// never read ahead across it again at this stop.
					inf.mem.badPage[base+inPage] = true
					b = b[:inPage]
					if m, err := inf.c.ReadMemory(ctx, base, b); err == nil {
						got = m
					} else if ctx.Err() != nil || errors.Is(err, rsp.ErrClosed) {
						return n, err
					}
				}
			}
			inf.mem.store(base, b[:got])
			if blk, ok = inf.mem.lines[base]; !ok {
				inf.mem.bad[base] = true
			}
		}
		if ok {
			inf.mem.touch(base)
			copy(p[n:n+want], blk[off:off+want])
			n += want
			continue
		}
		m, err := inf.c.ReadMemory(ctx, a, p[n:n+want])
		n += m
		if err != nil {
			return n, fmt.Errorf("cannot access memory at %#x: %w", a+uint64(m), err)
		}
	}
	return n, nil
}

// ReadOnlyFile reads from the program's file what of p, at addr, lies in
// one of its read-only data sections (string literals, constants: .rodata
// and the like, never code or anything relocated at load), and returns how
// many bytes that was (0: none; the target is asked). Such memory is what
// the file says for the whole run, so reading it costs no round trip
// (GDB's `set trust-readonly-sections on`, which rrmcp always does; a
// program that makes its .rodata writable and changes it is not seen).
func (inf *Inferior) ReadOnlyFile(addr uint64, p []byte) int {
	sec := inf.ReadOnlySection(addr)
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return 0
	}
	off := addr - inf.Bias - sec.Addr
	n := min(uint64(len(p)), sec.Size-off)
	if m, err := sec.ReadAt(p[:n], int64(off)); err != nil || uint64(m) != n {
		return 0
	}
	return int(n)
}

// ReadOnlySection is the program's read-only data section (not code)
// holding addr, or nil.
func (inf *Inferior) ReadOnlySection(addr uint64) *elf.Section {
	sec := inf.ProgramSection(addr, 1)
	if sec == nil || sec.Flags&(elf.SHF_WRITE|elf.SHF_EXECINSTR) != 0 {
		return nil
	}
	return sec
}

// ProgramSection is the allocated section of the program holding the
// run-time range [addr, addr+n), or nil.
func (inf *Inferior) ProgramSection(addr, n uint64) *elf.Section {
	if inf.Img == nil || inf.Img.ELF() == nil || addr < inf.Bias {
		return nil
	}
	a := addr - inf.Bias
	for _, sec := range inf.Img.ELF().Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && a >= sec.Addr && a+n <= sec.Addr+sec.Size {
			return sec
		}
	}
	return nil
}

// MemFunc binds ReadMem to the context of one evaluation, for a
// dwarf.ValueEnv (made per call, never cached).
func (inf *Inferior) MemFunc(ctx context.Context) func(addr uint64, p []byte) (int, error) {
	return func(addr uint64, p []byte) (int, error) { return inf.ReadMem(ctx, addr, p) }
}

// Regs returns the registers of thread t as DWARF-numbered values.
func (inf *Inferior) Regs(ctx context.Context, t rsp.Thread) (dwarf.Regs, error) {
	g, err := inf.c.ReadRegisters(ctx, t)
	if err != nil {
		return dwarf.Regs{}, err
	}
	return inf.regsFrom(t, g)
}

// RegsAtStop returns the registers of the thread that stopped and, in the
// same round trip, caches the top of its stack (stackFirst bytes from the
// line of the stack pointer the stop reply carried) and the lines read at
// the previous stop at this pc: nearly every stop is followed by a look at
// the frame (its locals, a condition on them, a backtrace), and the stack
// read then costs no round trip of its own.
func (inf *Inferior) RegsAtStop(ctx context.Context) (dwarf.Regs, error) {
	inf.settle(ctx)
	pc, reads, ok := inf.stopReads()
	if !ok {
		return inf.Regs(ctx, inf.Cur)
	}
	g, err := inf.c.ReadRegistersMemory(ctx, inf.Cur, reads)
	if err != nil {
		return dwarf.Regs{}, err
	}
	inf.keepStopReads(pc, reads)
	return inf.regsFrom(inf.Cur, g)
}

// PrefetchStop is RegsAtStop without the wait: the requests go out now
// and their replies fill the cache when the inferior, or anything else on
// the connection, is asked next (rsp.Client.Prefetch). A stop is then
// reported without that round trip, and the call that looks at it
// (locals, a backtrace) finds its data read. Where the requests cannot be
// sent ahead it does nothing: the first look reads them.
func (inf *Inferior) PrefetchStop(ctx context.Context) {
	pc, reads, ok := inf.stopReads()
	if !ok {
		return
	}
	gen, t := inf.stops, inf.Cur
	inf.c.Prefetch(ctx, t, reads, func(g []byte, reads []rsp.MemRead, err error) {
		if err != nil || inf.stops != gen {
			return // the process has moved since: what was read is stale
		}
		inf.keepStopReads(pc, reads)
		inf.regsFrom(t, g) //nolint:errcheck // the registers stay in the client's cache
	})
}

// stopReads are the reads RegsAtStop makes with the registers: the top of
// the stack and the lines learned at pc, the stop's pc; ok is false where
// the stop reply did not carry the pc and stack pointer, or the stack's
// line is cached already.
func (inf *Inferior) stopReads() (pc uint64, reads []rsp.MemRead, ok bool) {
	pc, sp, ok := inf.StopPCSP(inf.Cur)
	if !ok || sp < memLine {
		return 0, nil, false
	}
	// From the red zone below the stack pointer on x86-64, where a leaf
	// function keeps its locals (hit's i at sp-20: at an sp just past a
	// line's start, the line before).
	low := sp
	if !inf.I386() && low >= redZone {
		low -= redZone
	}
	base := low &^ (memLine - 1)
	inf.mem.init()
	if _, cached := inf.mem.lines[base]; cached {
		return 0, nil, false
	}
	b := make([]byte, stackFirst+int(sp&^(memLine-1)-base))
	if inPage := pageLeft(base); uint64(len(b)) > inPage && inf.mem.badPage[base+inPage] {
		b = b[:inPage]
	}
	reads = []rsp.MemRead{{Addr: base, P: b}}
	for _, l := range inf.mem.learned[pc] {
		if l < base || l >= base+uint64(len(b)) {
			reads = append(reads, rsp.MemRead{Addr: l, P: make([]byte, memLine)})
		}
	}
	return pc, reads, true
}

// keepStopReads caches what the stop's reads got at pc.
func (inf *Inferior) keepStopReads(pc uint64, reads []rsp.MemRead) {
	inf.mem.init()
	// A short read (the top of the stack) keeps the whole lines it got;
	// ReadMem reads the rest, if asked, on its own.
	for _, r := range reads {
		inf.mem.store(r.Addr, r.P[:r.N])
	}
	inf.mem.stopPC = pc
	inf.mem.stack++
}

// settle reads the replies of a PrefetchStop still owed, so that what it
// read is in the cache before the cache is looked at. A failure shows in
// the next request.
func (inf *Inferior) settle(ctx context.Context) {
	if inf.c.Prefetched() {
		inf.c.Settle(ctx) //nolint:errcheck // see above
	}
}

// regsFrom decodes g, thread t's g reply, into DWARF-numbered registers.
func (inf *Inferior) regsFrom(t rsp.Thread, g []byte) (dwarf.Regs, error) {
	var r dwarf.Regs
	if inf.regMap == nil {
		td := inf.c.Target()
		if td == nil {
			return r, fmt.Errorf("the server sent no register description: %w", errkind.Unsupported)
		}
		inf.regMap = []regSlot{}
		for _, reg := range td.Registers {
			if n, ok := inf.RegNum(reg.Name); ok {
				inf.regMap = append(inf.regMap, regSlot{off: reg.Offset, size: reg.Size(), num: n})
			}
		}
	}
	for _, rs := range inf.regMap {
		if rs.off+rs.size <= len(g) {
			r.SetBytes(rs.num, g[rs.off:rs.off+rs.size])
		}
	}
	if t == inf.Cur || t == (rsp.Thread{}) {
		inf.mem.sp = r.SP()
	}
	return r, nil
}

// StopPCSP returns the program counter and stack pointer of thread t from
// the registers the stop reply carried (gdbserver sends rip, rsp and
// rbp with every stop), if t is the thread that stopped and they are there.
func (inf *Inferior) StopPCSP(t rsp.Thread) (pc, sp uint64, ok bool) {
	r, ok := inf.StopRegs(t)
	if !ok {
		return 0, 0, false
	}
	pcN, ok1 := inf.RegNum(inf.PCName())
	spN, ok2 := inf.RegNum(inf.SPName())
	pc, ok3 := r.Get(pcN)
	sp, ok4 := r.Get(spN)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, 0, false
	}
	if t == inf.Cur {
		inf.mem.sp = sp
	}
	return pc, sp, true
}

// StopRegs are the registers the stop reply carried for thread t
// (gdbserver sends the pc, stack and frame pointers with every
// stop), by DWARF number: enough for frame 0's CFA where its rule is on
// one of them, without reading all registers. ok is false where t is not
// the thread that stopped or the reply carried none.
func (inf *Inferior) StopRegs(t rsp.Thread) (r dwarf.Regs, ok bool) {
	last := inf.c.LastStop()
	td := inf.c.Target()
	if t == (rsp.Thread{}) || last.Thread != t || len(last.Registers) == 0 || td == nil {
		return r, false
	}
	for regnum, b := range last.Registers {
		reg, found := td.ByRegnum(regnum)
		if !found || len(b) != reg.Size() {
			continue
		}
		if n, known := inf.RegNum(reg.Name); known {
			r.SetBytes(n, b)
			ok = true
		}
	}
	return r, ok
}

// regSlot maps a register of the g packet to its DWARF number.
type regSlot struct{ off, size, num int }

// PC returns the program counter of thread t.
func (inf *Inferior) PC(ctx context.Context, t rsp.Thread) (uint64, error) {
	pc, _, err := inf.PCSP(ctx, t)
	return pc, err
}

// PCSP returns the program counter and stack pointer of thread t: from
// the registers the stop reply carried (gdbserver sends rip, rsp and
// rbp with every stop) when t is the thread that stopped, saving a g
// round trip; else from all registers.
func (inf *Inferior) PCSP(ctx context.Context, t rsp.Thread) (pc, sp uint64, err error) {
	if pc, sp, ok := inf.StopPCSP(t); ok {
		return pc, sp, nil
	}
	r, err := inf.Regs(ctx, t)
	if err != nil {
		return 0, 0, err
	}
	return r.PC(), r.SP(), nil
}
