package agentexpr

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"
)

// run interprets the subset of bytecode Compile emits, as gdbserver's
// agent does (gdbserver/ax.cc): regs by number, mem little-endian.
func run(t *testing.T, code []byte, regs map[int]uint64, mem map[uint64][]byte) uint64 {
	t.Helper()
	var st []uint64
	pop := func() uint64 { v := st[len(st)-1]; st = st[:len(st)-1]; return v }
	for pc := 0; pc < len(code); {
		op := code[pc]
		pc++
		switch {
		case op == opConst64:
			st = append(st, binary.BigEndian.Uint64(code[pc:]))
			pc += 8
		case op == opReg:
			st = append(st, regs[int(code[pc])<<8|int(code[pc+1])])
			pc += 2
		case op == opAdd:
			b, a := pop(), pop()
			st = append(st, a+b)
		case op >= opRef8 && op <= opRef8+3:
			n := 1 << (op - opRef8)
			b := mem[pop()]
			if len(b) < n {
				t.Fatalf("read of %d bytes from %v", n, b)
			}
			var v uint64
			for i := n - 1; i >= 0; i-- {
				v = v<<8 | uint64(b[i])
			}
			st = append(st, v)
		case op == opExt:
			bits := code[pc]
			pc++
			v := pop()
			sh := 64 - uint(bits)
			st = append(st, uint64(int64(v<<sh)>>sh))
		case op == opEqual:
			b, a := pop(), pop()
			st = append(st, b2u(a == b))
		case op == opLessSigned:
			b, a := pop(), pop()
			st = append(st, b2u(int64(a) < int64(b)))
		case op == opLessUnsigned:
			b, a := pop(), pop()
			st = append(st, b2u(a < b))
		case op == opLogNot:
			st = append(st, b2u(pop() == 0))
		case op == opEnd:
			if len(st) != 1 {
				t.Fatalf("stack at end: %v", st)
			}
			return st[0]
		default:
			t.Fatalf("opcode %#x", op)
		}
	}
	t.Fatal("no end opcode")
	return 0
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func TestCompile(t *testing.T) {
	// A variable i (int, at rbp-20 = reg 6 + -20), u (unsigned char at
	// 0x1000), l (long at 0x2000), s (short -3 at 0x3000).
	regs := map[int]uint64{6: 0x7fff0100}
	le := func(v uint64, n int) []byte { b := make([]byte, 8); binary.LittleEndian.PutUint64(b, v); return b[:n] }
	int32v := func(v int32) []byte { return le(uint64(uint32(v)), 4) }
	i, _ := Integer(4, true, 6, -20)
	u, _ := Integer(1, false, -1, 0x1000)
	l, _ := Integer(8, true, -1, 0x2000)
	s, _ := Integer(2, true, -1, 0x3000)
	ui, _ := Integer(4, false, -1, 0x4000)
	lit := func(tok string) Operand {
		o, err := Literal(tok)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, tc := range []struct {
		name string
		a    Operand
		op   string
		b    Operand
		iv   int32 // value of i
		want bool
	}{
		{"i == 5000", i, "==", lit("5000"), 5000, true},
		{"i == 5000 (no)", i, "==", lit("5000"), 4999, false},
		{"i != 0", i, "!=", lit("0"), 0, false},
		{"i > 9997", i, ">", lit("9997"), 9998, true},
		{"i <= 1", i, "<=", lit("1"), 1, true},
		{"i >= -2 (negative i)", i, ">=", lit("-2"), -1, true},
		{"i < -1 (negative)", i, "<", lit("-1"), -5, true},
		{"u < 300 (char promoted)", u, "<", lit("300"), 0, true},
		{"s < 0 (short sign-extended)", s, "<", lit("0"), 0, true},
		{"l > i", l, ">", i, 7, false},
		{"ui > -1 (unsigned compare, C)", ui, ">", lit("-1"), 0, false},
		{"i < 0x80000000 (hex unsigned)", i, "<", lit("0x80000000"), -1, false},
	} {
		code, err := Compile(tc.a, tc.op, tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		mem := map[uint64][]byte{
			0x7fff0100 - 20: int32v(tc.iv),
			0x1000:          {200},
			0x2000:          le(5, 8),
			0x3000:          le(uint64(0xfffd), 2),
			0x4000:          le(7, 4),
		}
		if got := run(t, code, regs, mem) == 1; got != tc.want {
			t.Errorf("%s with i = %d: %v, want %v (code % x)", tc.name, tc.iv, got, tc.want, code)
		}
	}
}

func TestNotCompiled(t *testing.T) {
	if _, _, _, ok := ParseSimple("a + b > 3"); ok {
		t.Error("ParseSimple took a + b > 3")
	}
	if a, op, b, ok := ParseSimple(" n->x == 3"); ok {
		t.Errorf("ParseSimple took a member access: %q %q %q", a, op, b)
	}
	if a, op, b, ok := ParseSimple("i<=-0x10"); !ok || a != "i" || op != "<=" || b != "-0x10" {
		t.Errorf("ParseSimple(i<=-0x10) = %q %q %q %v", a, op, b, ok)
	}
	for _, tok := range []string{"010", "99999999999999999999"} {
		if _, err := Literal(tok); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Literal(%s): %v, want ErrUnsupported", tok, err)
		}
	}
	if _, err := Integer(3, true, -1, 0); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Integer(3 bytes): %v", err)
	}
	i, _ := Integer(4, true, 6, -20)
	if _, err := Compile(i, "<>", i); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Compile(<>): %v", err)
	}
}

func TestTraceActions(t *testing.T) {
	tests := []struct {
		name string
		code []byte
		want string
	}{
		{"collect sp window", Collect(7, -16, 64),
			"260007" + "25fffffffffffffff0" + "02" + "250000000000000040" + "0c27"},
		{"collect fixed", Collect(-1, 0x4000, 8),
			"250000000000004000" + "250000000000000008" + "0c27"},
		{"record registers", RecordRegisters([]int{6, 7}, []int{0x110, 0x111}),
			"2600062d0110292e0110" + "2600072d0111292e0111" + "27"},
		{"increment", Increment(0x101), "2c0101220102" + "2d01012927"},
		{"at least", VarAtLeast(0x101, 0x102), "2c01012c0102140e27"},
		// *(rdi) + 8, 16 bytes: NULL checks jump to the end (offset 0x32).
		{"collect through a pointer", CollectAt(Addr{Reg: 5, Offs: []int64{0, 8}, PtrSize: 8}, 16),
			"260005" + "28231000152000" + "32" + "250000000000000000" + "02" + "1a" + "28231000152000" + "32" + "250000000000000008" + "02" + "250000000000000010" + "0c27"},
		{"collect static then pointer", CollectAt(Addr{Reg: -1, Offs: []int64{0x4000, 4}, PtrSize: 4}, 4),
			"2200" + "250000000000004000" + "02" + "19" + "28231000152000" + "29" + "250000000000000004" + "02" + "250000000000000004" + "0c27"},
	}
	for _, tt := range tests {
		if got := hex.EncodeToString(tt.code); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
