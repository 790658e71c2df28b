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
	c, err := env.StdNodesOf(o, true)
	if err != nil {
		return pretty{}, notPretty(err)
	}
	p := associative(base, c.Count)
	node := c.First
	limit := uint64(env.maxElements())
	for i := uint64(0); i < c.Count; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if node == c.End {
			return pretty{}, errNotPretty
		}
		// As GDB's iterator: the step to the next node is read before
		// this one is shown (a tree not constructed yet, its header's
		// leftmost link still 0, fails reading 0's right link).
		next := node
		if i+1 < c.Count {
			if next, err = env.NextNode(c, node); err != nil {
				return p, notPretty(err)
			}
		}
		if err := env.addElement(&p, i, dwarf.MemObject(c.Elem, node+c.ValueOff)); err != nil {
			return pretty{}, err
		}
		node = next
	}
	return p, nil
}

// notPretty is err, or errNotPretty where err says the container is not
// laid out as libstdc++'s.
func notPretty(err error) error {
	if errors.Is(err, dwarf.ErrLayout) {
		return errNotPretty
	}
	return err
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
	c, err := env.StdNodesOf(o, false)
	if err != nil {
		return pretty{}, notPretty(err)
	}
	p := associative(base, c.Count)
	node := c.First
	limit := uint64(env.maxElements())
	for i := uint64(0); node != 0 && i < c.Count; i++ {
		if i >= limit {
			p.more = true
			break
		}
		next, err := env.NextNode(c, node) // read first, as GDB's iterator
		if err != nil {
			return p, err
		}
		if err := env.addElement(&p, i, dwarf.MemObject(c.Elem, node+c.ValueOff)); err != nil {
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
	ha, ok := hdr.HomeAddr()
	if !ok {
		return pretty{}, errNotPretty
	}
	w := env.PointerSize()
	node, err := env.WordAt(hdr, 0, int(w))
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
