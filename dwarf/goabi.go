package dwarf

import stddwarf "debug/dwarf"

// GoResult is one result of a Go function, as its DWARF lists it: a
// formal parameter marked DW_AT_variable_parameter (~r0, or its name).
type GoResult struct {
	Name string
	Type Type
}

// GoResults returns the results of the Go function f, in order, with
// their types read by tr; none for a function of another language.
func (f *Function) GoResults(tr *TypeReader) []GoResult {
	if f.cu.lang != dwLangGo || tr == nil {
		return nil
	}
	t, err := f.Tree()
	if err != nil {
		return nil
	}
	var out []GoResult
	seen := map[string]bool{}
	for _, c := range t.Children {
		if c.Tag != stddwarf.TagFormalParameter {
			continue
		}
		if res, _ := c.Val(stddwarf.AttrVarParam).(bool); !res {
			continue
		}
		name, _ := c.Val(stddwarf.AttrName).(string)
		if seen[name] {
			continue // the optimizing compiler lists a result twice (~r0, ~r0)
		}
		seen[name] = true
		off, ok := c.Val(stddwarf.AttrType).(stddwarf.Offset)
		if !ok {
			return nil
		}
		rt, err := tr.Type(off)
		if err != nil {
			return nil
		}
		out = append(out, GoResult{Name: name, Type: rt})
	}
	return out
}

// Go's internal ABI on amd64 (ABIInternal, Go 1.17 and later): the
// integer registers, in assignment order, and the first floating-point
// one, as DWARF register numbers (rax rbx rcx rdi rsi r8 r9 r10 r11;
// xmm0 … xmm14).
var goIntRegs = []int{0, 3, 2, 5, 4, 8, 9, 10, 11}

const (
	goFloatRegs       = 15
	goFirstFloatDwarf = 17
	encComplexFloat   = 0x3 // DW_ATE_complex_float
)

// GoResultBytes assembles the values of results from the registers where
// a Go function returning them left them, by Go's register assignment
// (each result in turn, integers and pointers in the next integer
// registers, floats in the next xmm registers, a string, slice or
// interface in two or three integer registers, a struct field by field,
// an array of one element as that element). reg gives a register's
// bytes. ok is false where the results do not fit in registers (Go then
// returns them on the stack) or a type is not one it knows.
func GoResultBytes(results []GoResult, reg func(dwarfReg int) ([]byte, bool)) (vals [][]byte, ok bool) {
	a := goAssigner{reg: reg}
	for _, r := range results {
		b := make([]byte, max(SizeOf(r.Type), 0))
		if !a.assign(r.Type, b, 0) {
			return nil, false
		}
		vals = append(vals, b)
	}
	return vals, true
}

type goAssigner struct {
	reg        func(int) ([]byte, bool)
	ints, flts int
}

// assign fills b (the bytes of a value of type t at offset 0 of b) from
// the next registers.
func (a *goAssigner) assign(t Type, b []byte, depth int) bool {
	if depth > 16 {
		return false
	}
	switch t := Resolve(t).(type) {
	case *BaseType:
		switch {
		case t.Encoding == EncFloat && (t.ByteSize == 4 || t.ByteSize == 8):
			return a.float(b)
		case t.Encoding == encComplexFloat && (t.ByteSize == 8 || t.ByteSize == 16):
			h := t.ByteSize / 2
			return a.float(b[:h]) && a.float(b[h:])
		case t.ByteSize <= 8:
			return a.int(b)
		}
		return false
	case *PointerType:
		return a.int(b)
	case *StructType:
		if t.Incomplete || t.Variants != nil {
			return false
		}
		for _, f := range t.Fields {
			size := SizeOf(f.Type)
			if f.BitSize != 0 || f.ByteOffset < 0 || size < 0 || f.ByteOffset+size > int64(len(b)) {
				return false
			}
			if !a.assign(f.Type, b[f.ByteOffset:f.ByteOffset+size], depth+1) {
				return false
			}
		}
		return true
	case *ArrayType:
		switch t.Count {
		case 0:
			return true
		case 1:
			return a.assign(t.Elem, b, depth+1)
		}
		return false
	case *EnumType:
		return a.int(b)
	}
	return false
}

func (a *goAssigner) int(b []byte) bool {
	if a.ints >= len(goIntRegs) || len(b) > 8 {
		return false
	}
	v, ok := a.reg(goIntRegs[a.ints])
	a.ints++
	if !ok || len(v) < len(b) {
		return false
	}
	copy(b, v)
	return true
}

func (a *goAssigner) float(b []byte) bool {
	if a.flts >= goFloatRegs || len(b) > 8 {
		return false
	}
	v, ok := a.reg(goFirstFloatDwarf + a.flts)
	a.flts++
	if !ok || len(v) < len(b) {
		return false
	}
	copy(b, v)
	return true
}
