package session

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
)

// frameScope adapts a dwarf.Frame of this session to dwarf.EvalScope.
type frameScope struct {
	s   *Session
	ctx context.Context
	f   *dwarf.Frame // nil: globals only (no frame)
	img *dwarf.Image
	env *dwarf.ValueEnv
	tr  *dwarf.TypeReader
	// quick: f is frame 0 built without unwinding (quickFrame); it has
	// no memory for location expressions that dereference.
	quick bool
}

func (s *Session) types(img *dwarf.Image) *dwarf.TypeReader {
	if img == nil || img.DWARF() == nil {
		return nil
	}
	if s.trs == nil {
		s.trs = map[*dwarf.Image]*dwarf.TypeReader{}
	}
	tr, ok := s.trs[img]
	if !ok {
		tr = dwarf.NewTypeReader(img.DWARF())
		s.trs[img] = tr
	}
	return tr
}

func (s *Session) valueEnv(ctx context.Context, img *dwarf.Image, bias uint64) *dwarf.ValueEnv {
	return &dwarf.ValueEnv{
		Mem:     s.memFunc(ctx),
		Types:   s.types(img),
		Bias:    bias,
		PtrSize: s.ptrSize(),
		Symbolize: func(a uint64) (string, bool) {
			n := s.dataSymbol(ctx, a)
			return n, n != ""
		},
		SymbolAddr: s.programSymbolAddr,
	}
}

// programSymbolAddr is the runtime address of the program's ELF symbol
// name (the first of that name).
func (s *Session) programSymbolAddr(name string) (uint64, bool) {
	if s.syms == nil {
		return 0, false
	}
	syms, err := s.syms.LookupName(name)
	if err != nil || len(syms) == 0 {
		return 0, false
	}
	return syms[0].Addr + s.bias, true
}

// scope returns the evaluation scope of the selected frame, or a global
// scope when there is no usable frame.
func (s *Session) scope(ctx context.Context) (*frameScope, error) {
	return s.scopeFor(ctx, "")
}

// scopeFor is scope for evaluating expr: when the selected frame is frame
// 0 and the stack is not unwound yet, an expression that cannot refer to
// callers (no NAME@entry) is evaluated in frame 0 built from the
// registers and the CFI rule alone (quickFrame): no stack reads.
func (s *Session) scopeFor(ctx context.Context, expr string) (*frameScope, error) {
	if s.img == nil && s.exited != nil {
		return nil, s.exitedErr("cannot evaluate")
	}
	fs := &frameScope{s: s, ctx: ctx, img: s.img}
	bias := s.bias
	var quick *dwarf.Frame
	if s.exited == nil && expr != "" && !strings.Contains(expr, "@") && s.frame == 0 && s.frames == nil {
		quick = s.quickFrame(ctx)
	}
	if quick != nil {
		fs.f, fs.img, bias, fs.quick = quick, quick.Image, quick.Bias, true
	} else if s.exited == nil {
		if f, err := s.curFrame(ctx); err == nil {
			fs.f = f
			if f.Image != nil {
				fs.img, bias = f.Image, f.Bias
			}
		}
	}
	if fs.img == nil {
		return nil, fmt.Errorf("cannot evaluate expressions: %w", s.imgErr)
	}
	fs.env = s.valueEnv(ctx, fs.img, bias)
	fs.tr = fs.env.Types
	return fs, nil
}

func (fs *frameScope) Values() *dwarf.ValueEnv { return fs.env }

func (fs *frameScope) Lang() dwarf.Lang {
	if fs.f != nil && fs.f.Function != nil && fs.f.Function.CPlusPlus() {
		return dwarf.LangCPlusPlus
	}
	return dwarf.LangC
}

func (fs *frameScope) varObject(v dwarf.Variable) (dwarf.Object, error) {
	tr := fs.s.types(v.Image)
	if tr == nil || v.TypeOff == 0 {
		return dwarf.Object{}, fmt.Errorf("variable %s has no type: %w", v.Name, dwarf.ErrUnsupported)
	}
	t, err := tr.Type(v.TypeOff)
	if err != nil {
		return dwarf.Object{}, err
	}
	return dwarf.VarObject(t, &v), nil
}

func (fs *frameScope) Local(ctx context.Context, name string) (dwarf.Object, error) {
	if fs.f == nil || fs.f.Function == nil {
		return dwarf.Object{}, fmt.Errorf("local %s: %w", name, dwarf.ErrNotFound)
	}
	v, err := fs.f.Scope().Lookup(ctx, name)
	if err != nil {
		return dwarf.Object{}, err
	}
	return fs.varObject(v)
}

func (fs *frameScope) Global(ctx context.Context, name string) (dwarf.Object, error) {
	var regs *dwarf.Regs
	if fs.f != nil {
		regs = &fs.f.Regs
	}
	bias := fs.env.Bias
	if v, err := fs.img.Global(ctx, name, fs.s.target(ctx), regs, bias); err == nil {
		return fs.varObject(v)
	}
	if fns := fs.img.FuncsByName(name); len(fns) > 0 && fs.tr != nil {
		ft, err := fs.tr.FuncTypeOf(fns[0].Offset)
		if err == nil {
			return dwarf.MemObject(ft, fns[0].Entry+bias), nil
		}
	}
	if fs.img != fs.s.img && fs.s.img != nil {
		if v, err := fs.s.img.Global(ctx, name, fs.s.target(ctx), regs, fs.s.bias); err == nil {
			return fs.varObject(v)
		}
	}
	if o, ok := fs.s.elfData(ctx, name); ok {
		return o, nil
	}
	return dwarf.Object{}, &dwarf.NoSymbolError{Name: name, Hint: fs.noSymbolHint(ctx, name)}
}

func (fs *frameScope) Register(name string) (dwarf.Object, error) {
	if fs.f == nil {
		return dwarf.Object{}, fmt.Errorf("register %s: no frame: %w", name, dwarf.ErrNotFound)
	}
	b, ok := fs.f.Scope().RegisterBytes(name)
	if !ok {
		if v, ok := fs.f.Scope().Register(name); ok {
			b = make([]byte, 8)
			putLE(b, v)
		} else {
			return dwarf.Object{}, fmt.Errorf("register $%s is not available in this frame: %w", name, dwarf.ErrNotFound)
		}
	}
	ptr := int64(fs.f.Image.PtrSize())
	if len(b) == 8 && ptr == 4 {
		b = b[:4]
	}
	var t dwarf.Type = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "long", ByteSize: ptr}, Encoding: 5}
	if len(b) == 16 {
		t = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "__int128", ByteSize: 16}, Encoding: 7}
	}
	n := strings.ToLower(strings.TrimPrefix(name, "$"))
	switch n {
	case "rip", "pc", "rsp", "sp", "rbp", "fp", fs.s.pcName(), fs.s.spName(), fs.s.fpName():
		t = &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ptr}, Elem: &dwarf.VoidType{}}
	}
	return dwarf.BytesObject(t, b), nil
}

func (fs *frameScope) LookupType(name string) (dwarf.Type, error) {
	if fs.tr == nil {
		return nil, fmt.Errorf("type %s: %w", name, dwarf.ErrNotFound)
	}
	return fs.tr.LookupType(name)
}

func putLE(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

// evalObject evaluates expr natively in the selected frame.
func (s *Session) evalObject(ctx context.Context, expr string) (dwarf.Object, *frameScope, error) {
	fs, err := s.scopeFor(ctx, expr)
	if err != nil {
		return dwarf.Object{}, nil, err
	}
	o, err := dwarf.EvalExpr(ctx, fs, expr)
	if fs.quick && quickFailed(fs, o, err) {
		// A location needed memory the quick frame lacks: unwind.
		if fs, err = s.scope(ctx); err != nil {
			return dwarf.Object{}, nil, err
		}
		o, err = dwarf.EvalExpr(ctx, fs, expr)
	}
	return o, fs, err
}

// Evaluate evaluates a C/C++ expression in the selected frame: natively,
// or through the GDB/MI fallback when our evaluator reports the
// expression unsupported.
func (s *Session) Evaluate(ctx context.Context, expr string) (EvalResult, error) {
	out := EvalResult{Expression: expr}
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		o, fs, err := s.evalObject(ctx, expr)
		if err == nil {
			out.Value = fs.env.Format(o)
			if msg, ok := strings.CutPrefix(out.Value, "<error: "); ok {
				return fmt.Errorf("%q: %s", expr, strings.TrimSuffix(msg, ">"))
			}
			if o.Type != nil {
				out.Type = o.Type.String()
			}
			if a, ok := o.Addr(); ok {
				out.Address = hexAddr(a)
			}
			out.Engine = "native"
			return nil
		}
		if errors.Is(err, dwarf.ErrUnsupportedExpr) {
			v, gerr := s.gdbEvaluate(ctx, expr)
			if gerr == nil {
				out.Value, out.Engine = v, "gdb"
				return nil
			}
			return fmt.Errorf("%v; the GDB fallback could not help either: %v: %w", err, gerr, ErrUnsupportedExpr)
		}
		return exprError(expr, err)
	})
	return out, err
}

// exprError makes an evaluation error readable and classifiable.
func exprError(expr string, err error) error {
	var se *dwarf.ExprSyntaxError
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
	fs, err := s.scopeFor(ctx, cond)
	if err != nil {
		return false, err
	}
	ok, err := dwarf.EvalCondition(ctx, fs, cond)
	if fs.quick && err != nil && errors.Is(err, dwarf.ErrNoMemory) {
		if fs, err = s.scope(ctx); err != nil {
			return false, err
		}
		ok, err = dwarf.EvalCondition(ctx, fs, cond)
	}
	return ok, err
}

// parseExpr checks syntax only.
func (s *Session) parseExpr(expr string) error {
	_, err := dwarf.ParseExpr(expr, func(string) bool { return false })
	return err
}

// lvalue is a watchable piece of memory.
type lvalue struct {
	addr uint64
	size int
	typ  dwarf.Type
	env  *dwarf.ValueEnv
}

// lvalueOf evaluates expr to an object in memory. "*0xADDR" without a type
// watches 8 bytes... no: it is evaluated as a long.
func (s *Session) lvalueOf(ctx context.Context, expr string) (*lvalue, error) {
	o, fs, err := s.evalObject(ctx, expr)
	if err != nil {
		// A bare "*ADDRESS" the evaluator rejects: watch a long there.
		if a, perr := parseAddr(strings.TrimPrefix(strings.TrimSpace(expr), "*")); perr == nil && strings.HasPrefix(strings.TrimSpace(expr), "*") {
			return &lvalue{addr: a, size: 8}, nil
		}
		return nil, exprError(expr, err)
	}
	a, ok := o.Addr()
	if !ok {
		return nil, argErrorf("expression", "%s is not in memory (a register or computed value); watch a variable, member or *ADDRESS", expr)
	}
	size := 0
	if o.Type != nil {
		size = int(o.Type.Size())
	}
	return &lvalue{addr: a, size: size, typ: o.Type, env: fs.env}, nil
}

// formatWatch prints a watched value with its type when known.
func (s *Session) formatWatch(ctx context.Context, b *breakpoint, v []byte) string {
	if v == nil {
		return ""
	}
	if b.lv != nil && b.lv.typ != nil && int(b.lv.typ.Size()) == len(v) {
		env := s.valueEnv(ctx, s.img, s.bias)
		return env.Format(dwarf.BytesObject(b.lv.typ, v))
	}
	return "0x" + hex.EncodeToString(v)
}

// parseAddr parses 0x-hex or decimal.
func parseAddr(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	return strconv.ParseUint(s, 0, 64)
}

// addressOf turns "0x401000", "4198400" or an expression into an address.
func (s *Session) addressOf(ctx context.Context, expr string) (uint64, error) {
	if a, err := parseAddr(expr); err == nil {
		return a, nil
	}
	o, fs, err := s.evalObject(ctx, expr)
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
	v, err := fs.env.Uint(o)
	if err != nil {
		return 0, exprError(expr, err)
	}
	return v, nil
}

// returnValue formats rax as the callee's return type, or "".
func (s *Session) returnValue(ctx context.Context, callee *dwarf.Frame) string {
	if callee.Function == nil || callee.Image == nil {
		return ""
	}
	tr := s.types(callee.Image)
	if tr == nil {
		return ""
	}
	ft, err := tr.FuncTypeOf(callee.Function.Offset)
	if err != nil || ft.Return == nil {
		return ""
	}
	rt := dwarf.Resolve(ft.Return)
	switch rt.(type) {
	case *dwarf.VoidType, *dwarf.StructType, *dwarf.ArrayType:
		return ""
	}
	size := rt.Size()
	if size <= 0 || size > 8 {
		return ""
	}
	regs, err := s.regs(ctx, s.cur)
	if err != nil {
		return ""
	}
	reg := 0 // rax
	if bt, ok := rt.(*dwarf.BaseType); ok && bt.IsFloat() {
		reg = 17 // xmm0
	}
	b, ok := regs.Bytes(reg)
	if !ok {
		return ""
	}
	env := s.valueEnv(ctx, callee.Image, callee.Bias)
	return env.Format(dwarf.BytesObject(ft.Return, b[:size]))
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
		fs := &frameScope{s: s, ctx: ctx, f: f, img: f.Image, env: s.valueEnv(ctx, f.Image, f.Bias)}
		fs.tr = fs.env.Types
		add := func(v dwarf.Variable, kind string) {
			if v.Name == "" {
				return // an unnamed parameter: GDB lists no symbol for it
			}
			val := Value{Name: v.Name, Kind: kind}
			o, err := fs.varObject(v)
			if err != nil {
				val.Error = err.Error()
				out = append(out, val)
				return
			}
			val.Type = o.Type.String()
			if a, ok := o.Addr(); ok {
				val.Address = hexAddr(a)
			}
			if o.Err != nil || v.Location.Kind == dwarf.LocOptimizedOut {
				val.Error = "optimized out"
				if v.LocErr != nil {
					val.Error = v.LocErr.Error()
				}
				val.Value = dwarf.OptimizedOutText(o.Type)
				out = append(out, val)
				return
			}
			val.Value = fs.env.Format(o)
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
			add(v, "local")
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

// quickFailed reports whether an evaluation in a quick frame ran into a
// location that needed target memory (the result or any part of it).
func quickFailed(fs *frameScope, o dwarf.Object, err error) bool {
	if err != nil {
		return errors.Is(err, dwarf.ErrNoMemory)
	}
	return o.Err != nil && errors.Is(o.Err, dwarf.ErrNoMemory) ||
		strings.Contains(fs.env.Format(o), dwarf.ErrNoMemory.Error())
}
