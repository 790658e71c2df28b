// Package agentexpr writes GDB agent expression bytecode (GDB manual,
// "Agent Expressions"), the programs gdbserver runs at a breakpoint or a
// tracepoint without stopping the program for its client:
//
//   - CompileCondition compiles a breakpoint condition, parsed by
//     dwarf/cexpr, to a program that is true exactly where the host's
//     evaluator finds it true; gdbserver then reports only those hits
//     (Z0,addr,kind;X…) or collects only those calls (QTDP's X);
//   - Collect, CollectAt, RecordRegisters and the trace state variable
//     programs are a tracepoint's actions (trace.go);
//   - Eval runs a program as gdbserver's agent does (ax.cc), so that a
//     compiled condition can be checked against the host's answer at the
//     hit where it was compiled.
//
// It knows the bytecode, C's integer rules and DWARF types, nothing of
// the protocol: the caller resolves each name to a register, an address
// or a constant (Scope).
package agentexpr

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Opcodes (GDB manual, "Bytecode Descriptions"; gdb/ax.def).
const (
	opAdd          = 0x02
	opSub          = 0x03
	opMul          = 0x04
	opDivSigned    = 0x05
	opDivUnsigned  = 0x06
	opRemSigned    = 0x07
	opRemUnsigned  = 0x08
	opLsh          = 0x09
	opRshSigned    = 0x0a
	opRshUnsigned  = 0x0b
	opTrace        = 0x0c
	opLogNot       = 0x0e
	opBitAnd       = 0x0f
	opBitOr        = 0x10
	opBitXor       = 0x11
	opBitNot       = 0x12
	opEqual        = 0x13
	opLessSigned   = 0x14
	opLessUnsigned = 0x15
	opExt          = 0x16
	opRef8         = 0x17 // ref16, ref32, ref64 follow
	opIfGoto       = 0x20
	opGoto         = 0x21
	opConst8       = 0x22
	opConst16      = 0x23
	opConst32      = 0x24
	opConst64      = 0x25
	opReg          = 0x26
	opEnd          = 0x27
	opDup          = 0x28
	opPop          = 0x29
	opZeroExt      = 0x2a
	opSwap         = 0x2b
	opGetv         = 0x2c
	opSetv         = 0x2d
	opTracev       = 0x2e
)

// ErrUnsupported: the condition or a part of it is beyond what compiles;
// the host evaluates it instead.
var ErrUnsupported = errors.New("agentexpr: not compilable")

// ErrEval is an error of Eval: what gdbserver's agent reports as an
// error (a division by zero, a memory read that fails, an opcode it does
// not know).
var ErrEval = errors.New("agentexpr: evaluation error")

// Machine is what Eval reads: registers by the number of the target's g
// packet, and memory.
type Machine struct {
	Reg func(n int) (uint64, error)
	Mem func(addr uint64, p []byte) error
}

// Eval runs code as gdbserver's agent does (gdbserver/ax.cc
// gdb_eval_agent_expr) and returns the value it ends with. It runs what
// CompileCondition emits; the trace opcodes and trace state variables
// are ErrEval.
func Eval(code []byte, m Machine) (uint64, error) {
	var st []uint64
	fail := func(format string, args ...any) (uint64, error) {
		return 0, fmt.Errorf("%w: "+format, append([]any{ErrEval}, args...)...)
	}
	need := func(n int) bool { return len(st) >= n }
	arg := func(pc, n int) (uint64, bool) {
		if pc+n > len(code) {
			return 0, false
		}
		var v uint64
		for _, b := range code[pc : pc+n] {
			v = v<<8 | uint64(b)
		}
		return v, true
	}
	for pc, steps := 0, 0; ; steps++ {
		if pc >= len(code) || steps > 100000 {
			return fail("ran off the code at %d", pc)
		}
		op := code[pc]
		pc++
		if len(st) > 100 {
			return fail("stack overflow")
		}
		switch op {
		case opAdd, opSub, opMul, opDivSigned, opDivUnsigned, opRemSigned, opRemUnsigned,
			opLsh, opRshSigned, opRshUnsigned, opBitAnd, opBitOr, opBitXor, opEqual,
			opLessSigned, opLessUnsigned:
			if !need(2) {
				return fail("stack underflow at %d", pc-1)
			}
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-2]
			var r uint64
			switch op {
			case opAdd:
				r = a + b
			case opSub:
				r = a - b
			case opMul:
				r = a * b
			case opDivSigned, opDivUnsigned, opRemSigned, opRemUnsigned:
				if b == 0 {
					return fail("division by zero")
				}
				if (op == opDivSigned || op == opRemSigned) && int64(b) == -1 && int64(a) == -1<<63 {
					return fail("signed division overflow (gdbserver traps)")
				}
				switch op {
				case opDivSigned:
					r = uint64(int64(a) / int64(b))
				case opDivUnsigned:
					r = a / b
				case opRemSigned:
					r = uint64(int64(a) % int64(b))
				default:
					r = a % b
				}
			case opLsh:
				r = a << (b & 63) // x86's shift takes the count mod 64
			case opRshSigned:
				r = uint64(int64(a) >> (b & 63))
			case opRshUnsigned:
				r = a >> (b & 63)
			case opBitAnd:
				r = a & b
			case opBitOr:
				r = a | b
			case opBitXor:
				r = a ^ b
			case opEqual:
				r = b2u(a == b)
			case opLessSigned:
				r = b2u(int64(a) < int64(b))
			case opLessUnsigned:
				r = b2u(a < b)
			}
			st = append(st, r)
		case opLogNot, opBitNot, opRef8, opRef8 + 1, opRef8 + 2, opRef8 + 3:
			if !need(1) {
				return fail("stack underflow at %d", pc-1)
			}
			top := &st[len(st)-1]
			switch op {
			case opLogNot:
				*top = b2u(*top == 0)
			case opBitNot:
				*top = ^*top
			default:
				n := 1 << (op - opRef8)
				var b [8]byte
				if err := m.Mem(*top, b[:n]); err != nil {
					return fail("read %d bytes at %#x: %v", n, *top, err)
				}
				*top = binary.LittleEndian.Uint64(b[:])
			}
		case opExt, opZeroExt:
			bits, ok := arg(pc, 1)
			if !ok || !need(1) {
				return fail("bad %#x at %d", op, pc-1)
			}
			pc++
			if bits < 64 {
				top := &st[len(st)-1]
				if op == opExt {
					sh := 64 - bits
					*top = uint64(int64(*top<<sh) >> sh)
				} else {
					*top &= 1<<bits - 1
				}
			}
		case opConst8, opConst16, opConst32, opConst64:
			n := map[byte]int{opConst8: 1, opConst16: 2, opConst32: 4, opConst64: 8}[op]
			v, ok := arg(pc, n)
			if !ok {
				return fail("truncated constant at %d", pc-1)
			}
			pc += n
			st = append(st, v)
		case opReg:
			n, ok := arg(pc, 2)
			if !ok {
				return fail("truncated reg at %d", pc-1)
			}
			pc += 2
			v, err := m.Reg(int(n))
			if err != nil {
				return fail("register %d: %v", n, err)
			}
			st = append(st, v)
		case opIfGoto, opGoto:
			to, ok := arg(pc, 2)
			if !ok {
				return fail("truncated jump at %d", pc-1)
			}
			pc += 2
			if op == opGoto {
				pc = int(to)
				continue
			}
			if !need(1) {
				return fail("stack underflow at %d", pc-3)
			}
			top := st[len(st)-1]
			st = st[:len(st)-1]
			if top != 0 {
				pc = int(to)
			}
		case opDup:
			if !need(1) {
				return fail("stack underflow at %d", pc-1)
			}
			st = append(st, st[len(st)-1])
		case opPop:
			if !need(1) {
				return fail("stack underflow at %d", pc-1)
			}
			st = st[:len(st)-1]
		case opSwap:
			if !need(2) {
				return fail("stack underflow at %d", pc-1)
			}
			st[len(st)-1], st[len(st)-2] = st[len(st)-2], st[len(st)-1]
		case opEnd:
			if !need(1) {
				return fail("empty stack at the end")
			}
			return st[len(st)-1], nil
		default:
			return fail("opcode %#x at %d", op, pc-1)
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
