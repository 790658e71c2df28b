package agentexpr

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// A small target: variables in memory at fixed addresses and in a
// register, of the types a condition meets.
var (
	tInt    = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "int", ByteSize: 4}, Encoding: dwarf.EncSigned}
	tUint   = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "unsigned int", ByteSize: 4}, Encoding: dwarf.EncUnsigned}
	tChar   = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "char", ByteSize: 1}, Encoding: dwarf.EncSignedChar}
	tUchar  = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "unsigned char", ByteSize: 1}, Encoding: dwarf.EncUnsignedChar}
	tShort  = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "short", ByteSize: 2}, Encoding: dwarf.EncSigned}
	tLong   = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "long", ByteSize: 8}, Encoding: dwarf.EncSigned}
	tUlong  = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "unsigned long", ByteSize: 8}, Encoding: dwarf.EncUnsigned}
	tDouble = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "double", ByteSize: 8}, Encoding: dwarf.EncFloat}
	tNode   = &dwarf.StructType{CommonType: dwarf.CommonType{Name: "node", ByteSize: 32}, Kind: "struct"}
	tNodeP  = &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: 8}, Elem: tNode}
	tArr    = &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: 16}, Elem: tInt, Count: 4}
	tColor  = &dwarf.EnumType{CommonType: dwarf.CommonType{Name: "color", ByteSize: 4}, Unsigned: true}
	tInner  = &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 8}, Kind: "union"}
)

func init() {
	tInner.Fields = []dwarf.Field{{Name: "u", Type: tUint}, {Name: "s", Type: tShort}}
	tNode.Fields = []dwarf.Field{
		{Name: "x", Type: tInt, ByteOffset: 0},
		{Name: "y", Type: tLong, ByteOffset: 8},
		{Name: "next", Type: tNodeP, ByteOffset: 16},
		{Name: "tag", Type: tUchar, ByteOffset: 24},
		{Name: "bits", Type: tUint, ByteOffset: 28, BitSize: 3},
		{Name: "", Type: tInner, ByteOffset: 28},
	}
}

type fakeTarget struct {
	regs map[int]uint64
	mem  map[uint64]byte
}

func (f *fakeTarget) put(addr uint64, v uint64, n int) {
	for i := range n {
		f.mem[addr+uint64(i)] = byte(v >> (8 * i))
	}
}

func (f *fakeTarget) machine() Machine {
	return Machine{
		Reg: func(n int) (uint64, error) {
			v, ok := f.regs[n]
			if !ok {
				return 0, fmt.Errorf("no register %d", n)
			}
			return v, nil
		},
		Mem: func(addr uint64, p []byte) error {
			for i := range p {
				b, ok := f.mem[addr+uint64(i)]
				if !ok {
					return fmt.Errorf("no memory at %#x", addr+uint64(i))
				}
				p[i] = b
			}
			return nil
		},
	}
}

// target: i (int, at reg 6 - 20), u (unsigned int at 0x4000), c (char
// -3 at 0x1000), uc (unsigned char 200 at 0x1001), s (short at 0x3000),
// l (long at 0x2000), ul (unsigned long at 0x2008), n (struct node * in
// register 5), a (int[4] at 0x5000), red/blue enumerators, r (int in
// register 3, high bits garbage), d (double).
func target(i int32) (*fakeTarget, Scope) {
	f := &fakeTarget{regs: map[int]uint64{6: 0x7fff0100, 5: 0x6000, 3: 0xdeadbeef00000007}, mem: map[uint64]byte{}}
	f.put(0x7fff0100-20, uint64(uint32(i)), 4)
	f.put(0x4000, 7, 4)
	f.put(0x1000, uint64(0xfd), 1)
	f.put(0x1001, 200, 1)
	f.put(0x3000, 0xfffd, 2)
	f.put(0x2000, 5, 8)
	f.put(0x2008, 1<<63, 8)
	// *n: {x: -1, y: 1<<40, next: 0, tag: 255, u: 0x10000}
	f.put(0x6000, 0xffffffff, 4)
	f.put(0x6008, 1<<40, 8)
	f.put(0x6010, 0, 8)
	f.put(0x6018, 255, 1)
	f.put(0x601c, 0x10000, 4)
	for k := range 4 {
		f.put(0x5000+uint64(4*k), uint64(10*k), 4)
	}
	vars := map[string]Var{
		"i":    {Type: tInt, Reg: 6, Off: -20},
		"u":    {Type: tUint, Reg: -1, Off: 0x4000},
		"c":    {Type: tChar, Reg: -1, Off: 0x1000},
		"uc":   {Type: tUchar, Reg: -1, Off: 0x1001},
		"s":    {Type: tShort, Reg: -1, Off: 0x3000},
		"l":    {Type: tLong, Reg: -1, Off: 0x2000},
		"ul":   {Type: tUlong, Reg: -1, Off: 0x2008},
		"n":    {Type: tNodeP, InReg: true, Reg: 5},
		"a":    {Type: tArr, Reg: -1, Off: 0x5000},
		"r":    {Type: tInt, InReg: true, Reg: 3},
		"d":    {Type: tDouble, Reg: -1, Off: 0x2000},
		"red":  {Type: tColor, Const: true, Value: 0},
		"blue": {Type: tColor, Const: true, Value: 2},
	}
	return f, Scope{PtrSize: 8, Var: func(name string) (Var, error) {
		v, ok := vars[name]
		if !ok {
			return Var{}, fmt.Errorf("no symbol %q", name)
		}
		return v, nil
	}}
}

// TestCompileCondition compiles conditions and runs them with Eval on a
// fake target; the expected truth is C's (and dwarf/eval's) answer.
func TestCompileCondition(t *testing.T) {
	for _, tc := range []struct {
		cond string
		i    int32
		want bool
	}{
		{"i == 5000", 5000, true},
		{"i == 5000", 4999, false},
		{"i != 0", 0, false},
		{"i > 9997", 9998, true},
		{"i <= 1", 1, true},
		{"i >= -2", -1, true},
		{"i < -1", -5, true},
		{"uc < 300", 0, true},
		{"s < 0", 0, true},
		{"l > i", 7, false},
		{"u > -1", 0, false}, // -1 converts to unsigned int
		{"i < 0x80000000", -1, false},
		{"i + 1 < 0", -1, false},
		{"i + 1 < 0", -2, true},
		{"i * 1000000 < 0", 3000, true}, // int wraps at 32 bits
		{"(long)i * 1000000 < 0", 3000, false},
		{"i % 1000 == 0", 5000, true},
		{"i % 1000 == 0", -3000, true},
		{"i % 7 == -3", -10, true},
		{"i / -1 == 5", -5, true},
		{"100 / i == 0", 0, true}, // division by zero: reported, the host decides
		{"l / i == 1", 5, true},
		{"(i & 0xff) == 0x34", 0x1234, true},
		{"(i | 1) == 7 && (i ^ 2) == 4", 6, true},
		{"~i == -6", 5, true},
		{"-i == 5", -5, true},
		{"!i", 0, true},
		{"!i", 3, false},
		{"i << 28 < 0", 8, true},
		{"i >> 1 == -1", -1, true},
		{"u >> 1 == 3", 0, true},
		{"i << 33 == 0", 1, true}, // the host shifts in 64 bits, then wraps to int
		{"c == -3", 0, true},
		{"c < uc", 0, true},
		{"ul > 0", 0, true},
		{"ul > l", 0, true},
		{"r == 7", 0, true},
		{"n->x == -1", 0, true},
		{"n->y == 1099511627776", 0, true},
		{"n->tag == 255", 0, true},
		{"(*n).x < 0", 0, true},
		{"n->u == 65536 && n->s == 0", 0, true},
		{"n->next == 0", 0, true},
		{"n->next->x == 3", 0, true}, // NULL: reported
		{"n != 0", 0, true},
		{"&a[2] - &a[0] == 2", 0, true},
		{"a[i] == 20", 2, true},
		{"*(a + 3) == 30", 0, true},
		{"a[1] + a[2] == 30", 0, true},
		{"blue == 2", 0, true},
		{"i > 0 ? i : -i", 0, false},
		{"i > 0 ? i : -i", -4, true},
		{"i > 3 || n->next->x", 4, true}, // || does not evaluate its right side
		{"i > 3 && n->x", 4, true},
		{"i > 3 && n->next->x", 2, false},
		{"(unsigned char)i == 0x34", 0x1234, true},
		{"(short)i < 0", 0x8000, true},
		{"(bool)i", 2, true},
		{"'a' == 97", 0, true},
		{"true", 0, true},
	} {
		f, sc := target(tc.i)
		e, err := cexpr.Parse(tc.cond, func(string) bool { return false })
		if err != nil {
			t.Fatalf("%s: %v", tc.cond, err)
		}
		code, err := CompileCondition(e, sc)
		if err != nil {
			t.Errorf("%s: %v", tc.cond, err)
			continue
		}
		v, err := Eval(code, f.machine())
		if err != nil {
			t.Errorf("%s with i = %d: %v (code % x)", tc.cond, tc.i, err, code)
			continue
		}
		if got := v != 0; got != tc.want {
			t.Errorf("%s with i = %d: %v, want %v (code % x)", tc.cond, tc.i, got, tc.want, code)
		}
	}
}

func TestCompileConditionUnsupported(t *testing.T) {
	_, sc := target(0)
	for _, cond := range []string{
		"d > 1.5", "f(1)", "i = 3", "n->bits == 1", "$rax == 1", "n->nosuch == 1",
		"\"a\"", "i > 0 ? n : i", "(struct node *)i == 0", "(float)i > 0",
	} {
		e, err := cexpr.Parse(cond, func(s string) bool { return s == "node" })
		if err != nil {
			continue // not even parsed: the host says why
		}
		if code, err := CompileCondition(e, sc); err == nil {
			t.Errorf("%s compiled to % x", cond, code)
		} else if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, not ErrUnsupported", cond, err)
		}
	}
	// A name that does not resolve keeps its own error.
	e, _ := cexpr.Parse("nosuch > 1", nil)
	if _, err := CompileCondition(e, sc); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("nosuch: %v", err)
	}
}

func TestEvalErrors(t *testing.T) {
	f, _ := target(0)
	for _, code := range [][]byte{
		{opConst8, 1, opConst8, 0, opDivSigned, opEnd},
		{opConst64, 0x80, 0, 0, 0, 0, 0, 0, 0, opConst64, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, opDivSigned, opEnd},
		{opAdd, opEnd},
		{opConst8},
		{opConst8, 1},
		{opConst8, 0, opRef8 + 3, opEnd},
		{opTrace, opEnd},
		{opEnd},
	} {
		if v, err := Eval(code, f.machine()); !errors.Is(err, ErrEval) {
			t.Errorf("% x: %v, %v; want ErrEval", code, v, err)
		}
	}
}

func FuzzEval(f *testing.F) {
	f.Add([]byte{opConst8, 1, opEnd})
	f.Add([]byte{opConst8, 1, opIfGoto, 0, 0, opEnd})
	ft, _ := target(0)
	f.Fuzz(func(t *testing.T, code []byte) {
		Eval(code, ft.machine()) //nolint:errcheck // must not panic or hang
	})
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

// TestCompileDepth: gdbserver's agent stack holds 100 values and does not
// check a push against it: a condition whose code would need more than
// maxDepth is left to the host.
func TestCompileDepth(t *testing.T) {
	f, sc := target(0)
	nest := func(n int) string {
		return strings.Repeat("i + (", n) + "1" + strings.Repeat(")", n) + " != 0"
	}
	for _, tc := range []struct {
		n  int
		ok bool
	}{{40, true}, {70, false}} {
		e, err := cexpr.Parse(nest(tc.n), nil)
		if err != nil {
			t.Fatal(err)
		}
		code, err := CompileCondition(e, sc)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%d levels: %v", tc.n, err)
			continue
		}
		if err == nil {
			if v, err := Eval(code, f.machine()); err != nil || v != 1 {
				t.Errorf("%d levels with i = 0: %d, %v", tc.n, v, err)
			}
		}
	}
}

func TestMaxStack(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []byte
		want int
		ok   bool
	}{
		{"constant", []byte{opConst8, 1, opEnd}, 1, true},
		{"sum", []byte{opConst8, 1, opConst8, 2, opDup, opAdd, opAdd, opEnd}, 3, true},
		{"both branches", []byte{opConst8, 1, opIfGoto, 0, 10, opConst8, 0, opGoto, 0, 12, opConst8, 1, opDup, opPop, opEnd}, 2, true},
		{"underflow", []byte{opConst8, 1, opAdd, opEnd}, 0, false},
		{"backward jump", []byte{opConst8, 1, opGoto, 0, 0}, 0, false},
		{"off the end", []byte{opConst8, 1}, 0, false},
		{"unknown opcode", []byte{opTrace, opEnd}, 0, false},
	} {
		got, err := maxStack(tc.code)
		if tc.ok != (err == nil) || tc.ok && got != tc.want {
			t.Errorf("%s: %d, %v; want %d, ok %v", tc.name, got, err, tc.want, tc.ok)
		}
	}
}
