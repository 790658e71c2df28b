package dwarf

import (
	stddwarf "debug/dwarf"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Lang is the source language of the compile unit a type comes from. It
// changes how types are spelled ("struct node" in C, "node" in C++) and
// how expressions are evaluated.
type Lang uint8

const (
	LangC Lang = iota
	LangCPlusPlus
	LangGo // types print without C's "struct "; strings and slices as Go prints them (package dwarf/format)
	// LangRust: types print without C's "struct "; values as GDB's Rust
	// support prints them (package dwarf/format).
	LangRust
)

// Type is a C or C++ type read from DWARF. The concrete types are
// *BaseType, *VoidType, *PointerType, *ReferenceType, *PtrToMemberType,
// *QualType, *TypedefType, *StructType, *ArrayType, *EnumType, *FuncType
// and *UnspecifiedType.
//
// Types are immutable once a TypeReader has returned them and may be
// shared between goroutines.
type Type interface {
	// Common returns the attributes every type has.
	Common() *CommonType
	// Size is the size in bytes of an object of the type (0 for void and
	// functions, -1 when unknown, e.g. an incomplete struct).
	Size() int64
	// String spells the type as GDB's whatis does ("int *",
	// "char [16]", "struct node *", "const geo::Point &").
	String() string
}

// CommonType holds the attributes shared by all types.
type CommonType struct {
	// Name is the qualified name without a struct/union/enum keyword
	// ("node", "geo::Circle", "std::vector<int, std::allocator<int> >");
	// empty for anonymous and derived types.
	Name     string
	ByteSize int64
	// Offset is the type's DIE.
	Offset stddwarf.Offset
	Lang   Lang
}

func (c *CommonType) Common() *CommonType { return c }
func (c *CommonType) Size() int64         { return c.ByteSize }

// BaseType is a scalar: DW_TAG_base_type.
type BaseType struct {
	CommonType
	// Encoding is the DW_ATE_* value.
	Encoding int64
	// BitSize is DW_AT_bit_size when given (rare), else 0.
	BitSize int64
}

// DW_ATE_* base type encodings.
const (
	EncAddress      = 0x1
	EncBoolean      = 0x2
	EncComplex      = 0x3
	EncFloat        = 0x4
	EncSigned       = 0x5
	EncSignedChar   = 0x6
	EncUnsigned     = 0x7
	EncUnsignedChar = 0x8
	EncUTF          = 0x10
)

func (t *BaseType) String() string { return TypeString(t) }

// IsSigned reports whether integer values of the type are signed.
func (t *BaseType) IsSigned() bool { return t.Encoding == EncSigned || t.Encoding == EncSignedChar }

// IsFloat reports whether the type is a floating-point type.
func (t *BaseType) IsFloat() bool { return t.Encoding == EncFloat }

// IsChar reports whether GDB prints values of the type as characters
// (char, signed/unsigned char, char8/16/32_t, wchar_t).
func (t *BaseType) IsChar() bool {
	switch t.Encoding {
	case EncSignedChar, EncUnsignedChar, EncUTF:
		return true
	case EncSigned, EncUnsigned:
		return t.Name == "wchar_t"
	}
	return false
}

// IsBool reports whether the type is bool/_Bool.
func (t *BaseType) IsBool() bool { return t.Encoding == EncBoolean }

// VoidType is void (a DW_AT_type that is absent).
type VoidType struct{ CommonType }

func (t *VoidType) String() string { return "void" }

// UnspecifiedType is DW_TAG_unspecified_type (decltype(nullptr)).
type UnspecifiedType struct{ CommonType }

func (t *UnspecifiedType) String() string { return TypeString(t) }

// PointerType is T *.
type PointerType struct {
	CommonType
	Elem Type
}

func (t *PointerType) String() string { return TypeString(t) }

// ReferenceType is T & or, with Rvalue, T &&.
type ReferenceType struct {
	CommonType
	Elem   Type
	Rvalue bool
}

func (t *ReferenceType) String() string { return TypeString(t) }

// PtrToMemberType is T Class::* (Elem a data type) or a pointer to member
// function (Elem a *FuncType).
type PtrToMemberType struct {
	CommonType
	Elem  Type
	Class Type
}

func (t *PtrToMemberType) String() string { return TypeString(t) }

// QualType is a cv-qualified or atomic type. Qual is "const", "volatile",
// "restrict" or "_Atomic".
type QualType struct {
	CommonType
	Qual string
	Elem Type
}

func (t *QualType) String() string { return TypeString(t) }
func (t *QualType) Size() int64    { return SizeOf(t.Elem) }

// TypedefType is a typedef or using-alias.
type TypedefType struct {
	CommonType
	Elem Type
}

func (t *TypedefType) String() string { return TypeString(t) }
func (t *TypedefType) Size() int64    { return SizeOf(t.Elem) }

// StructType is a struct, class or union.
type StructType struct {
	CommonType
	// Kind is "struct", "class" or "union".
	Kind    string
	Bases   []Base
	Fields  []Field
	Statics []StaticMember
	// TemplateParams are the template arguments (type or value).
	TemplateParams []TemplateParam
	// Incomplete is true for a declaration (its definition, if any, is
	// found on first use by Resolve).
	Incomplete bool
	// Variants is a Rust enum's DW_TAG_variant_part; nil for others.
	Variants *VariantPart
	// PassBy is the class's DW_AT_calling_convention where the compiler
	// gives it (clang): DW_CC_pass_by_value (5) or DW_CC_pass_by_reference
	// (4); 0 where it does not (gcc).
	PassBy int64

	tr   *TypeReader // finds the definition of a declaration
	once sync.Once
	def  *StructType

	// Member functions are read on first use (only ptype needs their
	// types, and reading them pulls in much of a C++ class graph).
	methodsOnce  sync.Once
	methodDecls  []methodDecl
	methods      []Method
	typedefDecls []typedefDecl
	typedefs     []NestedTypedef
}

// VariantPart is a Rust enum's variants (DW_TAG_variant_part): which one
// a value holds is told by its discriminant, the member Discr (nil: the
// enum has a single variant).
type VariantPart struct {
	Discr    *Field
	Variants []Variant
}

// Variant is one variant of a Rust enum: a member whose type is the
// variant's struct (its fields), chosen where the discriminant is
// DiscrValue; the variant without HasDiscr is chosen by any other value
// (the dataful variant of a niche-encoded enum).
type Variant struct {
	Field
	DiscrValue int64
	HasDiscr   bool
}

// Choose returns the variant of p a discriminant of d selects, if any.
func (p *VariantPart) Choose(d int64) (Variant, bool) {
	def, hasDef := Variant{}, false
	for _, v := range p.Variants {
		switch {
		case v.HasDiscr && v.DiscrValue == d:
			return v, true
		case !v.HasDiscr:
			def, hasDef = v, true
		}
	}
	return def, hasDef
}

type typedefDecl struct {
	off    stddwarf.Offset
	access string
}

// NestedTypedef is a typedef declared inside a class, with its access.
type NestedTypedef struct {
	*TypedefType
	Access string // "public", "protected" or "private"
}

type methodDecl struct {
	e      *stddwarf.Entry
	params []*stddwarf.Entry
	access string
}

// Methods returns the member functions declared in the class (types of
// methods that cannot be read are left out).
func (t *StructType) Methods() []Method {
	t.methodsOnce.Do(func() {
		if t.tr == nil {
			return
		}
		t.tr.mu.Lock()
		defer t.tr.mu.Unlock()
		for _, d := range t.methodDecls {
			if m, err := t.tr.readMethod(d.e, d.params, d.access, 0); err == nil {
				t.methods = append(t.methods, m)
			}
		}
		for _, d := range t.typedefDecls {
			if td, err := t.tr.readType(d.off, 0); err == nil {
				if td, ok := td.(*TypedefType); ok {
					t.typedefs = append(t.typedefs, NestedTypedef{td, d.access})
				}
			}
		}
	})
	return t.methods
}

// Typedefs returns the typedefs declared inside the class (those the
// compiler emitted), as ptype lists them.
func (t *StructType) Typedefs() []NestedTypedef {
	t.Methods() // read together
	return t.typedefs
}

func (t *StructType) String() string { return TypeString(t) }
func (t *StructType) Size() int64 {
	if c := t.complete(); !c.Incomplete {
		return c.ByteSize
	}
	return -1
}

// complete returns the definition of a declared struct when one exists
// (looked up once, by qualified name, across compile units), else t.
func (t *StructType) complete() *StructType {
	if !t.Incomplete || t.tr == nil {
		return t
	}
	t.once.Do(func() { t.def = t.tr.definition(t.Name, t.Offset) })
	if t.def != nil {
		return t.def
	}
	return t
}

// Base is a base-class subobject.
type Base struct {
	Type Type
	// Offset is the byte offset of the subobject; for a virtual base it
	// is only known at run time: OffsetExpr then holds the
	// DW_AT_data_member_location expression, evaluated with the address
	// of the derived object pushed.
	Offset     int64
	OffsetExpr []byte
	Virtual    bool
	Access     string // "public", "protected", "private"
}

// Field is a non-static data member.
type Field struct {
	Name string
	Type Type
	// ByteOffset is the offset of the member in the object. For a
	// bitfield, BitSize is non-zero and BitOffset is the offset in bits
	// of the field's least significant bit from ByteOffset
	// (little-endian numbering).
	ByteOffset int64
	BitOffset  int64
	BitSize    int64
	Artificial bool // e.g. _vptr.Shape
	Access     string
	// die orders fields and static members as declared.
	die stddwarf.Offset
}

// StaticMember is a static data member. Decl is its declaration DIE
// inside the class; the definition (with the location) is the global
// variable whose DW_AT_specification refers to Decl.
type StaticMember struct {
	Name   string
	Type   Type
	Decl   stddwarf.Offset
	Access string
	// Const holds DW_AT_const_value of a constant member (constexpr or
	// const integral initialized in the class), little-endian; nil when
	// the value is in memory at the definition.
	Const []byte
}

// StructMember is a field or a static member of a struct, in declaration order.
type StructMember struct {
	Field  *Field
	Static *StaticMember
}

// Members returns fields and static members in declaration order, as GDB
// prints them.
func (t *StructType) Members() []StructMember {
	out := make([]StructMember, 0, len(t.Fields)+len(t.Statics))
	i, j := 0, 0
	for i < len(t.Fields) || j < len(t.Statics) {
		if j >= len(t.Statics) || (i < len(t.Fields) && t.Fields[i].die < t.Statics[j].Decl) {
			out = append(out, StructMember{Field: &t.Fields[i]})
			i++
		} else {
			out = append(out, StructMember{Static: &t.Statics[j]})
			j++
		}
	}
	return out
}

// Method is a member function as declared in the class.
type Method struct {
	Name    string
	Type    *FuncType // parameters without the artificial this
	Virtual bool      // it has a vtable slot (DW_AT_vtable_elem_location)
	Const   bool      // this points to const
	Static  bool
	// Artificial is true for compiler-generated members.
	Artificial bool
	// DefaultedInClass: declared = default in the class (DW_AT_defaulted
	// DW_DEFAULTED_in_class): not user-provided, for the calling
	// convention.
	DefaultedInClass bool
	Access           string
	Linkage          string
}

// TemplateParam is one template argument: a type (Type set) or a value
// (Value set).
type TemplateParam struct {
	Name     string
	Type     Type
	Value    int64
	HasValue bool
}

// ArrayType is Elem[Count]; multi-dimensional arrays nest.
type ArrayType struct {
	CommonType
	Elem Type
	// Count is the number of elements, -1 when unknown (flexible array
	// members, VLAs before their frame has sized them).
	Count int64
	// bound is a run-time bound (C99 VLA): an expression or a variable
	// DIE, evaluated in a frame by FrameScope. An array whose bound is
	// still to be evaluated prints "[variable length]".
	bound *dynBound
	// Unbounded: a VLA whose bound could not be read at the pc (its
	// variable optimized out): its size is unknown, and sizeof of it
	// <optimized out>, as GDB's resolved type with an undefined bound.
	Unbounded bool
}

// dynBound is a DW_AT_upper_bound or DW_AT_count that is computed at run
// time.
type dynBound struct {
	expr    []byte
	die     stddwarf.Offset
	isCount bool
	lower   int64
}

// hasDynamicBound reports whether t or its element arrays have run-time
// bounds.
func (t *ArrayType) hasDynamicBound() bool {
	for a := t; a != nil; {
		if a.bound != nil {
			return true
		}
		a, _ = a.Elem.(*ArrayType)
	}
	return false
}

// sized returns a copy of the array type chain with run-time bounds
// replaced by counts from eval.
func (t *ArrayType) sized(eval func(*dynBound) (int64, error)) (*ArrayType, error) {
	c := *t
	if c.bound != nil {
		n, err := eval(c.bound)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			n = 0
		}
		c.Count, c.bound = n, nil
	}
	if inner, ok := c.Elem.(*ArrayType); ok && inner.hasDynamicBound() {
		e, err := inner.sized(eval)
		if err != nil {
			return nil, err
		}
		c.Elem = e
	}
	c.ByteSize = c.Size()
	return &c, nil
}

// unbounded is a copy of the array type chain with its run-time bounds
// unknown (Unbounded).
func (t *ArrayType) unbounded() *ArrayType {
	c := *t
	if c.bound != nil {
		c.Count, c.bound, c.Unbounded = -1, nil, true
	}
	if inner, ok := c.Elem.(*ArrayType); ok && inner.hasDynamicBound() {
		c.Elem = inner.unbounded()
	}
	c.ByteSize = c.Size()
	return &c
}

func (t *ArrayType) String() string { return TypeString(t) }
func (t *ArrayType) Size() int64 {
	if t.Count < 0 {
		return 0
	}
	es := SizeOf(t.Elem)
	if es < 0 {
		return -1
	}
	return t.Count * es
}

// EnumType is an enumeration.
type EnumType struct {
	CommonType
	Values []EnumValue
	// Scoped is true for an enum class; values then print as
	// Name::Value.
	Scoped     bool
	Underlying Type
	// Unsigned is true when values are read zero-extended.
	Unsigned bool
	// Scope is the qualified scope of the enum's enumerators ("geo::"
	// for an unscoped enum in namespace geo).
	Scope string
	// flags marks a register flags type ($eflags): values print as the
	// names of the set bits, "[ PF ZF IF ]".
	flags bool
}

// EnumValue is one enumerator.
type EnumValue struct {
	Name string
	Val  int64
}

func (t *EnumType) String() string { return TypeString(t) }

// FuncType is a function type.
type FuncType struct {
	CommonType
	Return   Type // *VoidType for void
	Params   []Type
	Variadic bool
	// Prototyped is DW_AT_prototyped (C); a C function without it
	// prints as "int ()".
	Prototyped bool
}

func (t *FuncType) String() string { return TypeString(t) }
func (t *FuncType) Size() int64    { return 1 }

// SizeOf is t.Size(), and -1 for a nil type.
func SizeOf(t Type) int64 {
	if t == nil {
		return -1
	}
	return t.Size()
}

// Resolve strips typedefs and cv/atomic qualifiers.
func Resolve(t Type) Type {
	for i := 0; i < 100 && t != nil; i++ {
		switch u := t.(type) {
		case *TypedefType:
			t = u.Elem
		case *QualType:
			t = u.Elem
		case *StructType:
			return u.complete()
		default:
			return t
		}
	}
	return t
}

// StripTypedefs strips typedefs but keeps qualifiers, as GDB's
// check_typedef.
func StripTypedefs(t Type) Type {
	for i := 0; i < 100; i++ {
		u, ok := t.(*TypedefType)
		if !ok {
			return t
		}
		t = u.Elem
	}
	return t
}

// isConst reports whether t (through typedefs) is const-qualified.
func isConst(t Type) bool {
	for i := 0; i < 100 && t != nil; i++ {
		switch u := t.(type) {
		case *TypedefType:
			t = u.Elem
		case *QualType:
			if u.Qual == "const" {
				return true
			}
			t = u.Elem
		default:
			return false
		}
	}
	return false
}

// FieldByName finds a data member by name in t or its bases (breadth
// first: the derived class wins). The returned offset is relative to the
// start of t; path lists the bases walked. Virtual bases are reported
// with virtual=true at the step where they occur.
func (t *StructType) FieldByName(name string) (Field, []Base, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, nil, true
		}
	}
	for _, f := range t.Fields {
		// anonymous struct/union members
		if f.Name == "" {
			if st, ok := Resolve(f.Type).(*StructType); ok {
				if g, path, ok := st.FieldByName(name); ok {
					g.ByteOffset += f.ByteOffset
					return g, path, true
				}
			}
		}
	}
	for _, b := range t.Bases {
		st, ok := Resolve(b.Type).(*StructType)
		if !ok {
			continue
		}
		if g, path, ok := st.FieldByName(name); ok {
			return g, append([]Base{b}, path...), true
		}
	}
	return Field{}, nil, false
}

// StaticByName finds a static member in t or its bases.
func (t *StructType) StaticByName(name string) (StaticMember, bool) {
	for _, s := range t.Statics {
		if s.Name == name {
			return s, true
		}
	}
	for _, b := range t.Bases {
		if st, ok := Resolve(b.Type).(*StructType); ok {
			if s, ok := st.StaticByName(name); ok {
				return s, true
			}
		}
	}
	return StaticMember{}, false
}

// TemplateArg returns the i-th template type argument, or nil.
func (t *StructType) TemplateArg(i int) Type {
	n := 0
	for _, p := range t.TemplateParams {
		if p.Type != nil && !p.HasValue {
			if n == i {
				return p.Type
			}
			n++
		}
	}
	return nil
}

// enumName returns the name GDB prints for value v (the first
// enumerator of that value), or "".
func (t *EnumType) enumName(v int64) string {
	for _, e := range t.Values {
		if e.Val == v {
			return t.qualName(e.Name)
		}
	}
	return ""
}

// qualName is enumerator name as GDB spells it: in its enum class
// (Color::red) or its enclosing scope (ns::red).
func (t *EnumType) qualName(name string) string {
	if t.Scoped {
		return t.Name + "::" + name
	}
	return t.Scope + name
}

// isFlagEnum reports whether t is a flag enum as GDB 13 sees one: every
// enumerator is zero or a single bit (several may share one). An
// enumerator of several bits, or a negative one, makes it a plain enum:
// {0, 1, 4, 10} prints 5 as 5, not as a made-up "(A | B)".
func (t *EnumType) isFlagEnum() bool {
	for _, e := range t.Values {
		if e.Val < 0 || e.Val&(e.Val-1) != 0 {
			return false
		}
	}
	return len(t.Values) > 0
}

// ValueText spells v as GDB does: the enumerator, a flag combination
// "(A | B)", "(A | unknown: 0x8)", or the plain number.
func (t *EnumType) ValueText(v int64) string {
	if t.flags {
		s := "["
		for _, e := range t.Values {
			if uint64(v)&uint64(e.Val) != 0 {
				s += " " + e.Name
			}
		}
		return s + " ]"
	}
	if n := t.enumName(v); n != "" {
		return n
	}
	if t.isFlagEnum() && v != 0 {
		// GDB's generic_val_print_enum_1: the known bits by name, the
		// rest as "unknown: 0x…", also when no bit is known.
		var parts []string
		rest := uint64(v)
		for _, e := range t.Values {
			u := uint64(e.Val)
			if u != 0 && rest&u == u {
				parts = append(parts, t.enumName(e.Val))
				rest &^= u
			}
		}
		if rest != 0 {
			parts = append(parts, "unknown: 0x"+strconv.FormatUint(rest, 16))
		}
		return "(" + strings.Join(parts, " | ") + ")"
	}
	if t.Unsigned {
		return strconv.FormatUint(uint64(v), 10)
	}
	return strconv.FormatInt(v, 10)
}

// errType builds the error for a malformed type DIE.
func errType(off stddwarf.Offset, format string, args ...any) error {
	return &FormatError{Section: "debug_info", Offset: uint64(off), Msg: fmt.Sprintf(format, args...)}
}
