package eval

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"github.com/rrmcp/rrmcp/dwarf"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// GDB's string convenience functions, evaluated natively because they
// are what breakpoint conditions on strings use: $_streq(a, b),
// $_strlen(s), $_memeq(a, b, n) and $_regex(s, re).

// maxConvString bounds the strings the convenience functions read.
const maxConvString = 1 << 16

func (ev *evaluator) convCall(f *cexpr.ConvFunc, args []cexpr.Expr) (dwarf.Object, error) {
	want := map[string]int{"_streq": 2, "_strlen": 1, "_memeq": 3, "_regex": 2}[f.Name]
	if len(args) != want {
		return dwarf.Object{}, fmt.Errorf("$%s takes %d arguments, got %d", f.Name, want, len(args))
	}
	vals := make([]dwarf.Object, len(args))
	for i, a := range args {
		v, err := ev.eval(a)
		if err != nil {
			return dwarf.Object{}, err
		}
		vals[i] = v
	}
	intT := ev.base("int")
	switch f.Name {
	case "_strlen":
		s, err := ev.cString(vals[0])
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.makeInt(intT, int64(len(s))), nil
	case "_streq":
		a, err := ev.cString(vals[0])
		if err != nil {
			return dwarf.Object{}, err
		}
		b, err := ev.cString(vals[1])
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.makeInt(intT, b2i(bytes.Equal(a, b))), nil
	case "_regex":
		a, err := ev.cString(vals[0])
		if err != nil {
			return dwarf.Object{}, err
		}
		re, err := ev.cString(vals[1])
		if err != nil {
			return dwarf.Object{}, err
		}
		// GDB's $_regex is Python's re.match: anchored at the start
		rx, err := regexp.Compile("^(?:" + string(re) + ")")
		if err != nil {
			return dwarf.Object{}, fmt.Errorf("$_regex: %w", err)
		}
		return ev.makeInt(intT, b2i(rx.Match(a))), nil
	case "_memeq":
		n, err := ev.scalarOf(vals[2])
		if err != nil || n.isFloat || n.isPtr || n.i < 0 || n.i > maxConvString {
			return dwarf.Object{}, errors.New("$_memeq: bad length")
		}
		a, err := ev.bytesAt(vals[0], int(n.i))
		if err != nil {
			return dwarf.Object{}, err
		}
		b, err := ev.bytesAt(vals[1], int(n.i))
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.makeInt(intT, b2i(bytes.Equal(a, b))), nil
	}
	return dwarf.Object{}, unsupported("$" + f.Name)
}

// cString reads the C string an expression denotes: a char array (up to
// its first NUL) or a char pointer.
func (ev *evaluator) cString(o dwarf.Object) ([]byte, error) {
	o, err := ev.deref0(o)
	if err != nil {
		return nil, err
	}
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.ArrayType:
		if _, ok := dwarf.IsCharType(t.Elem); !ok || dwarf.SizeOf(t.Elem) != 1 {
			return nil, errors.New("not a string")
		}
		n := min(t.Count, maxConvString)
		b, err := ev.env.Bytes(ev.env.Part(o, &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: n}, Elem: t.Elem, Count: n}, 0))
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return b, nil
	case *dwarf.PointerType:
		if _, ok := dwarf.IsCharType(t.Elem); !ok || dwarf.SizeOf(t.Elem) != 1 {
			return nil, errors.New("not a string")
		}
		a, err := ev.env.Uint(o)
		if err != nil {
			return nil, err
		}
		cs, _, err := ev.env.ReadCString(a, 1, maxConvString)
		if err != nil && len(cs) == 0 {
			return nil, err
		}
		b := make([]byte, len(cs))
		for i, c := range cs {
			b[i] = byte(c)
		}
		return b, nil
	}
	return nil, errors.New("not a string")
}

// bytesAt returns n bytes at the address an expression denotes (a
// pointer's target or an array's start).
func (ev *evaluator) bytesAt(o dwarf.Object, n int) ([]byte, error) {
	sc, err := ev.scalarOf(o)
	if err != nil {
		return nil, err
	}
	if !sc.isPtr {
		return nil, errors.New("$_memeq: arguments must be pointers or arrays")
	}
	return ev.env.Read(uint64(sc.i), n)
}
