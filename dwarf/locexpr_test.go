package dwarf

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/op"
)

// fakeMem is a little memory image at base for expression tests.
type fakeMem struct {
	base uint64
	data []byte
}

func (m fakeMem) read(_ context.Context, addr uint64, p []byte) (int, error) {
	if addr < m.base || addr-m.base+uint64(len(p)) > uint64(len(m.data)) {
		return 0, fmt.Errorf("unmapped %#x", addr)
	}
	return copy(p, m.data[addr-m.base:]), nil
}

func testEnv() *exprEnv {
	var regs Regs
	regs.Set(0, 0)         // rax
	regs.Set(5, 0x1000)    // rdi
	regs.Set(6, 0x2000)    // rbp
	regs.Set(7, 0x2000-64) // rsp
	regs.Set(58, 0x7000)   // fs_base
	regs.SetBytes(17, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	mem := make([]byte, 0x100)
	for i := range mem {
		mem[i] = byte(i)
	}
	m := fakeMem{0x1000, mem}
	return &exprEnv{
		regs:      &regs,
		mem:       m.read,
		cfa:       0x2010,
		hasCFA:    true,
		frameBase: func() (uint64, error) { return 0x2010, nil },
		bias:      0x5550000,
		addrx:     func(i uint64) (uint64, error) { return 0x4000 + 8*i, nil },
		tls:       func(off uint64) (uint64, error) { return 0x7000 - 0x10 + off, nil },
		entryValue: func(expr []byte) (uint64, error) {
			if bytes.Equal(expr, []byte{opReg0 + 5}) {
				return 42, nil
			}
			return 0, ErrOptimizedOut
		},
		baseType: func(off uint64) (int, int64, error) {
			if off == 0x30 {
				return 1, EncSigned, nil
			}
			return 4, EncUnsigned, nil
		},
	}
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestEvalLocation(t *testing.T) {
	tests := []struct {
		name string
		expr []byte
		want Location
		err  error // errors.Is target; nil: success
	}{
		{"empty is optimized out", nil, Location{Kind: LocOptimizedOut}, nil},
		{"addr is biased", append([]byte{opAddr}, le64(0x4010)...), Location{Kind: LocAddress, Addr: 0x5554010}, nil},
		{"fbreg", []byte{opFbreg, 0x70}, Location{Kind: LocAddress, Addr: 0x2000}, nil}, // -16
		{"call_frame_cfa", []byte{opCallFrameCFA}, Location{Kind: LocAddress, Addr: 0x2010}, nil},
		{"breg rbp -8", []byte{opBreg0 + 6, 0x78}, Location{Kind: LocAddress, Addr: 0x1ff8}, nil},
		{"bregx rdi +4", []byte{opBregx, 5, 4}, Location{Kind: LocAddress, Addr: 0x1004}, nil},
		{"reg", []byte{opReg0 + 5}, Location{Kind: LocRegister, Reg: 5, Bytes: le64(0x1000)}, nil},
		{"regx xmm0", []byte{opRegx, 17}, Location{Kind: LocRegister, Reg: 17, Bytes: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}, nil},
		{"unknown register is optimized out", []byte{opBreg0 + 3, 0}, Location{}, ErrOptimizedOut},
		{"stack_value", []byte{opLit0 + 7, opLit0 + 3, opMinus, opStackValue}, Location{Kind: LocValue, Bytes: le64(4)}, nil},
		{"implicit_value", []byte{opImplicitValue, 2, 0xaa, 0xbb}, Location{Kind: LocValue, Bytes: []byte{0xaa, 0xbb}}, nil},
		{"deref", []byte{opConst2u, 0x08, 0x10, opDeref}, Location{Kind: LocAddress, Addr: 0x0f0e0d0c0b0a0908}, nil},
		{"deref_size 1", []byte{opConst2u, 0x08, 0x10, opDerefSize, 1, opStackValue}, Location{Kind: LocValue, Bytes: le64(8)}, nil},
		{"deref_size 3", []byte{opConst2u, 0x08, 0x10, opDerefSize, 3, opStackValue}, Location{Kind: LocValue, Bytes: le64(0x0a0908)}, nil},
		{"deref unmapped", []byte{opLit0, opDeref}, Location{}, nil /* checked below */},
		{"div by zero is an error", []byte{opLit0 + 1, opLit0, opDiv}, Location{}, nil},
		{"mod by zero is an error", []byte{opLit0 + 1, opLit0, opMod}, Location{}, nil},
		{"signed div", []byte{opConst1s, 0xf8, opLit0 + 2, opDiv, opStackValue}, Location{Kind: LocValue, Bytes: le64(^uint64(3))}, nil},
		{"bra taken", []byte{opLit0 + 1, opBra, 2, 0, opLit0 + 9, opStackValue, opLit0 + 5, opStackValue}, Location{Kind: LocValue, Bytes: le64(5)}, nil},
		{"entry_value of rdi", []byte{opEntryValue, 1, opReg0 + 5, opStackValue}, Location{Kind: LocValue, Bytes: le64(42)}, nil},
		{"GNU_entry_value of rsi", []byte{opGNUEntryValue, 1, opReg0 + 4, opStackValue}, Location{}, ErrOptimizedOut},
		{"addrx", []byte{opAddrx, 2}, Location{Kind: LocAddress, Addr: 0x5554010}, nil},
		{"constx is not biased", []byte{opConstx, 2, opStackValue}, Location{Kind: LocValue, Bytes: le64(0x4010)}, nil},
		{"form_tls_address", []byte{opConst8u, 4, 0, 0, 0, 0, 0, 0, 0, opFormTLSAddress}, Location{Kind: LocAddress, Addr: 0x6ff4}, nil},
		{"GNU_push_tls_address after addr", append(append([]byte{opAddr}, le64(8)...), opGNUPushTLSAddress), Location{Kind: LocAddress, Addr: 0x6ff8}, nil},
		{"implicit_pointer", []byte{opImplicitPointer, 0x34, 0x12, 0, 0, 4}, Location{Kind: LocImplicitPointer, PtrDIE: 0x1234, PtrOffset: 4}, nil},
		{"pieces", []byte{opReg0 + 5, opPiece, 4, opPiece, 4, opLit0 + 3, opStackValue, opPiece, 2},
			Location{Kind: LocPieces, Pieces: []Piece{
				{Loc: Location{Kind: LocRegister, Reg: 5, Bytes: le64(0x1000)}, Size: 4},
				{Loc: Location{Kind: LocOptimizedOut}, Size: 4},
				{Loc: Location{Kind: LocValue, Bytes: le64(3)[:2]}, Size: 2},
			}}, nil},
		{"convert to signed char", []byte{opConst1u, 0xff, opConvert, 0x30, opStackValue}, Location{Kind: LocValue, Bytes: le64(^uint64(0))}, nil},
		{"regval_type", []byte{opRegvalType, 5, 0x31, opStackValue}, Location{Kind: LocValue, Bytes: le64(0x1000)}, nil},
		{"GNU_parameter_ref is optimized out", []byte{opGNUParameterRef, 1, 2, 3, 4}, Location{}, ErrOptimizedOut},
		{"call2 unsupported", []byte{opCall2, 0, 0}, Location{}, ErrUnsupported},
		{"invalid opcode", []byte{0xff}, Location{}, ErrUnsupported},
		{"truncated operand", []byte{opConst4u, 1}, Location{}, nil},
		{"underflow", []byte{opPlus}, Location{}, nil},
		{"op after register", []byte{opReg0, opLit0}, Location{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalLocation(tt.expr, testEnv())
			wantErr := tt.err != nil || tt.want.Kind == LocOptimizedOut && tt.expr != nil
			if wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				if tt.err != nil && !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want.String() || !bytes.Equal(got.Bytes, tt.want.Bytes) {
				t.Fatalf("got %v (% x), want %v (% x)", got, got.Bytes, tt.want, tt.want.Bytes)
			}
		})
	}
}

func TestLocationRead(t *testing.T) {
	env := testEnv()
	loc := Location{Kind: LocPieces, Pieces: []Piece{
		{Loc: Location{Kind: LocAddress, Addr: 0x1004}, Size: 2},
		{Loc: Location{Kind: LocValue, Bytes: []byte{0xee, 0xff}}, Size: 2},
	}}
	b, err := loc.Read(t.Context(), env.mem, 4)
	if err != nil || !bytes.Equal(b, []byte{4, 5, 0xee, 0xff}) {
		t.Fatalf("Read = % x, %v", b, err)
	}
	loc.Pieces[1].Loc = Location{Kind: LocOptimizedOut}
	if _, err := loc.Read(t.Context(), env.mem, 4); !errors.Is(err, ErrOptimizedOut) {
		t.Fatalf("Read with an optimized-out piece: %v", err)
	}
	if _, err := (Location{Kind: LocValue, Bytes: []byte{1}}).Read(t.Context(), nil, 4); err != nil {
		t.Fatalf("short value must zero-extend: %v", err)
	}
}

// safeOps are opcodes on which delve's op package and ours must agree
// (no memory, branches, registers beyond those set, or locations).
var safeOps = map[byte]bool{opConst1u: true, opConst1s: true, opConst2u: true, opConst2s: true,
	opConst4u: true, opConst4s: true, opConst8u: true, opConst8s: true, opConstu: true, opConsts: true,
	opDup: true, opDrop: true, opOver: true, opPick: true, opSwap: true, opRot: true, opAbs: true,
	opAnd: true, opMinus: true, opMul: true, opNeg: true, opNot: true, opOr: true, opPlus: true,
	opPlusUconst: true, opShl: true, opShr: true, opShra: true, opXor: true, opEq: true, opGe: true,
	opGt: true, opLe: true, opLt: true, opNe: true}

// onlySafeOps decodes expr and reports whether it uses only safeOps and
// literals.
func onlySafeOps(expr []byte) bool {
	r := exprReader{b: expr}
	for r.pos < len(expr) {
		o := r.u8()
		switch {
		case o >= opLit0 && o <= opLit31:
		case !safeOps[o]:
			return false
		case o == opConst1u || o == opConst1s || o == opPick:
			r.fixed(1)
		case o == opConst2u || o == opConst2s:
			r.fixed(2)
		case o == opConst4u || o == opConst4s:
			r.fixed(4)
		case o == opConst8u || o == opConst8s:
			r.fixed(8)
		case o == opConstu || o == opPlusUconst:
			r.uleb()
		case o == opConsts:
			r.sleb()
		}
		if r.err != nil {
			return false
		}
	}
	return true
}

// FuzzLocationExpr checks that evaluating arbitrary bytes never panics or
// loops, and that on plain stack arithmetic the result equals delve's op
// package (run as an oracle).
func FuzzLocationExpr(f *testing.F) {
	seeds := [][]byte{
		{opFbreg, 0x70}, {opCallFrameCFA}, {opReg0 + 5}, {opBreg0 + 7, 8, opDeref},
		{opEntryValue, 1, opReg0 + 5, opStackValue}, {opLit0 + 1, opLit0, opDiv},
		{opConst2u, 0x08, 0x10, opDerefSize, 1}, {opAddrx, 0}, {opImplicitPointer, 1, 0, 0, 0, 0},
		{opReg0, opPiece, 8, opPiece, 8}, {opSkip, 0xfd, 0xff}, {opLit0 + 1, opBra, 0xfd, 0xff},
		{opConst1s, 0x80, opLit0 + 3, opShra, opLit0 + 2, opMul, opStackValue},
		{opConstu, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr []byte) {
		loc, err := evalLocation(expr, testEnv())
		if err != nil || !onlySafeOps(expr) || len(expr) == 0 {
			return
		}
		want, pieces, derr := func() (v int64, p []op.Piece, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return op.ExecuteStackProgram(op.DwarfRegisters{}, expr, 8, nil)
		}()
		if derr != nil || pieces != nil {
			return
		}
		if loc.Kind != LocAddress || loc.Addr != uint64(want) {
			t.Fatalf("% x: got %v, delve's op %#x", expr, loc, want)
		}
	})
}

func TestLocationReadPieces(t *testing.T) {
	env := testEnv()
	loc := Location{Kind: LocPieces, Pieces: []Piece{
		{Loc: Location{Kind: LocValue, Bytes: []byte{'a'}}, Size: 1},
		{Loc: Location{Kind: LocAddress, Addr: 0x1004}, Size: 2},
		// gcc -O2's bit-field struct: 3 bits of 5, 5 of 17, 4 of -3,
		// then 40 bits of a value, 11 bits left out
		{Loc: Location{Kind: LocValue, Bytes: []byte{5}}, Size: 1, BitSize: 3},
		{Loc: Location{Kind: LocValue, Bytes: []byte{17}}, Size: 1, BitSize: 5},
		{Loc: Location{Kind: LocValue, Bytes: []byte{0xfd}}, Size: 1, BitSize: 4},
		{Loc: Location{Kind: LocValue, Bytes: []byte{0xab, 0xcd}}, Size: 2, BitSize: 12, BitOffset: 4},
	}}
	b, err := loc.Read(t.Context(), env.mem, 5)
	if err != nil {
		t.Fatal(err)
	}
	// bits 24-26 = 101, 27-31 = 10001, 32-35 = 1101, 36-47 = 0xcda
	if want := []byte{'a', 4, 5, 0x8d, 0xad}; !bytes.Equal(b, want) {
		t.Fatalf("Read = % x, want % x", b, want)
	}
	if _, err := (Location{Kind: LocPieces, Pieces: []Piece{{Loc: Location{Kind: LocOptimizedOut}, Size: 2}}}).Read(t.Context(), nil, 2); !errors.Is(err, ErrOptimizedOut) {
		t.Fatalf("optimized out: %v", err)
	}
}

// TestFrameFree: a location needs no frame where it computes an address
// or a value from constants and memory alone (GDB's
// symbol_read_needs_frame): DW_OP_addr, with DW_OP_stack_value or a
// dereference; a register, a register-relative address, the frame base,
// the CFA or an entry value need one.
func TestFrameFree(t *testing.T) {
	addr := []byte{opAddr, 0x20, 0x40, 0, 0, 0, 0, 0, 0}
	img := &Image{}
	for _, tt := range []struct {
		name string
		expr []byte
		want bool
	}{
		{"addr", addr, true},
		{"addr stack_value", append(slices.Clone(addr), opStackValue), true},
		{"addr deref", append(slices.Clone(addr), opDeref), true},
		{"lit stack_value", []byte{opLit0 + 3, opStackValue}, true},
		{"fbreg", []byte{opFbreg, 0x6c}, false},
		{"reg", []byte{opReg0 + 5}, false},
		{"breg", []byte{opBreg0 + 7, 8}, false},
		{"cfa", []byte{opCallFrameCFA}, false},
		{"entry_value", []byte{opEntryValue, 1, opReg0 + 5, opStackValue}, false},
		{"empty", nil, false},
	} {
		if got := img.frameFree(tt.expr); got != tt.want {
			t.Errorf("%s: frameFree %v, want %v", tt.name, got, tt.want)
		}
	}
}
