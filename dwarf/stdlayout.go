package dwarf

import (
	"errors"
	"fmt"
)

// The node layouts of the libstdc++ containers, shared by the pretty
// printers (package dwarf/format), which walk them to print a container,
// and the evaluator's container methods (package dwarf/eval), which
// search them (a map's operator[] with a key, a list's back()).

// ErrLayout reports a container whose links do not form the structure
// its type promises (a tree with no successor, a cycle): it was not
// constructed yet, was freed, or is corrupt.
var ErrLayout = errors.New("the container's links are not a libstdc++ layout")

// AlignOf estimates the alignment of t as the ABI does (the largest of
// its parts'); the printers and container methods place a node's value
// after its links with it. On x86-64 the links are 8-byte words, so
// only an alignment above 8 moves a value; on i386 (4-byte links) a
// pair of a std::string and a long sits right after the hash node's
// link.
func AlignOf(t Type) uint64 {
	switch u := Resolve(t).(type) {
	case *StructType:
		a := uint64(1)
		for _, f := range u.Fields {
			a = max(a, AlignOf(f.Type))
		}
		// (a vptr is one of the fields, a pointer; an empty base adds
		// nothing: std::pair's __pair_base)
		for _, b := range u.Bases {
			a = max(a, AlignOf(b.Type))
		}
		return a
	case *ArrayType:
		return AlignOf(u.Elem)
	}
	s := SizeOf(t)
	switch {
	case s >= 16:
		return 16
	case s >= 8:
		return 8
	case s >= 4:
		return 4
	case s >= 2:
		return 2
	}
	return 1
}

// AlignUp rounds v up to a multiple of a (a 0: v).
func AlignUp(v, a uint64) uint64 {
	if a == 0 {
		return v
	}
	return (v + a - 1) / a * a
}

// RbTreeNext is _Rb_tree_increment on node addresses: the node after
// node in a std::map or std::set's red-black tree (_Rb_tree_node_base:
// color, then _M_parent, _M_left and _M_right, one pointer each). The
// node after the last is the tree's header.
func (env *ValueEnv) RbTreeNext(node uint64) (uint64, error) {
	w := env.PointerSize()
	parentOff, leftOff, rightOff := w, 2*w, 3*w
	right, err := env.ReadUint(node+rightOff, int(w))
	if err != nil {
		return 0, err
	}
	if right != 0 {
		node = right
		for range 1000 {
			left, err := env.ReadUint(node+leftOff, int(w))
			if err != nil {
				return 0, err
			}
			if left == 0 {
				return node, nil
			}
			node = left
		}
		return 0, ErrLayout
	}
	parent, err := env.ReadUint(node+parentOff, int(w))
	if err != nil {
		return 0, err
	}
	for range 1000 {
		pr, err := env.ReadUint(parent+rightOff, int(w))
		if err != nil {
			return 0, err
		}
		if node != pr {
			break
		}
		node = parent
		if parent, err = env.ReadUint(parent+parentOff, int(w)); err != nil {
			return 0, err
		}
	}
	nr, err := env.ReadUint(node+rightOff, int(w))
	if err != nil {
		return 0, err
	}
	if nr != parent {
		node = parent
	}
	return node, nil
}

// NullIteratorError is a libstdc++ iterator that points nowhere (one
// default-constructed); its text is GDB's printers'.
type NullIteratorError struct {
	Container string // "std::vector", "associative container"...
}

func (e *NullIteratorError) Error() string {
	return "non-dereferenceable iterator for " + e.Container
}

// stdIterator is where a libstdc++ iterator type keeps its pointer: the
// member's name, and for a node container's iterator the links before
// the element in the node (0: the member points at the element itself).
type stdIterator struct {
	ptr       string
	links     uint64
	container string
}

var stdIterators = map[string]stdIterator{
	"__gnu_cxx::__normal_iterator":        {"_M_current", 0, "std::vector"},
	"std::_Deque_iterator":                {"_M_cur", 0, "std::deque"},
	"std::_List_iterator":                 {"_M_node", 2, "std::list"},
	"std::_List_const_iterator":           {"_M_node", 2, "std::list"},
	"std::_Fwd_list_iterator":             {"_M_node", 1, "std::forward_list"},
	"std::_Fwd_list_const_iterator":       {"_M_node", 1, "std::forward_list"},
	"std::_Rb_tree_iterator":              {"_M_node", 4, "associative container"},
	"std::_Rb_tree_const_iterator":        {"_M_node", 4, "associative container"},
	"std::__detail::_Node_iterator":       {"_M_cur", 1, "unordered container"},
	"std::__detail::_Node_const_iterator": {"_M_cur", 1, "unordered container"},
}

// StdIterTarget returns the element a libstdc++ iterator points to (an
// iterator of a vector, string, deque, list, forward_list, map, set or
// unordered container); ok is false when o is no such iterator. An
// iterator that points nowhere is a *NullIteratorError.
func (env *ValueEnv) StdIterTarget(o Object) (elem Object, ok bool, err error) {
	st, isStruct := Resolve(o.Type).(*StructType)
	if !isStruct {
		return Object{}, false, nil
	}
	it, found := stdIterators[TemplateBase(st.Name)]
	if !found {
		return Object{}, false, nil
	}
	p, err := env.Member(o, it.ptr)
	if err != nil {
		return Object{}, true, err
	}
	a, err := env.Uint(p)
	if err != nil {
		return Object{}, true, err
	}
	if a == 0 {
		return Object{}, true, &NullIteratorError{it.container}
	}
	var t Type
	var off uint64
	if it.links == 0 {
		if pt, isPtr := Resolve(p.Type).(*PointerType); isPtr {
			t = pt.Elem
		}
	} else if t = env.TemplateArg(st, 0); t != nil {
		off = AlignUp(it.links*env.PointerSize(), AlignOf(t))
	}
	if t == nil {
		return Object{}, true, fmt.Errorf("%s: %w", st.Name, ErrLayout)
	}
	return MemObject(t, a+off), true, nil
}

// StdOptional returns the value a std::optional holds; engaged is false
// when it holds none.
func (env *ValueEnv) StdOptional(o Object) (v Object, engaged bool, err error) {
	pl, err := env.Member(o, "_M_payload")
	if err != nil {
		return Object{}, false, err
	}
	eng, err := env.Member(pl, "_M_engaged")
	if err != nil {
		return Object{}, false, err
	}
	e, err := env.Uint(eng)
	if err != nil || e&0xff == 0 {
		return Object{}, false, err
	}
	v, err = env.MemberPath(pl, "_M_payload", "_M_value")
	return v, err == nil, err
}
