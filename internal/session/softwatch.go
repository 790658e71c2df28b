package session

import (
	"context"
	"fmt"

	"golang.org/x/arch/x86/x86asm"

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

// maxHWWatch is how many watchpoints x86's debug registers hold.
const maxHWWatch = 4

// maxSoftWatch bounds the bytes one software watchpoint compares.
const maxSoftWatch = 4096

// softCost is what a software watchpoint's set result says it costs.
const softCost = "while it is set, continue, next, step and finish run the program instruction by instruction " +
	"(range-stepping between stores, one round trip and one memory read per store executed): " +
	"roughly 10-100 times slower than a free run, like GDB's software watchpoints"

// softReason says why a watchpoint of size bytes must be a software one,
// or "" when hardware can take it. Only the live backend (gdbserver) has
// the forward stepping software watchpoints need.
func (s *Session) softReason(size int) string {
	if s.c.Dialect() != rsp.DialectGDBServer {
		return ""
	}
	switch {
	case !s.hw.UseHardwareWatch():
		return s.hw.Reason
	case size > 8:
		return fmt.Sprintf("%d bytes is more than one hardware watchpoint covers (8)", size)
	}
	n := 0
	for _, b := range s.bps {
		if b.isWatch() && b.enabled && !b.soft {
			n++
		}
	}
	if n >= maxHWWatch {
		return fmt.Sprintf("all %d hardware watchpoints (x86 debug registers) are in use", maxHWWatch)
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
// address, reaching an inserted breakpoint a swbreak stop.
func (s *Session) softRun(ctx context.Context, t rsp.Thread) (rsp.Stop, error) {
	ws := s.softWatches()
	last := make([][]byte, len(ws))
	for i, b := range ws {
		last[i] = make([]byte, b.size)
		if _, err := s.c.ReadMemory(ctx, b.addrs[0], last[i]); err != nil {
			last[i] = nil
		}
	}
	cur := make([]byte, maxSoftWatch)
	ranges := s.c.Dialect() == rsp.DialectGDBServer
	pc, err := s.c.ReadRegisterUint(ctx, t, "rip")
	if err != nil {
		return rsp.Stop{}, err
	}
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return rsp.Stop{}, err
		}
		if !first && s.breakAt(pc) {
			// A continue would have hit it.
			return rsp.Stop{Kind: rsp.StopSignal, Signal: rsp.SIGTRAP, Thread: t, SWBreak: true, Raw: "T05swbreak:;"}, nil
		}
		var st rsp.Stop
		end := uint64(0)
		if ranges && !s.breakAt(pc) {
			end = s.storeRangeEnd(ctx, pc)
		}
		if end > pc {
			st, err = s.c.Resume(ctx, fmt.Sprintf("vCont;r%x,%x:%s", pc, end, t))
		} else {
			st, err = s.c.Step(ctx, t) // steps over a breakpoint at pc
		}
		if err != nil || !plainStep(st) {
			return st, err
		}
		if st.Thread != (rsp.Thread{}) {
			t = st.Thread
		}
		if pc, err = s.stopPC(ctx, st, t); err != nil {
			return st, err
		}
		for i, b := range ws {
			now := cur[:b.size]
			if _, err := s.c.ReadMemory(ctx, b.addrs[0], now); err != nil {
				continue
			}
			if last[i] != nil && string(now) != string(last[i]) {
				st.Watch, st.WatchAddr = rsp.WatchWrite, b.addrs[0]
				return st, nil
			}
			last[i] = append(last[i][:0], now...)
		}
	}
}

// stopPC is the pc after st: from the stop reply's expedited registers
// when the server sent it (gdbserver does), else read.
func (s *Session) stopPC(ctx context.Context, st rsp.Stop, t rsp.Thread) (uint64, error) {
	const amd64RIP = 16 // gdbserver's amd64 register number of rip
	if b, ok := st.Registers[amd64RIP]; ok && len(b) == 8 {
		var pc uint64
		for i := 7; i >= 0; i-- {
			pc = pc<<8 | uint64(b[i])
		}
		return pc, nil
	}
	return s.c.ReadRegisterUint(ctx, t, "rip")
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
// the first instruction that may write memory, at most 4 KiB on. 0 means
// single-step (the instruction at pc cannot be decoded).
func (s *Session) storeRangeEnd(ctx context.Context, pc uint64) uint64 {
	a := pc
	for a-pc < 4096 {
		in, err := s.insn(ctx, a)
		if err != nil {
			if a == pc {
				return 0
			}
			return a // single-step the undecodable one next
		}
		a += uint64(in.Len)
		if mayWrite(in) {
			return a
		}
	}
	return a
}

// mayWrite reports whether an instruction may write memory: a memory
// destination (x86asm lists the destination first), an exchange with
// memory, or an implicit store (push, call, string stores, system calls,
// which may write anything). Unsure means yes.
func mayWrite(in x86asm.Inst) bool {
	switch in.Op {
	case x86asm.NOP, x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHW,
		x86asm.LEA, x86asm.CMP, x86asm.TEST, x86asm.BT:
		return false
	case x86asm.PUSH, x86asm.PUSHF, x86asm.PUSHFD, x86asm.PUSHFQ, x86asm.PUSHA, x86asm.PUSHAD,
		x86asm.CALL, x86asm.LCALL, x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT, x86asm.INTO, x86asm.ENTER,
		x86asm.XCHG, x86asm.CMPXCHG8B, x86asm.CMPXCHG16B, x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ,
		x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ, x86asm.XSAVE, x86asm.XSAVEOPT, x86asm.FXSAVE, x86asm.FXSAVE64:
		return true
	}
	_, ok := in.Args[0].(x86asm.Mem)
	return ok
}
