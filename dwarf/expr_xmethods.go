package dwarf

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// This file evaluates the libstdc++ "xmethods" GDB ships (operator*,
// operator->, operator[], get(), size(), empty(), front(), back(), at())
// for smart pointers and the common containers, natively, without
// calling code in the target. Anything else on a class is an
// ErrUnsupportedExpr (the session may ask GDB).

// smartPointer returns the stored pointer of a std::unique_ptr,
// shared_ptr or weak_ptr object.
func (ev *evaluator) smartPointer(x Object) (Object, bool) {
	st, ok := Resolve(x.Type).(*StructType)
	if !ok || st.Lang != LangCPlusPlus {
		return Object{}, false
	}
	switch templateBase(st.Name) {
	case "std::unique_ptr":
		t, err := ev.env.member(x, "_M_t")
		if err != nil {
			return Object{}, false
		}
		return ev.env.findPointerMember(t, "_M_head_impl", 0)
	case "std::shared_ptr", "std::weak_ptr":
		p, err := ev.env.member(x, "_M_ptr")
		return p, err == nil
	}
	return Object{}, false
}

// xmethodIndex is container[i] for std::vector and std::array.
func (ev *evaluator) xmethodIndex(x Object, st *StructType, i int64) (Object, error) {
	switch templateBase(st.Name) {
	case "std::vector":
		if et := ev.env.templateArg(st, 0); et != nil && isBool(et) {
			break // vector<bool> packs bits
		}
		start, err := ev.env.memberPath(x, "_M_impl", "_M_start")
		if err != nil {
			return Object{}, err
		}
		pt, ok := Resolve(start.Type).(*PointerType)
		if !ok {
			break
		}
		p, err := ev.env.Uint(start)
		if err != nil {
			return Object{}, err
		}
		return MemObject(pt.Elem, p+uint64(i*sizeOf(pt.Elem))), nil
	case "std::__cxx11::basic_string", "std::basic_string":
		p, err := ev.env.memberPath(x, "_M_dataplus", "_M_p")
		if err != nil {
			return Object{}, err
		}
		pt, ok := Resolve(p.Type).(*PointerType)
		if !ok {
			break
		}
		a, err := ev.env.Uint(p)
		if err != nil {
			return Object{}, err
		}
		return MemObject(pt.Elem, a+uint64(i*sizeOf(pt.Elem))), nil
	case "std::array":
		elems, err := ev.env.member(x, "_M_elems")
		if err != nil {
			return Object{}, err
		}
		if at, ok := Resolve(elems.Type).(*ArrayType); ok {
			return ev.env.sub(elems, at.Elem, i*sizeOf(at.Elem)), nil
		}
	}
	return Object{}, unsupported("operator[] of " + st.Name)
}

// xmethodCall evaluates recv.name(args) for the libstdc++ xmethods.
func (ev *evaluator) xmethodCall(recv Object, name string, args []cexpr.Expr) (Object, error) {
	recv, err := ev.deref0(recv)
	if err != nil {
		return Object{}, err
	}
	st, ok := Resolve(recv.Type).(*StructType)
	if !ok || st.Lang != LangCPlusPlus || !strings.HasPrefix(st.Name, "std::") {
		return Object{}, unsupported("function calls")
	}
	base := templateBase(st.Name)
	argInt := func() (int64, error) {
		if len(args) != 1 {
			return 0, fmt.Errorf("%s.%s takes one argument", base, name)
		}
		a, err := ev.eval(args[0])
		if err != nil {
			return 0, err
		}
		sc, err := ev.scalarOf(a)
		if err != nil || sc.isFloat || sc.isPtr {
			return 0, fmt.Errorf("%s.%s: argument is not an integer", base, name)
		}
		return sc.i, nil
	}
	if p, ok := ev.smartPointer(recv); ok && name == "get" && len(args) == 0 {
		return p, nil
	}
	isString := base == "std::__cxx11::basic_string" || base == "std::basic_string"
	if isString && len(args) == 0 && (name == "c_str" || name == "data") {
		// the character pointer, typed const CharT * as the functions return
		p, err := ev.env.memberPath(recv, "_M_dataplus", "_M_p")
		if err != nil {
			return Object{}, err
		}
		if pt, ok := Resolve(p.Type).(*PointerType); ok {
			a, err := ev.env.Uint(p)
			if err != nil {
				return Object{}, err
			}
			ct := &PointerType{CommonType: CommonType{ByteSize: 8, Lang: LangCPlusPlus},
				Elem: &QualType{CommonType: CommonType{Lang: LangCPlusPlus}, Qual: "const", Elem: pt.Elem}}
			return ev.pointerToTyped(ct, a), nil
		}
	}
	if isString && name == "length" {
		name = "size"
	}
	size := func() (int64, error) {
		switch base {
		case "std::__cxx11::basic_string", "std::basic_string":
			if c, err := ev.env.member(recv, "_M_string_length"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::vector":
			if et := ev.env.templateArg(st, 0); et != nil && !isBool(et) {
				start, err1 := ev.env.memberPath(recv, "_M_impl", "_M_start")
				finish, err2 := ev.env.memberPath(recv, "_M_impl", "_M_finish")
				if err1 == nil && err2 == nil {
					s, err1 := ev.env.Uint(start)
					f, err2 := ev.env.Uint(finish)
					if es := sizeOf(et); err1 == nil && err2 == nil && es > 0 && f >= s {
						return int64(f-s) / es, nil
					}
				}
			}
		case "std::array":
			if elems, err := ev.env.member(recv, "_M_elems"); err == nil {
				if at, ok := Resolve(elems.Type).(*ArrayType); ok {
					return at.Count, nil
				}
			}
		case "std::map", "std::multimap", "std::set", "std::multiset":
			if c, err := ev.env.memberPath(recv, "_M_t", "_M_impl", "_M_node_count"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::unordered_map", "std::unordered_set", "std::unordered_multimap", "std::unordered_multiset":
			if c, err := ev.env.memberPath(recv, "_M_h", "_M_element_count"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::__cxx11::list", "std::list":
			if c, err := ev.env.memberPath(recv, "_M_impl", "_M_node", "_M_size"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		}
		return 0, unsupported(base + "::size")
	}
	switch name {
	case "size":
		if len(args) == 0 {
			n, err := size()
			if err != nil {
				return Object{}, err
			}
			return ev.makeInt(ev.base("unsigned long"), n), nil
		}
	case "empty":
		if len(args) == 0 {
			n, err := size()
			if err != nil {
				return Object{}, err
			}
			return ev.makeInt(ev.base("bool"), b2i(n == 0)), nil
		}
	case "front", "back", "at":
		var i int64
		switch name {
		case "back":
			n, err := size()
			if err != nil {
				return Object{}, err
			}
			i = n - 1
		case "at":
			if i, err = argInt(); err != nil {
				return Object{}, err
			}
			n, err := size()
			if err != nil {
				return Object{}, err
			}
			if i < 0 || i >= n {
				return Object{}, fmt.Errorf("%s::at: index %d out of range (size %d)", base, i, n)
			}
		}
		if len(args) > 0 && name != "at" {
			break
		}
		return ev.xmethodIndex(recv, st, i)
	}
	return Object{}, unsupported("call of " + base + "::" + name)
}

func (ev *evaluator) pointerToTyped(t *PointerType, addr uint64) Object {
	return BytesObject(t, binary.LittleEndian.AppendUint64(nil, addr))
}
