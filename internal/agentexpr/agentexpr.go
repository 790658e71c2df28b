// Package agentexpr compiles breakpoint conditions to GDB agent
// expression bytecode (GDB manual, "Agent Expressions"), which gdbserver
// evaluates at each hit when the breakpoint carries it (Z0,addr,kind;X…):
// only the hits where it is true are reported.
//
// It knows the bytecode and C's comparison rules, nothing of DWARF or the
// protocol: the caller resolves each side of a condition `a OP b` to an
// Operand (a constant, or an integer in memory at register + offset or at
// a fixed address) and Compile emits the program.
package agentexpr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Opcodes (GDB manual, "Bytecode Descriptions").
const (
	opAdd          = 0x02
	opLogNot       = 0x0e
	opEqual        = 0x13
	opLessSigned   = 0x14
	opLessUnsigned = 0x15
	opExt          = 0x16
	opRef8         = 0x17 // ref16, ref32, ref64 follow
	opConst64      = 0x25
	opReg          = 0x26
	opEnd          = 0x27
)

// ErrUnsupported: the condition or an operand is beyond what compiles;
// the host evaluates it instead.
var ErrUnsupported = errors.New("agentexpr: not compilable")

var simple = regexp.MustCompile(`^\s*([A-Za-z_]\w*|-?(?:0[xX][0-9a-fA-F]+|\d+))\s*(<=|>=|==|!=|<|>)\s*([A-Za-z_]\w*|-?(?:0[xX][0-9a-fA-F]+|\d+))\s*$`)

// ParseSimple splits a condition of the form `a OP b` (OP one of < <= >
// >= == !=; a and b an identifier or an integer literal) into its sides
// and operator.
func ParseSimple(cond string) (a, op, b string, ok bool) {
	m := simple.FindStringSubmatch(cond)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// IsLiteral reports whether a side of ParseSimple is an integer literal.
func IsLiteral(tok string) bool {
	return tok != "" && (tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9')
}

// Operand is one side of a comparison: a constant, or an integer variable
// in memory.
type Operand struct {
	Const bool
	Value int64 // the constant
	// Signed and Width are the type after C's integer promotion (width 4
	// or 8 bytes).
	Signed bool
	Width  int
	// A variable is at Reg + Off (Reg a register number of the target's
	// g packet) or at Off when Reg < 0; Size bytes, MemSigned for its
	// type in memory.
	Reg       int
	Off       int64
	Size      int
	MemSigned bool
}

// Literal is the constant operand of a decimal or hexadecimal C integer
// literal, typed as C types it (int, unsigned int for hex that only fits
// so, else long). Octal literals are not compiled.
func Literal(tok string) (Operand, error) {
	neg := strings.HasPrefix(tok, "-")
	digits := strings.TrimPrefix(tok, "-")
	isHex := strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X")
	if !isHex && len(digits) > 1 && digits[0] == '0' {
		return Operand{}, fmt.Errorf("octal literal %s: %w", tok, ErrUnsupported)
	}
	u, err := strconv.ParseUint(digits, 0, 64)
	if err != nil || u > math.MaxInt64 {
		return Operand{}, fmt.Errorf("literal %s: %w", tok, ErrUnsupported)
	}
	o := Operand{Const: true, Value: int64(u), Signed: true, Width: 4}
	switch {
	case u <= math.MaxInt32:
	case isHex && u <= math.MaxUint32:
		o.Signed = false
	default:
		o.Width = 8
	}
	if neg {
		o.Value = -o.Value
	}
	return o, nil
}

// Integer is the operand of an integer variable of size bytes (1, 2, 4
// or 8) and signedness in memory, at reg + off (reg < 0: at off),
// promoted as C promotes it.
func Integer(size int, signed bool, reg int, off int64) (Operand, error) {
	o := Operand{Reg: reg, Off: off, Size: size, MemSigned: signed}
	switch size {
	case 1, 2:
		o.Signed, o.Width = true, 4
	case 4, 8:
		o.Signed, o.Width = signed, size
	default:
		return o, fmt.Errorf("a %d-byte integer: %w", size, ErrUnsupported)
	}
	return o, nil
}

// Compile returns the bytecode that leaves a OP b (1 or 0) on the stack
// and ends, comparing as C does after the usual arithmetic conversions.
func Compile(a Operand, op string, b Operand) ([]byte, error) {
	signed, width := true, max(a.Width, b.Width)
	switch {
	case !a.Signed && !b.Signed:
		signed = false
	case a.Signed != b.Signed:
		u, sg := a, b
		if a.Signed {
			u, sg = b, a
		}
		if u.Width >= sg.Width {
			signed, width = false, u.Width
		}
	}
	var code []byte
	emit := func(o Operand) error {
		if o.Const {
			v := uint64(o.Value)
			if !signed && width == 4 {
				v = uint64(uint32(o.Value))
			}
			code = append(code, opConst64)
			code = binary.BigEndian.AppendUint64(code, v)
			return nil
		}
		if o.Reg >= 0 {
			code = append(code, opReg, byte(o.Reg>>8), byte(o.Reg))
		}
		code = append(code, opConst64)
		code = binary.BigEndian.AppendUint64(code, uint64(o.Off))
		if o.Reg >= 0 {
			code = append(code, opAdd)
		}
		switch o.Size {
		case 1:
			code = append(code, opRef8)
		case 2:
			code = append(code, opRef8+1)
		case 4:
			code = append(code, opRef8+2)
		case 8:
			code = append(code, opRef8+3)
		default:
			return fmt.Errorf("a %d-byte operand: %w", o.Size, ErrUnsupported)
		}
		// ref* zero-extends. Sign-extend where the conversion needs it.
		if o.MemSigned && o.Size < 8 {
			switch {
			case signed, width == 8:
				code = append(code, opExt, byte(8*o.Size))
			case o.Size != 4:
				return fmt.Errorf("a signed %d-byte operand compared unsigned: %w", o.Size, ErrUnsupported)
			}
		}
		return nil
	}
	less := byte(opLessSigned)
	if !signed {
		less = opLessUnsigned
	}
	x, y := a, b
	var tail []byte
	switch op {
	case "==":
		tail = []byte{opEqual}
	case "!=":
		tail = []byte{opEqual, opLogNot}
	case "<":
		tail = []byte{less}
	case ">":
		x, y, tail = b, a, []byte{less}
	case "<=": // !(b < a)
		x, y, tail = b, a, []byte{less, opLogNot}
	case ">=": // !(a < b)
		tail = []byte{less, opLogNot}
	default:
		return nil, fmt.Errorf("operator %q: %w", op, ErrUnsupported)
	}
	if err := emit(x); err != nil {
		return nil, err
	}
	if err := emit(y); err != nil {
		return nil, err
	}
	code = append(code, tail...)
	return append(code, opEnd), nil
}
