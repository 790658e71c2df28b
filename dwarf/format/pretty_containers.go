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
	tree, err := env.Member(o, "_M_t")
	if err != nil {
		return pretty{}, err
	}
	tst, ok := dwarf.Resolve(tree.Type).(*dwarf.StructType)
	if !ok {
		return pretty{}, errNotPretty
	}
	valT := env.TemplateArg(tst, 1)
	if valT == nil {
		return pretty{}, errNotPretty
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
	isMap := strings.HasSuffix(base, "map")
	p := pretty{head: base + " with " + elements(n)}
	if isMap {
		p.hint = "map"
	}
	w := env.PointerSize()
	voff := alignUp(4*w, alignOf(valT))        // after _Rb_tree_node_base
	node, err := env.ReadUint(hdr+2*w, int(w)) // _M_left: leftmost
	if err != nil {
		return pretty{}, err
	}
	limit := uint64(env.maxElements())
	for i := uint64(0); i < n; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if node == 0 || node == hdr {
			return pretty{}, errNotPretty
		}
		v := dwarf.MemObject(valT, node+voff)
		if isMap {
			k, err1 := env.Member(v, "first")
			s, err2 := env.Member(v, "second")
			if errors.Join(err1, err2) != nil {
				return pretty{}, errNotPretty
			}
			p.children = append(p.children, prettyChild{key: &k, val: s})
		} else {
			p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: v})
		}
		if node, err = env.rbNext(node); err != nil {
			return pretty{}, err
		}
	}
	return p, nil
}

// rbNext is _Rb_tree_increment on node addresses (_Rb_tree_node_base:
// color, then _M_parent, _M_left and _M_right, one pointer each; 8, 16,
// 24 on x86-64).
func (env *printer) rbNext(node uint64) (uint64, error) {
	w := env.PointerSize()
	parentOff, leftOff, rightOff := w, 2*w, 3*w
	right, err := env.ReadUint(node+rightOff, int(w))
	if err != nil {
		return 0, err
	}
	if right != 0 {
		node = right
		for i := 0; i < 1000; i++ {
			left, err := env.ReadUint(node+leftOff, int(w))
			if err != nil {
				return 0, err
			}
			if left == 0 {
				return node, nil
			}
			node = left
		}
		return 0, errNotPretty
	}
	parent, err := env.ReadUint(node+parentOff, int(w))
	if err != nil {
		return 0, err
	}
	for i := 0; i < 1000; i++ {
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

func (env *printer) ppHashtable(o dwarf.Object, st *dwarf.StructType, base string) (pretty, error) {
	h, err := env.Member(o, "_M_h")
	if err != nil {
		return pretty{}, err
	}
	hst, ok := dwarf.Resolve(h.Type).(*dwarf.StructType)
	if !ok {
		return pretty{}, errNotPretty
	}
	valT := env.TemplateArg(hst, 1)
	if valT == nil {
		return pretty{}, errNotPretty
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
	isMap := strings.HasSuffix(base, "map")
	p := pretty{head: base + " with " + elements(n)}
	if isMap {
		p.hint = "map"
	}
	w := env.PointerSize()
	voff := alignUp(w, alignOf(valT)) // after _M_nxt
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
		v := dwarf.MemObject(valT, node+voff)
		if isMap {
			k, err1 := env.Member(v, "first")
			s, err2 := env.Member(v, "second")
			if errors.Join(err1, err2) != nil {
				return pretty{}, errNotPretty
			}
			p.children = append(p.children, prettyChild{key: &k, val: s})
		} else {
			p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: v})
		}
		if node, err = env.ReadUint(node, int(w)); err != nil {
			return pretty{}, err
		}
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
	voff := alignUp(2*w, alignOf(elemT)) // after _M_next, _M_prev
	limit := env.maxElements()
	for i := 0; node != ha; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if node == 0 || i > 1<<20 {
			return pretty{}, errNotPretty
		}
		p.children = append(p.children, prettyChild{name: "[" + strconv.Itoa(i) + "]", val: dwarf.MemObject(elemT, node+voff)})
		if node, err = env.ReadUint(node, int(w)); err != nil {
			return pretty{}, err
		}
	}
	return p, nil
}
