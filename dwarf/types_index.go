package dwarf

import (
	stddwarf "debug/dwarf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// The TypeReader's indexes: compile units, qualified-name prefixes, the
// name index for lookups, enumerators and static member definitions.

// cuIndex returns the index of the compile unit containing off.
func (r *TypeReader) cuIndex(off stddwarf.Offset) int {
	i := sort.Search(len(r.cus), func(i int) bool { return r.cus[i].end > off })
	if i == len(r.cus) {
		return -1
	}
	return i
}

// LangAt returns the language of the compile unit containing off.
func (r *TypeReader) LangAt(off stddwarf.Offset) Lang {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := r.cuIndex(off); i >= 0 {
		return r.cus[i].lang
	}
	return LangC
}

// scanCU records qualified-name prefixes, named definitions and static
// member definitions of compile unit i.
func (r *TypeReader) scanCU(i int) {
	if i < 0 || r.scanned[i] {
		return
	}
	r.scanned[i] = true
	rd := r.data.Reader()
	rd.Seek(r.cus[i].off)
	cu, err := rd.Next()
	if err != nil || cu == nil || !cu.Children {
		return
	}
	lang := r.cus[i].lang
	type scope struct {
		prefix string
		enum   stddwarf.Offset // enumeration whose enumerators follow
	}
	stack := []scope{{}}
	for len(stack) > 0 {
		e, err := rd.Next()
		if err != nil || e == nil {
			return
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		top := stack[len(stack)-1]
		prefix := top.prefix
		name := typeDIEName(e)
		child := scope{prefix: prefix}
		switch e.Tag {
		case stddwarf.TagNamespace:
			if name == "" {
				name = "(anonymous namespace)"
			}
			child.prefix = prefix + name + "::"
		case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType:
			r.qual[e.Offset] = prefix
			if name != "" {
				if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); !decl {
					if lang != LangC {
						// A C tag is no type name: "node" is not
						// "struct node", and typedef struct S {...} S
						// names the typedef S.
						r.addName(prefix+name, e.Offset, lang)
					}
					r.addTag(prefix+name, e.Offset, lang)
				}
			}
			// Class bodies are mostly member declarations: skip them
			// (nested types are found through their class, see
			// lookupNested).
			if e.Children {
				rd.SkipChildren()
			}
			continue
		case stddwarf.TagEnumerationType, stddwarf.TagTypedef, stddwarf.TagBaseType,
			stddwarf.TagUnspecifiedType:
			r.qual[e.Offset] = prefix
			if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); !decl && name != "" {
				if e.Tag != stddwarf.TagEnumerationType || lang != LangC {
					r.addName(prefix+name, e.Offset, lang)
				}
				if e.Tag == stddwarf.TagEnumerationType {
					r.addTag(prefix+name, e.Offset, lang)
				}
			}
			if e.Tag == stddwarf.TagEnumerationType {
				child.enum = e.Offset
				if scoped, _ := e.Val(stddwarf.AttrEnumClass).(bool); scoped && name != "" {
					child.prefix = prefix + name + "::"
				}
			}
		case stddwarf.TagEnumerator:
			if top.enum != 0 && name != "" {
				if _, dup := r.enumerators[prefix+name]; !dup {
					r.enumerators[prefix+name] = enumerator{top.enum, enumeratorValue(e)}
				}
			}
		case stddwarf.TagVariable:
			if spec, ok := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset); ok {
				if loc, ok := e.Val(stddwarf.AttrLocation).([]byte); ok && len(loc) == 9 && loc[0] == 0x03 {
					r.statics[spec] = binary.LittleEndian.Uint64(loc[1:])
				}
			}
		case stddwarf.TagSubprogram, stddwarf.TagLexDwarfBlock:
			if e.Children {
				rd.SkipChildren()
			}
			continue
		}
		if e.Children {
			stack = append(stack, child)
		}
	}
}

// addName indexes a definition under its DWARF name and, for C++, under
// the canonical spelling Type names use.
func (r *TypeReader) addName(name string, off stddwarf.Offset, lang Lang) {
	addFirst(r.names, name, off, lang)
	r.addAnon(name, off, lang)
}

// addAnon indexes a C++ name with anonymous namespaces in it under the
// name without them (TypeReader.anon).
func (r *TypeReader) addAnon(name string, off stddwarf.Offset, lang Lang) {
	if lang == LangCPlusPlus && strings.Contains(name, anonNS) {
		addFirst(r.anon, strings.ReplaceAll(name, anonNS, ""), off, lang)
	}
}

// anonNS is how an anonymous namespace stands in a qualified name.
const anonNS = "(anonymous namespace)::"

// addTag indexes a struct/class/union/enum definition under its tag.
func (r *TypeReader) addTag(name string, off stddwarf.Offset, lang Lang) {
	addFirst(r.tags, name, off, lang)
	r.addAnon(name, off, lang)
}

// addFirst indexes off in m under name and, for C++, under its canonical
// spelling, unless an earlier definition holds that key.
func addFirst(m map[string]stddwarf.Offset, name string, off stddwarf.Offset, lang Lang) {
	if _, dup := m[name]; !dup {
		m[name] = off
	}
	if lang == LangCPlusPlus {
		if c := canonicalCxxName(name); c != name {
			if _, dup := m[c]; !dup {
				m[c] = off
			}
		}
	}
}

// splitScope splits a qualified name at its last top-level "::" (not
// inside template arguments).
func splitScope(name string) (outer, inner string, ok bool) {
	depth := 0
	for i := len(name) - 1; i > 0; i-- {
		switch name[i] {
		case '>', ')':
			depth++
		case '<', '(':
			depth--
		case ':':
			if depth == 0 && name[i-1] == ':' {
				return name[:i-1], name[i+1:], i-1 > 0
			}
		}
	}
	return "", "", false
}

// scanAll scans every compile unit (for lookups by name).
func (r *TypeReader) scanAll() {
	if r.all {
		return
	}
	for i := range r.cus {
		r.scanCU(i)
	}
	r.all = true
}

// LookupType finds a named type by its qualified name ("node",
// "geo::Circle", "unsigned int"); for C struct/union/enum tags the
// keyword may be given ("struct node"). It returns an error wrapping
// ErrNotFound when no compile unit defines it.
func (r *TypeReader) LookupType(name string) (Type, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scanAll()
	key, tagged := tagKey(name)
	var off stddwarf.Offset
	ok := false
	if tagged {
		// "struct S" names the tag, never a typedef S.
		if off, ok = r.tags[key]; !ok {
			off, ok = r.tags[canonicalCxxName(key)]
		}
	}
	if !ok {
		off, ok = r.names[key]
	}
	if !ok {
		off, ok = r.names[canonicalCxxName(key)]
	}
	if !ok {
		if off, ok = r.anon[key]; !ok {
			off, ok = r.anon[canonicalCxxName(key)]
		}
	}
	if !ok {
		if off, ok = r.lookupNested(key); !ok {
			return nil, fmt.Errorf("type %q: %w", name, ErrNotFound)
		}
	}
	t, err := r.readType(off, 0)
	if _, isTypedef := t.(*TypedefType); err == nil && tagged && isTypedef {
		// "struct S" where S is only a typedef (of a nameless struct):
		// GDB's "No struct type named S."
		return nil, fmt.Errorf("type %q (%s is a typedef, no tag): %w", name, key, ErrNotFound)
	}
	return t, err
}

// tagKey splits a type name from its struct, class, union or enum
// keyword: tagged says it had one ("struct S" names a tag, never a
// typedef S).
func tagKey(name string) (key string, tagged bool) {
	key = name
	for _, kw := range []string{"struct ", "class ", "union ", "enum "} {
		if k, ok := strings.CutPrefix(key, kw); ok && k != "" {
			key, tagged = k, true
		}
	}
	return key, tagged
}

// LookupTypeInUnit is LookupType as seen from the compile unit holding
// the DIE at off (a function's): a type that unit defines at its top
// level comes first, as GDB looks in the current unit's static block
// before the global ones (every libarchive filter has its own struct
// private_data); else LookupType.
func (r *TypeReader) LookupTypeInUnit(name string, off stddwarf.Offset) (Type, error) {
	key, tagged := tagKey(name)
	if !strings.Contains(key, "::") && !strings.Contains(key, "<") {
		r.mu.Lock()
		u := r.unitTypesAt(off)
		var toff stddwarf.Offset
		ok := false
		if u != nil {
			// as LookupType: "struct S" names the tag; S alone a typedef
			// or base type, and in C++ a tag too
			if !tagged {
				toff, ok = u.names[key]
			}
			if !ok && (tagged || u.cplus) {
				toff, ok = u.tags[key]
			}
		}
		if ok {
			defer r.mu.Unlock()
			return r.readType(toff, 0)
		}
		r.mu.Unlock()
	}
	return r.LookupType(name)
}

// unitTypesAt returns (making it once) the top-level types of the
// compile unit holding off; nil for none. r.mu is held.
func (r *TypeReader) unitTypesAt(off stddwarf.Offset) *unitTypes {
	i := r.cuIndex(off)
	if i < 0 {
		return nil
	}
	if u, ok := r.unitTypes[i]; ok {
		return u
	}
	u := &unitTypes{names: map[string]stddwarf.Offset{}, tags: map[string]stddwarf.Offset{}, cplus: r.cus[i].lang == LangCPlusPlus}
	rd := r.data.Reader()
	rd.Seek(r.cus[i].off)
	// The unit's top-level types, then those of its top-level anonymous
	// namespaces (their names are the unit's too, after its own).
	anon := &unitTypes{names: map[string]stddwarf.Offset{}, tags: map[string]stddwarf.Offset{}}
	var children func(into *unitTypes, depth int)
	children = func(into *unitTypes, depth int) {
		for {
			e, err := rd.Next()
			if err != nil || e == nil || e.Tag == 0 {
				return
			}
			name := typeDIEName(e)
			decl, _ := e.Val(stddwarf.AttrDeclaration).(bool)
			if name != "" && !decl {
				switch e.Tag {
				case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType, stddwarf.TagEnumerationType:
					if _, dup := into.tags[name]; !dup {
						into.tags[name] = e.Offset
					}
				case stddwarf.TagTypedef, stddwarf.TagBaseType:
					if _, dup := into.names[name]; !dup {
						into.names[name] = e.Offset
					}
				}
			}
			switch {
			case e.Tag == stddwarf.TagNamespace && name == "" && e.Children && u.cplus && depth < 4:
				children(anon, depth+1)
			case e.Children:
				rd.SkipChildren()
			}
		}
	}
	if cu, err := rd.Next(); err == nil && cu != nil && cu.Children {
		children(u, 0)
	}
	for k, v := range anon.names {
		if _, dup := u.names[k]; !dup {
			u.names[k] = v
		}
	}
	for k, v := range anon.tags {
		if _, dup := u.tags[k]; !dup {
			u.tags[k] = v
		}
	}
	if r.unitTypes == nil {
		r.unitTypes = map[int]*unitTypes{}
	}
	r.unitTypes[i] = u
	return u
}

// findTag finds a struct/class/union/enum definition by tag, scanning
// compile units in order only until one defines it (a declaration's
// definition is usually in one of the first units GDB would expand too),
// so that resolving one opaque type does not index the whole program.
func (r *TypeReader) findTag(name string) (stddwarf.Offset, bool) {
	if off, ok := r.tags[name]; ok {
		return off, true
	}
	if r.all {
		return 0, false
	}
	for i := range r.cus {
		if r.scanned[i] {
			continue
		}
		r.scanCU(i)
		if off, ok := r.tags[name]; ok {
			return off, true
		}
	}
	r.all = true
	return 0, false
}

// definition finds the defining DIE of a declared struct/class/union.
func (r *TypeReader) definition(name string, decl stddwarf.Offset) *StructType {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A declaration's definition is a struct, never the typedef that
	// shares its name (`typedef struct S S;`).
	def, ok := r.findTag(name)
	if !ok {
		r.scanAll()
		def, ok = r.names[name]
	}
	if !ok {
		if def, ok = r.lookupNested(name); !ok {
			// (no definition anywhere: the library's own, where
			// rrmcp knows its layout)
			return stdStringDefinition(name, int64(r.addrSize(decl)))
		}
	}
	if def == decl {
		return nil
	}
	t, err := r.readType(def, 0)
	if err != nil {
		return nil
	}
	st, _ := t.(*StructType)
	if st == nil || st.Incomplete {
		return nil
	}
	return st
}

// lookupNested finds a type nested in a class ("geo::Shape::Kind"): the
// name index skips class bodies, so search the class's children.
func (r *TypeReader) lookupNested(name string) (stddwarf.Offset, bool) {
	outer, inner, ok := splitScope(name)
	if !ok {
		return 0, false
	}
	var found stddwarf.Offset
	r.inScopes(outer, func(off stddwarf.Offset) bool {
		rd := r.data.Reader()
		rd.Seek(off)
		e, err := rd.Next()
		if err != nil || e == nil || !e.Children {
			return false
		}
		for {
			c, err := rd.Next()
			if err != nil || c == nil || c.Tag == 0 {
				return false
			}
			switch c.Tag {
			case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType, stddwarf.TagEnumerationType,
				stddwarf.TagTypedef:
				if n, _ := c.Val(stddwarf.AttrName).(string); n == inner || canonicalCxxName(n) == inner {
					if decl, _ := c.Val(stddwarf.AttrDeclaration).(bool); !decl {
						found = c.Offset
						return true
					}
				}
			}
			if c.Children {
				rd.SkipChildren()
			}
		}
	})
	return found, found != 0
}

// inScopes calls find on the definitions of the class (or enum) named
// outer until it reports true: the one the name index holds first, then
// the other units' (classDefs), where the first lacks what find wants.
func (r *TypeReader) inScopes(outer string, find func(off stddwarf.Offset) bool) bool {
	off, found := r.names[outer]
	if !found {
		// as the user spells it: SL<const char *, Cmp> is GDB's (and
		// the index's) SL<char const*, Cmp>
		if c := canonicalCxxName(outer); c != outer {
			if off, found = r.names[c]; found {
				outer = c
			}
		}
	}
	if !found {
		if off, found = r.lookupNested(outer); !found {
			return false // no class of that name: no other definition either
		}
	}
	if find(off) {
		return true
	}
	for _, o := range r.classDefs(outer) {
		if o != off && find(o) {
			return true
		}
	}
	return false
}

// Enumerator finds an enumerator by (qualified) name: "RED",
// "geo::RED", "Mode::On". It returns the enum type and the value.
func (r *TypeReader) Enumerator(name string) (Type, int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scanAll()
	en, ok := r.enumerators[name]
	if !ok {
		if en, ok = r.nestedEnumerator(name); !ok {
			return nil, 0, false
		}
		r.enumerators[name] = en
	}
	t, err := r.readType(en.enum, 0)
	if err != nil {
		return nil, 0, false
	}
	return t, en.val, true
}

// nestedEnumerator finds an enumerator of an enum inside a class
// ("Outer::K2") or of a scoped enum inside a class ("Outer::Mode::On"),
// which the name index does not cover.
func (r *TypeReader) nestedEnumerator(name string) (enumerator, bool) {
	outer, inner, ok := splitScope(name)
	if !ok {
		return enumerator{}, false
	}
	var en enumerator
	ok = r.inScopes(outer, func(off stddwarf.Offset) bool {
		var found bool
		en, found = r.enumeratorInScope(off, inner)
		return found
	})
	return en, ok
}

// enumeratorInScope finds enumerator name in the enumeration at off, or
// in an unscoped enumeration that the class at off holds.
func (r *TypeReader) enumeratorInScope(off stddwarf.Offset, name string) (enumerator, bool) {
	rd := r.data.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil || e == nil || !e.Children {
		return enumerator{}, false
	}
	if e.Tag == stddwarf.TagEnumerationType {
		return r.enumeratorIn(rd, off, name)
	}
	for {
		c, err := rd.Next()
		if err != nil || c == nil || c.Tag == 0 {
			return enumerator{}, false
		}
		if c.Tag == stddwarf.TagEnumerationType && c.Children {
			if scoped, _ := c.Val(stddwarf.AttrEnumClass).(bool); !scoped {
				if en, ok := r.enumeratorIn(rd, c.Offset, name); ok {
					return en, true
				}
				continue // enumeratorIn consumed the children
			}
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
}

// classDefs returns the definitions of the class, struct or union named
// qual at namespace scope in every compile unit: gcc puts a class in each
// unit that uses it, with only the members that unit needs (a nested
// enum may be in another unit's copy only), where the name index holds
// the first. Made once per name, on a miss: it reads every unit's top
// levels.
func (r *TypeReader) classDefs(qual string) []stddwarf.Offset {
	if out, ok := r.defs[qual]; ok {
		return out
	}
	if r.defs == nil {
		r.defs = map[string][]stddwarf.Offset{}
	}
	var out []stddwarf.Offset
	defer func() { r.defs[qual] = out }()
	for i := range r.cus {
		rd := r.data.Reader()
		rd.Seek(r.cus[i].off)
		cu, err := rd.Next()
		if err != nil || cu == nil || !cu.Children {
			continue
		}
		prefixes := []string{""}
		for len(prefixes) > 0 {
			e, err := rd.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag == 0 {
				prefixes = prefixes[:len(prefixes)-1]
				continue
			}
			prefix := prefixes[len(prefixes)-1]
			name, _ := e.Val(stddwarf.AttrName).(string)
			switch e.Tag {
			case stddwarf.TagNamespace:
				if name == "" {
					name = "(anonymous namespace)"
				}
				if e.Children && strings.HasPrefix(qual, prefix+name+"::") {
					prefixes = append(prefixes, prefix+name+"::")
					continue
				}
			case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType:
				if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); !decl && prefix+name == qual {
					out = append(out, e.Offset)
				}
			}
			if e.Children {
				rd.SkipChildren()
			}
		}
	}
	return out
}

// enumeratorIn reads the enumerators following an enumeration DIE at
// off (rd positioned at its first child) up to its end.
func (r *TypeReader) enumeratorIn(rd *stddwarf.Reader, off stddwarf.Offset, name string) (enumerator, bool) {
	var found *enumerator
	for {
		c, err := rd.Next()
		if err != nil || c == nil || c.Tag == 0 {
			break
		}
		if n, _ := c.Val(stddwarf.AttrName).(string); c.Tag == stddwarf.TagEnumerator && n == name && found == nil {
			found = &enumerator{off, enumeratorValue(c)}
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
	if found == nil {
		return enumerator{}, false
	}
	return *found, true
}

// StaticAddr returns the file address of the definition of the static
// member declared at decl.
func (r *TypeReader) StaticAddr(decl stddwarf.Offset) (uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.statics[decl]; ok {
		return a, true
	}
	r.scanAll()
	if a, ok := r.statics[decl]; ok {
		return a, true
	}
	// Defined in another unit: its DW_AT_specification is that unit's
	// copy of the class, so the definition is found by qualified name.
	name := r.memberName(decl)
	if name == "" {
		return 0, false
	}
	if r.staticsByName == nil {
		r.staticsByName = map[string]uint64{}
		for spec, a := range r.statics {
			if n := r.memberName(spec); n != "" {
				r.staticsByName[n] = a
			}
		}
	}
	a, ok := r.staticsByName[name]
	return a, ok
}

// QualifiedName is the qualified name of the DIE at off
// ("ns::Class::m"), or "" where it has no name.
func (r *TypeReader) QualifiedName(off stddwarf.Offset) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.memberName(off)
}

// memberName is QualifiedName with r.mu held.
func (r *TypeReader) memberName(off stddwarf.Offset) string {
	rd := r.data.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil || e == nil {
		return ""
	}
	name, _ := e.Val(stddwarf.AttrName).(string)
	return r.qualName(off, name)
}

// Type returns the type whose DIE is at off.
func (r *TypeReader) Type(off stddwarf.Offset) (Type, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readType(off, 0)
}

func (r *TypeReader) qualName(off stddwarf.Offset, name string) string {
	if name == "" {
		return ""
	}
	return r.prefixOf(off) + name
}

// prefixOf returns the qualified scope prefix ("geo::Shape::") of the
// DIE at off. It walks down from the compile unit through the scopes
// whose subtrees contain off, skipping other subtrees by DW_AT_sibling,
// so it reads only a small part of the unit.
func (r *TypeReader) prefixOf(off stddwarf.Offset) string {
	if p, ok := r.qual[off]; ok {
		return p
	}
	i := r.cuIndex(off)
	if i < 0 {
		return ""
	}
	rd := r.data.Reader()
	rd.Seek(r.cus[i].off)
	if cu, err := rd.Next(); err != nil || cu == nil || !cu.Children {
		return ""
	}
	prefix := ""
	last := r.cus[i].off
	for steps := 0; steps < 1<<20; steps++ {
		e, err := rd.Next()
		if err != nil || e == nil || e.Tag == 0 {
			return ""
		}
		if e.Offset > off || e.Offset <= last {
			return "" // passed it, or malformed siblings going backwards
		}
		last = e.Offset
		// Everything at this level shares the prefix: remember it for
		// the lookups to come.
		r.qual[e.Offset] = prefix
		if e.Offset == off {
			return prefix
		}
		if !e.Children {
			continue
		}
		if sib, ok := e.Val(stddwarf.AttrSibling).(stddwarf.Offset); ok && sib > e.Offset {
			if off >= sib {
				rd.Seek(sib)
				continue
			}
		} else {
			rd.SkipChildren()
			n, err := rd.Next()
			if err != nil {
				return ""
			}
			if n != nil && n.Tag != 0 && n.Offset <= off {
				rd.Seek(n.Offset)
				continue
			}
			rd.Seek(e.Offset) // off is inside e: go back and descend
			rd.Next()
		}
		name, _ := e.Val(stddwarf.AttrName).(string)
		switch e.Tag {
		case stddwarf.TagNamespace:
			if name == "" {
				name = "(anonymous namespace)"
			}
			prefix += name + "::"
		case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType:
			if name != "" {
				prefix += name + "::"
			}
		}
	}
	return ""
}

// addrSize is the address size of the unit holding off (8 when unknown).
func (r *TypeReader) addrSize(off stddwarf.Offset) int64 {
	if i := r.cuIndex(off); i >= 0 && (r.cus[i].addrSize == 4 || r.cus[i].addrSize == 8) {
		return int64(r.cus[i].addrSize)
	}
	return 8
}

func (r *TypeReader) lang(off stddwarf.Offset) Lang {
	if i := r.cuIndex(off); i >= 0 {
		return r.cus[i].lang
	}
	return LangC
}
