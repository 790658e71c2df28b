package gdbdiff

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/symbols"
)

// scope adapts a frame of oursSide to dwarf.EvalScope: memory through
// rsp, types of the frame's module, data addresses named by symbols.
type scope struct {
	o   *oursSide
	ctx context.Context
	f   *dwarf.Frame
	m   *module
	env *dwarf.ValueEnv
}

func (o *oursSide) scopeOf(ctx context.Context, f *dwarf.Frame) *scope {
	m := o.mods[0]
	if f.Image != nil {
		for _, mm := range o.mods {
			if mm.img == f.Image {
				m = mm
			}
		}
	}
	s := &scope{o: o, ctx: ctx, f: f, m: m}
	s.env = &dwarf.ValueEnv{
		Mem:       func(addr uint64, p []byte) (int, error) { return o.c.ReadMemory(ctx, addr, p) },
		Types:     m.types,
		Bias:      m.bias,
		Symbolize: o.symbolize,
		PtrSize:   m.img.PtrSize(),
	}
	return s
}

// symbolize names a data or code address as GDB's <sym+off>.
func (o *oursSide) symbolize(a uint64) (string, bool) {
	m, ok := o.moduleFor(a)
	if !ok || m.sym == nil {
		return "", false
	}
	s, off, err := m.sym.LookupAddr(a - m.bias)
	if err != nil {
		return "", false
	}
	name := symbols.Demangle(s.Name)
	if off != 0 {
		name = fmt.Sprintf("%s+%d", name, off)
	}
	return name, true
}

func (s *scope) Values() *dwarf.ValueEnv { return s.env }

func (s *scope) Lang() dwarf.Lang {
	if s.f.Function != nil && s.f.Function.CPlusPlus() {
		return dwarf.LangCPlusPlus
	}
	return dwarf.LangC
}

func (s *scope) varObject(v dwarf.Variable) (dwarf.Object, error) {
	tr := s.m.types
	for _, mm := range s.o.mods {
		if mm.img == v.Image {
			tr = mm.types
		}
	}
	if tr == nil || v.TypeOff == 0 {
		return dwarf.Object{}, fmt.Errorf("variable %s has no type: %w", v.Name, dwarf.ErrUnsupported)
	}
	t, err := tr.Type(v.TypeOff)
	if err != nil {
		return dwarf.Object{}, err
	}
	return dwarf.VarObject(t, &v), nil
}

func (s *scope) Local(name string) (dwarf.Object, error) {
	if s.f.Function == nil {
		return dwarf.Object{}, fmt.Errorf("local %s: %w", name, dwarf.ErrNotFound)
	}
	v, err := s.f.Scope().Lookup(name)
	if err != nil {
		return dwarf.Object{}, err
	}
	return s.varObject(v)
}

func (s *scope) Global(name string) (dwarf.Object, error) {
	for _, m := range append([]*module{s.m}, s.o.mods...) {
		if !m.img.HasDWARF() {
			continue
		}
		if v, err := m.img.Global(name, s.o.target(s.ctx), &s.f.Regs, m.bias); err == nil {
			return s.varObject(v)
		}
		if fns := m.img.FuncsByName(name); len(fns) > 0 && m.types != nil {
			if ft, err := m.types.FuncTypeOf(fns[0].Offset); err == nil {
				return dwarf.MemObject(ft, fns[0].Entry+m.bias), nil
			}
		}
	}
	return dwarf.Object{}, fmt.Errorf("no symbol %q in current context: %w", name, dwarf.ErrNotFound)
}

func (s *scope) Register(name string) (dwarf.Object, error) {
	b, ok := s.f.Scope().RegisterBytes(name)
	if !ok {
		return dwarf.Object{}, fmt.Errorf("register $%s is not available in this frame: %w", name, dwarf.ErrNotFound)
	}
	ptr := int64(s.m.img.PtrSize())
	var t dwarf.Type = &dwarf.BaseType{CommonType: dwarf.CommonType{Name: "long", ByteSize: ptr}, Encoding: 5}
	switch strings.ToLower(strings.TrimPrefix(name, "$")) {
	case "rip", "pc", "rsp", "sp", "rbp", "fp", "eip", "esp", "ebp":
		t = &dwarf.PointerType{CommonType: dwarf.CommonType{ByteSize: ptr}, Elem: &dwarf.VoidType{}}
	}
	return dwarf.BytesObject(t, b[:min(len(b), int(ptr))]), nil
}

func (s *scope) LookupType(name string) (dwarf.Type, error) {
	if s.m.types == nil {
		return nil, fmt.Errorf("type %s: %w", name, dwarf.ErrNotFound)
	}
	return s.m.types.LookupType(name)
}
