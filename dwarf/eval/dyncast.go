package eval

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// dynamicCast evaluates dynamic_cast<t>(x) as the C++ runtime does: the
// object's dynamic type is named by its vtable ("vtable for Derived"),
// and offset-to-top, the word two slots before the vtable's address
// point, leads from the subobject x points to to the whole object; the
// result points to the T inside that object, is null (a pointer cast)
// where there is none, and is an error (a reference cast) there. T may
// be void (the whole object). GDB 13's own dynamic_cast returns the
// vtable's address instead of the object's.
func (ev *evaluator) dynamicCast(x dwarf.Object, t dwarf.Type) (dwarf.Object, error) {
	if ev.lang != dwarf.LangCPlusPlus {
		return dwarf.Object{}, unsupported("dynamic_cast outside C++")
	}
	var target dwarf.Type
	ref := false
	switch tt := dwarf.Resolve(t).(type) {
	case *dwarf.PointerType:
		target = tt.Elem
	case *dwarf.ReferenceType:
		target, ref = tt.Elem, true
	default:
		return dwarf.Object{}, errors.New("Argument to dynamic_cast must be a pointer or reference type")
	}
	ts, isClass := dwarf.Resolve(target).(*dwarf.StructType)
	_, isVoid := dwarf.Resolve(target).(*dwarf.VoidType)
	if !isClass && (ref || !isVoid) {
		return dwarf.Object{}, errors.New("Argument to dynamic_cast must be pointer to class or `void *'")
	}
	// The operand: a pointer to a class, or (a reference cast) an object
	// of class type.
	var addr uint64
	var src dwarf.Type
	if ref {
		o, err := ev.deref0(x)
		if err != nil {
			return dwarf.Object{}, err
		}
		a, ok := o.Addr()
		if !ok {
			return dwarf.Object{}, errors.New("Argument to dynamic_cast does not have class type")
		}
		addr, src = a, o.Type
	} else {
		o, err := ev.deref0(x)
		if err != nil {
			return dwarf.Object{}, err
		}
		pt, ok := dwarf.Resolve(o.Type).(*dwarf.PointerType)
		if !ok {
			return dwarf.Object{}, errors.New("Argument to dynamic_cast does not have pointer type")
		}
		v, err := ev.env.Uint(o)
		if err != nil {
			return dwarf.Object{}, err
		}
		addr, src = v, pt.Elem
	}
	if _, ok := dwarf.Resolve(src).(*dwarf.StructType); !ok {
		return dwarf.Object{}, errors.New("Argument to dynamic_cast does not have pointer to class type")
	}
	null := ev.makeInt(t, 0)
	if addr == 0 && !ref {
		return null, nil
	}
	full, dyn, err := ev.mostDerived(addr)
	if err != nil {
		return dwarf.Object{}, err
	}
	found, ok := full, true
	if !isVoid {
		found, ok = ev.classIn(full, dyn, ts)
	}
	switch {
	case ok && ref:
		return dwarf.BytesObject(t, ev.ptrBytes(found)), nil
	case ok:
		return ev.makeInt(t, int64(found)), nil
	case ref:
		return dwarf.Object{}, errors.New("dynamic_cast failed")
	}
	return null, nil
}

// classIn is the address of the class ts inside the whole object of
// dynamic type dyn at full: full itself where ts is dyn, else its base
// ts; ok is false where dyn has none.
func (ev *evaluator) classIn(full uint64, dyn, ts *dwarf.StructType) (uint64, bool) {
	if sameName(dyn, ts) {
		return full, true
	}
	if b, ok := ev.upcast(dwarf.MemObject(dyn, full), dyn, ts, 0); ok && b.Err == nil {
		return b.Addr()
	}
	return 0, false
}

// mostDerived reads the vtable pointer of the polymorphic object at
// addr: the whole object's address and its dynamic type.
func (ev *evaluator) mostDerived(addr uint64) (full uint64, dyn *dwarf.StructType, err error) {
	const why = "Couldn't determine value's most derived type for dynamic_cast"
	ps := int(ev.ptrSize())
	vptr, err := ev.readPtr(addr)
	if err != nil {
		return 0, nil, err
	}
	if ev.env.Symbolize == nil || ev.env.Types == nil {
		return 0, nil, errors.New(why)
	}
	sym, ok := ev.env.Symbolize(vptr)
	name, found := strings.CutPrefix(sym, "vtable for ")
	if !ok || !found {
		return 0, nil, fmt.Errorf("%s (the object's first word, %#x, is no vtable address)", why, vptr)
	}
	if i := strings.LastIndexByte(name, '+'); i > 0 {
		if _, err := strconv.ParseUint(name[i+1:], 0, 64); err == nil {
			name = name[:i]
		}
	}
	t, err := ev.env.Types.LookupType(name)
	if err != nil {
		return 0, nil, fmt.Errorf("%s (no type %s): %w", why, name, err)
	}
	st, ok := dwarf.Resolve(t).(*dwarf.StructType)
	if !ok {
		return 0, nil, errors.New(why)
	}
	b, err := ev.env.Read(vptr-uint64(2*ps), ps)
	if err != nil {
		return 0, nil, err
	}
	var top int64
	if ps == 4 {
		top = int64(int32(binary.LittleEndian.Uint32(b)))
	} else {
		top = int64(binary.LittleEndian.Uint64(b))
	}
	return addr + uint64(top), st, nil
}

// readPtr reads a pointer-sized word at addr.
func (ev *evaluator) readPtr(addr uint64) (uint64, error) {
	ps := int(ev.ptrSize())
	b, err := ev.env.Read(addr, ps)
	if err != nil {
		return 0, err
	}
	if ps == 4 {
		return uint64(binary.LittleEndian.Uint32(b)), nil
	}
	return binary.LittleEndian.Uint64(b), nil
}

// ptrBytes is addr as a pointer-sized little-endian word.
func (ev *evaluator) ptrBytes(addr uint64) []byte {
	if ev.ptrSize() == 4 {
		return binary.LittleEndian.AppendUint32(nil, uint32(addr))
	}
	return binary.LittleEndian.AppendUint64(nil, addr)
}
