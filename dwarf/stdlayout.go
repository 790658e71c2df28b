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

// StdNodes is where a libstdc++ associative container keeps its
// elements: a map or set's red-black tree (_Rb_tree: in order from the
// header's leftmost link; the header follows the last node) or an
// unordered container's hash table (_Hashtable: a singly linked list
// from _M_before_begin; 0 follows the last node).
type StdNodes struct {
	Elem     Type   // the value type (a std::pair for a map)
	Count    uint64 // the elements the container says it holds
	First    uint64 // the first node
	End      uint64 // the tree's header; 0 for a hash table
	ValueOff uint64 // where a node's value begins
	Tree     bool
}

// StdNodesOf reads where the container o keeps its elements: tree says
// a map or set (member _M_t), else an unordered container (_M_h). The
// container's own fields are read first, then the first link. A layout
// that is not libstdc++'s is ErrLayout.
func (env *ValueEnv) StdNodesOf(o Object, tree bool) (StdNodes, error) {
	c := StdNodes{Tree: tree}
	member, countPath := "_M_h", []string{"_M_element_count"}
	if tree {
		member, countPath = "_M_t", []string{"_M_impl", "_M_node_count"}
	}
	m, err := env.Member(o, member)
	if err != nil {
		return c, err
	}
	if mst, ok := Resolve(m.Type).(*StructType); ok {
		c.Elem = env.TemplateArg(mst, 1)
	}
	if c.Elem == nil {
		return c, ErrLayout
	}
	var head Object // the tree's header or the list's before-begin link
	if tree {
		if head, err = env.MemberPath(m, "_M_impl", "_M_header"); err != nil {
			return c, err
		}
	}
	cnt, err := env.MemberPath(m, countPath...)
	if err != nil {
		return c, err
	}
	if c.Count, err = env.Uint(cnt); err != nil {
		return c, err
	}
	if !tree {
		if head, err = env.Member(m, "_M_before_begin"); err != nil {
			return c, err
		}
	}
	a, ok := head.HomeAddr()
	if !ok {
		return c, ErrLayout
	}
	w := env.PointerSize()
	if tree {
		c.End, c.ValueOff = a, AlignUp(4*w, AlignOf(c.Elem)) // after _Rb_tree_node_base
		c.First, err = env.WordAt(head, int64(2*w), int(w))  // the header's _M_left: leftmost
	} else {
		c.ValueOff = AlignUp(w, AlignOf(c.Elem)) // after _M_nxt
		c.First, err = env.WordAt(head, 0, int(w))
	}
	return c, err
}

// NextNode is the node after node in c.
func (env *ValueEnv) NextNode(c StdNodes, node uint64) (uint64, error) {
	if c.Tree {
		return env.RbTreeNext(node)
	}
	return env.ReadUint(node, int(env.PointerSize()))
}

// DequeBufferElems is how many elements of size es a libstdc++ deque
// keeps in one buffer (_GLIBCXX_DEQUE_BUF_SIZE, 512 bytes).
func DequeBufferElems(es uint64) uint64 {
	if es == 0 || es >= 512 {
		return 1
	}
	return 512 / es
}

// StdStringPointer returns a libstdc++ std::basic_string's character
// pointer, _M_dataplus._M_p. Where the compiler left out the definition
// of _M_dataplus's type, _Alloc_hider (clang without
// -fstandalone-debug), the pointer is read where the library puts it,
// first in _Alloc_hider, as a pointer to the string's character type.
func (env *ValueEnv) StdStringPointer(o Object) (Object, error) {
	p, err := env.MemberPath(o, "_M_dataplus", "_M_p")
	if err == nil {
		return p, nil
	}
	hider, herr := env.Member(o, "_M_dataplus")
	st, ok := Resolve(o.Type).(*StructType)
	if herr != nil || !ok {
		return Object{}, err
	}
	if hs, ok := Resolve(hider.Type).(*StructType); !ok || !hs.Incomplete {
		return Object{}, err
	}
	a, ok := hider.Addr()
	ct := env.TemplateArg(st, 0)
	if !ok || ct == nil {
		return Object{}, err
	}
	pt := &PointerType{CommonType: CommonType{ByteSize: int64(env.PointerSize()), Lang: LangCPlusPlus}, Elem: ct}
	return MemObject(pt, a), nil
}
