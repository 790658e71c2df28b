package dwarf

import (
	"context"
	"encoding/binary"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// Frame is one frame of a backtrace, numbered like GDB's: frame 0 is the
// innermost. An inlined call yields its own Frame (Inlined true) sharing
// PC, CFA and Regs with the physical frame it was inlined into.
//
// A Frame caches, once used, the physical frame its fields describe (and,
// from Unwind, its link to the caller). Build a new Frame for other
// registers or another pc: a copy of a used Frame whose PC, CFA or Regs are
// then changed still answers for the old ones.
type Frame struct {
	Level int
	// PC is the runtime pc: the stop pc for frame 0 (and frames inlined
	// into it), the return address for callers.
	PC uint64
	// CFA is the canonical frame address of the physical frame.
	CFA uint64
	// Regs are the registers of this frame as far as unwinding knows them.
	Regs Regs
	// Image and Bias locate the module the pc is in (nil if unknown).
	Image *Image
	Bias  uint64
	// Function is the concrete DWARF function the pc is in (for an
	// inlined frame: the function the call was inlined into); nil if the
	// pc has no DWARF.
	Function *Function
	// Inline describes the inlined call for an inlined frame, else nil.
	// A tail-call frame (not Inlined) also has one when its pc is in an
	// inlined call: GDB folds that call into the frame.
	Inline *InlineFrame
	// Name is the function's qualified name, or the ELF symbol's
	// demangled name without DWARF, or "" if nothing names the pc.
	Name string
	// File, Line and Column are where this frame is: the pc's line for
	// the innermost frame at a pc, the call site for frames that an
	// inlined call is inlined into.
	File   string
	Line   int
	Column int
	// Inlined is true for a frame of an inlined call.
	Inlined bool
	// ShowAddr is whether GDB prints the pc in this frame's backtrace
	// line ("#1  0x... in f (...)"): not when the pc starts an is_stmt
	// line-table row, and not for a frame an inlined call is shown in.
	ShowAddr bool
	// Signal is true for a signal trampoline frame (__restore_rt); Name
	// is then SignalFrameName.
	Signal bool
	// TailCall is true for a frame GDB would synthesize for a function
	// that tail-called the frame below it (from DW_AT_call_tail_call
	// sites); its registers are the caller's.
	TailCall bool

	phys *physFrame
	// env is the expression environment last made for a call's ctx
	// (envCtx): a frame's variables are looked up one by one, each
	// lookup wanting it.
	env    *exprEnv
	envCtx context.Context
}

// ph returns the physical frame behind f; for a Frame built by hand (not
// by Unwind) one made from its exported fields, with no caller.
func (f *Frame) ph() *physFrame {
	if f.phys == nil {
		f.phys = &physFrame{regs: f.Regs, pc: f.PC, lookup: f.PC, cfa: f.CFA, hasCFA: f.CFA != 0, mod: f.Image, bias: f.Bias}
	}
	return f.phys
}

// filePC is the frame's lookup pc as a file address of its image.
func (f *Frame) filePC() uint64 { return f.ph().lookup - f.Bias }

// scopeNodes returns the scope nodes whose variables are visible in this
// frame, innermost first: lexical blocks, then the function or inlined
// subroutine node itself (last).
func (f *Frame) scopeNodes() []*godwarf.Tree {
	if f.Function == nil {
		return nil
	}
	root, err := f.Function.Tree()
	if err != nil {
		return nil
	}
	pc := f.filePC()
	chain := f.Function.scopeChain(pc)
	// start at the function node or at this frame's inlined node
	start, top := -1, root
	if f.Inline != nil {
		for i, n := range chain {
			if n.Offset == f.Inline.Offset {
				start, top = i, n
			}
		}
		if start < 0 {
			return nil
		}
	}
	nodes := []*godwarf.Tree{top}
	for _, n := range chain[start+1:] {
		if n.Tag == stddwarf.TagInlinedSubroutine {
			break
		}
		nodes = append(nodes, n)
	}
	slices.Reverse(nodes)
	// a lexical block without addresses (gcc -O2's of a statement
	// expression whose code is gone) is no block: its variables are
	// the enclosing block's, as GDB's read_lexical_block_scope reads it
	var out []*godwarf.Tree
	for _, n := range nodes {
		out = append(out, n)
		out = appendAddressless(out, n, 0)
	}
	return out
}

// blockEnumerators are the enumerators of an enumeration type declared
// in a block, as constants of that type.
func (f *Frame) blockEnumerators(e *godwarf.Tree) []Variable {
	size, _ := e.Val(stddwarf.AttrByteSize).(int64)
	if size <= 0 || size > 8 {
		return nil
	}
	var out []Variable
	for _, c := range e.Children {
		name, _ := c.Val(stddwarf.AttrName).(string)
		if c.Tag != stddwarf.TagEnumerator || name == "" {
			continue
		}
		var v uint64
		switch x := c.Val(stddwarf.AttrConstValue).(type) {
		case int64:
			v = uint64(x)
		case uint64:
			v = x
		default:
			continue
		}
		b := binary.LittleEndian.AppendUint64(nil, v)[:size]
		out = append(out, Variable{Name: name, Kind: VarLocal, Image: f.Image, Offset: c.Offset, TypeOff: e.Offset,
			Location: Location{Kind: LocValue, Bytes: b}, ConstValue: true})
	}
	return out
}

// topNode is the outermost of scopeNodes: the function's, or the inlined
// call's (the blocks without addresses it holds follow it).
func topNode(nodes []*godwarf.Tree) *godwarf.Tree {
	for i := len(nodes) - 1; i > 0; i-- {
		if n := nodes[i]; n.Tag != stddwarf.TagLexDwarfBlock || len(n.Ranges) > 0 {
			return n
		}
	}
	return nodes[0]
}

// appendAddressless appends the lexical blocks without addresses among
// n's children, and theirs, to out.
func appendAddressless(out []*godwarf.Tree, n *godwarf.Tree, depth int) []*godwarf.Tree {
	if depth > 16 {
		return out
	}
	for _, c := range n.Children {
		if c.Tag == stddwarf.TagLexDwarfBlock && len(c.Ranges) == 0 {
			out = append(out, c)
			out = appendAddressless(out, c, depth+1)
		}
	}
	return out
}

// IsMain reports whether f is the program's main function's own frame
// (Function.IsMain; without debug information, a function named main).
func (f *Frame) IsMain() bool {
	if f.Inlined {
		return false
	}
	if f.Function != nil {
		return f.Function.IsMain()
	}
	return f.Name == "main"
}

// varNodes is scopeNodes with, after each node, the variables and
// parameters it leaves to its abstract origin (inheritedVars): the nodes
// whose variables a name in the frame may be, innermost first.
func (f *Frame) varNodes() []*godwarf.Tree {
	nodes := f.scopeNodes()
	shown := shownOrigins(nodes)
	out := make([]*godwarf.Tree, 0, len(nodes)+1)
	for _, n := range nodes {
		out = append(out, n)
		if inh := f.Function.inheritedVars(n, shown); inh != nil {
			out = append(out, inh)
		}
	}
	return out
}

// shownOrigins returns the abstract origins of the variables and
// parameters nodes hold.
func shownOrigins(nodes []*godwarf.Tree) map[stddwarf.Offset]bool {
	shown := map[stddwarf.Offset]bool{}
	for _, n := range nodes {
		for _, c := range n.Children {
			if o, ok := c.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
				shown[o] = true
			}
		}
	}
	return shown
}

// exprEnv returns the evaluation context for this frame's variables.
func (f *Frame) exprEnv(ctx context.Context) *exprEnv {
	p := f.ph()
	if f.env != nil && sameCtx(f.envCtx, ctx) && f.env.regs == &p.regs {
		f.env.cfa, f.env.hasCFA = p.cfa, p.hasCFA // unwinding may have found it since
		return f.env
	}
	env := &exprEnv{ctx: ctx, regs: &p.regs, cfa: p.cfa, hasCFA: p.hasCFA, bias: f.Bias, arch: p.ar}
	if f.Image != nil {
		env.arch = f.Image.arch
	}
	if p.t != nil {
		env.mem = p.t.ReadMemory
	}
	if f.Image != nil {
		img := f.Image
		env.tls = func(off uint64) (uint64, error) { return img.tlsAddr(ctx, &p.regs, env.mem, off) }
	}
	if f.Function != nil {
		env.entryPC, env.hasEntryPC = f.Function.Entry, true
	}
	if fn := f.Function; fn != nil {
		u := fn.cu
		env.addrx = u.addrx
		env.baseType = u.baseType
		env.frameBase = func() (uint64, error) { return f.frameBase(env) }
		env.entryValue = func(expr []byte) (uint64, error) { return f.entryValue(ctx, expr) }
		env.parameterRef = func(off uint64) (uint64, error) {
			return f.callerValue(ctx, func(cf *Frame) (uint64, error) {
				return cf.callSiteParam(ctx, f, stddwarf.Offset(uint64(u.start)+off))
			})
		}
	}
	f.env, f.envCtx = env, ctx
	return env
}

// sameCtx reports whether a and b are the same context, comparing only
// contexts behind pointers (what context.With* return): an interface
// holding a value of another type may not be comparable, and == would
// panic on it. Others are never the same, so nothing is kept for them.
func sameCtx(a, b context.Context) bool {
	t := reflect.TypeOf(a)
	return t != nil && t.Kind() == reflect.Pointer && t == reflect.TypeOf(b) && a == b
}

// frameBase evaluates DW_AT_frame_base of the concrete function.
func (f *Frame) frameBase(env *exprEnv) (uint64, error) {
	root, err := f.Function.Tree()
	if err != nil {
		return 0, err
	}
	fld := root.AttrField(stddwarf.AttrFrameBase)
	if fld == nil {
		return 0, fmt.Errorf("no DW_AT_frame_base: %w", ErrUnsupported)
	}
	var expr []byte
	switch fld.Class {
	case stddwarf.ClassExprLoc, stddwarf.ClassBlock:
		expr, _ = fld.Val.([]byte)
	default:
		expr, err = f.Image.loclistExpr(f.Function.cu, fld, f.filePC(), env.hasEntryPC && env.entryPC == f.filePC())
		if err != nil {
			return 0, err
		}
	}
	if len(expr) == 1 && expr[0] == opCallFrameCFA && env.hasCFA {
		return env.cfa, nil // gcc's frame base, wanted by every variable: no machine to run
	}
	sub := *env
	sub.frameBase = nil // no recursion
	return evalValue(expr, &sub)
}

// Params returns the frame's formal parameters in declaration order (GDB's
// "info args"), with locations evaluated at the frame's pc.
func (f *Frame) Params(ctx context.Context) []Variable {
	nodes := f.scopeNodes()
	if len(nodes) == 0 {
		return nil
	}
	env := f.exprEnv(ctx)
	var out []Variable
	fn := topNode(nodes)
	for _, n := range []*godwarf.Tree{fn, f.Function.inheritedVars(fn, shownOrigins([]*godwarf.Tree{fn}))} {
		if n == nil {
			continue
		}
		for _, c := range n.Children {
			if c.Tag == stddwarf.TagFormalParameter {
				out = append(out, f.Image.newVariable(c, c.Offset, f.Function.cu, VarParam, env, f.filePC()))
			}
		}
	}
	return out
}

// Locals returns the variables of the blocks that contain the frame's pc,
// innermost block first and in declaration order within a block (GDB's
// "info locals"), including function statics; not parameters.
// Variables hidden by an inner one of the same name have Shadowed set.
func (f *Frame) Locals(ctx context.Context) []Variable {
	env := f.exprEnv(ctx)
	seen := map[string]bool{}
	var out []Variable
	for _, n := range f.varNodes() {
		for _, c := range n.Children {
			if c.Tag == stddwarf.TagEnumerationType {
				// GDB's info locals lists a block's enumerators too, as
				// the constants they are (RED = RED)
				out = append(out, f.blockEnumerators(c)...)
				continue
			}
			if c.Tag == stddwarf.TagLabel {
				// GDB's new_symbol: a label without DW_AT_low_pc is an
				// optimized-out symbol, one with it a LOC_LABEL that
				// info locals passes over
				if name, _ := c.Val(stddwarf.AttrName).(string); name != "" && c.Val(stddwarf.AttrLowpc) == nil {
					out = append(out, Variable{Name: name, Kind: VarLocal, Image: f.Image, Offset: c.Offset,
						Location: Location{Kind: LocOptimizedOut}, NoLocation: true, Label: true})
				}
				continue
			}
			if c.Tag != stddwarf.TagVariable {
				continue
			}
			if decl, _ := c.Val(stddwarf.AttrDeclaration).(bool); decl {
				continue
			}
			v := f.Image.newVariable(c, c.Offset, f.Function.cu, localKind(c), env, f.filePC())
			if seen[v.Name] {
				v.Shadowed = true
			}
			seen[v.Name] = true
			out = append(out, v)
		}
	}
	return out
}

// localKind tells a function static (fixed address) from an automatic.
func localKind(c attrGetter) VarKind {
	if expr, ok := c.Val(stddwarf.AttrLocation).([]byte); ok && len(expr) > 0 {
		switch expr[0] {
		case opAddr, opAddrx, opGNUAddrIndex:
			return VarStatic
		}
	}
	return VarLocal
}

// Scope is the name environment of a frame for the expression evaluator.
type Scope struct {
	f *Frame
}

// Scope returns the frame's scope.
func (f *Frame) Scope() *Scope { return &Scope{f: f} }

// Frame returns the frame the scope belongs to.
func (s *Scope) Frame() *Frame { return s.f }

// Lookup finds a variable by name as C/C++ scoping does: the innermost
// block containing the pc first, then enclosing blocks and the function's
// parameters, then statics of the compile unit, then globals of the image.
// A qualified name ("ns::var", "Class::member") is looked up globally.
func (s *Scope) Lookup(ctx context.Context, name string) (Variable, error) {
	if v, ok := s.lookupBlocks(ctx, name); ok {
		return v, nil
	}
	return s.lookupGlobal(ctx, name, nil)
}

// lookupGlobal finds a static of the frame's compile unit or a global of
// its image, reading memory (thread-local storage) through t, or through
// the frame's own target when t is nil.
func (s *Scope) lookupGlobal(ctx context.Context, name string, t *Target) (Variable, error) {
	f := s.f
	if f.Image == nil {
		return Variable{}, fmt.Errorf("variable %q: %w", name, ErrNotFound)
	}
	var cu *unit
	if f.Function != nil {
		cu = f.Function.cu
	}
	if t == nil {
		t = f.ph().t
	}
	from := "" // no function: the global scope
	if f.Function != nil {
		from = f.Function.Name
	}
	visible := func(v *varDecl) bool { return cppVisible(v.qual, name, from) }
	return f.Image.lookupGlobal(ctx, name, visible, cu, t, &f.ph().regs, f.Bias)
}

// unitsOfFile are the compile units whose primary source file is file
// (GDB's 'file.c'::name names what that file's symtab holds).
func (img *Image) unitsOfFile(file string) ([]*unit, error) {
	if err := img.listUnits(); err != nil {
		return nil, err
	}
	var units []*unit
	for _, u := range img.units {
		full := u.name
		if !path.IsAbs(full) && u.compDir != "" {
			full = path.Join(u.compDir, full)
		}
		if FileMatches(full, file) {
			units = append(units, u)
		}
	}
	return units, nil
}

// fileFunction finds GDB's 'file.c'::function: a function (static or
// not) the file's units define.
func (img *Image) fileFunction(name string) (*Function, bool) {
	outer, inner, ok := splitScope(strings.TrimPrefix(name, "::"))
	if !ok || !strings.ContainsAny(outer, "./") {
		return nil, false
	}
	units, err := img.unitsOfFile(outer)
	if err != nil || len(units) == 0 {
		return nil, false
	}
	for _, fn := range img.FuncsByName(inner) {
		if fn.Name == inner && slices.Contains(units, fn.cu) {
			return fn, true
		}
	}
	return nil, false
}

// lookupScoped finds GDB's SCOPE::name where SCOPE is no class or
// namespace but a source file ('a.c'::counter: what the file defines) or
// a function (geta::counter: what its code sees past its own statics,
// which funcStatic finds: its file's statics, then the globals), as GDB
// looks name up in that symtab's or function's block.
func (s *Scope) lookupScoped(ctx context.Context, name string, t *Target) (Variable, error) {
	f := s.f
	outer, inner, ok := splitScope(strings.TrimPrefix(name, "::"))
	if !ok || f.Image == nil || f.Image.dw == nil {
		return Variable{}, fmt.Errorf("variable %q: %w", name, ErrNotFound)
	}
	if t == nil {
		t = f.ph().t
	}
	img := f.Image
	file := strings.ContainsAny(outer, "./")
	var units []*unit
	if file {
		var err error
		if units, err = img.unitsOfFile(outer); err != nil {
			return Variable{}, err
		}
	} else {
		for _, fn := range img.FuncsByName(outer) {
			if fn.Name == outer && fn.cu != nil && !slices.Contains(units, fn.cu) {
				units = append(units, fn.cu)
			}
		}
	}
	for _, u := range units {
		visible := func(v *varDecl) bool { return v.qual == inner && (v.u == u || !file && v.external) }
		if v, err := img.lookupGlobal(ctx, inner, visible, u, t, &f.ph().regs, f.Bias); err == nil {
			return v, nil
		}
	}
	return Variable{}, fmt.Errorf("variable %q: %w", name, ErrNotFound)
}

// cppVisible reports whether qual, an entity's qualified name, is what
// name means in code of the function named from, as C++ looks a name up
// (GDB's cp_lookup_symbol_nonlocal, using-directives aside): name itself,
// or name in one of from's enclosing scopes (namespaces, classes),
// anonymous namespaces being transparent. Template arguments may be left
// out of name. A C or Go name has no scope to look in: it is itself.
func cppVisible(qual, name, from string) bool {
	qual = strings.ReplaceAll(qual, "(anonymous namespace)::", "")
	name = strings.TrimPrefix(name, "::")
	is := func(n string) bool { return qual == n || stripTemplateArgs(qual) == n }
	if is(name) {
		return true
	}
	scope := strings.ReplaceAll(from, "(anonymous namespace)::", "")
	for {
		outer, _, ok := splitScope(scope)
		if !ok {
			return false
		}
		if is(outer + "::" + name) {
			return true
		}
		scope = outer
	}
}

// lookupBlocks finds an unqualified name among the variables and
// parameters of the blocks containing the pc, innermost first.
func (s *Scope) lookupBlocks(ctx context.Context, name string) (Variable, bool) {
	c := s.localDIE(name)
	if c == nil {
		return Variable{}, false
	}
	kind := localKind(c)
	if c.Tag == stddwarf.TagFormalParameter {
		kind = VarParam
	}
	f := s.f
	return f.Image.newVariable(c, c.Offset, f.Function.cu, kind, f.exprEnv(ctx), f.filePC()), true
}

// localDIE is the DIE of the variable or parameter named name in the
// blocks containing the pc, innermost first, or nil.
func (s *Scope) localDIE(name string) *godwarf.Tree {
	if s.f.Function == nil || strings.Contains(name, "::") {
		return nil
	}
	for _, n := range s.f.varNodes() {
		for _, c := range n.Children {
			if c.Tag != stddwarf.TagVariable && c.Tag != stddwarf.TagFormalParameter {
				continue
			}
			if nm, _ := c.Val(stddwarf.AttrName).(string); nm != name {
				continue
			}
			if decl, _ := c.Val(stddwarf.AttrDeclaration).(bool); decl {
				continue // extern declaration in a block: look globally
			}
			return c
		}
	}
	return nil
}

// localType finds a type declared in the frame's blocks (a typedef, enum,
// struct or union inside the function), innermost first: its DIE.
func (s *Scope) localType(name string) (stddwarf.Offset, bool) {
	if s.f.Function == nil || strings.Contains(name, "::") {
		return 0, false
	}
	// "struct pair" is the struct's tag alone
	tags := []stddwarf.Tag{stddwarf.TagTypedef, stddwarf.TagEnumerationType, stddwarf.TagStructType, stddwarf.TagUnionType, stddwarf.TagClassType}
	for kw, tag := range map[string]stddwarf.Tag{"struct ": stddwarf.TagStructType, "union ": stddwarf.TagUnionType, "enum ": stddwarf.TagEnumerationType, "class ": stddwarf.TagClassType} {
		if n, ok := strings.CutPrefix(name, kw); ok {
			name, tags = strings.TrimSpace(n), []stddwarf.Tag{tag}
		}
	}
	nodes := s.f.scopeNodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		for _, c := range nodes[i].Children {
			if !slices.Contains(tags, c.Tag) {
				continue
			}
			if nm, _ := c.Val(stddwarf.AttrName).(string); nm == name {
				return c.Offset, true
			}
		}
	}
	return 0, false
}

// templateParam finds a template parameter of the frame's function
// (template <typename T, int N>) with the tag given: GDB adds a function
// template's parameters to its block (read_func_scope's
// template_arguments), so T names a type and N a constant there. They
// are the function's children, or its abstract origin's (an inlined or
// out-of-line copy) or declaration's (DW_AT_specification). nil where
// there is none.
func (s *Scope) templateParam(name string, tag stddwarf.Tag) *godwarf.Tree {
	if s.f.Function == nil || strings.Contains(name, "::") {
		return nil
	}
	nodes := s.f.scopeNodes()
	if len(nodes) == 0 {
		return nil
	}
	n := topNode(nodes) // the function, or the inlined call's node
	for range 3 {
		for _, c := range n.Children {
			if nm, _ := c.Val(stddwarf.AttrName).(string); c.Tag == tag && nm == name {
				return c
			}
		}
		next, ok := n.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset)
		if !ok {
			if next, ok = n.Val(stddwarf.AttrSpecification).(stddwarf.Offset); !ok {
				return nil
			}
		}
		if n = s.f.Function.originTree(next); n == nil {
			return nil
		}
	}
	return nil
}

// localEnumerator finds an enumerator of an enum declared in the frame's
// blocks, innermost first: the enum's DIE and the value.
func (s *Scope) localEnumerator(name string) (stddwarf.Offset, int64, bool) {
	if s.f.Function == nil || strings.Contains(name, "::") {
		return 0, 0, false
	}
	nodes := s.f.scopeNodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		for _, c := range nodes[i].Children {
			if c.Tag != stddwarf.TagEnumerationType {
				continue
			}
			for _, e := range c.Children {
				if nm, _ := e.Val(stddwarf.AttrName).(string); nm == name {
					switch v := e.Val(stddwarf.AttrConstValue).(type) {
					case int64:
						return c.Offset, v, true
					case uint64:
						return c.Offset, int64(v), true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// Register returns the value of a register by GDB name ("rip", "$rsp",
// "pc", "eflags") in this frame; ok is false if the frame does not know it.
func (s *Scope) Register(name string) (uint64, bool) {
	reg, ok := s.regNum(name)
	if !ok {
		return 0, false
	}
	if reg == regnum.AMD64_Rip {
		return s.f.PC, true
	}
	return s.f.ph().regs.Get(reg)
}

// RegisterBytes is Register for vector registers (16 bytes for xmm).
func (s *Scope) RegisterBytes(name string) ([]byte, bool) {
	reg, ok := s.regNum(name)
	if !ok {
		return nil, false
	}
	if reg == regnum.AMD64_Rip {
		return binary.LittleEndian.AppendUint64(nil, s.f.PC)[:s.f.Image.PtrSize()], true
	}
	b, ok := s.f.ph().regs.Bytes(reg)
	if ok && s.f.Image.Is32Bit() && len(b) == 8 {
		b = b[:4] // i386 general registers are 32 bits wide
	}
	return b, ok
}

// regNum numbers a register name of the frame's architecture ("eax" on
// i386, "rax" on x86-64).
func (s *Scope) regNum(name string) (int, bool) {
	if s.f.Image.Is32Bit() {
		return RegNum32(name)
	}
	return RegNum(name)
}

// Global looks a global variable up outside any frame: name may be
// plain or qualified. regs supplies fs_base for thread-local variables
// (may be nil); bias is the image's load bias.
func (img *Image) Global(ctx context.Context, name string, t *Target, regs *Regs, bias uint64) (Variable, error) {
	return img.lookupGlobal(ctx, name, nil, nil, t, regs, bias)
}

// definesName reports whether the image has a global or static variable
// or a function named name: a symbol GDB's lookup would find in this
// objfile before it looks at the others'.
func (img *Image) definesName(name string) bool {
	img.indexAll()
	return len(img.globals[name]) > 0 || len(img.FuncsByName(name)) > 0
}

// lookupGlobal prefers a CU-local (static) definition in cu, then an
// external definition anywhere, then any definition, among those whose
// declarations visible accepts (nil: all; a frame's scope passes what C++
// lookup finds from its function, cppVisible).
func (img *Image) lookupGlobal(ctx context.Context, name string, visible func(*varDecl) bool, cu *unit, t *Target, regs *Regs, bias uint64) (Variable, error) {
	img.indexAll()
	name = strings.TrimPrefix(name, "::")
	cands := img.globals[name] // under every "::"-suffix of their names
	var best *varDecl
	score := func(v *varDecl) int {
		s := 0
		if cu != nil && v.u == cu && !v.decl {
			// the frame's own file's definition, with a location or not
			// (gcc -O2 folded a static into its uses): GDB finds it in
			// that unit's blocks first and prints <optimized out>, where
			// another file's variable of the name would be a wrong value
			s += 16
		}
		if v.qual == name {
			s += 8 // an exact name beats a suffix match (Class::member)
		}
		if v.hasLoc {
			s += 4
		}
		if cu != nil && v.u == cu {
			s += 2
		}
		if v.external {
			s++
		}
		return s
	}
	for i := range cands {
		if visible != nil && !visible(&cands[i]) {
			continue
		}
		if best == nil || score(&cands[i]) > score(best) {
			best = &cands[i]
		}
	}
	if best == nil {
		return Variable{}, fmt.Errorf("variable %q: %w", name, ErrNotFound)
	}
	r := img.dw.Reader()
	r.Seek(best.off)
	e, err := r.Next()
	if err != nil || e == nil {
		return Variable{}, &FormatError{".debug_info", uint64(best.off), fmt.Sprint("read variable: ", err)}
	}
	var ae attrGetter = e
	if spec, ok := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset); ok {
		// name and type are on the declaration
		ae, _ = godwarf.LoadAbstractOriginAndSpecification(e, img.dw.Reader())
		_ = spec
	}
	env := &exprEnv{ctx: ctx, regs: regs, bias: bias, addrx: best.u.addrx, baseType: best.u.baseType, arch: img.arch}
	if t != nil {
		env.mem = t.ReadMemory
	}
	env.tls = func(off uint64) (uint64, error) { return img.tlsAddr(ctx, regs, env.mem, off) }
	kind := VarStatic
	if best.external {
		kind = VarGlobal
	}
	v := img.newVariable(ae, best.off, best.u, kind, env, 0)
	v.Name = best.qual
	// An extern declaration, or an external variable without a location
	// (an alias: int a __attribute__((alias("b"))), glibc's
	// program_invocation_short_name): at its ELF symbol, GDB's
	// LOC_UNRESOLVED (new_symbol).
	if decl, _ := e.Val(stddwarf.AttrDeclaration).(bool); (decl || best.external) && !best.hasLoc {
		v.Unresolved, _ = ae.Val(stddwarf.AttrLinkageName).(string)
		if v.Unresolved == "" {
			v.Unresolved = "::" + best.qual
		}
	}
	return v, nil
}

// LocateDIE evaluates the location of the variable or parameter DIE at
// off in this frame's context. It resolves the target of an implicit
// pointer (Location.PtrDIE): the pointee usually has an implicit value.
func (f *Frame) LocateDIE(ctx context.Context, off stddwarf.Offset) (Variable, error) {
	if f.Image == nil || f.Image.dw == nil {
		return Variable{}, fmt.Errorf("DIE %#x: %w", off, ErrNotFound)
	}
	r := f.Image.dw.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return Variable{}, &FormatError{".debug_info", uint64(off), fmt.Sprint("read DIE: ", err)}
	}
	ae, _ := godwarf.LoadAbstractOriginAndSpecification(e, f.Image.dw.Reader())
	kind := VarLocal
	if e.Tag == stddwarf.TagFormalParameter {
		kind = VarParam
	}
	var env *exprEnv
	var pc uint64
	if f.Function != nil {
		env, pc = f.exprEnv(ctx), f.filePC()
	}
	return f.Image.newVariable(ae, off, f.Image.unitAt(off), kind, env, pc), nil
}

// Naming is the language types are named in while f is selected, GDB's
// current language under "set language auto": its function's, where
// that is C or C++. In code without debug information GDB keeps the
// language it had, which a frame does not know: each type is then named
// in its own language.
func (f *Frame) Naming() Naming {
	if f.Function != nil {
		if l := f.Function.Lang(); l == LangC || l == LangCPlusPlus {
			return NamingIn(l)
		}
	}
	return Naming{}
}
