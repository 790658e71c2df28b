package dwarf

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// VarKind classifies a variable the way GDB's "info locals/args" does.
type VarKind uint8

const (
	VarLocal  VarKind = iota // automatic variable of a function or block
	VarParam                 // formal parameter
	VarStatic                // function-static or file-static (CU-local)
	VarGlobal                // external variable visible across CUs
)

var varKindNames = [...]string{"local", "param", "static", "global"}

func (k VarKind) String() string { return kindName(varKindNames[:], k, "VarKind") }

// Variable is a variable found by scope lookup, with its location
// evaluated in the frame it was looked up in.
type Variable struct {
	Name string
	Kind VarKind
	// Image holds the DWARF of the variable and its type.
	Image *Image
	// Offset is the variable's own DIE (the concrete one for inlined or
	// out-of-line copies).
	Offset stddwarf.Offset
	// TypeOff is the offset of the type DIE in Image's .debug_info; 0 if
	// the variable has no type attribute.
	TypeOff  stddwarf.Offset
	DeclFile string
	DeclLine int
	// Location of the value at the frame's pc. Kind is LocOptimizedOut
	// when the compiler kept no value; LocErr then says why when the
	// reason is something else (an unsupported expression).
	Location Location
	LocErr   error
	// Shadowed is true when an inner scope has a variable of the same
	// name (GDB still lists such variables in "info locals").
	Shadowed bool
	// NoLocation: the DIE has neither DW_AT_location nor
	// DW_AT_const_value (GDB's LOC_OPTIMIZED_OUT); ConstValue: it has
	// DW_AT_const_value (LOC_CONST). GDB's "info args/locals" list both
	// kinds; MI's -stack-list-variables/-arguments/-locals omit them.
	// ConstBytes: that value is a block of bytes or a string (a const
	// double, struct or array gcc folded; GDB's LOC_CONST_BYTES), which
	// "info locals" does not list.
	NoLocation bool
	// Label: a goto label without an address (clang -O2 merged its
	// code away), which GDB makes an optimized-out local
	// (LOC_OPTIMIZED_OUT) that info locals lists and no expression
	// names.
	Label      bool
	ConstValue bool
	ConstBytes bool
	// Unresolved is, for an extern declaration with no definition in the
	// debug information (a global of an object or library built without
	// -g: stdout, optind), the ELF symbol its address is found by, as
	// GDB's LOC_UNRESOLVED: the linkage name, else the name.
	Unresolved string
}

// attrGetter is what godwarf tree entries and stdlib entries share.
type attrGetter interface {
	Val(stddwarf.Attr) any
	AttrField(stddwarf.Attr) *stddwarf.Field
}

// frameEnv is the evaluation context of one frame's variables.
type frameEnv struct {
	frame *Frame
	p     *physFrame
	u     *unit
	fn    *Function
	t     *Target
	file  uint64 // lookup pc as file address
}

// newVariable builds a Variable from a variable or parameter DIE and
// evaluates its location in env (env may be nil for no frame).
func (img *Image) newVariable(e attrGetter, off stddwarf.Offset, u *unit, kind VarKind, env *exprEnv, pc uint64) Variable {
	v := Variable{Kind: kind, Image: img, Offset: off}
	v.Name, _ = e.Val(stddwarf.AttrName).(string)
	v.TypeOff, _ = e.Val(stddwarf.AttrType).(stddwarf.Offset)
	if u != nil {
		if i := declFileIndex(e, u.version); i >= 0 {
			v.DeclFile = u.fileName(i)
		}
	}
	v.DeclLine = attrInt2(e, stddwarf.AttrDeclLine)
	if f := e.AttrField(stddwarf.AttrConstValue); f != nil {
		v.ConstValue = true
		switch f.Val.(type) {
		case []byte, string:
			v.ConstBytes = true
		}
	}
	v.NoLocation = !v.ConstValue && e.AttrField(stddwarf.AttrLocation) == nil
	v.Location, v.LocErr = img.locate(e, u, env, pc)
	if v.LocErr != nil && errors.Is(v.LocErr, ErrOptimizedOut) {
		v.Location = Location{Kind: LocOptimizedOut}
	}
	return v
}

func attrInt2(e attrGetter, a stddwarf.Attr) int {
	switch v := e.Val(a).(type) {
	case int64:
		return int(v)
	case uint64:
		return int(v)
	}
	return 0
}

// locate evaluates a DIE's DW_AT_location (expression or list) or
// DW_AT_const_value at file pc.
func (img *Image) locate(e attrGetter, u *unit, env *exprEnv, pc uint64) (Location, error) {
	if f := e.AttrField(stddwarf.AttrConstValue); f != nil {
		switch v := f.Val.(type) {
		case int64:
			return Location{Kind: LocValue, Bytes: binary.LittleEndian.AppendUint64(nil, uint64(v))}, nil
		case uint64:
			return Location{Kind: LocValue, Bytes: binary.LittleEndian.AppendUint64(nil, v)}, nil
		case []byte:
			return Location{Kind: LocValue, Bytes: append([]byte(nil), v...)}, nil
		case string:
			return Location{Kind: LocValue, Bytes: append([]byte(v), 0)}, nil
		}
	}
	f := e.AttrField(stddwarf.AttrLocation)
	if f == nil {
		return Location{Kind: LocOptimizedOut}, nil
	}
	var expr []byte
	switch f.Class {
	case stddwarf.ClassExprLoc, stddwarf.ClassBlock:
		expr, _ = f.Val.([]byte)
	case stddwarf.ClassLocListPtr, stddwarf.ClassLocList:
		var err error
		expr, err = img.loclistExpr(u, f, pc, env != nil && env.hasEntryPC && env.entryPC == pc)
		if err != nil {
			return Location{}, err
		}
		if expr == nil {
			return Location{Kind: LocOptimizedOut}, nil
		}
	default:
		return Location{}, fmt.Errorf("location class %v: %w", f.Class, ErrUnsupported)
	}
	if env == nil {
		env = &exprEnv{}
	}
	if env.arch == nil && img.arch != nil {
		e := *env
		e.arch = img.arch
		env = &e
	}
	return evalLocation(expr, env)
}

// locationFrameFree reports whether the location of the variable DIE e
// needs no frame (GDB's symbol_read_needs_frame is false): a constant,
// or one expression (not a list) that reads no register, frame base,
// CFA or entry value and names no register, an address or a value
// computed from addresses and memory only (gcc's DW_OP_addr g;
// DW_OP_stack_value for a parameter only ever passed &g).
func (img *Image) locationFrameFree(e attrGetter) bool {
	if e.AttrField(stddwarf.AttrConstValue) != nil {
		return true
	}
	f := e.AttrField(stddwarf.AttrLocation)
	if f == nil || f.Class != stddwarf.ClassExprLoc && f.Class != stddwarf.ClassBlock {
		return false
	}
	expr, _ := f.Val.([]byte)
	return img.frameFree(expr)
}

// frameFree reports whether a location expression needs no frame: it
// evaluates with no registers, frame base, CFA or entry values (memory
// reads answer zeros) to an address or a value.
func (img *Image) frameFree(expr []byte) bool {
	zeros := func(_ context.Context, _ uint64, p []byte) (int, error) {
		clear(p)
		return len(p), nil
	}
	loc, err := evalLocation(expr, &exprEnv{ctx: context.Background(), mem: zeros, arch: img.arch})
	if err != nil {
		return false
	}
	switch loc.Kind {
	case LocAddress, LocValue:
		return true
	case LocPieces:
		for _, p := range loc.Pieces {
			if p.Loc.Kind != LocAddress && p.Loc.Kind != LocValue {
				return false
			}
		}
		return true
	}
	return false
}

// staticAddr is the file address a static's location expression gives:
// DW_OP_addr, or DW_OP_addrx (clang's DWARF 5) or DW_OP_GNU_addr_index
// through the unit's .debug_addr; ok is false for any other expression.
func (u *unit) staticAddr(loc []byte) (a uint64, ok bool) {
	if len(loc) < 2 {
		return 0, false
	}
	switch loc[0] {
	case opAddr:
		if n := u.addrSize; len(loc) == 1+n && (n == 4 || n == 8) {
			return DecodeUint(loc[1:]), true
		}
	case opAddrx, opGNUAddrIndex:
		if idx, n, complete := uleb128(loc[1:]); complete && 1+n == len(loc) {
			a, err := u.addrx(idx)
			return a, err == nil
		}
	}
	return 0, false
}

// addrx reads entry idx of the unit's .debug_addr contribution.
func (u *unit) addrx(idx uint64) (uint64, error) {
	a := u.img.section(".debug_addr")
	n := uint64(u.addrSize)
	p := u.addrBase + idx*n
	if a == nil || n != 4 && n != 8 || p+n > uint64(len(a)) {
		return 0, &FormatError{".debug_addr", p, "index out of range"}
	}
	if n == 4 {
		return uint64(binary.LittleEndian.Uint32(a[p:])), nil
	}
	return binary.LittleEndian.Uint64(a[p:]), nil
}

// baseType returns size and encoding of the base type at a unit-relative
// offset (for the typed DWARF stack).
func (u *unit) baseType(off uint64) (int, int64, error) {
	r := u.img.dw.Reader()
	r.Seek(u.start + stddwarf.Offset(off))
	e, err := r.Next()
	if err != nil || e == nil || e.Tag != stddwarf.TagBaseType {
		return 0, 0, &FormatError{".debug_info", uint64(u.start) + off, "not a base type"}
	}
	size, _ := e.Val(stddwarf.AttrByteSize).(int64)
	enc, _ := e.Val(stddwarf.AttrEncoding).(int64)
	return int(size), enc, nil
}

// tlsAddr returns the address of offset off in this image's TLS block for
// the thread whose fs_base is in regs.
func (img *Image) tlsAddr(ctx context.Context, regs *Regs, mem ReadMemoryFunc, off uint64) (uint64, error) {
	tp, ok := regs.Get(regnum.AMD64_Fs_base)
	if !ok || tp == 0 {
		return 0, fmt.Errorf("thread pointer (fs_base) unknown: %w", ErrUnsupported)
	}
	if img.TLSModule == 0 && img.isExecutable() {
		for _, p := range img.exe.Progs {
			if p.Type == elf.PT_TLS {
				align := max(p.Align, 1)
				size := (p.Memsz + align - 1) / align * align
				return tp - size + off, nil
			}
		}
		return 0, fmt.Errorf("no PT_TLS segment: %w", ErrUnsupported)
	}
	if img.TLSModule == 0 {
		return 0, fmt.Errorf("TLS module id of %s unknown: %w", img.Path, ErrUnsupported)
	}
	t := Target{ReadMemory: mem}
	dtv, err := t.readUint(ctx, tp+8, 8)
	if err != nil {
		return 0, err
	}
	block, err := t.readUint(ctx, dtv+16*img.TLSModule, 8)
	if err != nil {
		return 0, err
	}
	if block == 0 || block == ^uint64(0) {
		return 0, fmt.Errorf("TLS block not allocated for this thread: %w", ErrOptimizedOut)
	}
	return block + off, nil
}

// isExecutable reports whether the image is a program rather than a
// shared library (ET_EXEC, or ET_DYN with an interpreter).
func (img *Image) isExecutable() bool {
	if img.exe.Type == elf.ET_EXEC {
		return true
	}
	for _, p := range img.exe.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}
