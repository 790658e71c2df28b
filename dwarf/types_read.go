package dwarf

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	stddwarf "debug/dwarf"
)

// TypeReader builds Types from DWARF type DIEs. Results are cached by
// DIE offset, so asking twice for the same offset returns the same Type.
// It is safe for concurrent use.
type TypeReader struct {
	data *stddwarf.Data

	mu      sync.Mutex
	cache   map[stddwarf.Offset]Type
	cus     []cuSpan
	scanned []bool
	// qual is the qualified scope prefix ("geo::") of named DIEs in
	// scanned compile units.
	qual map[stddwarf.Offset]string
	// names maps qualified names to defining DIEs (scanned CUs only).
	names map[string]stddwarf.Offset
	// tags maps qualified struct/class/union/enum names to their
	// defining DIEs: C keeps tags apart from typedef names, and
	// `typedef struct S S;` puts both under "S".
	tags map[string]stddwarf.Offset
	// anon maps the names of C++ types in anonymous namespaces, those
	// namespaces left out ("Ring<double, 4>" for "(anonymous
	// namespace)::Ring<double, 4>"), to their definitions: an anonymous
	// namespace's names are its enclosing scope's (an implicit using
	// directive, GDB's read_namespace), found after the names it defines
	// itself.
	anon map[string]stddwarf.Offset
	// statics maps a static member's declaration DIE to the file
	// address of its definition.
	statics map[stddwarf.Offset]uint64
	// staticsByName maps the qualified names of the declarations in
	// statics to the same addresses (made on the first miss): a
	// definition names its own unit's copy of the class.
	staticsByName map[string]uint64
	// enumerators maps qualified enumerator names to their enum DIE
	// and value.
	enumerators map[string]enumerator
	// defs caches classDefs: every unit's definitions of a class.
	defs map[string][]stddwarf.Offset
	all  bool // every CU scanned
	// unitTypes: per compile unit (made on its first lookup), the types
	// it defines at its top level (LookupTypeInUnit)
	unitTypes map[int]*unitTypes
}

// unitTypes are the named types a compile unit defines at its top level:
// tags (struct, class, union, enum) apart from the other names, as in
// TypeReader.
type unitTypes struct {
	names, tags map[string]stddwarf.Offset
	cplus       bool // a C++ unit: a tag alone names a type
}

type enumerator struct {
	enum stddwarf.Offset
	val  int64
}

type cuSpan struct {
	off, end stddwarf.Offset
	lang     Lang
	addrSize int // the unit header's: the size of a pointer without DW_AT_byte_size
	// unprototyped: a language whose functions may be unprototyped (C,
	// Objective C, OpenCL): only there does a function without
	// DW_AT_prototyped print as "int ()" (GDB's prototyped_function_p);
	// an assembler unit's functions are prototyped: void (void)
	unprototyped bool
}

// maxTypeDepth bounds recursion through type references.
const maxTypeDepth = 200

// NewTypeReader returns a reader for the types in d.
// dwLangGo is DW_LANG_Go; dwLangRust DW_LANG_Rust.
const (
	dwLangGo   = 0x16
	dwLangRust = 0x1c
)

func NewTypeReader(d *stddwarf.Data) *TypeReader {
	r := &TypeReader{
		data:    d,
		cache:   make(map[stddwarf.Offset]Type),
		qual:    make(map[stddwarf.Offset]string),
		names:   make(map[string]stddwarf.Offset),
		tags:    make(map[string]stddwarf.Offset),
		anon:    make(map[string]stddwarf.Offset),
		statics: make(map[stddwarf.Offset]uint64),

		enumerators: make(map[string]enumerator),
	}
	rd := d.Reader()
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		lang := LangC
		l, ok := e.Val(stddwarf.AttrLanguage).(int64)
		unprototyped := ok && cLike(l)
		if ok && isCPlusPlus(l) {
			lang = LangCPlusPlus
		} else if ok && l == dwLangGo {
			lang = LangGo
		} else if ok && l == dwLangRust {
			lang = LangRust
		}
		if n := len(r.cus); n > 0 {
			r.cus[n-1].end = e.Offset
		}
		r.cus = append(r.cus, cuSpan{off: e.Offset, end: ^stddwarf.Offset(0), lang: lang, addrSize: rd.AddressSize(), unprototyped: unprototyped})
		rd.SkipChildren()
	}
	r.scanned = make([]bool, len(r.cus))
	return r
}

// cLike reports whether DW_AT_language l is C, Objective C or OpenCL,
// whose functions GDB 13 reads as unprototyped without DW_AT_prototyped
// (its language_c, objc and opencl; a code it does not know, C17 among
// them, is language_minimal).
func cLike(l int64) bool {
	switch l {
	case 0x1 /* C89 */, 0x2 /* C */, 0xc /* C99 */, 0x10 /* ObjC */, 0x12 /* UPC */, 0x15 /* OpenCL */, 0x1d /* C11 */ :
		return true
	}
	return false
}

func isCPlusPlus(l int64) bool {
	switch l {
	case 0x4, 0x19, 0x1a, 0x21, 0x2b /* C_plus_plus_17 */, 0x2c /* C_plus_plus_20 */ :
		return true
	}
	return false
}

// typeAttr reads the type referenced by e's DW_AT_type (void if absent).
func (r *TypeReader) typeAttr(e *stddwarf.Entry, depth int) (Type, error) {
	switch v := e.Val(stddwarf.AttrType).(type) {
	case stddwarf.Offset:
		return r.readType(v, depth+1)
	case nil:
		return &VoidType{CommonType{Name: "void", Lang: r.lang(e.Offset)}}, nil
	case uint64:
		// DW_FORM_ref_sig8: the type lives in a type unit
		return nil, fmt.Errorf("type of DIE %#x is in a type unit (signature %#x): %w", e.Offset, v, ErrUnsupported)
	default:
		return nil, errType(e.Offset, "DW_AT_type of class %T", v)
	}
}

func (r *TypeReader) readType(off stddwarf.Offset, depth int) (Type, error) {
	if t, ok := r.cache[off]; ok {
		return t, nil
	}
	if depth > maxTypeDepth {
		return nil, errType(off, "type nesting too deep")
	}
	rd := r.data.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil {
		return nil, fmt.Errorf("read type at %#x: %w", off, err)
	}
	if e == nil || e.Offset != off {
		return nil, errType(off, "no type DIE")
	}
	name := typeDIEName(e)
	size, ok := e.Val(stddwarf.AttrByteSize).(int64)
	if !ok {
		size = -1
	}
	common := CommonType{Name: r.qualName(off, name), ByteSize: size, Offset: off, Lang: r.lang(off)}
	switch {
	case common.Lang == LangCPlusPlus && !functionTypeArg(common.Name):
		// (a function type among the template arguments, g++'s
		// W<int(int)>: GDB's parser cannot read the name, and GDB prints
		// it as written)
		common.Name = canonicalCxxName(common.Name)
	case common.Lang == LangGo && strings.Contains(common.Name, "<"):
		// Go's runtime map types (map<string,int>, table<string,int>):
		// GDB spells their argument lists with ", "
		common.Name = strings.ReplaceAll(strings.ReplaceAll(common.Name, ", ", ","), ",", ", ")
	}
	switch e.Tag {
	case stddwarf.TagBaseType:
		t := &BaseType{CommonType: common}
		t.Name = name
		t.Encoding, _ = e.Val(stddwarf.AttrEncoding).(int64)
		t.BitSize, _ = e.Val(stddwarf.AttrBitSize).(int64)
		r.cache[off] = t
		return t, nil
	case stddwarf.TagUnspecifiedType:
		t := &UnspecifiedType{CommonType: common}
		if t.ByteSize < 0 {
			t.ByteSize = 8
		}
		r.cache[off] = t
		return t, nil
	case stddwarf.TagPointerType, stddwarf.TagReferenceType, stddwarf.TagRvalueReferenceType:
		common.Name = ""
		if common.ByteSize < 0 {
			common.ByteSize = r.addrSize(off) // clang leaves it out
		}
		var t Type
		var elem *Type
		if e.Tag == stddwarf.TagPointerType {
			p := &PointerType{CommonType: common}
			t, elem = p, &p.Elem
		} else {
			p := &ReferenceType{CommonType: common, Rvalue: e.Tag == stddwarf.TagRvalueReferenceType}
			t, elem = p, &p.Elem
		}
		r.cache[off] = t
		if *elem, err = r.typeAttr(e, depth); err != nil {
			delete(r.cache, off)
			return nil, err
		}
		return t, nil
	case stddwarf.TagPtrToMemberType:
		common.Name = ""
		if common.ByteSize < 0 {
			common.ByteSize = r.addrSize(off) // clang leaves it out
		}
		t := &PtrToMemberType{CommonType: common}
		r.cache[off] = t
		if t.Elem, err = r.typeAttr(e, depth); err != nil {
			delete(r.cache, off)
			return nil, err
		}
		if t.Elem != nil {
			if _, ok := t.Elem.(*FuncType); ok && size < 0 {
				t.ByteSize = 16
			}
		}
		if c, ok := e.Val(stddwarf.AttrContainingType).(stddwarf.Offset); ok {
			if t.Class, err = r.readType(c, depth+1); err != nil {
				delete(r.cache, off)
				return nil, err
			}
		}
		return t, nil
	case stddwarf.TagConstType, stddwarf.TagVolatileType, stddwarf.TagRestrictType, tagAtomicType:
		common.Name = ""
		t := &QualType{CommonType: common, Qual: qualName(e.Tag)}
		r.cache[off] = t
		if t.Elem, err = r.typeAttr(e, depth); err != nil {
			delete(r.cache, off)
			return nil, err
		}
		return t, nil // Size() follows Elem (which may be resolved later)
	case stddwarf.TagTypedef:
		t := &TypedefType{CommonType: common}
		r.cache[off] = t
		if t.Elem, err = r.typeAttr(e, depth); err != nil {
			delete(r.cache, off)
			return nil, err
		}
		return t, nil // Size() follows Elem (which may be resolved later)
	case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType:
		if sig, ok := e.Val(attrSignature).(uint64); ok {
			return nil, fmt.Errorf("type %s at %#x is in a type unit (signature %#x): %w", common.Name, off, sig, ErrUnsupported)
		}
		return r.readStruct(rd, e, common, depth) // a declaration finds its definition on first use
	case stddwarf.TagEnumerationType:
		if sig, ok := e.Val(attrSignature).(uint64); ok {
			return nil, fmt.Errorf("type %s at %#x is in a type unit (signature %#x): %w", common.Name, off, sig, ErrUnsupported)
		}
		return r.readEnum(rd, e, common, depth)
	case stddwarf.TagArrayType:
		return r.readArray(rd, e, common, depth)
	case stddwarf.TagSubroutineType:
		common.Name = ""
		t := &FuncType{CommonType: common}
		r.cache[off] = t
		if err := r.readFunc(rd, e, t, depth, false); err != nil {
			delete(r.cache, off)
			return nil, err
		}
		return t, nil
	}
	return nil, errType(off, "unsupported type tag %v", e.Tag)
}

const tagAtomicType stddwarf.Tag = 0x47

// attrSignature is DW_AT_signature: a declaration whose definition is in
// a type unit (-fdebug-types-section), which this package does not read.
const attrSignature stddwarf.Attr = 0x69

func qualName(tag stddwarf.Tag) string {
	switch tag {
	case stddwarf.TagConstType:
		return "const"
	case stddwarf.TagVolatileType:
		return "volatile"
	case stddwarf.TagRestrictType:
		return "restrict"
	}
	return "_Atomic"
}

func accessOf(e *stddwarf.Entry, def string) string {
	switch v, _ := e.Val(stddwarf.AttrAccessibility).(int64); v {
	case 1:
		return "public"
	case 2:
		return "protected"
	case 3:
		return "private"
	}
	return def
}

// memberLocation decodes DW_AT_data_member_location: a constant, or an
// expression. Simple DW_OP_plus_uconst expressions are folded; others are
// returned as expr.
func memberLocation(e *stddwarf.Entry) (off int64, expr []byte) {
	switch v := e.Val(stddwarf.AttrDataMemberLoc).(type) {
	case int64:
		return v, nil
	case []byte:
		if len(v) > 1 && v[0] == 0x23 { // DW_OP_plus_uconst
			if u, n := uleb(v[1:]); n == len(v)-1 {
				return int64(u), nil
			}
		}
		return 0, v
	}
	return 0, nil
}

// readVariantPart reads a DW_TAG_variant_part e (a Rust enum's), whose
// children rd reads next: the discriminant's member and the variants,
// each holding the member of its variant.
func (r *TypeReader) readVariantPart(rd *stddwarf.Reader, e *stddwarf.Entry, depth int) (*VariantPart, error) {
	vp := &VariantPart{}
	if !e.Children {
		return vp, nil
	}
	discr, _ := e.Val(stddwarf.AttrDiscr).(stddwarf.Offset)
	field := func(c *stddwarf.Entry) (Field, error) {
		ft, err := r.typeAttr(c, depth)
		if err != nil {
			return Field{}, err
		}
		return memberField(c, ft, "public"), nil
	}
	for {
		c, err := rd.Next()
		if err != nil {
			return nil, fmt.Errorf("read variants of %#x: %w", e.Offset, err)
		}
		if c == nil || c.Tag == 0 {
			return vp, nil
		}
		switch {
		case c.Tag == stddwarf.TagMember && c.Offset == discr:
			f, err := field(c)
			if err != nil {
				return nil, err
			}
			vp.Discr = &f
		case c.Tag == stddwarf.TagVariant:
			v := Variant{}
			switch dv := c.Val(stddwarf.AttrDiscrValue).(type) {
			case int64:
				v.DiscrValue, v.HasDiscr = dv, true
			case uint64:
				v.DiscrValue, v.HasDiscr = int64(dv), true
			}
			if !c.Children {
				continue
			}
			for {
				m, err := rd.Next()
				if err != nil {
					return nil, fmt.Errorf("read variant %#x: %w", c.Offset, err)
				}
				if m == nil || m.Tag == 0 {
					break
				}
				if m.Tag == stddwarf.TagMember && v.Type == nil {
					if v.Field, err = field(m); err != nil {
						return nil, err
					}
				}
				if m.Children {
					rd.SkipChildren()
				}
			}
			if v.Type != nil {
				vp.Variants = append(vp.Variants, v)
			}
			continue
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
}

// memberField is the Field of the DW_TAG_member c, of type ft.
func memberField(c *stddwarf.Entry, ft Type, access string) Field {
	name, _ := c.Val(stddwarf.AttrName).(string)
	f := Field{Name: name, Type: ft, Access: access, die: c.Offset}
	f.Artificial, _ = c.Val(stddwarf.AttrArtificial).(bool)
	f.ByteOffset, _ = memberLocation(c)
	if bs, ok := c.Val(stddwarf.AttrBitSize).(int64); ok {
		f.BitSize = bs
		if dbo, ok := c.Val(stddwarf.AttrDataBitOffset).(int64); ok {
			f.ByteOffset = dbo / 8
			f.BitOffset = dbo % 8
		} else if bo, ok := c.Val(stddwarf.AttrBitOffset).(int64); ok {
			storage, ok := c.Val(stddwarf.AttrByteSize).(int64)
			if !ok {
				storage = SizeOf(ft)
			}
			f.BitOffset = storage*8 - bo - bs
		}
	}
	return f
}

func (r *TypeReader) readStruct(rd *stddwarf.Reader, e *stddwarf.Entry, common CommonType, depth int) (Type, error) {
	t := &StructType{CommonType: common, Kind: "struct"}
	switch e.Tag {
	case stddwarf.TagClassType:
		t.Kind = "class"
	case stddwarf.TagUnionType:
		t.Kind = "union"
	}
	if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); decl {
		t.Incomplete = true
	}
	t.PassBy, _ = e.Val(stddwarf.AttrCalling).(int64)
	if t.ByteSize < 0 && !t.Incomplete {
		t.ByteSize = 0
	}
	defAccess := "public"
	if t.Kind == "class" {
		defAccess = "private"
	}
	r.cache[e.Offset] = t
	if !e.Children {
		t.tr = r // a declaration finds its definition through r
		return t, nil
	}
	type pending struct {
		e    *stddwarf.Entry
		kind int // 0 field, 1 base, 2 static, 3 template type, 4 template value
	}
	var todo []pending
	var methods []*stddwarf.Entry
	var methodParams [][]*stddwarf.Entry
	for {
		c, err := rd.Next()
		if err != nil {
			delete(r.cache, e.Offset)
			return nil, fmt.Errorf("read members of %#x: %w", e.Offset, err)
		}
		if c == nil || c.Tag == 0 {
			break
		}
		switch c.Tag {
		case stddwarf.TagMember:
			ext, _ := c.Val(stddwarf.AttrExternal).(bool)
			decl, _ := c.Val(stddwarf.AttrDeclaration).(bool)
			if ext || decl {
				todo = append(todo, pending{c, 2})
			} else {
				todo = append(todo, pending{c, 0})
			}
		case stddwarf.TagVariable:
			todo = append(todo, pending{c, 2})
		case stddwarf.TagInheritance:
			todo = append(todo, pending{c, 1})
		case stddwarf.TagTemplateTypeParameter:
			todo = append(todo, pending{c, 3})
		case stddwarf.TagTemplateValueParameter:
			todo = append(todo, pending{c, 4})
		case stddwarf.TagVariantPart:
			vp, err := r.readVariantPart(rd, c, depth)
			if err != nil {
				delete(r.cache, e.Offset)
				return nil, err
			}
			t.Variants = vp
			continue
		case stddwarf.TagTypedef:
			t.typedefDecls = append(t.typedefDecls, typedefDecl{c.Offset, accessOf(c, defAccess)})
		case stddwarf.TagSubprogram:
			methods = append(methods, c)
			var params []*stddwarf.Entry
			if c.Children {
				for {
					p, err := rd.Next()
					if err != nil || p == nil || p.Tag == 0 {
						break
					}
					if p.Tag == stddwarf.TagFormalParameter || p.Tag == stddwarf.TagUnspecifiedParameters {
						params = append(params, p)
					}
					if p.Children {
						rd.SkipChildren()
					}
				}
			}
			methodParams = append(methodParams, params)
			continue
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
	for _, p := range todo {
		c := p.e
		name, _ := c.Val(stddwarf.AttrName).(string)
		ft, err := r.typeAttr(c, depth)
		if err != nil {
			delete(r.cache, e.Offset)
			return nil, err
		}
		switch p.kind {
		case 0:
			t.Fields = append(t.Fields, memberField(c, ft, accessOf(c, defAccess)))
		case 1:
			b := Base{Type: ft, Access: accessOf(c, defAccess)}
			b.Offset, b.OffsetExpr = memberLocation(c)
			v, _ := c.Val(stddwarf.AttrVirtuality).(int64)
			b.Virtual = v != 0
			t.Bases = append(t.Bases, b)
		case 2:
			sm := StaticMember{Name: name, Type: ft, Decl: c.Offset, Access: accessOf(c, defAccess)}
			switch v := c.Val(stddwarf.AttrConstValue).(type) {
			case int64:
				sm.Const = binary.LittleEndian.AppendUint64(nil, uint64(v))
			case []byte:
				sm.Const = v
			}
			t.Statics = append(t.Statics, sm)
		case 3:
			t.TemplateParams = append(t.TemplateParams, TemplateParam{Name: name, Type: ft})
		case 4:
			tp := TemplateParam{Name: name, Type: ft}
			if v, ok := c.Val(stddwarf.AttrConstValue).(int64); ok {
				tp.Value, tp.HasValue = v, true
			}
			t.TemplateParams = append(t.TemplateParams, tp)
		}
	}
	for i, m := range methods {
		t.methodDecls = append(t.methodDecls, methodDecl{m, methodParams[i], defAccess})
	}
	t.tr = r
	return t, nil
}

// DW_AT_defaulted (DWARF 5) and its DW_DEFAULTED_in_class, which Go's
// debug/dwarf does not name.
const (
	attrDefaulted      = stddwarf.Attr(0x8b)
	dwDefaultedInClass = 1
)

func (r *TypeReader) readMethod(m *stddwarf.Entry, params []*stddwarf.Entry, defAccess string, depth int) (Method, error) {
	// gcc puts the out-of-line instance of a function-local class's
	// member function (a lambda's destructor) among the class's
	// children with its attributes on its DW_AT_abstract_origin, as
	// its parameters' on theirs: GDB's dwarf2_attr reads through them
	m, params = r.viaOrigin(m), slices.Clone(params)
	for i, p := range params {
		params[i] = r.viaOrigin(p)
	}
	name, _ := m.Val(stddwarf.AttrName).(string)
	meth := Method{Name: name, Access: accessOf(m, defAccess), Static: true}
	meth.Artificial, _ = m.Val(stddwarf.AttrArtificial).(bool)
	if d, _ := m.Val(attrDefaulted).(int64); d == dwDefaultedInClass {
		meth.DefaultedInClass = true
	}
	meth.Linkage, _ = m.Val(stddwarf.AttrLinkageName).(string)
	// GDB prints "virtual" where the method has a vtable slot
	// (dwarf2_add_member_fn's voffset): gcc gives a virtual destructor
	// DW_AT_virtuality but no slot, clang both.
	meth.Virtual = m.AttrField(stddwarf.AttrVtableElemLoc) != nil
	ft := &FuncType{CommonType: CommonType{Lang: LangCPlusPlus}, Prototyped: true}
	var err error
	if ft.Return, err = r.typeAttr(m, depth); err != nil {
		return meth, err
	}
	for _, p := range params {
		if p.Tag == stddwarf.TagUnspecifiedParameters {
			ft.Variadic = true
			continue
		}
		pt, err := r.typeAttr(p, depth)
		if err != nil {
			return meth, err
		}
		if art, _ := p.Val(stddwarf.AttrArtificial).(bool); art {
			meth.Static = false
			if ptr, ok := Resolve(pt).(*PointerType); ok && isConst(ptr.Elem) {
				meth.Const = true
			}
			continue
		}
		ft.Params = append(ft.Params, pt)
	}
	meth.Type = ft
	return meth, nil
}

// viaOrigin is the DIE e's attributes are on where e has no name or
// type of its own (a concrete instance's: declaredBy).
func (r *TypeReader) viaOrigin(e *stddwarf.Entry) *stddwarf.Entry {
	return r.declaredBy(e, func(e *stddwarf.Entry) bool {
		return e.Val(stddwarf.AttrName) != nil || e.Val(stddwarf.AttrType) != nil
	})
}

// declaredBy follows e's DW_AT_specification or DW_AT_abstract_origin,
// as GDB's dwarf2_attr does, to the first DIE that has (an out-of-line
// definition's declaration, a concrete instance's abstract one), at
// most a few steps; where the chain ends first, the last DIE reached.
func (r *TypeReader) declaredBy(e *stddwarf.Entry, has func(*stddwarf.Entry) bool) *stddwarf.Entry {
	for i := 0; i < 4 && !has(e); i++ {
		o, ok := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset)
		if !ok {
			o, ok = e.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset)
		}
		if !ok {
			break
		}
		rd := r.data.Reader()
		rd.Seek(o)
		oe, err := rd.Next()
		if err != nil || oe == nil {
			break
		}
		e = oe
	}
	return e
}

func (r *TypeReader) readEnum(rd *stddwarf.Reader, e *stddwarf.Entry, common CommonType, depth int) (Type, error) {
	t := &EnumType{CommonType: common}
	t.Scoped, _ = e.Val(stddwarf.AttrEnumClass).(bool)
	if common.Lang == LangCPlusPlus {
		t.Scope = r.prefixOf(e.Offset)
	}
	r.cache[e.Offset] = t
	if e.Children {
		for {
			c, err := rd.Next()
			if err != nil {
				delete(r.cache, e.Offset)
				return nil, fmt.Errorf("read enumerators of %#x: %w", e.Offset, err)
			}
			if c == nil || c.Tag == 0 {
				break
			}
			if c.Tag == stddwarf.TagEnumerator {
				n, _ := c.Val(stddwarf.AttrName).(string)
				t.Values = append(t.Values, EnumValue{Name: n, Val: enumeratorValue(c)})
			}
			if c.Children {
				rd.SkipChildren()
			}
		}
	}
	if _, ok := e.Val(stddwarf.AttrType).(stddwarf.Offset); ok {
		u, err := r.typeAttr(e, depth)
		if err == nil {
			t.Underlying = u
			if b, ok := Resolve(u).(*BaseType); ok {
				t.Unsigned = !b.IsSigned()
			}
		}
	} else {
		t.Unsigned = true
		for _, v := range t.Values {
			if v.Val < 0 {
				t.Unsigned = false
			}
		}
	}
	if t.ByteSize < 0 {
		t.ByteSize = 4
	}
	return t, nil
}

// hasValue reports whether the DIE at off has a location or a constant
// value (what a run-time array bound can name).
func (r *TypeReader) hasValue(off stddwarf.Offset) bool {
	rd := r.data.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil || e == nil {
		return true // (unreadable: leave it to the evaluation)
	}
	return e.Val(stddwarf.AttrLocation) != nil || e.Val(stddwarf.AttrConstValue) != nil
}

func (r *TypeReader) readArray(rd *stddwarf.Reader, e *stddwarf.Entry, common CommonType, depth int) (Type, error) {
	var dims []int64
	var bounds []*dynBound
	if e.Children {
		for {
			c, err := rd.Next()
			if err != nil {
				return nil, fmt.Errorf("read subranges of %#x: %w", e.Offset, err)
			}
			if c == nil || c.Tag == 0 {
				break
			}
			if c.Tag == stddwarf.TagSubrangeType {
				n := int64(-1)
				var b *dynBound
				lb, _ := c.Val(stddwarf.AttrLowerBound).(int64)
				switch v := c.Val(stddwarf.AttrCount).(type) {
				case int64:
					n = v
				case []byte:
					b = &dynBound{expr: v, isCount: true}
				case stddwarf.Offset:
					b = &dynBound{die: v, isCount: true}
				case nil:
					switch u := c.Val(stddwarf.AttrUpperBound).(type) {
					case int64:
						n = u - lb + 1
					case []byte:
						b = &dynBound{expr: u, lower: lb}
					case stddwarf.Offset:
						b = &dynBound{die: u, lower: lb}
					}
				}
				if b != nil && b.die != 0 && !r.hasValue(b.die) {
					// a bound naming a variable with neither location nor
					// value is no bound at all for GDB (attr_to_dynamic_prop
					// fails): the subrange keeps its default, 0..0
					n, b = 1, nil
				}
				dims = append(dims, n)
				bounds = append(bounds, b)
			}
			if c.Children {
				rd.SkipChildren()
			}
		}
	}
	if len(dims) == 0 {
		dims, bounds = []int64{-1}, []*dynBound{nil}
	}
	common.Name = ""
	top := &ArrayType{CommonType: common, Count: dims[0], bound: bounds[0]}
	r.cache[e.Offset] = top
	elem, err := r.typeAttr(e, depth)
	if err != nil {
		delete(r.cache, e.Offset)
		return nil, err
	}
	chain := []*ArrayType{top}
	for k, d := range dims[1:] {
		next := &ArrayType{CommonType: CommonType{Lang: common.Lang, ByteSize: -1}, Count: d, bound: bounds[k+1]}
		chain[len(chain)-1].Elem = next
		chain = append(chain, next)
	}
	chain[len(chain)-1].Elem = elem // ArrayType.Size() is computed on use
	return top, nil
}

func (r *TypeReader) readFunc(rd *stddwarf.Reader, e *stddwarf.Entry, t *FuncType, depth int, skipArtificial bool) error {
	var err error
	if t.Return, err = r.typeAttr(e, depth); err != nil {
		return err
	}
	t.Prototyped, _ = e.Val(stddwarf.AttrPrototyped).(bool)
	if i := r.cuIndex(e.Offset); t.Lang == LangCPlusPlus || i >= 0 && !r.cus[i].unprototyped {
		t.Prototyped = true
	}
	if !e.Children {
		return nil
	}
	params, variadic, err := r.paramDIEs(rd, e)
	if err != nil {
		return err
	}
	t.Variadic = variadic
	t.Params, err = r.paramTypes(params, t.Lang, depth, skipArtificial)
	return err
}

// paramDIEs reads the DW_TAG_formal_parameter children of the subprogram
// DIE e, rd positioned after it; variadic: it has
// DW_TAG_unspecified_parameters.
func (r *TypeReader) paramDIEs(rd *stddwarf.Reader, e *stddwarf.Entry) (params []*stddwarf.Entry, variadic bool, err error) {
	for {
		c, err := rd.Next()
		if err != nil {
			return nil, false, fmt.Errorf("read parameters of %#x: %w", e.Offset, err)
		}
		if c == nil || c.Tag == 0 {
			return params, variadic, nil
		}
		switch c.Tag {
		case stddwarf.TagFormalParameter:
			params = append(params, c)
		case stddwarf.TagUnspecifiedParameters:
			variadic = true
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
}

// paramTypes are the types of parameter DIEs, each read through its
// abstract origin where it has no type of its own (a concrete
// instance's).
func (r *TypeReader) paramTypes(params []*stddwarf.Entry, lang Lang, depth int, skipArtificial bool) ([]Type, error) {
	var out []Type
	for _, c := range params {
		c = r.viaOrigin(c)
		art, _ := c.Val(stddwarf.AttrArtificial).(bool)
		if art && skipArtificial {
			continue
		}
		pt, err := r.typeAttr(c, depth)
		if err != nil {
			return nil, err
		}
		if art {
			// GDB makes the this pointer const: "const geo::Point * const".
			if _, ok := pt.(*PointerType); ok {
				pt = &QualType{CommonType: CommonType{ByteSize: 8, Lang: lang}, Qual: "const", Elem: pt}
			}
		}
		out = append(out, pt)
	}
	return out, nil
}

// FuncTypeOf builds the type of the function whose DW_TAG_subprogram DIE
// is at off (for printing "{int (int, int)} 0x... <add>").
func (r *TypeReader) FuncTypeOf(off stddwarf.Offset) (*FuncType, error) {
	return r.funcTypeOf(off, false)
}

// funcTypeOf is FuncTypeOf, without the artificial parameters (a
// method's this) if skipArtificial.
func (r *TypeReader) funcTypeOf(off stddwarf.Offset, skipArtificial bool) (*FuncType, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd := r.data.Reader()
	rd.Seek(off)
	e, err := rd.Next()
	if err != nil {
		return nil, fmt.Errorf("read function at %#x: %w", off, err)
	}
	if e == nil || e.Tag != stddwarf.TagSubprogram {
		return nil, errType(off, "not a subprogram")
	}
	// An out-of-line definition takes its signature from its declaration,
	// but for the parameters of a pack (below).
	def := e
	if e = r.declaredBy(e, func(e *stddwarf.Entry) bool { return e.Val(stddwarf.AttrType) != nil }); e != def {
		rd.Seek(e.Offset) // (its children follow it)
		if _, err := rd.Next(); err != nil {
			return nil, errType(off, "bad specification")
		}
	}
	t := &FuncType{CommonType: CommonType{Offset: off, Lang: r.lang(off)}}
	if err := r.readFunc(rd, e, t, 0, skipArtificial); err != nil {
		return nil, err
	}
	if def != e && def.Children {
		// GDB's read_subroutine_type reads the parameters of the DIE
		// itself, their types through their origins: a gcc clone's
		// (walk.constprop.0 lists the constant parameter last), a
		// function template's whose pack is a
		// DW_TAG_GNU_formal_parameter_pack it does not count
		// (ns::apply<F, int&, int>(struct {...} &&), not (…, int &,
		// int &&)). A DIE without parameters of its own keeps its
		// origin's.
		rd.Seek(def.Offset)
		if _, err := rd.Next(); err != nil {
			return nil, err
		}
		params, _, err := r.paramDIEs(rd, def)
		if err != nil {
			return nil, err
		}
		if len(params) > 0 || r.hasPack(def) {
			if t.Params, err = r.paramTypes(params, t.Lang, 0, skipArtificial); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// tagGNUFormalParameterPack is DW_TAG_GNU_formal_parameter_pack.
const tagGNUFormalParameterPack stddwarf.Tag = 0x4108

// hasPack reports whether the subprogram DIE def has a
// DW_TAG_GNU_formal_parameter_pack child.
func (r *TypeReader) hasPack(def *stddwarf.Entry) bool {
	rd := r.data.Reader()
	rd.Seek(def.Offset)
	if _, err := rd.Next(); err != nil {
		return false
	}
	for {
		c, err := rd.Next()
		if err != nil || c == nil || c.Tag == 0 {
			return false
		}
		if c.Tag == tagGNUFormalParameterPack {
			return true
		}
		if c.Children {
			rd.SkipChildren()
		}
	}
}

// enumeratorValue is the value of an enumerator DIE (its
// DW_AT_const_value, signed or unsigned); 0 when it has none.
func enumeratorValue(e *stddwarf.Entry) int64 {
	switch x := e.Val(stddwarf.AttrConstValue).(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	}
	return 0
}

// typeDIEName is the name of a type DIE: its DW_AT_name, or, for g++'s
// nameless class with a typedef name for linkage (typedef struct { … }
// div_t;), that name, which g++ gives it mangled (GCC PR 47510) and GDB
// reads as its name (dwarf2_name).
func typeDIEName(e *stddwarf.Entry) string {
	name, _ := e.Val(stddwarf.AttrName).(string)
	if name == "" {
		switch e.Tag {
		case stddwarf.TagStructType, stddwarf.TagClassType, stddwarf.TagUnionType:
			if ln, ok := e.Val(stddwarf.AttrLinkageName).(string); ok {
				name = mangledTypeBase(ln)
			}
		}
	}
	return name
}

// mangledTypeBase is the last name of an Itanium-mangled class name
// ("5div_t", "N2ns4pt_tE"), as GDB keeps of a demangled linkage name
// only what follows its last "::"; "" where it is not that simple form.
func mangledTypeBase(m string) string {
	if strings.HasPrefix(m, "N") && strings.HasSuffix(m, "E") {
		m = m[1 : len(m)-1]
	}
	m = strings.TrimPrefix(m, "St")
	last := ""
	for m != "" {
		i := 0
		for i < len(m) && m[i] >= '0' && m[i] <= '9' {
			i++
		}
		n, err := strconv.Atoi(m[:i])
		if i == 0 || err != nil || n <= 0 || i+n > len(m) {
			return ""
		}
		last, m = m[i:i+n], m[i+n:]
	}
	return last
}
