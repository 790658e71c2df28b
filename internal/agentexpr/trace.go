package agentexpr

import "encoding/binary"

// Tracepoint actions (GDB manual, "Tracepoint Action Lists" and the
// trace ops of "Bytecode Descriptions"): programs for a tracepoint's X
// actions and for a breakpoint condition that reads trace state
// variables. Each returns a whole program, ending in end.

// Collect records size bytes of memory at reg + off (reg < 0: at off) in
// the trace frame (an 'M' block; the server splits blocks over 64 KiB).
func Collect(reg int, off int64, size uint64) []byte {
	var code []byte
	if reg >= 0 {
		code = append(code, opReg, byte(reg>>8), byte(reg))
	}
	code = append(code, opConst64)
	code = binary.BigEndian.AppendUint64(code, uint64(off))
	if reg >= 0 {
		code = append(code, opAdd)
	}
	code = append(code, opConst64)
	code = binary.BigEndian.AppendUint64(code, size)
	return append(code, opTrace, opEnd)
}

// RecordRegisters records register regs[i] in the trace frame as the
// value of trace state variable vars[i] (a 'V' block each): a frame then
// carries the registers it needs without the whole register block,
// which on x86-64 with AVX-512 is 2.4 KB. The variables must exist
// (QTDV). regs and vars have the same length.
func RecordRegisters(regs, vars []int) []byte {
	var code []byte
	for i, r := range regs {
		v := vars[i]
		code = append(code, opReg, byte(r>>8), byte(r),
			opSetv, byte(v>>8), byte(v), opPop,
			opTracev, byte(v>>8), byte(v))
	}
	return append(code, opEnd)
}

// Increment adds 1 to trace state variable v.
func Increment(v int) []byte {
	return []byte{opGetv, byte(v >> 8), byte(v), opConst8, 1, opAdd,
		opSetv, byte(v >> 8), byte(v), opPop, opEnd}
}

// VarAtLeast is the condition trace state variable a >= trace state
// variable b (signed).
func VarAtLeast(a, b int) []byte {
	return []byte{opGetv, byte(a >> 8), byte(a), opGetv, byte(b >> 8), byte(b),
		opLessSigned, opLogNot, opEnd}
}

// Addr is an address computed at the hit by following pointers: start
// with register Reg (Reg < 0: with 0), then for each offset of Offs add
// it and, before every offset but the first, load the pointer-sized word
// (PtrSize bytes) at the address so far. So {Reg: sp, Offs: [16, 8]} is
// *(sp+16) + 8, and {Reg: -1, Offs: [A]} is the fixed address A.
type Addr struct {
	Reg     int
	Offs    []int64
	PtrSize int
}

// minPointer: a loaded pointer below it (NULL and the page after it) is
// not followed.
const minPointer = 0x1000

// CollectAt records size bytes at address a in the trace frame. A
// register or pointer on the way below 0x1000 (NULL) ends the program
// without recording anything.
func CollectAt(a Addr, size uint64) []byte {
	var code []byte
	var skips []int // if_goto operands to patch with the end's offset
	notNull := func() {
		code = append(code, opDup, opConst16, minPointer>>8, minPointer&0xff, opLessUnsigned, opIfGoto, 0, 0)
		skips = append(skips, len(code)-2)
	}
	if a.Reg >= 0 {
		code = append(code, opReg, byte(a.Reg>>8), byte(a.Reg))
		notNull() // a pointer in a register (the stack pointer passes)
	} else {
		code = append(code, opConst8, 0)
	}
	for i, off := range a.Offs {
		if i > 0 {
			if a.PtrSize == 4 {
				code = append(code, opRef8+2)
			} else {
				code = append(code, opRef8+3)
			}
			notNull()
		}
		code = append(code, opConst64)
		code = binary.BigEndian.AppendUint64(code, uint64(off))
		code = append(code, opAdd)
	}
	code = append(code, opConst64)
	code = binary.BigEndian.AppendUint64(code, size)
	code = append(code, opTrace)
	end := len(code)
	for _, at := range skips {
		binary.BigEndian.PutUint16(code[at:], uint16(end))
	}
	return append(code, opEnd)
}
