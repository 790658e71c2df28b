package session

import (
	"context"
	"fmt"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// Software watchpoints, as GDB's (`set can-use-hw-watchpoints 0`): while
// one is set, a forward resume runs the program instruction by
// instruction and compares the watched bytes after each instruction that
// may write memory; the stop is right after the writing instruction, the
// place a hardware watchpoint stops. To be fast, runs of instructions that
// cannot write memory are range-stepped (vCont;r, gdbserver), with the
// first writing instruction as the last one of the range, so the server
// stops right after it: one resume and one memory read per store.

// maxSoftWatch bounds the bytes one software watchpoint compares.
const maxSoftWatch = 4096

// softCost is what a software watchpoint's set result says it costs.
const softCost = "while it is set, continue, next, step and finish run the program instruction by instruction " +
	"(range-stepping between stores, one round trip and at most one memory read per store executed): " +
	"roughly 10-100 times slower than a free run, like GDB's software watchpoints; in a multi-threaded program " +
	"a write by another thread is seen at the stepping thread's next store"

// softReason says why a watchpoint of size bytes must be a software one,
// or "" when hardware can take it. Only the live backend (gdbserver) has
// the forward stepping software watchpoints need.
func (s *Session) softReason(ctx context.Context, size int) string {
	if _, ok := s.softRegs(); !ok || s.c.Dialect() != rsp.DialectGDBServer {
		return ""
	}
	hw := s.hardware(ctx)
	switch {
	case !hw.UseHardwareWatch():
		return hw.Reason
	case size > 8:
		return fmt.Sprintf("%d bytes is more than one hardware watchpoint covers (8)", size)
	}
	if s.debugRegistersUsed() >= debugRegisters && !s.yieldDebugRegister(ctx) {
		return fmt.Sprintf("all %d x86 debug registers are in use (hardware watchpoints and breakpoints)", debugRegisters)
	}
	return ""
}

// softWatches returns the enabled software watchpoints.
func (s *Session) softWatches() []*breakpoint {
	var ws []*breakpoint
	for _, b := range s.bps {
		if b.soft && b.enabled && !b.pending {
			ws = append(ws, b)
		}
	}
	return ws
}

// softRun resumes thread t forward until a software watchpoint's value
// changes, a breakpoint is reached, or any other stop. Its stops look
// like the server's: a change is a write-watchpoint stop at the watched
// address, reaching an inserted breakpoint a swbreak stop. With hi > 0 it
// is a range step instead (the line steps' vCont;r and single steps):
// it also ends, as a plain step stop, when the pc leaves [lo, hi); other
// threads then stay stopped, as in those steps.
func (s *Session) softRun(ctx context.Context, t rsp.Thread, lo, hi uint64) (rsp.Stop, error) {
	ws := s.softWatches()
	last := make([][]byte, len(ws))
	chains := make([][][]byte, len(ws))      // the bytes of each chain entry (watchfollow.go)
	byValue, valueOnly := false, len(ws) > 0 // some watch a value not in memory; all do
	for i, b := range ws {
		valueOnly = valueOnly && b.byValue()
		if b.byValue() {
			last[i], byValue = append([]byte(nil), b.old...), true
			continue
		}
		last[i] = make([]byte, b.size)
		if _, err := s.c.ReadMemory(ctx, b.addrs[0], last[i]); err != nil {
			last[i] = nil
		}
		b.maskBits(last[i])
		for _, l := range b.chain {
			c := make([]byte, l.size)
			if _, err := s.c.ReadMemory(ctx, l.addr, c); err != nil {
				c = nil
			}
			chains[i] = append(chains[i], c)
		}
	}
	cur := make([]byte, maxSoftWatch)
	// Range steps run between stores; a value in a register changes
	// without one, and so does the address of an object read through
	// one (regVar): every instruction is a step then.
	inFrame := make([]bool, len(ws)) // regVar and value watches: the last step was in its frame
	follow := false
	for i, b := range ws {
		if b.regVar != "" || b.byValue() {
			_, where := s.watchScopeNow(ctx, b, false)
			follow, inFrame[i] = follow || b.regVar != "", where == scopeIn
		}
	}
	ranges := s.c.SupportsVCont("r") && !byValue && !follow // gdbserver; not QEMU's stubs
	regs, ok := s.softRegs()
	if !ok {
		return rsp.Stop{}, fmt.Errorf("software watchpoints need an x86 target description (pc, frame and stack pointer): %w", ErrUnsupported)
	}
	pc, err := s.c.ReadRegisterUint(ctx, t, regs.pc.Name)
	if err != nil {
		return rsp.Stop{}, err
	}
	others := ";c" // a continue: other threads run meanwhile, so a thread waiting for another cannot wait forever
	if hi > 0 {
		others = ""
	}
	var st rsp.Stop
	var callRet, next uint64 // the return address of a call the last step entered, and this step's
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return rsp.Stop{}, err
		}
		if !first && hi > 0 && (pc < lo || pc >= hi) {
			return st, nil // the range step is done
		}
		if !first && s.breakAt(pc) {
			// A continue would have hit it.
			return rsp.Stop{Kind: rsp.StopSignal, Signal: rsp.SIGTRAP, Thread: t, SWBreak: true, Raw: "T05swbreak:;"}, nil
		}
		end, store, stores := uint64(0), x86asm.Inst{}, true
		if ranges && !s.breakAt(pc) {
			end, store, stores = s.storeRangeEnd(ctx, pc, ws, regs.mode)
			if hi > 0 && pc >= lo && pc < hi && end > hi {
				// Clipped to the step's range: the scan found no store
				// before its first one (if any), which may start before hi.
				stores = store.Len > 0 && end-uint64(store.Len) < hi
				end, store = hi, x86asm.Inst{}
			}
		}
		ran := false
		switch {
		case !valueOnly || hi != 0 || end != 0 || s.breakAt(pc):
		case callRet != 0:
			// The last step entered a call, and the values were checked
			// at the callee's entry, as GDB checks them after each step
			// (one the call clobbers cannot be evaluated there). The
			// callee cannot change a value that is not in memory, so it
			// runs free to its return (softvalue.go), where the values
			// are compared as after a step (one kept in the return
			// register changes there).
			cst, out, err := s.callOver(ctx, t, callRet, regs, st)
			switch {
			case err != nil || out == callStopped:
				return cst, err
			case out == callReturned:
				st, ran = cst, true
			}
		default:
			if in, err := s.inf.Insn(ctx, pc); err == nil && x86code.IsCall(in) {
				next = pc + uint64(in.Len) // the step below enters it
			}
		}
		callRet, next = next, 0
		if !ran {
			switch {
			case end > pc:
				st, err = s.c.Resume(ctx, fmt.Sprintf("vCont;r%x,%x:%s%s", pc, end, t, others))
			case s.breakAt(pc):
				st, err = s.c.Step(ctx, t) // the client steps over the breakpoint
			default:
				st, err = s.c.Resume(ctx, fmt.Sprintf("vCont;s:%s%s", t, others))
			}
			if err != nil || !plainStep(st) {
				return st, err
			}
		}
		if st.Thread != (rsp.Thread{}) {
			t = st.Thread
		}
		if pc, err = regs.stopPC(ctx, s.c, st, t); err != nil {
			return st, err
		}
		if end > 0 && !stores {
			continue // nothing in the range could write the watched bytes
		}
		if pc == end && store.Len > 0 {
			// The range ended right after its store: when the stop
			// reply's registers say where it wrote, and that is none
			// of the watched bytes, there is nothing to compare.
			if ea, n, ok := regs.storeAddr(store, st); ok && !overlapsAny(ws, ea, n) {
				continue
			}
		}
		if byValue || follow {
			s.invalidate() // the registers and memory of this step, not the last stop's
		}
		for i, b := range ws {
			if b.regVar != "" && !s.followRegVar(ctx, b, &inFrame[i]) {
				st.Watch, st.WatchAddr = rsp.WatchWrite, b.addrs[0]
				return st, nil // its expression cannot be evaluated: the stop says why
			}
			now := cur[:b.size]
			if b.byValue() {
				level, where := s.watchScopeNow(ctx, b, inFrame[i])
				was := inFrame[i]
				inFrame[i] = where == scopeIn
				switch {
				case where == scopeGone:
					b.gone = true
					st.Watch, st.WatchAddr = rsp.WatchWrite, 0
					return st, nil // the stop deletes it (judgeScope)
				case where == scopeCallee && !was:
					continue // deeper in a callee: the value is as it was
				}
				var err error
				if now, err = s.valueAt(ctx, b, level); err != nil {
					b.evalErr = evalErrText(err)
					st.Watch, st.WatchAddr = rsp.WatchWrite, 0
					return st, nil // the stop says why, and deletes it
				}
			} else if _, err := s.c.ReadMemory(ctx, b.addrs[0], now); err != nil {
				now = nil // unreadable (r->naddr while r is NULL): its chain still counts
			} else {
				b.maskBits(now)
			}
			if now != nil && last[i] != nil && string(now) != string(last[i]) {
				st.Watch, st.WatchAddr = rsp.WatchWrite, b.addrs[0]
				return st, nil
			}
			if now != nil {
				last[i] = append(last[i][:0], now...)
			}
			for j, l := range b.chain {
				now := cur[:l.size]
				if _, err := s.c.ReadMemory(ctx, l.addr, now); err == nil && chains[i][j] != nil && string(now) != string(chains[i][j]) {
					// what the expression's address is read from: the
					// stop re-evaluates it (followNow)
					st.Watch, st.WatchAddr = rsp.WatchWrite, l.addr
					return st, nil
				}
			}
		}
	}
}

// softRegSet names the target's pc, frame and stack pointer registers
// (x86-64 or i386 target descriptions).
type softRegSet struct {
	pc, fp, sp rsp.Register
	mode       int // x86asm decoding mode, 64 or 32
}

// softRegs returns the target's register set, if it is x86.
func (s *Session) softRegs() (softRegSet, bool) {
	td := s.c.Target()
	if td == nil {
		return softRegSet{}, false
	}
	for _, set := range []struct {
		pc, fp, sp string
		mode       int
	}{{"rip", "rbp", "rsp", 64}, {"eip", "ebp", "esp", 32}} {
		pc, ok1 := td.Lookup(set.pc)
		fp, ok2 := td.Lookup(set.fp)
		sp, ok3 := td.Lookup(set.sp)
		if ok1 && ok2 && ok3 {
			return softRegSet{pc: pc, fp: fp, sp: sp, mode: set.mode}, true
		}
	}
	return softRegSet{}, false
}

// stopPC is the pc after st: from the stop reply's expedited registers
// when the server sent it (gdbserver does), else read.
func (r softRegSet) stopPC(ctx context.Context, c *rsp.Client, st rsp.Stop, t rsp.Thread) (uint64, error) {
	if pc, ok := st.Register(r.pc); ok {
		return pc, nil
	}
	return c.ReadRegisterUint(ctx, t, r.pc.Name)
}

// stopSP is the stack pointer after st, as stopPC is the pc.
func (r softRegSet) stopSP(ctx context.Context, c *rsp.Client, st rsp.Stop, t rsp.Thread) (uint64, error) {
	if sp, ok := st.Register(r.sp); ok {
		return sp, nil
	}
	return c.ReadRegisterUint(ctx, t, r.sp.Name)
}

// breakAt reports whether the server's table has a breakpoint at pc.
func (s *Session) breakAt(pc uint64) bool {
	for _, b := range s.c.Breakpoints() {
		if b.Addr == pc && (b.Type == rsp.SoftwareBreakpoint || b.Type == rsp.HardwareBreakpoint) {
			return true
		}
	}
	return false
}

// storeRangeEnd returns the end of the range to step from pc: just past
// the first instruction that may write the watched bytes, at most 4 KiB
// on, and that instruction (zero when the range ends otherwise). A store
// to a fixed (rip-relative) address outside every watched range does not
// end the range. 0 means single-step (the instruction at pc cannot be
// decoded).
func (s *Session) storeRangeEnd(ctx context.Context, pc uint64, ws []*breakpoint, mode int) (end uint64, store x86asm.Inst, stores bool) {
	a := pc
	for a-pc < 4096 {
		in, err := s.inf.InsnMode(ctx, a, mode)
		if err != nil {
			if a == pc {
				return 0, x86asm.Inst{}, true
			}
			return a, x86asm.Inst{}, false // single-step the undecodable one next
		}
		a += uint64(in.Len)
		if !x86code.MayWrite(in) {
			continue
		}
		if m, ok := in.Args[0].(x86asm.Mem); ok && m.Base == x86asm.RIP && m.Index == 0 && m.Segment == 0 &&
			in.MemBytes > 0 && !x86code.StoresElsewhere(in) && !overlapsAny(ws, a+uint64(m.Disp), in.MemBytes) {
			continue // a fixed address none of ws covers
		}
		return a, in, true
	}
	return a, x86asm.Inst{}, false
}

// storeAddr is where store, just executed, wrote (x86code.Written),
// from the stop reply's expedited registers (gdbserver sends the frame
// and stack pointers and the pc).
func (r softRegSet) storeAddr(store x86asm.Inst, st rsp.Stop) (addr uint64, n int, ok bool) {
	return x86code.Written(store, r.mode, func(reg x86asm.Reg) (uint64, bool) {
		switch reg {
		case x86asm.RBP, x86asm.EBP:
			return st.Register(r.fp)
		case x86asm.RSP, x86asm.ESP:
			return st.Register(r.sp)
		}
		return 0, false
	})
}

// overlapsAny reports whether [addr, addr+n) meets a watched range.
func overlapsAny(ws []*breakpoint, addr uint64, n int) bool {
	for _, b := range ws {
		if n > 0 && b.size > 0 && overlaps(addr, n, b.addrs[0], b.size) {
			return true
		}
		for _, l := range b.chain {
			if n > 0 && overlaps(addr, n, l.addr, l.size) {
				return true
			}
		}
	}
	return false
}

// unchangedWrite reports whether st is a write-watchpoint stop (the
// hardware's, which fire on every store) whose watched value is what it
// was at the last stop: GDB does not stop there, and neither do steps.
func (s *Session) unchangedWrite(ctx context.Context, st rsp.Stop) bool {
	if st.Watch != rsp.WatchWrite {
		return false
	}
	for _, b := range s.bps {
		if b.typ != rsp.WriteWatchpoint || !b.enabled || b.old == nil || b.byValue() ||
			st.WatchAddr-b.addrs[0] >= uint64(b.size) { // (not in the watched range; no end computed, it may wrap)
			continue
		}
		if b.gone || b.evalErr != "" {
			return false // softRun's stop where b's frame is gone or b cannot be evaluated: its end
		}
		now := make([]byte, b.size)
		if _, err := s.c.ReadMemory(ctx, b.addrs[0], now); err != nil || string(b.maskBits(now)) != string(b.old) {
			return false
		}
		return true
	}
	return false
}
