package eval

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"

	"github.com/rrmcp/rrmcp/dwarf/cexpr"
)

// This file evaluates the libstdc++ "xmethods" GDB ships (operator*,
// operator->, operator[], get(), size(), empty(), front(), back(), at())
// for smart pointers and the common containers, natively, without
// calling code in the target. Anything else on a class is an
// ErrUnsupportedExpr (the session may ask GDB).

// smartPointer returns the stored pointer of a std::unique_ptr,
// shared_ptr or weak_ptr object.
func (ev *evaluator) smartPointer(x dwarf.Object) (dwarf.Object, bool) {
	st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType)
	if !ok || st.Lang != dwarf.LangCPlusPlus {
		return dwarf.Object{}, false
	}
	switch dwarf.TemplateBase(st.Name) {
	case "std::unique_ptr":
		t, err := ev.env.Member(x, "_M_t")
		if err != nil {
			return dwarf.Object{}, false
		}
		return ev.env.FindPointerMember(t, "_M_head_impl", 0)
	case "std::shared_ptr", "std::weak_ptr":
		p, err := ev.env.Member(x, "_M_ptr")
		return p, err == nil
	}
	return dwarf.Object{}, false
}

// pointee is *x for a class that acts as a pointer: a smart pointer's
// object, a libstdc++ iterator's element, a std::optional's value; ok is
// false for other classes.
func (ev *evaluator) pointee(x dwarf.Object) (dwarf.Object, bool, error) {
	if p, ok := ev.smartPointer(x); ok {
		o, err := ev.deref(p)
		return o, true, err
	}
	if o, ok, err := ev.env.StdIterTarget(x); ok {
		return o, true, err
	}
	if st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok && dwarf.TemplateBase(st.Name) == "std::optional" {
		v, engaged, err := ev.env.StdOptional(x)
		if err == nil && !engaged {
			err = errors.New("std::optional holds no value")
		}
		return v, true, err
	}
	return dwarf.Object{}, false, nil
}

// callResult is o as the result of the operator op of x's class that
// libstdc++ has no xmethod for (an iterator's or std::optional's
// operator*, a string's operator[]), which GDB evaluates by calling the
// program's function: the reference it returns, of the function's
// declared return type where the class declares it (a string's
// __alloc_traits<…>::value_type &), printed (T &) @ADDR: VALUE. An
// object not in memory stays itself.
func (ev *evaluator) callResult(x dwarf.Object, op string, o dwarf.Object) dwarf.Object {
	a, ok := o.Addr()
	if !ok || o.Type == nil {
		return o
	}
	n := ev.ptrSize()
	var ref dwarf.Type = &dwarf.ReferenceType{CommonType: dwarf.CommonType{ByteSize: n, Lang: ev.lang}, Elem: o.Type}
	if st, ok := dwarf.Resolve(x.Type).(*dwarf.StructType); ok {
		// the overload for x's constness, else a const one
		_, constObj := x.Type.(*dwarf.QualType)
		found := false
		for _, wantConst := range []bool{constObj, true} {
			for _, m := range st.Methods() {
				if found || m.Name != op || m.Type == nil || m.Const != wantConst {
					continue
				}
				if rt, ok := dwarf.Resolve(m.Type.Return).(*dwarf.ReferenceType); ok && !rt.Rvalue && dwarf.SizeOf(rt.Elem) == dwarf.SizeOf(o.Type) {
					ref, found = m.Type.Return, true // (whatis names it: basic_string<…>::reference)
				}
			}
		}
	}
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, a)
	return dwarf.BytesObject(ref, b[:n])
}

// xmethodIndex is container[i] for std::vector and std::array.
func (ev *evaluator) xmethodIndex(x dwarf.Object, st *dwarf.StructType, i int64) (dwarf.Object, error) {
	switch dwarf.TemplateBase(st.Name) {
	case "std::vector":
		if et := ev.env.TemplateArg(st, 0); et != nil && isBool(et) {
			break // vector<bool> packs bits
		}
		if o, ok, err := ev.pointerIndex(x, i, "_M_impl", "_M_start"); ok || err != nil {
			return o, err
		}
	case "std::__cxx11::basic_string", "std::basic_string":
		if p, err := ev.env.StdStringPointer(x); err == nil {
			if o, ok, err := ev.indexPointer(p, i); ok || err != nil {
				return ev.callResult(x, "operator[]", o), err
			}
		}
	case "__gnu_cxx::__normal_iterator":
		if o, ok, err := ev.pointerIndex(x, i, "_M_current"); ok || err != nil {
			return o, err
		}
	case "std::deque":
		if et := ev.env.TemplateArg(st, 0); et != nil {
			o, n, err := ev.dequeElem(x, et, i)
			if err == nil && (i < 0 || i >= n) {
				err = fmt.Errorf("std::deque index %d out of range (size %d)", i, n)
			}
			return o, err
		}
	case "std::unique_ptr", "std::shared_ptr":
		// unique_ptr<T[]> and shared_ptr<T[]> only, as GDB's xmethods
		if _, isArray := dwarf.Resolve(ev.env.TemplateArg(st, 0)).(*dwarf.ArrayType); !isArray {
			break
		}
		if p, ok := ev.smartPointer(x); ok {
			if pt, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType); ok && dwarf.SizeOf(pt.Elem) > 0 {
				a, err := ev.env.Uint(p)
				if err != nil {
					return dwarf.Object{}, err
				}
				return dwarf.MemObject(pt.Elem, a+uint64(i*dwarf.SizeOf(pt.Elem))), nil
			}
		}
	case "std::array":
		elems, err := ev.env.Member(x, "_M_elems")
		if err != nil {
			return dwarf.Object{}, err
		}
		if at, ok := dwarf.Resolve(elems.Type).(*dwarf.ArrayType); ok {
			return ev.env.Part(elems, at.Elem, i*dwarf.SizeOf(at.Elem)), nil
		}
	}
	return dwarf.Object{}, unsupported("operator[] of " + st.Name)
}

// pointerIndex is p[i] for the data pointer p, x's member at path (a
// vector's _M_start, a string's _M_p); ok is false, with no error, when
// that member is not a pointer.
func (ev *evaluator) pointerIndex(x dwarf.Object, i int64, path ...string) (o dwarf.Object, ok bool, err error) {
	p, err := ev.env.MemberPath(x, path...)
	if err != nil {
		return dwarf.Object{}, false, err
	}
	return ev.indexPointer(p, i)
}

// indexPointer is p[i], where p is a pointer; ok is false where it is not.
func (ev *evaluator) indexPointer(p dwarf.Object, i int64) (o dwarf.Object, ok bool, err error) {
	pt, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType)
	if !ok {
		return dwarf.Object{}, false, nil
	}
	a, err := ev.env.Uint(p)
	if err != nil {
		return dwarf.Object{}, false, err
	}
	return dwarf.MemObject(pt.Elem, a+uint64(i*dwarf.SizeOf(pt.Elem))), true, nil
}

// xmethodCall evaluates recv.name(args) for the libstdc++ xmethods.
func (ev *evaluator) xmethodCall(recv dwarf.Object, name string, args []cexpr.Expr) (dwarf.Object, error) {
	recv, err := ev.deref0(recv)
	if err != nil {
		return dwarf.Object{}, err
	}
	st, ok := dwarf.Resolve(recv.Type).(*dwarf.StructType)
	if !ok || st.Lang != dwarf.LangCPlusPlus || !strings.HasPrefix(st.Name, "std::") {
		return dwarf.Object{}, unsupported("function calls")
	}
	base := dwarf.TemplateBase(st.Name)
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
	if base == "std::shared_ptr" && len(args) == 0 && (name == "use_count" || name == "unique") {
		n, err := ev.useCount(recv)
		if err != nil {
			return dwarf.Object{}, err
		}
		if name == "unique" {
			return ev.makeInt(ev.base("bool"), b2i(n == 1)), nil
		}
		return ev.makeInt(ev.base("long"), n), nil
	}
	if tree, hash, _ := assocKind(base); (tree || hash) && len(args) == 1 &&
		(name == "count" || name == "contains" || name == "at") {
		key, err := ev.eval(args[0])
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.assocMethod(recv, base, name, key)
	}
	isList := base == "std::__cxx11::list" || base == "std::list" || base == "std::forward_list"
	if isList && len(args) == 0 && (name == "front" || (name == "back" && base != "std::forward_list")) {
		return ev.listEnd(recv, st, base, name)
	}
	if base == "std::forward_list" && name == "empty" && len(args) == 0 {
		head, err := ev.env.MemberPath(recv, "_M_impl", "_M_head", "_M_next")
		if err != nil {
			return dwarf.Object{}, err
		}
		a, err := ev.env.Uint(head)
		if err != nil {
			return dwarf.Object{}, err
		}
		return ev.makeInt(ev.base("bool"), b2i(a == 0)), nil
	}
	isString := isStringBase(base)
	if isString && len(args) == 0 && (name == "c_str" || name == "data") {
		// the character pointer, typed const CharT * as the functions return
		p, err := ev.env.StdStringPointer(recv)
		if err != nil {
			return dwarf.Object{}, err
		}
		if pt, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType); ok {
			a, err := ev.env.Uint(p)
			if err != nil {
				return dwarf.Object{}, err
			}
			ct := &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: 8, Lang: dwarf.LangCPlusPlus},
				Elem: &dwarf.QualType{CommonType: dwarf.CommonType{Lang: dwarf.LangCPlusPlus}, Qual: "const", Elem: pt.Elem}}
			return ev.pointerToTyped(ct, a), nil
		}
	}
	if base == "std::optional" && len(args) == 0 && (name == "has_value" || name == "value") {
		v, engaged, err := ev.env.StdOptional(recv)
		switch {
		case err != nil:
			return dwarf.Object{}, err
		case name == "has_value":
			return ev.makeInt(ev.base("bool"), b2i(engaged)), nil
		case !engaged:
			return dwarf.Object{}, errors.New("std::optional holds no value (value() would throw std::bad_optional_access)")
		}
		return v, nil
	}
	if base == "std::vector" && name == "data" && len(args) == 0 {
		if p, err := ev.env.MemberPath(recv, "_M_impl", "_M_start"); err == nil {
			if _, ok := dwarf.Resolve(p.Type).(*dwarf.PointerType); ok {
				return p, nil
			}
		}
	}
	if isString && name == "length" {
		name = "size"
	}
	size := func() (int64, error) {
		switch base {
		case "std::__cxx11::basic_string", "std::basic_string":
			if c, err := ev.env.Member(recv, "_M_string_length"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::vector":
			if et := ev.env.TemplateArg(st, 0); et != nil && !isBool(et) {
				start, err1 := ev.env.MemberPath(recv, "_M_impl", "_M_start")
				finish, err2 := ev.env.MemberPath(recv, "_M_impl", "_M_finish")
				if err1 == nil && err2 == nil {
					s, err1 := ev.env.Uint(start)
					f, err2 := ev.env.Uint(finish)
					if es := dwarf.SizeOf(et); err1 == nil && err2 == nil && es > 0 && f >= s {
						return int64(f-s) / es, nil
					}
				}
			}
		case "std::deque":
			if et := ev.env.TemplateArg(st, 0); et != nil {
				_, n, err := ev.dequeElem(recv, et, -1)
				return n, err
			}
		case "std::array":
			if elems, err := ev.env.Member(recv, "_M_elems"); err == nil {
				if at, ok := dwarf.Resolve(elems.Type).(*dwarf.ArrayType); ok {
					return at.Count, nil
				}
			}
		case "std::map", "std::multimap", "std::set", "std::multiset":
			if c, err := ev.env.MemberPath(recv, "_M_t", "_M_impl", "_M_node_count"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::unordered_map", "std::unordered_set", "std::unordered_multimap", "std::unordered_multiset":
			if c, err := ev.env.MemberPath(recv, "_M_h", "_M_element_count"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		case "std::__cxx11::list", "std::list":
			if c, err := ev.env.MemberPath(recv, "_M_impl", "_M_node", "_M_size"); err == nil {
				n, err := ev.env.Uint(c)
				return int64(n), err
			}
		}
		return 0, unsupported(base + "::size")
	}
	switch name {
	case "size":
		if len(args) == 0 && ev.onlyType {
			return ev.makeInt(ev.sizeType(st, isString), 0), nil // (whatis: a size its elements' unknown size hides)
		}
		if len(args) == 0 {
			n, err := size()
			if err != nil {
				return dwarf.Object{}, err
			}
			return ev.makeInt(ev.sizeType(st, isString), n), nil
		}
	case "empty":
		if len(args) == 0 {
			n, err := size()
			if err != nil {
				return dwarf.Object{}, err
			}
			return ev.makeInt(ev.base("bool"), b2i(n == 0)), nil
		}
	case "front", "back", "at":
		var i int64
		switch name {
		case "back":
			n, err := size()
			if err != nil {
				return dwarf.Object{}, err
			}
			i = n - 1
		case "at":
			if i, err = argInt(); err != nil {
				return dwarf.Object{}, err
			}
			n, err := size()
			if err != nil {
				return dwarf.Object{}, err
			}
			if i < 0 || i >= n {
				return dwarf.Object{}, fmt.Errorf("%s::at: index %d out of range (size %d)", base, i, n)
			}
		}
		if len(args) > 0 && name != "at" {
			break
		}
		return ev.xmethodIndex(recv, st, i)
	}
	return dwarf.Object{}, unsupported("call of " + base + "::" + name)
}

func (ev *evaluator) pointerToTyped(t *dwarf.PointerType, addr uint64) dwarf.Object {
	return dwarf.BytesObject(t, ev.ptrBytes(addr))
}

// sizeType is the type of size() of the library class st, as GDB types
// it: std::size_t, what libstdc++'s xmethods declare (where the
// program's debug information has it); for a string, which has no
// xmethod, the function's own return type (its size_type), as GDB's
// call of it gives.
func (ev *evaluator) sizeType(st *dwarf.StructType, isString bool) dwarf.Type {
	if isString {
		for _, m := range st.Methods() {
			if m.Name == "size" && m.Type != nil && m.Type.Return != nil && len(m.Type.Params) <= 1 {
				return m.Type.Return
			}
		}
	} else if ev.env.Types != nil {
		if t, err := ev.env.Types.LookupType("std::size_t"); err == nil {
			return t
		}
	}
	return ev.base("unsigned long")
}
