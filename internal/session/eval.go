package session

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
	"github.com/rrmcp/rrmcp/dwarf/eval"
	"github.com/rrmcp/rrmcp/dwarf/format"
	"github.com/rrmcp/rrmcp/rsp"
)

func (s *Session) valueEnv(ctx context.Context, img *dwarf.Image, bias uint64) *dwarf.ValueEnv {
	return &dwarf.ValueEnv{
		Mem:     s.inf.MemFunc(ctx),
		Types:   s.inf.Types(img),
		Bias:    bias,
		PtrSize: s.inf.PtrSize(),
		Symbolize: func(a uint64) (string, bool) {
			n := s.inf.AddrName(ctx, a)
			return n, n != ""
		},
		SymbolAddr: func(name string) (uint64, bool) { return s.symbolAddr(ctx, name) },
	}
}

// scope returns the evaluation scope of the selected frame, or a global
// scope when there is no usable frame.
func (s *Session) scope(ctx context.Context) (*dwarf.FrameScope, error) {
	sc, _, err := s.scopeFor(ctx, "")
	return sc, err
}

// scopeFor is scope for evaluating expr: when the selected frame is frame
// 0 and the stack is not unwound yet, an expression that cannot refer to
// callers (no NAME@entry) is evaluated in frame 0 built from the
// registers and the CFI rule alone (quickFrame): no stack reads. quick
// says the scope is such a frame: it has no memory for location
// expressions that dereference.
func (s *Session) scopeFor(ctx context.Context, expr string) (sc *dwarf.FrameScope, quick bool, err error) {
	if s.inf.Img == nil && s.exited != nil {
		return nil, false, s.exitedErr("cannot evaluate")
	}
	var f *dwarf.Frame
	if s.exited == nil && expr != "" && !strings.Contains(expr, "@") && s.frame == 0 && s.frames == nil {
		f = s.quickFrame(ctx)
		quick = f != nil
	}
	if f == nil && s.exited == nil {
		if cf, err := s.curFrame(ctx); err == nil {
			f = cf
			if f.Image == nil && s.inf.Img != nil {
				// a frame outside every known module: its registers,
				// and the program's globals
				c := *cf
				c.Image, c.Bias = s.inf.Img, s.inf.Bias
				f = &c
			}
		}
	}
	if f == nil || f.Image == nil {
		if s.inf.Img == nil {
			return nil, false, fmt.Errorf("cannot evaluate expressions: %w", s.inf.ImgErr)
		}
		f = &dwarf.Frame{Image: s.inf.Img, Bias: s.inf.Bias}
	}
	return s.frameScope(ctx, f), quick, nil
}

// frameScope is the evaluation scope of f: the session's memory cache and
// symbols, then the program's globals and the ELF symbols of every loaded
// module for names f's image lacks.
func (s *Session) frameScope(ctx context.Context, f *dwarf.Frame) *dwarf.FrameScope {
	return s.frameScopeMem(ctx, f, nil)
}

// frameScopeMem is frameScope reading memory through read instead of the
// session's cache (nil: the cache): a trace frame's snapshot
// (tracequery.go).
func (s *Session) frameScopeMem(ctx context.Context, f *dwarf.Frame, read dwarf.ReadMemoryFunc) *dwarf.FrameScope {
	var sc *dwarf.FrameScope
	var t *dwarf.Target
	if s.exited == nil || read != nil {
		t = s.inf.Target(ctx)
	}
	env := s.valueEnv(ctx, f.Image, f.Bias)
	if read != nil {
		t.ReadMemory = read
		env.Mem = func(addr uint64, p []byte) (int, error) { return read(ctx, addr, p) }
	}
	sc = dwarf.NewFrameScope(ctx, f, dwarf.ScopeOptions{
		Target: t,
		Types:  s.inf.Types,
		Env:    env,
		Globals: func(ctx context.Context, name string) (dwarf.Object, error) {
			if f.Image != s.inf.Img && s.inf.Img != nil {
				if v, err := s.inf.Img.Global(ctx, name, t, &f.Regs, s.inf.Bias); err == nil {
					return sc.Object(ctx, v)
				}
			}
			if o, ok := s.libraryGlobal(ctx, name, f, t, sc); ok {
				return o, nil
			}
			if o, ok := s.elfSymbol(ctx, name, sc.Lang()); ok {
				return o, nil
			}
			return dwarf.Object{}, &dwarf.NoSymbolError{Name: name, Hint: s.noSymbolHint(ctx, f, name)}
		},
		Others: func() []*dwarf.Image { return s.moduleImages(ctx) },
	})
	return sc
}

// evalObject evaluates expr natively in the selected frame. quick says
// it was a quick frame (quickFrame: no stack read), where a location
// needing target memory fails with dwarf.ErrNoMemory: the object itself
// is checked here, and a caller that reads more of it (its members and
// pointees, as printing does) checks what it read and evaluates again in
// the unwound frame (evalUnwound). Callers that use only the object's
// own value, address or type pay for nothing more.
func (s *Session) evalObject(ctx context.Context, expr string) (o dwarf.Object, fs *dwarf.FrameScope, quick bool, err error) {
	fs, quick, err = s.scopeFor(ctx, expr)
	if err != nil {
		return dwarf.Object{}, nil, false, err
	}
	o, err = eval.EvalExpr(ctx, s.evalScope(fs), expr)
	if quick && needsUnwound(o, err) {
		return s.evalUnwound(ctx, expr)
	}
	return o, fs, quick, err
}

// needsUnwound reports a result in a quick frame (frame 0 from its
// registers alone) that the unwound frame may answer: a location that
// needed memory the quick frame lacks, or a value optimized out there,
// which may be a value at the function's entry that only its caller's
// frame recovers (DW_OP_entry_value).
func needsUnwound(o dwarf.Object, err error) bool {
	if err == nil {
		err = o.Err
	}
	return noMemory(err) || err != nil && errors.Is(err, dwarf.ErrOptimizedOut)
}

// evalType is evalObject for the expression's type only (ptype,
// whatis): what it points to need not be readable.
func (s *Session) evalType(ctx context.Context, expr string) (dwarf.Object, error) {
	fs, quick, err := s.scopeFor(ctx, expr)
	if err != nil {
		return dwarf.Object{}, err
	}
	o, err := eval.EvalType(ctx, s.evalScope(fs), expr)
	if quick && needsUnwound(o, err) {
		if fs, err = s.scope(ctx); err != nil {
			return dwarf.Object{}, err
		}
		o, err = eval.EvalType(ctx, s.evalScope(fs), expr)
	}
	return o, err
}

// evalUnwound is evalObject in the unwound selected frame.
func (s *Session) evalUnwound(ctx context.Context, expr string) (dwarf.Object, *dwarf.FrameScope, bool, error) {
	fs, err := s.scope(ctx)
	if err != nil {
		return dwarf.Object{}, nil, false, err
	}
	o, err := eval.EvalExpr(ctx, s.evalScope(fs), expr)
	return o, fs, false, err
}

// noMemory reports an error of a location that needed target memory a
// quick frame lacks.
func noMemory(err error) bool { return err != nil && errors.Is(err, dwarf.ErrNoMemory) }

// EvalOptions say what Evaluate returns beyond the value's text.
type EvalOptions struct {
	// Expand is how many levels of the value's members, elements or
	// pointee to return as children (0: none); at most expandNodes
	// children in all.
	Expand int
	// Record keeps the value in the value history, as GDB's print does
	// (EvalResult.History); internal evaluations (a query's rows) do not.
	Record bool
}

// expandNodes bounds the children of one expanded value.
const expandNodes = 500

// Evaluate evaluates a C/C++ expression in the selected frame: natively,
// or through the GDB/MI fallback when our evaluator reports the
// expression unsupported.
func (s *Session) Evaluate(ctx context.Context, expr string) (EvalResult, error) {
	return s.EvaluateWith(ctx, expr, EvalOptions{})
}

// EvaluateWith is Evaluate with options: the value's parts (the native
// evaluator only; a GDB answer has none, and Engine says so).
func (s *Session) EvaluateWith(ctx context.Context, expr string, opt EvalOptions) (EvalResult, error) {
	out := EvalResult{Expression: expr}
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		s.vars.TakeWarnings() // (an earlier evaluation's: a condition's)
		defer func() { out.Warnings = s.vars.TakeWarnings() }()
		if s.exited != nil && s.inf.Img == nil {
			// No frame and no program: only literals and the
			// convenience variables ($_exitcode) have values.
			o, err := eval.EvalExpr(ctx, s.evalScope(nil), expr)
			if err != nil {
				return fmt.Errorf("%w (%v)", s.exitedErr("cannot evaluate "+strconv.Quote(expr)), err)
			}
			out.Value, out.Type, out.Engine = format.Text(&dwarf.ValueEnv{}, o), dwarf.TypeString(o.Type), "native"
			if opt.Record {
				out.History = s.record(&dwarf.ValueEnv{}, o)
			}
			return nil
		}
		o, fs, quick, err := s.evalObject(ctx, expr)
		var whole error
		if err == nil {
			var parts []error
			out.Value, whole, parts = format.Render(fs.Values(), o)
			if quick && slices.ContainsFunc(parts, noMemory) {
				// A member's or pointee's location needed memory the
				// quick frame lacks.
				out.Value, whole = "", nil
				if o, fs, _, err = s.evalUnwound(ctx, expr); err == nil {
					out.Value, whole, _ = format.Render(fs.Values(), o)
				}
			}
		}
		if err == nil {
			if whole != nil {
				// Nothing of the value could be read.
				return fmt.Errorf("%q: %w", expr, whole)
			}
			if opt.Expand > 0 {
				v := format.Structured(fs.Values(), expr, o, format.Tree{Depth: opt.Expand, Nodes: expandNodes})
				out.Parts, out.PartsCut = valueParts(v.Children, 1, nil), v.Truncated
			}
			if o.Type != nil {
				out.Type = fs.Values().TypeString(o.Type)
			}
			if a, ok := o.Addr(); ok {
				out.Address = hexAddr(a)
			}
			out.Engine = "native"
			if opt.Record {
				out.History = s.record(fs.Values(), o)
			}
			return nil
		}
		if errors.Is(err, eval.ErrUnsupportedExpr) {
			if strings.Contains(expr, "$_siginfo") && s.c.Dialect() == rsp.DialectRR {
				// rr answers qXfer:siginfo:read by starting a diversion
				// (rr-rsp.md §10), so neither side asks it.
				return fmt.Errorf("%v: $_siginfo cannot be read from rr without leaving the replay; the stop names the signal, and rr_triage gives the faulting instruction and address: %w", err, ErrUnsupportedExpr)
			}
			if usesHistory(expr) {
				return fmt.Errorf("%v; the GDB fallback would not see the value history rrmcp keeps ($, $N, $$N; give the value in the expression instead): %w", err, ErrUnsupportedExpr)
			}
			if v := s.usesVars(expr); v != "" {
				return fmt.Errorf("%v; the GDB fallback would not see %s, a convenience variable rrmcp keeps (give its value in the expression instead): %w", err, v, ErrUnsupportedExpr)
			}
			v, gerr := s.gdbEvaluate(ctx, expr)
			if gerr == nil {
				out.Value, out.Engine = v, "gdb"
				if opt.Record {
					// numbered as GDB numbers it, though only its text
					// came back
					out.History = s.vars.RecordUnkept(nil, errors.New("evaluated by GDB, which gave its text only"))
				}
				return nil
			}
			return fmt.Errorf("%v; the GDB fallback could not help either: %v: %w", err, gerr, ErrUnsupportedExpr)
		}
		return exprError(expr, err)
	})
	return out, err
}

// setExitVars gives GDB's convenience variables of the program's end
// their values at an exit or a kill: $_exitcode, the status it exited
// with, or $_exitsignal, the (Linux) number of the signal that killed
// it; the other is void, as in GDB. Both are void before the end
// (initVars).
func (s *Session) setExitVars(st rsp.Stop) {
	intT := &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "int", ByteSize: 4}, Encoding: dwarf.EncSigned}
	set := func(name string, v int) {
		s.vars.Set(name, intT, binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	}
	s.initVars()
	if st.Kind == rsp.StopExited {
		set("_exitcode", st.ExitCode)
	} else {
		set("_exitsignal", st.Signal.Linux())
	}
}

// initVars makes the debugger's own convenience variables that rrmcp
// keeps void: the ones of the program's end.
func (s *Session) initVars() {
	s.vars.Void("_exitcode")
	s.vars.Void("_exitsignal")
}

// evalScope is fs with the session's convenience variables; nil fs: no
// frame at all (the program has ended), where only literals and the
// variables have values.
func (s *Session) evalScope(fs *dwarf.FrameScope) eval.EvalScope {
	if fs == nil {
		return eval.WithVars(nil, &s.vars)
	}
	return eval.WithVars(fs, &s.vars)
}

// usesVars reports the first convenience variable the session holds
// that expr names ("" if none): the GDB fallback does not share them.
func (s *Session) usesVars(expr string) string {
	for _, d := range cexpr.Dollars(expr) {
		if o, ok := s.vars.Get(d); ok {
			if _, void := o.Type.(*dwarf.VoidType); !void || !strings.HasPrefix(d, "_") {
				return "$" + d
			}
		}
	}
	return ""
}

// usesHistory reports whether expr names a value of the value history
// ($, $N, $$, $$N), which the GDB fallback does not share.
func usesHistory(expr string) bool {
	for _, d := range cexpr.Dollars(expr) {
		if strings.Trim(strings.TrimPrefix(d, "$"), "0123456789") == "" {
			return true
		}
	}
	return false
}

// record keeps a copy of a printed value in the value history, as GDB's
// print does, and returns its number: a value that cannot be copied
// (a synthetic pointer, one partly optimized out) takes its number
// without being kept, so that the numbers are GDB's; one wholly
// optimized out is kept as <optimized out>.
func (s *Session) record(env *dwarf.ValueEnv, o dwarf.Object) int {
	if o.Type == nil {
		return 0
	}
	if _, void := dwarf.Resolve(o.Type).(*dwarf.VoidType); void {
		return s.vars.Record(o.Type, nil, 0)
	}
	if o.Loc.Kind == dwarf.LocOptimizedOut && o.Err == nil || errors.Is(o.Err, dwarf.ErrOptimizedOut) {
		// Wholly optimized out (no location at the pc, an entry value
		// not recoverable): kept as that, as GDB keeps it. A value
		// partly optimized out has pieces that cannot be copied.
		return s.vars.RecordOptimizedOut(o.Type)
	}
	if o.Err != nil {
		return s.vars.RecordUnkept(o.Type, o.Err)
	}
	b, err := env.Bytes(o)
	if err != nil {
		return s.vars.RecordUnkept(o.Type, err)
	}
	addr, _ := o.HomeAddr() // (a history entry printed again keeps where it was read)
	return s.vars.Record(o.Type, b, addr)
}

// exprError makes an evaluation error readable and classifiable.
func exprError(expr string, err error) error {
	var se *cexpr.SyntaxError
	switch {
	case errors.As(err, &se):
		return argErrorf("expression", "%q: %v", expr, err)
	case errors.Is(err, ErrExited):
		return err
	}
	return fmt.Errorf("%q: %w", expr, err)
}

// condTrue evaluates a breakpoint condition at the current stop.
func (s *Session) condTrue(ctx context.Context, cond string) (bool, error) {
	fs, quick, err := s.scopeFor(ctx, cond)
	if err != nil {
		return false, err
	}
	e, err := s.parsedCond(ctx, fs, cond)
	if err != nil {
		return false, err
	}
	ok, err := eval.Truth(ctx, s.evalScope(fs), e)
	if quick && needsUnwound(dwarf.Object{}, err) {
		if fs, err = s.scope(ctx); err != nil {
			return false, err
		}
		ok, err = eval.Truth(ctx, s.evalScope(fs), e)
	}
	return ok, err
}

// parsedCond is cond parsed in scope fs of the selected frame. In frame 0
// the tree is kept per pc (parsing asks the scope of every name whether
// it is a type): a conditional breakpoint's later hits, and the compiling
// of its condition (agentcond.go), only evaluate it.
func (s *Session) parsedCond(ctx context.Context, fs *dwarf.FrameScope, cond string) (cexpr.Expr, error) {
	if s.frame != 0 {
		return eval.Parse(ctx, s.evalScope(fs), cond)
	}
	key := condAt{cond, s.pcOr0(ctx)}
	if e, ok := s.conds[key]; ok {
		return e, nil
	}
	e, err := eval.Parse(ctx, s.evalScope(fs), cond)
	if err != nil {
		return nil, err
	}
	if s.conds == nil || len(s.conds) >= maxParsedConds {
		s.conds = map[condAt]cexpr.Expr{}
	}
	s.conds[key] = e
	return e, nil
}

// condAt is a condition parsed at a pc (in frame 0).
type condAt struct {
	cond string
	pc   uint64
}

// maxParsedConds bounds Session.conds.
const maxParsedConds = 256

// parseExpr checks syntax only, as the evaluator parses: a name the
// program defines as a type is one ((Node *)p, (myint)s), seen from the
// selected frame (GDB parses a condition with the program's types too).
func (s *Session) parseExpr(ctx context.Context, expr string) error {
	var sc eval.EvalScope
	if fs, err := s.scope(ctx); err == nil {
		sc = s.evalScope(fs)
	}
	_, err := eval.Parse(ctx, sc, expr)
	return err
}

// lvalue is a watchable piece of memory, or (inReg) a value of a frame
// that is not in memory: a variable the compiler keeps in a register, a
// constant, an expression of them, watched by its value (softvalue.go).
type lvalue struct {
	addr  uint64
	size  int
	typ   dwarf.Type
	env   *dwarf.ValueEnv
	inReg bool
	// bitOff, bitSize: a bit-field, bitSize bits from bit bitOff of the
	// size bytes at addr (little-endian bit numbering)
	bitOff, bitSize int
}

// lvalueOf evaluates expr to an object in memory. "*0xADDR" without a type
// watches 8 bytes... no: it is evaluated as a long.
func (s *Session) lvalueOf(ctx context.Context, expr string) (*lvalue, error) {
	o, fs, _, err := s.evalObject(ctx, expr)
	var me *dwarf.MemoryError
	if err != nil && errors.As(err, &me) {
		// The object cannot be read now (r->naddr while r is NULL): GDB
		// watches it anyway, as an unreadable value, with what its
		// address is read from (watchfollow.go), as the type of the
		// expression locates it.
		if to, terr := s.evalType(ctx, expr); terr == nil {
			if _, ok := to.Addr(); ok {
				o, err = to, nil
				fs, _ = s.scope(ctx)
			}
		}
	}
	if err != nil {
		// A bare "*ADDRESS" the evaluator rejects: watch a long there.
		if a, perr := parseAddr(strings.TrimPrefix(strings.TrimSpace(expr), "*")); perr == nil && strings.HasPrefix(strings.TrimSpace(expr), "*") {
			return &lvalue{addr: a, size: 8}, nil
		}
		return nil, exprError(expr, err)
	}
	if o.BitSize > 0 && o.Loc.Kind == dwarf.LocAddress && o.BitOffset >= 0 {
		// A bit-field: GDB watches the bytes that hold it, and its
		// value (a write to the other bits there changes nothing).
		off := int(o.BitOffset % 8)
		return &lvalue{addr: o.Loc.Addr + uint64(o.BitOffset/8), size: (off + int(o.BitSize) + 7) / 8, typ: o.Type, env: fs.Values(),
			bitOff: off, bitSize: int(o.BitSize)}, nil
	}
	a, ok := o.Addr()
	if !ok {
		if o.Err == nil && o.Type != nil && o.Type.Size() > 0 && o.BitSize == 0 {
			return &lvalue{size: int(o.Type.Size()), typ: o.Type, env: fs.Values(), inReg: true}, nil
		}
		return nil, argErrorf("expression", "%s is not in memory (a register or computed value); watch a variable, member or *ADDRESS", expr)
	}
	size := 0
	if o.Type != nil {
		size = int(o.Type.Size())
	}
	return &lvalue{addr: a, size: size, typ: o.Type, env: fs.Values()}, nil
}

// lvalueAt is lvalueOf in frame level (a watchpoint's), the selected
// frame left as it was.
func (s *Session) lvalueAt(ctx context.Context, expr string, level int) (*lvalue, error) {
	defer func(f int) { s.frame = f }(s.frame)
	s.frame = level
	return s.lvalueOf(ctx, expr)
}

// naming is the language types are named in at the selected frame, for
// values printed apart from an evaluation: a watchpoint's old and new
// values, a returned value.
func (s *Session) naming(ctx context.Context) dwarf.Naming {
	f, err := s.curFrame(ctx)
	if err != nil {
		return dwarf.Naming{}
	}
	return f.Naming()
}

// formatWatch prints a watched value with its type when known.
func (s *Session) formatWatch(ctx context.Context, b *breakpoint, v []byte) string {
	if v == nil {
		if b.byValue() {
			return "<optimized out>" // (in its frame: it has no location at that pc)
		}
		return "<unreadable>" // as GDB says of a watched value it cannot read
	}
	if lv := b.lv; lv != nil && lv.typ != nil && lv.bitSize > 0 && len(v) == lv.size {
		o := dwarf.BytesObject(lv.typ, append(v[:len(v):len(v)], make([]byte, max(int(lv.typ.Size())-len(v), 0))...))
		o.BitOffset, o.BitSize = int64(lv.bitOff), int64(lv.bitSize)
		env := s.valueEnv(ctx, s.inf.Img, s.inf.Bias)
		env.Naming = s.naming(ctx)
		return format.Text(env, o)
	}
	if b.lv != nil && b.lv.typ != nil && int(b.lv.typ.Size()) == len(v) {
		env := s.valueEnv(ctx, s.inf.Img, s.inf.Bias)
		env.Naming = s.naming(ctx)
		return format.Text(env, dwarf.BytesObject(b.lv.typ, v))
	}
	return "0x" + hex.EncodeToString(v)
}

// parseAddr parses 0x-hex or decimal.
func parseAddr(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	return strconv.ParseUint(s, 0, 64)
}

// addressOf turns "0x401000", "4198400" or an expression into an address:
// in an i386 program's 32 bits, as GDB's addresses there are (*0x100001000
// is 0x1000).
func (s *Session) addressOf(ctx context.Context, expr string) (uint64, error) {
	a, err := s.exprAddress(ctx, expr)
	if err == nil && s.inf.I386() {
		a &= 0xffffffff
	}
	return a, err
}

// exprAddress is addressOf in the full 64 bits.
func (s *Session) exprAddress(ctx context.Context, expr string) (uint64, error) {
	if a, err := parseAddr(expr); err == nil {
		return a, nil
	}
	o, fs, _, err := s.evalObject(ctx, expr)
	if err != nil {
		return 0, exprError(expr, err)
	}
	switch dwarf.Resolve(o.Type).(type) {
	case *dwarf.FuncType:
		if a, ok := o.Addr(); ok {
			return a, nil
		}
	case *dwarf.ArrayType:
		if a, ok := o.Addr(); ok {
			return a, nil
		}
	}
	v, err := fs.Values().AsAddress(o)
	if err != nil {
		return 0, exprError(expr, err)
	}
	return v, nil
}

// returnValue is the value the callee returned, where the ABI left it
// (dwarf.ReturnConvention: registers, or memory at the address in rax),
// printed as GDB's finish does; "" where it cannot be read.
func (s *Session) returnValue(ctx context.Context, callee *dwarf.Frame) (text string, history int) {
	if callee.Function == nil || callee.Image == nil {
		return "", 0
	}
	tr := s.inf.Types(callee.Image)
	if tr == nil {
		return "", 0
	}
	if results := callee.Function.GoResults(tr); len(results) > 0 {
		return s.goReturnValue(ctx, callee, results), 0
	}
	ft, err := tr.FuncTypeOf(callee.Function.Offset)
	if err != nil || ft.Return == nil {
		return "", 0
	}
	// GDB's get_return_value reads the value in the return type with its
	// typedefs stripped (check_typedef): a typedef of const char * prints
	// as the string alone, without the "(cstr)" print would put first.
	ret := dwarf.StripTypedefs(ft.Return)
	parts, inMemory, ok := dwarf.ReturnConvention(ret, s.inf.PtrSize())
	if !ok {
		return "", 0
	}
	regs, err := s.inf.Regs(ctx, s.inf.Cur)
	if err != nil {
		return "", 0
	}
	env := s.valueEnv(ctx, callee.Image, callee.Bias)
	env.Naming = s.naming(ctx) // the caller's, selected once the call returns
	size := ret.Size()
	if inMemory {
		// The callee returns the address of the value it wrote: the
		// value is there, in memory, as GDB reads it (a std::map's nodes
		// point back into it).
		a, ok := regs.Get(0)
		if !ok {
			return "", 0
		}
		o := dwarf.MemObject(ret, a)
		text, whole, _ := format.Render(env, o)
		if whole != nil {
			return "", 0 // nothing of it could be read
		}
		return text, s.record(env, o)
	}
	b := make([]byte, 0, size)
	for _, p := range parts {
		v, ok := regs.Bytes(p.Reg)
		if p.X87 {
			v, ok = dwarf.X87Bytes(p.Size, v)
		}
		if !ok || len(v) < p.Size {
			return "", 0
		}
		b = append(b, v[:p.Size]...)
	}
	if int64(len(b)) < size {
		return "", 0
	}
	o := dwarf.BytesObject(ret, b[:size])
	return format.Text(env, o), s.record(env, o)
}

// goReturnValue is the value (or, for several results, "name = value"
// each) a Go function returned, from the registers Go's ABI puts them in;
// "" where they are not there.
func (s *Session) goReturnValue(ctx context.Context, callee *dwarf.Frame, results []dwarf.GoResult) string {
	regs, err := s.inf.Regs(ctx, s.inf.Cur)
	if err != nil {
		return ""
	}
	vals, ok := dwarf.GoResultBytes(results, regs.Bytes)
	if !ok {
		return ""
	}
	env := s.valueEnv(ctx, callee.Image, callee.Bias)
	if len(vals) == 1 {
		return format.Text(env, dwarf.BytesObject(results[0].Type, vals[0]))
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = results[i].Name + " = " + format.Text(env, dwarf.BytesObject(results[i].Type, v))
	}
	return strings.Join(parts, ", ")
}

// Locals lists the arguments and locals of the selected frame.
func (s *Session) Locals(ctx context.Context) ([]Value, Frame, error) {
	var (
		out []Value
		fr  Frame
	)
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		f, err := s.curFrame(ctx)
		if err != nil {
			return err
		}
		fr = s.frameInfo(ctx, f)
		if f.Function == nil {
			return fmt.Errorf("%s has no debug information, so its locals are unknown (try rr_registers or rr_disassemble): %w", orUnknown(fr.Function), ErrNoDebugInfo)
		}
		fs := s.frameScope(ctx, f)
		add := func(v dwarf.Variable, kind string) {
			if v.Name == "" {
				return // an unnamed parameter: GDB lists no symbol for it
			}
			val := Value{Name: v.Name, Kind: kind, NoLocation: v.NoLocation}
			if v.Label {
				val.Value, val.Error = "<optimized out>", "optimized out" // (a label: no type, no value)
				out = append(out, val)
				return
			}
			o, err := fs.Object(ctx, v)
			if err != nil {
				val.Error = err.Error()
				out = append(out, val)
				return
			}
			val.Type = fs.Values().TypeString(o.Type)
			if a, ok := o.Addr(); ok {
				val.Address = hexAddr(a)
			}
			if o.Err != nil || v.Location.Kind == dwarf.LocOptimizedOut {
				val.Error = "optimized out"
				if v.LocErr != nil {
					val.Error = v.LocErr.Error()
				}
				val.Value = "<optimized out>" // as GDB's info locals prints a whole value
				out = append(out, val)
				return
			}
			// as GDB's info locals prints it: a pointer without the
			// "(struct node *)" print puts first (the type is val.Type)
			val.Value = format.Plain(fs.Values(), o)
			out = append(out, val)
		}
		for _, v := range f.Params(ctx) {
			add(v, "argument")
			// GDB's NAME@entry (print entry-values default): the value
			// at the function's entry, from the caller's call-site
			// information, listed when it is known.
			if ev, err := f.EntryValue(ctx, v); err == nil {
				add(ev, "entry")
			}
		}
		for _, v := range f.Locals(ctx) {
			if !v.ConstBytes { // as GDB's info locals (iterate_over_block_locals)
				add(v, "local")
			}
		}
		if out == nil {
			out = []Value{}
		}
		return nil
	})
	return out, fr, err
}

func orUnknown(s string) string {
	if s == "" {
		return "this function"
	}
	return s
}
