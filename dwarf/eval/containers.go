package eval

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// Container methods beyond GDB's libstdc++ xmethods, read from the
// containers' nodes without calling code in the target: a map's
// operator[] and at() with a key, count() and contains() on the
// associative containers, a deque's operator[], at(), front() and back(),
// a list's front() and back(), a forward_list's front(), a std::string
// compared with ==. (GDB calls the program's functions for these, where
// they were compiled in and it may; rr's replay and a core file cannot
// run them.)

// maxSearch bounds the elements a key lookup compares.
const maxSearch = 1 << 20

// assocKind says whether base (a template's name) is an associative
// container: tree (map, set and their multi forms) or hash (the
// unordered ones), and whether its elements are key-value pairs.
func assocKind(base string) (tree, hash, isMap bool) {
	switch base {
	case "std::map", "std::multimap":
		return true, false, true
	case "std::set", "std::multiset":
		return true, false, false
	case "std::unordered_map", "std::unordered_multimap":
		return false, true, true
	case "std::unordered_set", "std::unordered_multiset":
		return false, true, false
	}
	return false, false, false
}

// assocFind returns the elements of the associative container recv (a
// pair for a map) whose key equals key, in the container's order, at
// most max of them.
func (ev *evaluator) assocFind(recv dwarf.Object, base string, key dwarf.Object, max int) ([]dwarf.Object, error) {
	tree, _, isMap := assocKind(base)
	c, err := ev.env.StdNodesOf(recv, tree)
	if errors.Is(err, dwarf.ErrLayout) {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	if err != nil {
		return nil, err
	}
	if c.Count > maxSearch {
		return nil, fmt.Errorf("%s holds %d elements: too many to search (at most %d)", base, c.Count, maxSearch)
	}
	var found []dwarf.Object
	node := c.First
	for i := uint64(0); i < c.Count && len(found) < max; i++ {
		if node == 0 || node == c.End {
			return nil, fmt.Errorf("%s: %w", base, dwarf.ErrLayout)
		}
		v := dwarf.MemObject(c.Elem, node+c.ValueOff)
		k := v
		if isMap {
			if k, err = ev.env.Member(v, "first"); err != nil {
				return nil, err
			}
		}
		eq, err := ev.keyEqual(k, key)
		if err != nil {
			return nil, err
		}
		if eq {
			found = append(found, v)
		}
		if node, err = ev.env.NextNode(c, node); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// keyEqual compares a container's key with the key an expression gave:
// strings by their characters, scalars as == does.
func (ev *evaluator) keyEqual(k, key dwarf.Object) (bool, error) {
	if eq, ok, err := ev.stringsEqual(k, key); ok || err != nil {
		return eq, err
	}
	if _, isString, _ := ev.stdString(k); isString {
		return false, fmt.Errorf("the container's keys are strings; the key given is a %s", dwarf.TypeString(key.Type))
	}
	a, err := ev.scalarOf(k)
	if err != nil {
		return false, unsupported("a key of type " + dwarf.TypeString(k.Type) + " (keys compare as strings or scalars)")
	}
	b, err := ev.scalarOf(key)
	if err != nil {
		return false, fmt.Errorf("the key %s is not comparable with the container's keys (%s)", dwarf.TypeString(key.Type), dwarf.TypeString(k.Type))
	}
	eq, err := ev.scalarOp("==", a, b)
	if err != nil {
		return false, err
	}
	return ev.truth(eq)
}

// stringsEqual compares a std::string with a std::string, a string
// literal or a char array or pointer; ok is false when neither is a
// std::string (C's == of two pointers compares addresses).
func (ev *evaluator) stringsEqual(x, y dwarf.Object) (eq, ok bool, err error) {
	xs, xok, err := ev.stdString(x)
	if err != nil {
		return false, true, err
	}
	ys, yok, err := ev.stdString(y)
	if err != nil {
		return false, true, err
	}
	if !xok && !yok {
		return false, false, nil
	}
	if !xok {
		if xs, err = ev.cString(x); err != nil {
			return false, false, nil
		}
	}
	if !yok {
		if ys, err = ev.cString(y); err != nil {
			return false, false, nil
		}
	}
	return bytes.Equal(xs, ys), true, nil
}

// stdString returns the characters of a std::string (of char); ok is
// false for anything else.
func (ev *evaluator) stdString(o dwarf.Object) (s []byte, ok bool, err error) {
	o, err = ev.deref0(o)
	if err != nil {
		return nil, false, nil
	}
	st, isStruct := dwarf.Resolve(o.Type).(*dwarf.StructType)
	if !isStruct || !isStringBase(dwarf.TemplateBase(st.Name)) {
		return nil, false, nil
	}
	if ct := ev.env.TemplateArg(st, 0); ct == nil || dwarf.SizeOf(ct) != 1 {
		return nil, false, nil
	}
	ln, err := ev.env.Member(o, "_M_string_length")
	if err != nil {
		return nil, false, nil
	}
	p, err := ev.env.StdStringPointer(o)
	if err != nil {
		return nil, false, nil
	}
	n, err := ev.env.Uint(ln)
	if err != nil {
		return nil, true, err
	}
	if n > maxConvString {
		return nil, true, fmt.Errorf("a std::string of %d characters: too long to compare (at most %d)", n, maxConvString)
	}
	a, err := ev.env.Uint(p)
	if err != nil {
		return nil, true, err
	}
	b, err := ev.env.Read(a, int(n))
	return b, true, err
}

func isStringBase(base string) bool {
	return base == "std::__cxx11::basic_string" || base == "std::basic_string"
}

// assocMethod is recv.name(args) or recv[key] for an associative
// container (base names which): count and contains for all, operator[]
// and at for the maps, giving the mapped value of the key.
func (ev *evaluator) assocMethod(recv dwarf.Object, base, name string, key dwarf.Object) (dwarf.Object, error) {
	_, _, isMap := assocKind(base)
	switch name {
	case "count", "contains":
		found, err := ev.assocFind(recv, base, key, maxSearch)
		if err != nil {
			return dwarf.Object{}, err
		}
		if name == "contains" {
			return ev.makeInt(ev.base("bool"), b2i(len(found) > 0)), nil
		}
		return ev.makeInt(ev.base("unsigned long"), int64(len(found))), nil
	case "operator[]", "at":
		if !isMap || strings.Contains(base, "multi") {
			break
		}
		found, err := ev.assocFind(recv, base, key, 1)
		if err != nil {
			return dwarf.Object{}, err
		}
		if len(found) == 0 {
			what := "operator[] would insert it"
			if name == "at" {
				what = "at() would throw std::out_of_range"
			}
			return dwarf.Object{}, fmt.Errorf("%s has no element with the key %s (%s): %w", base, ev.keyText(key), what, dwarf.ErrNotFound)
		}
		return ev.env.Member(found[0], "second")
	}
	return dwarf.Object{}, unsupported(name + " of " + base)
}

// keyText shows a key an expression gave, for an error.
func (ev *evaluator) keyText(key dwarf.Object) string {
	if s, ok, err := ev.stdString(key); ok && err == nil {
		return fmt.Sprintf("%q", s)
	}
	if s, err := ev.cString(key); err == nil {
		return fmt.Sprintf("%q", s)
	}
	if sc, err := ev.scalarOf(key); err == nil && !sc.isFloat {
		if sc.unsigned {
			return fmt.Sprint(uint64(sc.i))
		}
		return fmt.Sprint(sc.i)
	}
	return "given"
}

// dequeElem is element i of a std::deque (elemT its
// element type) and the deque's size.
func (ev *evaluator) dequeElem(recv dwarf.Object, elemT dwarf.Type, i int64) (dwarf.Object, int64, error) {
	es := uint64(dwarf.SizeOf(elemT))
	if es == 0 {
		return dwarf.Object{}, 0, unsupported("a deque of incomplete elements")
	}
	bufSize := dwarf.DequeBufferElems(es)
	var v [6]uint64
	for j, path := range [][]string{
		{"_M_impl", "_M_start", "_M_node"}, {"_M_impl", "_M_start", "_M_cur"}, {"_M_impl", "_M_start", "_M_first"},
		{"_M_impl", "_M_finish", "_M_node"}, {"_M_impl", "_M_finish", "_M_cur"}, {"_M_impl", "_M_finish", "_M_first"},
	} {
		m, err := ev.env.MemberPath(recv, path...)
		if err != nil {
			return dwarf.Object{}, 0, err
		}
		if v[j], err = ev.env.Uint(m); err != nil {
			return dwarf.Object{}, 0, err
		}
	}
	snode, scur, sfirst, enode, ecur, efirst := v[0], v[1], v[2], v[3], v[4], v[5]
	w := ev.env.PointerSize()
	if enode < snode || scur < sfirst || ecur < efirst {
		return dwarf.Object{}, 0, fmt.Errorf("std::deque: %w", dwarf.ErrLayout)
	}
	skip := (scur - sfirst) / es // elements before the first in its buffer
	size := int64((enode-snode)/w*bufSize + (ecur-efirst)/es - skip)
	if i < 0 || i >= size {
		return dwarf.Object{}, size, nil
	}
	off := skip + uint64(i)
	buf, err := ev.env.ReadUint(snode+off/bufSize*w, int(w))
	if err != nil {
		return dwarf.Object{}, size, err
	}
	return dwarf.MemObject(elemT, buf+off%bufSize*es), size, nil
}

// listEnd is a list's front() or back(): a std::list's first or last
// node's value, a std::forward_list's first; an empty list has none.
func (ev *evaluator) listEnd(recv dwarf.Object, st *dwarf.StructType, base, name string) (dwarf.Object, error) {
	elemT := ev.env.TemplateArg(st, 0)
	if elemT == nil {
		return dwarf.Object{}, unsupported("the element type of " + base)
	}
	w := ev.env.PointerSize()
	var node, voff uint64
	if base == "std::forward_list" {
		head, err := ev.env.MemberPath(recv, "_M_impl", "_M_head", "_M_next")
		if err != nil {
			return dwarf.Object{}, err
		}
		if node, err = ev.env.Uint(head); err != nil {
			return dwarf.Object{}, err
		}
		voff = dwarf.AlignUp(w, dwarf.AlignOf(elemT)) // after _M_next
	} else {
		hdr, err := ev.env.MemberPath(recv, "_M_impl", "_M_node")
		if err != nil {
			return dwarf.Object{}, err
		}
		ha, ok := hdr.HomeAddr()
		if !ok {
			return dwarf.Object{}, unsupported(base + " not in memory")
		}
		link := int64(0) // _M_next
		if name == "back" {
			link = int64(w) // _M_prev
		}
		if node, err = ev.env.WordAt(hdr, link, int(w)); err != nil {
			return dwarf.Object{}, err
		}
		if node == ha {
			node = 0
		}
		voff = dwarf.AlignUp(2*w, dwarf.AlignOf(elemT)) // after _M_next, _M_prev
	}
	if node == 0 {
		return dwarf.Object{}, fmt.Errorf("%s() of an empty %s", name, base)
	}
	return dwarf.MemObject(elemT, node+voff), nil
}

// useCount is a std::shared_ptr's use_count(): its control block's
// _M_use_count, 0 with none.
func (ev *evaluator) useCount(recv dwarf.Object) (int64, error) {
	pi, err := ev.env.MemberPath(recv, "_M_refcount", "_M_pi")
	if err != nil {
		return 0, err
	}
	a, err := ev.env.Uint(pi)
	if err != nil || a == 0 {
		return 0, err
	}
	cb, err := ev.env.Deref(pi)
	if err != nil {
		return 0, err
	}
	c, err := ev.env.Member(cb, "_M_use_count")
	if err != nil {
		return 0, err
	}
	return ev.env.Int(c)
}
