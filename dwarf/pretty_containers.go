package dwarf

import (
	"errors"
	"strconv"
	"strings"
)

// Printers for the node-based libstdc++ containers: std::map/set
// (_Rb_tree), std::unordered_* (_Hashtable) and std::list.

// ppRbTree prints std::map/set/multimap/multiset by walking _Rb_tree.
func (env *ValueEnv) ppRbTree(o Object, st *StructType, base string) (pretty, error) {
	tree, err := env.member(o, "_M_t")
	if err != nil {
		return pretty{}, err
	}
	tst, ok := Resolve(tree.Type).(*StructType)
	if !ok {
		return pretty{}, errNotPretty
	}
	valT := env.templateArg(tst, 1)
	if valT == nil {
		return pretty{}, errNotPretty
	}
	header, err := env.memberPath(tree, "_M_impl", "_M_header")
	if err != nil {
		return pretty{}, err
	}
	cnt, err := env.memberPath(tree, "_M_impl", "_M_node_count")
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
	voff := alignUp(32, alignOf(valT))
	node, err := env.readUint(hdr+16, 8) // _M_left: leftmost
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
		v := MemObject(valT, node+voff)
		if isMap {
			k, err1 := env.member(v, "first")
			s, err2 := env.member(v, "second")
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

// rbNext is _Rb_tree_increment on node addresses (_M_parent at 8,
// _M_left at 16, _M_right at 24).
func (env *ValueEnv) rbNext(node uint64) (uint64, error) {
	right, err := env.readUint(node+24, 8)
	if err != nil {
		return 0, err
	}
	if right != 0 {
		node = right
		for i := 0; i < 1000; i++ {
			left, err := env.readUint(node+16, 8)
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
	parent, err := env.readUint(node+8, 8)
	if err != nil {
		return 0, err
	}
	for i := 0; i < 1000; i++ {
		pr, err := env.readUint(parent+24, 8)
		if err != nil {
			return 0, err
		}
		if node != pr {
			break
		}
		node = parent
		if parent, err = env.readUint(parent+8, 8); err != nil {
			return 0, err
		}
	}
	nr, err := env.readUint(node+24, 8)
	if err != nil {
		return 0, err
	}
	if nr != parent {
		node = parent
	}
	return node, nil
}

func (env *ValueEnv) ppHashtable(o Object, st *StructType, base string) (pretty, error) {
	h, err := env.member(o, "_M_h")
	if err != nil {
		return pretty{}, err
	}
	hst, ok := Resolve(h.Type).(*StructType)
	if !ok {
		return pretty{}, errNotPretty
	}
	valT := env.templateArg(hst, 1)
	if valT == nil {
		return pretty{}, errNotPretty
	}
	cnt, err := env.member(h, "_M_element_count")
	if err != nil {
		return pretty{}, err
	}
	n, err := env.Uint(cnt)
	if err != nil {
		return pretty{}, err
	}
	bb, err := env.member(h, "_M_before_begin")
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
	voff := alignUp(8, alignOf(valT))
	node, err := env.readUint(first, 8)
	if err != nil {
		return pretty{}, err
	}
	limit := uint64(env.maxElements())
	for i := uint64(0); node != 0 && i < n; i++ {
		if i >= limit {
			p.more = true
			break
		}
		v := MemObject(valT, node+voff)
		if isMap {
			k, err1 := env.member(v, "first")
			s, err2 := env.member(v, "second")
			if errors.Join(err1, err2) != nil {
				return pretty{}, errNotPretty
			}
			p.children = append(p.children, prettyChild{key: &k, val: s})
		} else {
			p.children = append(p.children, prettyChild{name: "[" + strconv.FormatUint(i, 10) + "]", val: v})
		}
		if node, err = env.readUint(node, 8); err != nil {
			return pretty{}, err
		}
	}
	return p, nil
}

func (env *ValueEnv) ppList(o Object, st *StructType, base string) (pretty, error) {
	elemT := env.templateArg(st, 0)
	if elemT == nil {
		return pretty{}, errNotPretty
	}
	hdr, err := env.memberPath(o, "_M_impl", "_M_node")
	if err != nil {
		return pretty{}, err
	}
	ha, ok := hdr.Addr()
	if !ok {
		return pretty{}, errNotPretty
	}
	node, err := env.readUint(ha, 8)
	if err != nil {
		return pretty{}, err
	}
	if node == ha {
		return pretty{head: "empty " + base}, nil
	}
	p := pretty{head: base}
	voff := alignUp(16, alignOf(elemT))
	limit := env.maxElements()
	for i := 0; node != ha; i++ {
		if i >= limit {
			p.more = true
			break
		}
		if node == 0 || i > 1<<20 {
			return pretty{}, errNotPretty
		}
		p.children = append(p.children, prettyChild{name: "[" + strconv.Itoa(i) + "]", val: MemObject(elemT, node+voff)})
		if node, err = env.readUint(node, 8); err != nil {
			return pretty{}, err
		}
	}
	return p, nil
}
