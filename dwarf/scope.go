package dwarf

import (
	"context"
	stddwarf "debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/regnum"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// FrameScope is the EvalScope of a Frame: it turns the frame's variable
// lookups ([Scope.Lookup]), registers and the image's types into typed
// Objects for the evaluator and the value printer. A frame without a
// Function (&Frame{Image: img, Bias: bias}) is the scope of an image's
// globals.
//
// The server evaluates every expression, condition, watch and local
// through a FrameScope; what a caller adds (other modules' globals, ELF
// symbols without debug information, a memory cache, symbol names across
// modules) comes in through [ScopeOptions].
//
// A FrameScope is not safe for concurrent use; the TypeReader it uses
// is.
type FrameScope struct {
	f       *Frame
	t       *Target
	typesOf func(*Image) *TypeReader
	types   *TypeReader // f.Image's
	env     *ValueEnv
	globals func(ctx context.Context, name string) (Object, error)
	others  func() []*Image
}

// ScopeOptions is what a FrameScope reads through.
type ScopeOptions struct {
	// Target reads memory and maps addresses to modules; nil for a
	// program not running (then only constants, types and sizeof
	// evaluate).
	Target *Target
	// Types returns the TypeReader of an image, nil for one without
	// DWARF. Keep one TypeReader per Image: it caches.
	Types func(*Image) *TypeReader
	// Env, when set, is the value environment to use (a caller's memory
	// cache, symbolizer, symbol addresses, print limits); NewFrameScope
	// fills the fields it leaves zero from the frame and Target.
	Env *ValueEnv
	// Globals finds a name that is neither a variable nor a function of
	// the frame's image: other modules' globals, ELF symbols without
	// debug information. Its error wraps ErrNotFound when there is none
	// (a *NoSymbolError carries a hint). Nil: none.
	Globals func(ctx context.Context, name string) (Object, error)
	// Others returns the images, other than the frame's, whose types a
	// type name the frame's image lacks may name (the program's, the
	// loaded libraries': `ptype struct malloc_state` is libc's), in
	// the order GDB goes through its objfiles. Called only when a name
	// is found nowhere else. Nil: none.
	Others func() []*Image
}

// NewFrameScope returns the scope of frame f for evaluations within ctx:
// the value environment's memory reads and implicit pointees are bound to
// it, so make a scope per call.
func NewFrameScope(ctx context.Context, f *Frame, o ScopeOptions) *FrameScope {
	s := &FrameScope{f: f, t: o.Target, typesOf: o.Types, globals: o.Globals, others: o.Others}
	if s.typesOf == nil {
		s.typesOf = func(*Image) *TypeReader { return nil }
	}
	if f.Image != nil {
		s.types = s.typesOf(f.Image)
	}
	env := o.Env
	if env == nil {
		env = &ValueEnv{}
	}
	if env.Types == nil {
		env.Types = s.types
	}
	if env.Bias == 0 {
		env.Bias = f.Bias
	}
	if env.PtrSize == 0 && f.Image != nil {
		env.PtrSize = f.Image.PtrSize()
	}
	if env.Symbolize == nil {
		env.Symbolize = func(a uint64) (string, bool) { return s.symbolize(ctx, a) }
	}
	if env.Mem == nil && o.Target != nil {
		env.Mem = func(a uint64, p []byte) (int, error) { return o.Target.ReadMemory(ctx, a, p) }
	}
	if !env.Naming.Set {
		env.Naming = s.Naming()
	}
	env.ImplicitPointee = func(die stddwarf.Offset) (Object, error) { return s.variableAt(ctx, die) }
	if img, types := f.Image, s.types; env.RustDynType == nil && img != nil && types != nil {
		env.RustDynType = func(vtable uint64) (Type, bool) {
			off, ok := img.RustDynType(vtable - f.Bias)
			if !ok {
				return nil, false
			}
			t, err := types.Type(off)
			return t, err == nil
		}
	}
	s.env = env
	return s
}

// Values returns the value environment (memory, types, symbols).
func (s *FrameScope) Values() *ValueEnv { return s.env }

// Types are the frame's image's types (nil without an image): what
// ptype and whatis look the library's typedefs up in.
func (s *FrameScope) Types() *TypeReader { return s.types }

// Lang is the language of the frame's function; of a frame-less scope,
// C++ when the image has any C++ compile unit.
func (s *FrameScope) Lang() Lang {
	if fn := s.f.Function; fn != nil {
		return fn.Lang()
	}
	if s.types != nil {
		for _, cu := range s.types.cus {
			if cu.lang == LangCPlusPlus {
				return LangCPlusPlus
			}
		}
	}
	return LangC
}

// Naming is the language types are named in while the frame is selected
// (Frame.Naming).
func (s *FrameScope) Naming() Naming { return s.f.Naming() }

// symbolize names a runtime address like GDB's <sym+off> (Image.AddrName),
// in the frame's image or the module t.Modules maps it to.
func (s *FrameScope) symbolize(ctx context.Context, addr uint64) (string, bool) {
	img, bias := s.f.Image, s.f.Bias
	if s.t != nil && s.t.Modules != nil {
		if m, b, ok := s.t.Modules(ctx, addr); ok {
			img, bias = m, b
		}
	}
	if img == nil || addr < bias {
		return "", false
	}
	return img.AddrName(addr-bias, s.typesOf)
}

// Object returns the typed object of a variable found by the frame's
// scope (or by Frame.Locals/Params).
func (s *FrameScope) Object(ctx context.Context, v Variable) (Object, error) {
	types := s.types
	if v.Image != nil && v.Image != s.f.Image {
		types = s.typesOf(v.Image)
	}
	if types == nil {
		return Object{}, fmt.Errorf("variable %s: no type information: %w", v.Name, ErrUnsupported)
	}
	if v.TypeOff == 0 {
		return Object{}, fmt.Errorf("variable %s has no type: %w", v.Name, ErrUnsupported)
	}
	t, err := types.Type(v.TypeOff)
	if err != nil {
		return Object{}, fmt.Errorf("type of %s: %w", v.Name, err)
	}
	if at, ok := t.(*ArrayType); ok && at.hasDynamicBound() {
		// a C99 VLA: size it in this frame (as GDB, ptype shows int [n]).
		// A bound that cannot be read leaves a variable with a value an
		// array of unknown size (int []), one without its type unresolved
		// (int [variable length]), as GDB's resolve_dynamic_type does.
		sized, err := at.sized(func(b *dynBound) (int64, error) { return s.dynBound(ctx, b) })
		switch {
		case err == nil:
			t = sized
		case v.Location.Kind != LocOptimizedOut:
			t = at.unbounded()
		}
	}
	if v.Unresolved != "" && s.env != nil && s.env.SymbolAddr != nil {
		// an extern declaration: at its ELF symbol (GDB's LOC_UNRESOLVED)
		if a, ok := s.env.SymbolAddr(v.Unresolved); ok {
			return MemObject(t, a), nil
		}
	}
	return VarObject(t, &v), nil
}

// dynBound evaluates a run-time array bound in this frame.
func (s *FrameScope) dynBound(ctx context.Context, b *dynBound) (int64, error) {
	var v int64
	switch {
	case b.expr != nil:
		if s.f.phys == nil {
			return 0, fmt.Errorf("array bound: no frame: %w", ErrOptimizedOut)
		}
		u, err := evalValue(b.expr, s.f.exprEnv(ctx))
		if err != nil {
			return 0, err
		}
		v = int64(u)
	case b.die != 0:
		o, err := s.variableAt(ctx, b.die)
		if err != nil {
			return 0, err
		}
		if v, err = s.env.Int(o); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("array bound: %w", ErrUnsupported)
	}
	if b.isCount {
		return v, nil
	}
	return v - b.lower + 1, nil
}

// variableAt evaluates, in this frame, the variable whose DIE is die (the
// target of a DW_OP_implicit_pointer, or the variable holding a VLA
// bound).
func (s *FrameScope) variableAt(ctx context.Context, die stddwarf.Offset) (Object, error) {
	img, fn := s.f.Image, s.f.Function
	if img == nil || fn == nil || img.DWARF() == nil {
		return Object{}, fmt.Errorf("implicit pointer to DIE %#x: %w", die, ErrUnsupported)
	}
	r := img.DWARF().Reader()
	r.Seek(die)
	e, err := r.Next()
	if err != nil || e == nil {
		return Object{}, &FormatError{Section: "debug_info", Offset: uint64(die), Msg: "implicit pointer target unreadable"}
	}
	v := img.newVariable(e, die, fn.cu, VarLocal, s.f.exprEnv(ctx), s.f.filePC())
	if v.TypeOff == 0 {
		if ao, ok := e.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
			r.Seek(ao)
			if oe, err := r.Next(); err == nil && oe != nil {
				v.TypeOff, _ = oe.Val(stddwarf.AttrType).(stddwarf.Offset)
				v.Name, _ = oe.Val(stddwarf.AttrName).(string)
			}
		}
	}
	if v.TypeOff == 0 {
		// A pointee of no type (gcc's DW_TAG_dwarf_procedure holding a
		// string literal's bytes): its bytes, from which the pointer's
		// target is cut (ImplicitTarget), as GDB reads it with the
		// pointer's target type.
		n := int64(len(v.Location.Bytes))
		for _, p := range v.Location.Pieces {
			n += int64(p.Size)
		}
		if v.Location.Kind == LocAddress {
			n = 1 << 20 // memory: the target's part is read where it is
		}
		uchar := &BaseType{CommonType: CommonType{Name: "unsigned char", ByteSize: 1, Lang: fn.Lang()}, Encoding: EncUnsignedChar}
		return VarObject(&ArrayType{CommonType: CommonType{ByteSize: n, Lang: fn.Lang()}, Elem: uchar, Count: n}, &v), nil
	}
	return s.Object(ctx, v)
}

// Local finds a variable of the frame's blocks: a local, a parameter or
// a function-local static.
// NeedsFrame reports whether name is a variable of the frame's blocks
// whose location needs the frame (locationFrameFree false): false for a
// name that is no such variable, an enumerator of the function or a
// template's value parameter among them. Nothing is evaluated.
func (s *FrameScope) NeedsFrame(name string) bool {
	c := s.f.Scope().localDIE(name)
	return c != nil && !s.f.Image.locationFrameFree(c)
}

func (s *FrameScope) Local(ctx context.Context, name string) (Object, error) {
	if s.f.Function == nil {
		return Object{}, fmt.Errorf("local %q without a frame: %w", name, ErrNotFound)
	}
	v, ok := s.f.Scope().lookupBlocks(ctx, name)
	if !ok {
		// an enumerator of an enum declared in the function
		if off, val, ok := s.f.Scope().localEnumerator(name); ok && s.types != nil {
			if t, err := s.types.Type(off); err == nil {
				return enumObject(t, val), nil
			}
		}
		// a function template's value parameter (N of template <int N>)
		if c := s.f.Scope().templateParam(name, stddwarf.TagTemplateValueParameter); c != nil && s.types != nil {
			off, _ := c.Val(stddwarf.AttrType).(stddwarf.Offset)
			if t, err := s.types.Type(off); err == nil {
				switch v := c.Val(stddwarf.AttrConstValue).(type) {
				case int64:
					return enumObject(t, v), nil
				case uint64:
					return enumObject(t, int64(v)), nil
				case []byte:
					return BytesObject(t, v), nil
				}
			}
		}
		if p, ok := s.classTemplateParam(name); ok && p.HasValue && p.Type != nil {
			return enumObject(p.Type, p.Value), nil
		}
		return Object{}, fmt.Errorf("local %q: %w", name, ErrNotFound)
	}
	return s.Object(ctx, v)
}

// EntryValue is the value parameter name had when the frame's function
// was entered (GDB's name@entry), from the caller's call-site
// information; an error wraps ErrOptimizedOut where that does not give
// it, ErrNotFound where the function has no such parameter.
func (s *FrameScope) EntryValue(ctx context.Context, name string) (Object, error) {
	for _, v := range s.f.Params(ctx) {
		if v.Name != name {
			continue
		}
		ev, err := s.f.EntryValue(ctx, v)
		if err != nil {
			return Object{}, err
		}
		return s.Object(ctx, ev)
	}
	return Object{}, fmt.Errorf("%s@entry: no parameter %s here: %w", name, name, ErrNotFound)
}

// VirtualMemberError is a scope's answer for Class::f where f is a
// virtual member function: as a value it names no function of its own
// (which one runs depends on the object), GDB's "Cannot reference virtual
// member function". Func is the class's own f, whose type whatis, ptype
// and sizeof take (GDB evaluates them without side effects, where the
// name is that function).
type VirtualMemberError struct {
	Member string
	Func   Object
}

func (e *VirtualMemberError) Error() string {
	return fmt.Sprintf("Cannot reference virtual member function \"%s\"", e.Member)
}

// Global finds a static or global variable, a function::static, or a
// function of the frame's image, then asks ScopeOptions.Globals.
func (s *FrameScope) Global(ctx context.Context, name string) (Object, error) {
	var err error // (made when needed: a found global costs no error text)
	if fn := s.f.Function; fn != nil && fn.cu.lang == dwLangGo && s.f.Image != nil && !strings.Contains(name, ".") {
		// A Go function sees its own package's globals unqualified.
		if pkg := goPackage(fn.Name); pkg != "" {
			if v, lerr := s.f.Scope().lookupGlobal(ctx, pkg+"."+name, s.t); lerr == nil {
				return s.Object(ctx, v)
			}
		}
	}
	if s.f.Image != nil {
		// Local looked in the blocks; globals (TLS too) read through
		// the scope's target, also in a frame built without one.
		v, lerr := s.f.Scope().lookupGlobal(ctx, name, s.t)
		if lerr == nil {
			return s.Object(ctx, v)
		}
		err = lerr
		if s.types != nil {
			if o, ok := funcStatic(s.f.Image, s.types, s.f.Bias, name); ok {
				return o, nil
			}
			if v, lerr := s.f.Scope().lookupScoped(ctx, name, s.t); lerr == nil {
				return s.Object(ctx, v)
			}
			if fn, ok := s.f.Image.fileFunction(name); ok {
				ft, ferr := s.types.FuncTypeOf(fn.Offset)
				if ferr != nil {
					return Object{}, ferr
				}
				return MemObject(ft, fn.Entry+s.f.Bias), nil
			}
			var found []*Function
			for _, fn := range s.f.Image.FuncsByName(strings.TrimPrefix(name, "::")) {
				// FuncsByName answers a breakpoint's name (any method
				// named so); an expression means what C++ lookup finds.
				if s.funcVisible(fn, name) && !slices.ContainsFunc(found, func(g *Function) bool { return g.Entry == fn.Entry }) {
					found = append(found, fn)
				}
			}
			if cls := s.classMember(name); cls != nil && len(found) > 0 {
				// GDB's value_struct_elt_for_reference: which overload is
				// meant needs its type ((char *(*)(char *))Node::skip),
				// and a virtual one is not a function of its own (which
				// is called depends on the object).
				_, member, _ := splitScope(strings.TrimPrefix(name, "::"))
				if len(found) > 1 {
					return Object{}, fmt.Errorf("non-unique member `%s' requires type instantiation", member)
				}
				for _, m := range cls.Methods() {
					if m.Name == member && m.Virtual && !m.Static {
						ft, ferr := s.types.FuncTypeOf(found[0].Offset)
						if ferr != nil {
							return Object{}, ferr
						}
						return Object{}, &VirtualMemberError{Member: member, Func: MemObject(ft, found[0].Entry+s.f.Bias)}
					}
				}
			}
			// GDB's order: the frame's own unit's (a static function
			// several files define: each libjpeg module's decode_mcu),
			// then an external one, then another unit's.
			rank := func(fn *Function) int {
				switch {
				case s.f.Function != nil && fn.cu == s.f.Function.cu:
					return 0
				case fn.External:
					return 1
				}
				return 2
			}
			slices.SortStableFunc(found, func(a, b *Function) int { return rank(a) - rank(b) })
			for _, fn := range found {
				ft, ferr := s.types.FuncTypeOf(fn.Offset)
				if ferr != nil {
					return Object{}, ferr
				}
				return MemObject(ft, fn.Entry+s.f.Bias), nil
			}
			if o, ok := s.enclosingEnumerator(name); ok {
				return o, nil
			}
		}
	}
	if o, ok := s.enumerator(name, false); ok {
		return o, nil
	}
	for _, q := range s.usingNames(name) {
		// what a using directive or declaration makes name mean
		if o, uerr := s.Global(ctx, q); uerr == nil {
			return o, nil
		}
	}
	if s.globals != nil {
		o, gerr := s.globals(ctx, name)
		if gerr == nil || !errors.Is(gerr, ErrNotFound) {
			return o, gerr
		}
		err = gerr
	}
	if o, ok := s.enumerator(name, true); ok {
		return o, nil
	}
	if err == nil {
		err = fmt.Errorf("no symbol %q in current context: %w", name, ErrNotFound)
	}
	return Object{}, err
}

// enclosingEnumerator finds an enumerator as C++ lookup does from the
// frame's function: in its classes and namespaces, innermost first
// (NEEDS_FLUSH in ns::StrPair::Get is ns::StrPair::NEEDS_FLUSH, and
// StrPair::NEEDS_FLUSH there is too). A name at global scope is the
// evaluator's own last try.
func (s *FrameScope) enclosingEnumerator(name string) (Object, bool) {
	if s.f.Function == nil || strings.HasPrefix(name, "::") {
		return Object{}, false
	}
	scope := s.f.Function.Name
	for {
		outer, _, ok := splitScope(scope)
		if !ok {
			return Object{}, false
		}
		if t, v, ok := s.types.Enumerator(outer + "::" + name); ok {
			return enumObject(t, v), true
		}
		scope = outer
	}
}

// funcVisible reports whether fn is what name means in the frame's
// function (cppVisible), or is named by its linkage name.
func (s *FrameScope) funcVisible(fn *Function, name string) bool {
	if fn.LinkageName != "" && fn.LinkageName == name {
		return true
	}
	from := ""
	if s.f.Function != nil {
		from = s.f.Function.Name
	}
	return cppVisible(fn.Name, name, from) || fn.dwarfName != fn.Name && cppVisible(fn.dwarfName, name, from)
}

// classMember is the class of name where name is Class::member, its
// scope a class (not a namespace), else nil.
func (s *FrameScope) classMember(name string) *StructType {
	scope, _, ok := splitScope(strings.TrimPrefix(name, "::"))
	if !ok {
		return nil
	}
	t, err := s.LookupType(scope)
	if err != nil {
		return nil
	}
	st, _ := Resolve(t).(*StructType)
	return st
}

// LookupType finds a type by name in the frame's image, as C++ lookup
// does from the frame's function: in its classes and namespaces,
// innermost first (Token in ns::Parser::handle is ns::Token), then at
// global scope.
func (s *FrameScope) LookupType(name string) (Type, error) {
	if s.types == nil {
		return nil, fmt.Errorf("type %q: %w", name, ErrNotFound)
	}
	// a type declared in the function's blocks
	if off, ok := s.f.Scope().localType(name); ok {
		if t, err := s.types.Type(off); err == nil {
			return t, nil
		}
	}
	// a function template's type parameter (T of template <typename T>),
	// or its class template's
	if c := s.f.Scope().templateParam(name, stddwarf.TagTemplateTypeParameter); c != nil {
		if off, ok := c.Val(stddwarf.AttrType).(stddwarf.Offset); ok {
			if t, err := s.types.Type(off); err == nil {
				return t, nil
			}
		}
	}
	if p, ok := s.classTemplateParam(name); ok && !p.HasValue && p.Type != nil {
		return p.Type, nil
	}
	if s.f.Function != nil && !strings.HasPrefix(name, "::") && s.Lang() == LangCPlusPlus {
		scope := strings.ReplaceAll(s.f.Function.Name, "(anonymous namespace)::", "")
		for {
			outer, _, ok := splitScope(scope)
			if !ok {
				break
			}
			if t, err := s.types.LookupType(outer + "::" + name); err == nil {
				return t, nil
			}
			scope = outer
		}
	}
	var t Type
	var err error
	if s.f.Function != nil && !strings.HasPrefix(name, "::") {
		t, err = s.types.LookupTypeInUnit(name, s.f.Function.Offset) // the frame's file first
	} else {
		t, err = s.types.LookupType(strings.TrimPrefix(name, "::"))
	}
	if err == nil || !errors.Is(err, ErrNotFound) {
		return t, err
	}
	for _, q := range s.usingNames(name) {
		if ut, uerr := s.types.LookupType(strings.TrimPrefix(q, "::")); uerr == nil {
			return ut, nil
		}
	}
	if o, ok := s.otherType(name); ok {
		return o, nil
	}
	return nil, err
}

// classTemplateParam finds a template parameter of a class template the
// frame's function is a member of (K of template <typename K> struct
// Box, in Box<short>::scaled), as GDB's lookup finds it from the
// function's block.
func (s *FrameScope) classTemplateParam(name string) (TemplateParam, bool) {
	if s.types == nil || s.f.Function == nil || strings.Contains(name, "::") || s.Lang() != LangCPlusPlus {
		return TemplateParam{}, false
	}
	scope := s.f.Function.Name
	if s.f.Inline != nil {
		scope = s.f.Inline.Name
	}
	for {
		outer, _, ok := splitScope(scope)
		if !ok {
			return TemplateParam{}, false
		}
		if t, err := s.types.LookupType(outer); err == nil {
			if st, ok := Resolve(t).(*StructType); ok {
				for _, p := range st.TemplateParams {
					if p.Name == name {
						return p, true
					}
				}
			}
		}
		scope = outer
	}
}

// otherType finds a type name the frame's image does not define in the
// other images (ScopeOptions.Others), as GDB's lookup goes on through
// every objfile: the structs of libc's debug information (struct
// malloc_state), a library's own typedefs. A name the frame's image
// has a variable or function of, or a local of the frame, is no type
// (GDB finds that symbol first: ptype node, where node is a local, is
// not libc's typedef node).
func (s *FrameScope) otherType(name string) (Type, bool) {
	if s.others == nil || s.f.Image == nil || s.f.Image.definesName(strings.TrimPrefix(name, "::")) || s.f.Scope().localDIE(name) != nil {
		return nil, false
	}
	for _, img := range s.others() {
		if tr := s.typesOf(img); img != s.f.Image && tr != nil {
			if t, err := tr.LookupType(strings.TrimPrefix(name, "::")); err == nil {
				return t, true
			}
		}
	}
	return nil, false
}

// enumerator finds an enumerator at global scope in the frame's image,
// or, with others, in the other images (P_PID, an enumerator of glibc's
// idtype_t that only libc's debug information has).
func (s *FrameScope) enumerator(name string, others bool) (Object, bool) {
	var trs []*TypeReader
	if !others && s.types != nil {
		trs = append(trs, s.types)
	}
	if others && s.others != nil {
		for _, img := range s.others() {
			if tr := s.typesOf(img); img != s.f.Image && tr != nil {
				trs = append(trs, tr)
			}
		}
	}
	for _, tr := range trs {
		if t, v, ok := tr.Enumerator(strings.TrimPrefix(name, "::")); ok {
			return enumObject(t, v), true
		}
	}
	return Object{}, false
}

// enumObject is the value v of enumeration type t.
func enumObject(t Type, v int64) Object {
	b := binary.LittleEndian.AppendUint64(nil, uint64(v))
	return BytesObject(t, b[:min(max(SizeOf(t), 1), 8)])
}

// Register returns a register typed as GDB types it: $rip/$pc as a code
// pointer, $rsp/$rbp/$sp/$fp as void *, other general registers as long,
// 32-bit names ($eax) as int, $eflags and segment registers as int.
func (s *FrameScope) Register(name string) (Object, error) {
	if s.f.Function == nil && s.f.PC == 0 {
		return Object{}, fmt.Errorf("register $%s without a frame: %w", strings.TrimPrefix(name, "$"), ErrNotFound)
	}
	lang := s.Lang()
	name = strings.ToLower(strings.TrimPrefix(name, "$"))
	mk := func(t Type, v uint64) Object {
		return BytesObject(t, binary.LittleEndian.AppendUint64(nil, v)[:SizeOf(t)])
	}
	ptr := int64(8)
	i386 := s.f.Image != nil && s.f.Image.Is32Bit()
	if i386 {
		ptr = 4
	}
	long := &BaseType{CommonType: CommonType{Name: "long", ByteSize: ptr, Lang: lang}, Encoding: EncSigned}
	intT := &BaseType{CommonType: CommonType{Name: "int", ByteSize: 4, Lang: lang}, Encoding: EncSigned}
	voidT := &VoidType{CommonType{Name: "void", Lang: lang}}
	if i386 {
		long = intT // i386: eax… are the whole (int) registers
	} else if sub, ok := subRegisters[name]; ok {
		v, ok := s.f.Scope().Register(sub.full)
		if !ok {
			return Object{Type: intT, Err: fmt.Errorf("register $%s: %w", name, ErrNotSaved)}, nil
		}
		return mk(intT, v>>sub.shift), nil
	}
	reg, ok := s.f.Scope().regNum(name)
	if !ok {
		if vectorPseudo(name) {
			// GDB builds these from raw registers (xmmN and ymmNh…):
			// not evaluated here, so the session asks GDB.
			return Object{}, fmt.Errorf("register $%s (a vector register GDB composes): %w", name, errkind.UnsupportedExpr)
		}
		return Object{}, fmt.Errorf("register $%s: %w", name, ErrNotFound)
	}
	if strings.HasPrefix(name, "xmm") {
		// GDB's vec128: the 128 bits as vectors of each element type
		// ($xmm0.v2_double[0], $xmm1.v4_float) and as one integer
		t := vec128(lang)
		b, ok := s.f.Scope().RegisterBytes(name)
		if !ok || len(b) != 16 {
			return Object{Type: t, Err: fmt.Errorf("register $%s: %w", name, ErrNotSaved)}, nil
		}
		return BytesObject(t, b), nil
	}
	if isX87(reg) {
		// GDB's i387_ext: the 80-bit extended value ($st0 = 4.5)
		ext := &BaseType{CommonType: CommonType{Name: "i387_ext", ByteSize: 10, Lang: lang}, Encoding: EncFloat}
		b, ok := s.f.Scope().RegisterBytes(name)
		if !ok || len(b) < 10 {
			return Object{Type: ext, Err: fmt.Errorf("register $%s: %w", name, ErrNotSaved)}, nil
		}
		return BytesObject(ext, b[:10]), nil
	}
	v, ok := s.f.Scope().Register(name)
	if !ok {
		// GDB: a caller-saved register the unwinder did not recover
		return Object{Type: long, Err: fmt.Errorf("register $%s: %w", name, ErrNotSaved)}, nil
	}
	if name == "mxcsr" {
		return mk(mxcsrType(lang), v), nil
	}
	switch reg {
	case regnum.AMD64_Rip:
		ft := &FuncType{CommonType: CommonType{Lang: lang}, Return: voidT, Prototyped: lang == LangCPlusPlus}
		return mk(&PointerType{CommonType: CommonType{ByteSize: ptr, Lang: lang}, Elem: ft}, v), nil
	case regnum.AMD64_Rsp, regnum.AMD64_Rbp:
		return mk(&PointerType{CommonType: CommonType{ByteSize: ptr, Lang: lang}, Elem: voidT}, v), nil
	case regnum.AMD64_Rflags:
		return mk(eflagsType(lang), v), nil
	case regnum.AMD64_Cs, regnum.AMD64_Ss, regnum.AMD64_Ds, regnum.AMD64_Es,
		regnum.AMD64_Fs, regnum.AMD64_Gs:
		return mk(intT, v), nil
	}
	return mk(long, v), nil
}

// vectorPseudo says whether name is one of the x86 vector registers GDB
// composes from parts the server sends: ymm0-31 and zmm0-31.
func vectorPseudo(name string) bool {
	for _, p := range []string{"ymm", "zmm"} {
		if n, ok := strings.CutPrefix(name, p); ok {
			if v, err := strconv.Atoi(n); err == nil && v >= 0 && v < 32 {
				return true
			}
		}
	}
	return false
}

// vec128 is GDB's type of an xmm register (its i386 target
// description's union vec128): the register as a vector of each element
// type, and whole as uint128.
func vec128(lang Lang) *StructType {
	base := func(name string, size int64, enc int64) *BaseType {
		return &BaseType{CommonType: CommonType{Name: name, ByteSize: size, Lang: lang}, Encoding: enc}
	}
	vec := func(name string, elem *BaseType) Field {
		n := 16 / elem.ByteSize
		return Field{Name: name, Type: &ArrayType{CommonType: CommonType{ByteSize: 16, Lang: lang}, Elem: elem, Count: n}}
	}
	return &StructType{CommonType: CommonType{Name: "vec128", ByteSize: 16, Lang: lang}, Kind: "union", Fields: []Field{
		vec("v8_bfloat16", base("bfloat16", 2, EncFloat)),
		vec("v8_half", base("half", 2, EncFloat)),
		vec("v4_float", base("float", 4, EncFloat)),
		vec("v2_double", base("double", 8, EncFloat)),
		vec("v16_int8", base("int8_t", 1, EncSigned)),
		vec("v8_int16", base("int16_t", 2, EncSigned)),
		vec("v4_int32", base("int32_t", 4, EncSigned)),
		vec("v2_int64", base("int64_t", 8, EncSigned)),
		{Name: "uint128", Type: base("uint128_t", 16, EncUnsigned)},
	}}
}

// mxcsrType is GDB's i386_mxcsr flags type of $mxcsr.
func mxcsrType(lang Lang) *EnumType {
	return flagsType("i386_mxcsr", lang, "IE", "DE", "ZE", "OE", "UE", "PE", "DAZ", "IM", "DM", "ZM", "OM", "UM", "PM", "", "", "FZ")
}

// ErrNotSaved is a register value the unwinder could not recover in an
// outer frame; it prints as GDB's <not saved> and is optimized out.
var ErrNotSaved = fmt.Errorf("not saved: %w", ErrOptimizedOut)

type subReg struct {
	full  string
	shift uint
}

// subRegisters are the 32-bit views GDB offers as $eax etc. (typed int).
var subRegisters = map[string]subReg{
	"eax": {"rax", 0}, "ebx": {"rbx", 0}, "ecx": {"rcx", 0}, "edx": {"rdx", 0},
	"esi": {"rsi", 0}, "edi": {"rdi", 0}, "ebp": {"rbp", 0}, "esp": {"rsp", 0},
	"r8d": {"r8", 0}, "r9d": {"r9", 0}, "r10d": {"r10", 0}, "r11d": {"r11", 0},
	"r12d": {"r12", 0}, "r13d": {"r13", 0}, "r14d": {"r14", 0}, "r15d": {"r15", 0},
}

// EflagsText spells an EFLAGS value as GDB prints $eflags: the names of
// the flags set ("[ PF ZF IF RF ]").
func EflagsText(v uint64) string { return eflagsC.ValueText(int64(v)) }

// eflagsC is eflagsType(LangC), made once: rr_registers spells eflags at
// every call.
var eflagsC = eflagsType(LangC)

// eflagsType is GDB's i386_eflags flags type.
func eflagsType(lang Lang) *EnumType {
	return flagsType("i386_eflags", lang, "CF", "", "PF", "", "AF", "", "ZF", "SF", "TF", "IF", "DF", "OF", "", "", "NT", "",
		"RF", "VM", "AC", "VIF", "VIP", "ID")
}

// flagsType is a GDB flags type of 4 bytes whose bit i is named bits[i]
// ("" for an unnamed bit).
func flagsType(name string, lang Lang, bits ...string) *EnumType {
	t := &EnumType{CommonType: CommonType{Name: name, ByteSize: 4, Lang: lang}, Unsigned: true, flags: true}
	for i, n := range bits {
		if n != "" {
			t.Values = append(t.Values, EnumValue{Name: n, Val: 1 << i})
		}
	}
	return t
}

// funcStatic finds a static variable declared inside a function by GDB's
// "function::variable" syntax ("counter::calls"), for use from any frame.
// Optimized code keeps such variables on the abstract instance of an
// inlined function, so that is searched too.
func funcStatic(img *Image, types *TypeReader, bias uint64, name string) (Object, bool) {
	outer, inner, ok := splitScope(strings.TrimPrefix(name, "::"))
	if !ok || img == nil || types == nil || img.DWARF() == nil {
		return Object{}, false
	}
	d := img.DWARF()
	for _, fn := range img.FuncsByName(outer) {
		offs := []stddwarf.Offset{fn.Offset}
		r := d.Reader()
		r.Seek(fn.Offset)
		if e, err := r.Next(); err == nil && e != nil {
			for _, a := range []stddwarf.Attr{stddwarf.AttrAbstractOrigin, stddwarf.AttrSpecification} {
				if o, ok := e.Val(a).(stddwarf.Offset); ok {
					offs = append(offs, o)
				}
			}
		}
		for _, off := range offs {
			if o, ok := staticIn(img, types, bias, off, inner); ok {
				return o, true
			}
		}
	}
	return Object{}, false
}

// staticIn searches the subtree of the DIE at off (lexical blocks
// included) for a variable named name with a static's location
// (unit.staticAddr).
func staticIn(img *Image, types *TypeReader, bias uint64, off stddwarf.Offset, name string) (Object, bool) {
	u := img.unitAt(off)
	if u == nil {
		return Object{}, false
	}
	r := img.DWARF().Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil || !e.Children {
		return Object{}, false
	}
	depth := 1
	for steps := 0; depth > 0 && steps < 1<<16; steps++ {
		c, err := r.Next()
		if err != nil || c == nil {
			return Object{}, false
		}
		if c.Tag == 0 {
			depth--
			continue
		}
		if c.Tag == stddwarf.TagVariable {
			if nm, _ := c.Val(stddwarf.AttrName).(string); nm == name {
				loc, ok := c.Val(stddwarf.AttrLocation).([]byte)
				toff, tok := c.Val(stddwarf.AttrType).(stddwarf.Offset)
				if a, static := u.staticAddr(loc); ok && tok && static {
					if t, err := types.Type(toff); err == nil {
						return MemObject(t, a+bias), true
					}
				}
			}
		}
		if c.Children {
			if c.Tag == stddwarf.TagLexDwarfBlock {
				depth++
			} else {
				r.SkipChildren()
			}
		}
	}
	return Object{}, false
}

// goPackage is the package path of a Go function's name: "main" for
// main.(*Store).Add, "github.com/a/b" for github.com/a/b.F.
func goPackage(fn string) string {
	i := strings.LastIndex(fn, "/") + 1
	j := strings.Index(fn[i:], ".")
	if j < 0 {
		return ""
	}
	return fn[:i+j]
}
