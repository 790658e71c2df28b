package x86code

import (
	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

// Making room for a fast tracepoint's jump (x86-64): the jump overwrites
// the instruction at the tracepoint's address, or where that is shorter
// than the jump, the few whole instructions that make room (JumpRoom),
// which then move into the jump pad together (RelocateSpan). They may
// move only where no thread can ever run from inside them (SpanMovable),
// and the pad pushes the registers below the stack pointer, over the red
// zone where a function that calls nothing may keep its locals
// (CallsNone).

// Range is the machine code of one address range of a function.
type Range struct {
	Addr uint64
	Code []byte
}

// forEach calls f with each instruction of fn and its address, decoded
// in a linear sweep (an undecodable byte is passed over), until f
// returns false.
func forEach(fn []Range, f func(a uint64, inst x86asm.Inst) bool) {
	for _, r := range fn {
		for off := 0; off < len(r.Code); {
			inst, err := Decode(r.Code[off:], 64)
			if err != nil {
				off++
				continue
			}
			if !f(r.Addr+uint64(off), inst) {
				return
			}
			off += inst.Len
		}
	}
}

// CallsNone reports whether the function whose code is fn calls no
// function: it may keep data in the red zone below the stack pointer.
func CallsNone(fn []Range) bool {
	calls := false
	forEach(fn, func(_ uint64, inst x86asm.Inst) bool {
		calls = IsCall(inst)
		return !calls
	})
	return !calls
}

// JumpRoom is the whole instructions at addr in fn that a jump of
// minLen bytes overwrites: the first, or as many as reach minLen (GDB
// takes only the first, and gives up where it is shorter); n is their
// length in bytes. It returns at least one instruction or an error.
func JumpRoom(fn []Range, addr uint64, minLen int) (insts []x86asm.Inst, n int, err error) {
	var code []byte
	for _, r := range fn {
		if addr >= r.Addr && addr < r.Addr+uint64(len(r.Code)) {
			code = r.Code[addr-r.Addr:]
		}
	}
	for len(insts) == 0 || n < minLen {
		inst, err := Decode(code[min(n, len(code)):], 64)
		if err != nil {
			return nil, 0, fmt.Errorf("the instruction at %#x does not decode: %w", addr+uint64(n), err)
		}
		insts = append(insts, inst)
		n += inst.Len
	}
	return insts, n, nil
}

// SpanMovable says why the instructions insts at addr in fn cannot all
// move into a jump pad ("" when they can). The jump overwrites the first
// bytes of the second and later ones, so no thread may ever run from
// inside the span: no jump of the function lands in it (and the function
// has no indirect jump, whose targets are unknown), and only the last
// may transfer control (a call before it would return into the span).
// The caller checks what it knows of: breakpoints in the span, threads
// stopped in it.
func SpanMovable(fn []Range, addr uint64, insts []x86asm.Inst) string {
	n := 0
	for _, inst := range insts {
		n += inst.Len
	}
	lo, hi := addr, addr+uint64(n)
	inside := func(a uint64) bool { return a > lo && a < hi }
	for i, inst := range insts[:max(len(insts)-1, 0)] {
		if TransfersControl(inst) {
			return fmt.Sprintf("instruction %d (%v) transfers control", i+1, inst.Op)
		}
	}
	var why string
	forEach(fn, func(a uint64, inst x86asm.Inst) bool {
		if rel, ok := inst.Args[0].(x86asm.Rel); ok {
			if t := uint64(int64(a) + int64(inst.Len) + int64(rel)); inside(t) {
				why = fmt.Sprintf("the %v at %#x jumps to %#x, inside them", inst.Op, a, t)
			}
		} else if inst.Op == x86asm.JMP {
			why = fmt.Sprintf("the function has an indirect jump (at %#x), which may land inside them", a)
		}
		return why == ""
	})
	return why
}
