package format

import (
	"errors"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// Printers for the node-based libstdc++ containers: std::map/set
// (_Rb_tree), std::unordered_* (_Hashtable) and std::list.

// ppRbTree prints std::map/set/multimap/multiset by walking _Rb_tree.
func (env *printer) ppRbTree(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	tree, valT, err := env.nodeValueType(o, "_M_t")
	if err != nil {
		return pretty{}, err
	}
	header, err := env.MemberPath(tree, "_M_impl", "_M_header")
	if err != nil {
		return pretty{}, err
	}
	cnt, err := env.MemberPath(tree, "_M_impl", "_M_node_count")
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(cnt)
	if err != nil {
		return pretty{}, err
	}
	hdr, ok := header.Addr()
	if !ok {
		return pretty{}, errNotPretty
	}
	p := associative(base, n)
	w := env.PointerSize()
	voff := dwarf.AlignUp(4*w, dwarf.AlignOf(valT)) // after _Rb_tree_node_base
	node, err := env.ReadUint(hdr+2*w, int(w))      // _M_left: leftmost
	if err != nil {
		return pretty{}, err
	}
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if node == hdr {
			return pretty{}, errNotPretty
		}
		// As GDB's iterator: the step to the next node is read before
		// this one is shown (a tree not constructed yet, its header's
		// leftmost link still 0, fails reading 0's right link).
		next := node
		if i+1 < n {
			if next, err = env.RbTreeNext(node); err != nil {
				if errors.Is(err, dwarf.ErrLayout) {
					err = errNotPretty
				}
				return p, err
			}
		}
		if err := env.addElement(&p, i, dwarf.MemObject(valT, node+voff)); err != nil {
			return pretty{}, err
		}
		node = next
	}
	return p, nil
}

// nodeValueType returns o's member named member (an _Rb_tree or a
// _Hashtable) and the type of the values its nodes hold, the member's
// second template argument.
func (env *printer) nodeValueType(o dwarf.Object, member string) (dwarf.Object, dwarf.Type, error) {
	m, err := env.Member(o, member)
	if err != nil {
		return dwarf.Object{}, nil, err
	}
	mst, ok := dwarf.Resolve(m.Type).(*dwarf.StructType)
	if !ok {
		return dwarf.Object{}, nil, errNotPretty
	}
	valT := env.TemplateArg(mst, 1)
	if valT == nil {
		return dwarf.Object{}, nil, errNotPretty
	}
	return m, valT, nil
}

// associative starts the printout of a map or set (base names which)
// holding n elements: a map's elements print as key-value pairs.
func associative(base string, n uint64) pretty {
	p := pretty{head: base + " with " + elements(n)}
	if strings.HasSuffix(base, "map") {
		p.hint = "map"
	}
	return p
}

// addElement adds v, the i-th element of an associative container, to
// p's children: a key-value pair for a map, "[i]" for a set.
func (env *printer) addElement(p *pretty, i uint64, v dwarf.Object) error {
	if p.hint != "map" {
		p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: v})
		return nil
	}
	k, err1 := env.Member(v, "first")
	s, err2 := env.Member(v, "second")
	if errors.Join(err1, err2) != nil {
		return errNotPretty
	}
	p.children = append(p.children, prettyChild{key: &k, val: s})
	return nil
}

// addList adds the elements of a linked list to p's children as "[i]":
// node is the first node, each node's first word links to the next, end
// is the link after the last one, and the element (of type elem) is voff
// bytes into its node.
func (env *printer) addList(p *pretty, elem dwarf.Type, node, end, voff uint64) error {
	w := env.PointerSize()
	limit := env.maxElements()
	for i := 0; node != end; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if i > 1<<20 {
			return errNotPretty // a cycle, with no element limit
		}
		// As GDB's iterators: the link is read before the element is
		// shown (a null link fails reading address 0).
		next, err := env.ReadUint(node, int(w))
		if err != nil {
			return err
		}
		p.children = append(p.children, prettyChild{name: "[" + strconv.Itoa(i) + "]", val: dwarf.MemObject(elem, node+voff)})
		node = next
	}
	return nil
}

func (env *printer) ppHashtable(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	h, valT, err := env.nodeValueType(o, "_M_h")
	if err != nil {
		return pretty{}, err
	}
	cnt, err := env.Member(h, "_M_element_count")
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(cnt)
	if err != nil {
		return pretty{}, err
	}
	bb, err := env.Member(h, "_M_before_begin")
	if err != nil {
		return pretty{}, err
	}
	first, ok := bb.Addr()
	if !ok {
		return pretty{}, errNotPretty
	}
	p := associative(base, n)
	w := env.PointerSize()
	voff := dwarf.AlignUp(w, dwarf.AlignOf(valT)) // after _M_nxt
	node, err := env.ReadUint(first, int(w))
	if err != nil {
		return pretty{}, err
	}
	limit := uint64(env.maxElements())
	for i := uint64(0); node != 0 && i < n; i++ {
		if i >= limit {
			p.more = true
			break
		}
		next, err := env.ReadUint(node, int(w)) // read first, as GDB's iterator
		if err != nil {
			return p, err
		}
		if err := env.addElement(&p, i, dwarf.MemObject(valT, node+voff)); err != nil {
			return pretty{}, err
		}
		node = next
	}
	return p, nil
}

func (env *printer) ppList(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	elemT := env.TemplateArg(st, 0)
	if elemT == nil {
		return pretty{}, errNotPretty
	}
	hdr, err := env.MemberPath(o, "_M_impl", "_M_node")
	if err != nil {
		return pretty{}, err
	}
	ha, ok := hdr.Addr()
	if !ok {
		return pretty{}, errNotPretty
	}
	w := env.PointerSize()
	node, err := env.ReadUint(ha, int(w))
	if err != nil {
		return pretty{}, err
	}
	if node == ha {
		return pretty{head: "empty " + base}, nil
	}
	p := pretty{head: base}
	voff := dwarf.AlignUp(2*w, dwarf.AlignOf(elemT)) // after _M_next, _M_prev
	return p, env.addList(&p, elemT, node, ha, voff)
}
