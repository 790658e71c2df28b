package format

import (
	"strconv"

	"github.com/rrmcp/rrmcp/dwarf"
)

// Value is the structured, JSON-ready form of a printed value: the GDB
// text of the whole value plus its parts as children, so that a client
// can show or expand it.
type Value struct {
	// Name is the variable or expression, or the child's name: a member
	// name, "[3]" for an element, "<Base>" for a base class, "static x"
	// for a static member, "*p" for the pointee of a pointer, and the
	// key text "[\"a\"]" for map entries.
	Name string `json:"name,omitempty"`
	// Type is the declared type as whatis prints it.
	Type string `json:"type"`
	// Value is GDB's text for the value (top-level style at the root,
	// member style for children).
	Value string `json:"value"`
	// Address is the object's address in target memory ("0x7ffe...")
	// when it has one.
	Address string `json:"address,omitempty"`
	// Children are the members, elements or pretty-printer children,
	// cut at the element limit and the depth limit.
	Children []Value `json:"children,omitempty"`
	// Truncated says that children were left out (element or depth
	// limit); Value still has GDB's text of everything it prints.
	Truncated bool `json:"truncated,omitempty"`
	// Error is why the value could not be read ("optimized out", a
	// memory error); Value then holds GDB's <...> text.
	Error string `json:"error,omitempty"`
}

// Tree bounds what [Structured] expands: Depth levels of children below
// the value (0: none) and at most Nodes children in all (0: no bound
// beyond the element limit at each level). A node left out for either
// bound marks its parent Truncated.
type Tree struct {
	Depth int
	Nodes int
}

// Structured returns the structured form of o named name, with children
// as far as t allows.
func Structured(env *dwarf.ValueEnv, name string, o dwarf.Object, t Tree) Value {
	p := &printer{ValueEnv: env, tree: t, nodes: t.Nodes}
	return p.structured(name, o, 0, true)
}

func (env *printer) structured(name string, o dwarf.Object, depth int, top bool) Value {
	v := Value{Name: name, Type: env.TypeString(o.Type)}
	env.seenStatics = nil // each node's text is a print of its own
	if top {
		v.Value = env.text(o)
	} else {
		v.Value = env.memberText(o)
	}
	if a, ok := o.Addr(); ok {
		v.Address = hex(a)
	}
	if o.Err != nil {
		v.Error = o.Err.Error()
		return v
	}
	if o.Loc.Kind == dwarf.LocOptimizedOut {
		v.Error = dwarf.ErrOptimizedOut.Error()
		return v
	}
	var pp *pretty
	if !env.Raw {
		if p, ok := env.prettyPrint(o); ok {
			pp = &p
			if p.err != nil {
				v.Error = firstMemoryError(p.err).Error()
			}
		}
	}
	if depth >= env.tree.Depth {
		if pp != nil {
			// The printer's children: none for a string, nor where
			// the printer could not read them.
			v.Truncated = len(pp.children) > 0
		} else {
			v.Truncated = env.hasChildren(o)
		}
		return v
	}
	add := func(n string, c dwarf.Object) {
		if env.tree.Nodes > 0 {
			if env.nodes == 0 {
				v.Truncated = true
				return
			}
			env.nodes--
		}
		v.Children = append(v.Children, env.structured(n, c, depth+1, false))
	}
	if pp != nil {
		for _, c := range pp.children {
			n := c.name
			if c.key != nil {
				n = "[" + env.memberText(*c.key) + "]"
			}
			add(n, c.val)
		}
		v.Truncated = pp.more
		return v
	}
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.StructType:
		if t.Incomplete {
			return v
		}
		if t.Variants != nil {
			// A Rust enum: the fields of the variant it holds.
			if vo, ok, err := env.rustVariant(o, t); err == nil && ok {
				if vt, ok := dwarf.Resolve(vo.Type).(*dwarf.StructType); ok {
					for _, f := range vt.Fields {
						add(f.Name, env.Field(vo, f))
					}
				}
			}
			return v
		}
		for _, b := range t.Bases {
			add("<"+dwarf.TypeString(b.Type)+">", env.BaseObject(o, b))
		}
		for _, f := range t.Fields {
			add(f.Name, env.Field(o, f))
		}
		for _, s := range t.Statics {
			add("static "+s.Name, env.StaticObject(s))
		}
	case *dwarf.ArrayType:
		if _, isChar := dwarf.IsCharType(t.Elem); isChar {
			return v // a string: the text says it all
		}
		n := t.Count
		limit := int64(env.maxElements())
		if n > limit {
			n, v.Truncated = limit, true
		}
		for i := int64(0); i < n; i++ {
			add("["+strconv.FormatInt(i, 10)+"]", env.Elem(o, i))
		}
	case *dwarf.PointerType, *dwarf.ReferenceType:
		if !env.pointsToAggregate(t) {
			return v
		}
		target, err := env.Deref(o)
		if err != nil {
			return v
		}
		if a, _ := env.Uint(o); a == 0 {
			return v
		}
		add("*"+name, target)
	}
	return v
}

// pointsToAggregate reports whether a pointer's target is worth showing
// as a child (structs and arrays; not chars, scalars or void).
func (env *printer) pointsToAggregate(t dwarf.Type) bool {
	var elem dwarf.Type
	switch p := t.(type) {
	case *dwarf.PointerType:
		elem = p.Elem
	case *dwarf.ReferenceType:
		elem = p.Elem
	}
	switch dwarf.Resolve(elem).(type) {
	case *dwarf.StructType, *dwarf.ArrayType:
		return true
	}
	return false
}

func (env *printer) hasChildren(o dwarf.Object) bool {
	switch t := dwarf.Resolve(o.Type).(type) {
	case *dwarf.StructType:
		return !t.Incomplete
	case *dwarf.ArrayType:
		_, isChar := dwarf.IsCharType(t.Elem)
		return !isChar && t.Count > 0
	case *dwarf.PointerType, *dwarf.ReferenceType:
		a, err := env.Uint(o)
		return err == nil && a != 0 && env.pointsToAggregate(t)
	}
	return false
}
