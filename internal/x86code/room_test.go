package x86code

import (
	"strings"
	"testing"
)

// fnCalls: push rbp; mov rbp,rsp; mov [rbp-4],edi; call; pop rbp; ret.
var fnCalls = []Range{{Addr: 0x1000, Code: []byte{
	0x55,
	0x48, 0x89, 0xe5,
	0x89, 0x7d, 0xfc,
	0xe8, 0, 0, 0, 0,
	0x5d,
	0xc3,
}}}

// body is push rbp; mov rbp,rsp; nop at 0x2000, then tail.
func body(tail ...byte) []Range {
	return []Range{{Addr: 0x2000, Code: append([]byte{0x55, 0x48, 0x89, 0xe5, 0x90}, tail...)}}
}

func TestJumpRoom(t *testing.T) {
	tests := []struct {
		name  string
		fn    []Range
		addr  uint64
		n     int
		insts int
		min   int // 0: 5, the jump's length
		err   string
	}{
		{name: "three short instructions make room", fn: fnCalls, addr: 0x1000, n: 7, insts: 3},
		{name: "one long enough", fn: fnCalls, addr: 0x1007, n: 5, insts: 1},
		{name: "the code ends first", fn: fnCalls, addr: 0x100d, err: "the instruction at 0x100e does not decode"},
		{name: "not in the function", fn: fnCalls, addr: 0x3000, err: "the instruction at 0x3000 does not decode"},
		{name: "a second range", fn: append(body(0xc3), fnCalls...), addr: 0x1007, n: 5, insts: 1},
		{name: "no length asked: still the first", fn: fnCalls, addr: 0x1000, min: -1, n: 1, insts: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			minLen := 5
			if tc.min != 0 {
				minLen = tc.min
			}
			insts, n, err := JumpRoom(tc.fn, tc.addr, minLen)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || n != tc.n || len(insts) != tc.insts {
				t.Fatalf("%d instructions, %d bytes, %v; want %d, %d", len(insts), n, err, tc.insts, tc.n)
			}
		})
	}
}

func TestCallsNone(t *testing.T) {
	if CallsNone(fnCalls) {
		t.Error("a function with a call calls none")
	}
	if !CallsNone(body(0x5d, 0xc3)) {
		t.Error("a leaf calls")
	}
}

func TestSpanMovable(t *testing.T) {
	tests := []struct {
		name string
		fn   []Range
		addr uint64
		want string
	}{
		{name: "straight code", fn: fnCalls, addr: 0x1000},
		{name: "a jump to the span's start", fn: body(0xeb, 0xf9), addr: 0x2000},
		{name: "a jump inside", fn: body(0xeb, 0xfa), addr: 0x2000, want: "the JMP at 0x2005 jumps to 0x2001, inside them"},
		{name: "a conditional jump inside", fn: body(0x74, 0xfb), addr: 0x2000, want: "the JE at 0x2005 jumps to 0x2002, inside them"},
		{name: "an indirect jump anywhere", fn: body(0xff, 0xe0), addr: 0x2000, want: "the function has an indirect jump (at 0x2005)"},
		{name: "a call before the last", fn: fnCalls, addr: 0x1007, want: "instruction 1 (CALL) transfers control"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			insts, _, err := JumpRoom(tc.fn, tc.addr, 5)
			if tc.addr == 0x1007 {
				insts, _, err = JumpRoom(tc.fn, tc.addr, 6) // the call and the pop
			}
			if err != nil || len(insts) < 2 {
				t.Fatalf("JumpRoom: %d instructions, %v", len(insts), err)
			}
			if got := SpanMovable(tc.fn, tc.addr, insts); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("SpanMovable = %q, want %q", got, tc.want)
			}
		})
	}
}
