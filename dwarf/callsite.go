package dwarf

import (
	"context"
	"encoding/binary"
	"fmt"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// calleeSaved are the callee-saved registers of the SysV amd64 ABI:
// their entry values are the caller frame's values.
var calleeSaved = map[int]bool{regnum.AMD64_Rbx: true, regnum.AMD64_Rbp: true, 12: true, 13: true, 14: true, 15: true}

// entryValue evaluates DW_OP_entry_value's sub-expression (a register) as
// it was when the frame's function was entered: from the caller's
// DW_TAG_call_site_parameter for that register, or for callee-saved
// registers from the caller's registers.
func (f *Frame) entryValue(ctx context.Context, expr []byte) (uint64, error) {
	reg := -1
	switch {
	case len(expr) == 1 && expr[0] >= opReg0 && expr[0] <= opReg31:
		reg = int(expr[0] - opReg0)
	case len(expr) >= 2 && expr[0] == opRegx:
		r := exprReader{b: expr[1:]}
		reg = int(min(r.uleb(), 1<<20))
		if r.err != nil || r.pos != len(expr)-1 {
			reg = -1
		}
	}
	if reg < 0 {
		return 0, fmt.Errorf("entry value of % x: %w", expr, ErrUnsupported)
	}
	if f.Inlined {
		// An inlined call has no entry of its own: the register's entry
		// value is the one at the entry of the function it was inlined
		// into (GDB's dwarf_expr_reg_to_entry_parameter leaves the
		// inline frames first).
		fr := f.ph().fr
		if len(fr) == 0 || fr[len(fr)-1].Inlined {
			return 0, ErrOptimizedOut
		}
		f = fr[len(fr)-1]
	}
	v, err := f.callerValue(ctx, func(cf *Frame) (uint64, error) { return cf.callSiteValue(ctx, f, reg) })
	if err == nil {
		return v, nil
	}
	// A register the System V ABI has the callee save holds at the caller
	// what it held at the entry. Go's internal ABI saves none.
	goABI := f.Function != nil && f.Function.cu.lang == dwLangGo
	if caller := f.callerPhys(); caller != nil && f.Image != nil && f.Image.arch == archAMD64 && calleeSaved[reg] && !goABI {
		if v, ok := caller.regs.Get(reg); ok {
			return v, nil
		}
	}
	return 0, ErrOptimizedOut
}

// callerPhys is the physical (or tail-call) frame that called f's
// function: where its call-site information is.
func (f *Frame) callerPhys() *physFrame {
	if f.ph().tailCaller != nil {
		return f.ph().tailCaller
	}
	return f.ph().caller
}

// callerValue runs get on the caller's frame that holds the call site.
func (f *Frame) callerValue(ctx context.Context, get func(cf *Frame) (uint64, error)) (uint64, error) {
	if f.Inlined {
		return 0, ErrOptimizedOut
	}
	caller := f.callerPhys()
	if caller == nil || len(caller.fr) == 0 || caller.mod == nil {
		return 0, ErrOptimizedOut
	}
	for _, cf := range caller.fr {
		if cf.Function != nil {
			return get(cf)
		}
	}
	return 0, ErrOptimizedOut
}

const attrCallParameter stddwarf.Attr = 0x80 // DW_AT_call_parameter

// callSiteParam evaluates the value passed at this (caller) frame's call
// site for the callee's formal parameter DIE param (DW_AT_call_parameter,
// or DW_AT_abstract_origin in the GNU extension).
func (f *Frame) callSiteParam(ctx context.Context, callee *Frame, param stddwarf.Offset) (uint64, error) {
	root, err := f.Function.Tree()
	if err != nil {
		return 0, err
	}
	site := f.Function.callSiteAt(root, f.PC-f.Bias)
	if site == nil || !f.callsFunction(ctx, site, callee) {
		return 0, ErrOptimizedOut
	}
	for _, c := range site.Children {
		if c.Tag != stddwarf.TagCallSiteParameter && c.Tag != tagGNUCallSiteParameter {
			continue
		}
		var ref stddwarf.Offset
		if fl := c.AttrField(attrCallParameter); fl != nil {
			ref, _ = fl.Val.(stddwarf.Offset)
		} else if fl := c.AttrField(stddwarf.AttrAbstractOrigin); fl != nil {
			ref, _ = fl.Val.(stddwarf.Offset)
		}
		if ref != param {
			continue
		}
		return f.callValue(ctx, c)
	}
	return 0, ErrOptimizedOut
}

// callValue evaluates, in this (caller) frame, the value a call-site
// parameter entry c says was passed (DW_AT_call_value, or GNU's).
func (f *Frame) callValue(ctx context.Context, c *godwarf.Tree) (uint64, error) {
	val, _ := c.Val(stddwarf.AttrCallValue).([]byte)
	if val == nil {
		val, _ = c.Val(attrGNUCallSiteValue).([]byte)
	}
	if val == nil {
		return 0, ErrOptimizedOut
	}
	return evalValue(val, f.exprEnv(ctx))
}

const (
	tagGNUCallSite          stddwarf.Tag  = 0x4109
	tagGNUCallSiteParameter stddwarf.Tag  = 0x410a
	attrGNUCallSiteValue    stddwarf.Attr = 0x2111
)

// callSiteValue finds the call site at this (caller) frame's return
// address and evaluates the value its parameter in reg had at the call.
func (f *Frame) callSiteValue(ctx context.Context, callee *Frame, reg int) (uint64, error) {
	root, err := f.Function.Tree()
	if err != nil {
		return 0, err
	}
	c := f.callSiteParamReg(ctx, root, callee, reg)
	if c == nil {
		return 0, ErrOptimizedOut
	}
	// the value may itself be an entry value of the caller (a parameter
	// passed through): that recursion ends at the outermost unwound frame
	return f.callValue(ctx, c)
}

// callSiteParamReg finds, at this (caller) frame's call site for callee,
// the DW_TAG_call_site_parameter of register reg, or nil.
func (f *Frame) callSiteParamReg(ctx context.Context, root *godwarf.Tree, callee *Frame, reg int) *godwarf.Tree {
	site := f.Function.callSiteAt(root, f.PC-f.Bias)
	if site == nil || !f.callsFunction(ctx, site, callee) {
		return nil
	}
	for _, c := range site.Children {
		if c.Tag != stddwarf.TagCallSiteParameter && c.Tag != tagGNUCallSiteParameter {
			continue
		}
		if loc, _ := c.Val(stddwarf.AttrLocation).([]byte); len(loc) == 1 && loc[0] == byte(opReg0+reg) {
			return c
		}
	}
	return nil
}

const (
	attrCallDataValue      stddwarf.Attr = 0x86   // DW_AT_call_data_value
	attrGNUCallSiteDataVal stddwarf.Attr = 0x2112 // DW_AT_GNU_call_site_data_value
)

// referenceDataKnown reports whether the caller's call site gives the
// value a reference parameter in reg referred to at the call
// (DW_AT_call_data_value): GDB shows a reference's entry value only then
// (value_of_dwarf_reg_entry, "Cannot resolve DW_AT_call_data_value").
func (f *Frame) referenceDataKnown(ctx context.Context, reg int) bool {
	_, err := f.callerValue(ctx, func(cf *Frame) (uint64, error) {
		root, err := cf.Function.Tree()
		if err != nil {
			return 0, err
		}
		c := cf.callSiteParamReg(ctx, root, f, reg)
		if c == nil || (c.Val(attrCallDataValue) == nil && c.Val(attrGNUCallSiteDataVal) == nil) {
			return 0, ErrOptimizedOut
		}
		return 0, nil
	})
	return err == nil
}

// isReferenceType reports whether the type DIE at off is a reference,
// through typedefs and cv-qualifiers (GDB's check_typedef).
func (img *Image) isReferenceType(off stddwarf.Offset) bool {
	for i := 0; i < 16 && off != 0; i++ {
		r := img.dw.Reader()
		r.Seek(off)
		e, err := r.Next()
		if err != nil || e == nil {
			return false
		}
		switch e.Tag {
		case stddwarf.TagReferenceType, stddwarf.TagRvalueReferenceType:
			return true
		case stddwarf.TagTypedef, stddwarf.TagConstType, stddwarf.TagVolatileType:
			off, _ = e.Val(stddwarf.AttrType).(stddwarf.Offset)
		default:
			return false
		}
	}
	return false
}

// findCallSite finds the call site with return address ret in n's
// blocks and inlined calls.
// callSiteAt finds the call site returning to the file address ret in
// f's tree root, or in its abstract origin's: gcc sometimes puts the call
// sites of a function's out-of-line copy in the abstract DIE it shares
// with its inlined copies, return addresses and all (GDB reads them
// there too).
func (f *Function) callSiteAt(root *godwarf.Tree, ret uint64) *godwarf.Tree {
	if s := findCallSite(root, ret); s != nil {
		return s
	}
	if origin, ok := root.Val(stddwarf.AttrAbstractOrigin).(stddwarf.Offset); ok {
		if ot := f.originTree(origin); ot != nil {
			return findCallSite(ot, ret)
		}
	}
	return nil
}

func findCallSite(n *godwarf.Tree, ret uint64) *godwarf.Tree {
	for _, c := range n.Children {
		switch c.Tag {
		case stddwarf.TagCallSite, tagGNUCallSite:
			if pc, ok := c.Val(stddwarf.AttrCallReturnPC).(uint64); ok && pc == ret {
				return c
			}
			if pc, ok := c.Val(stddwarf.AttrLowpc).(uint64); ok && pc == ret {
				return c
			}
		case stddwarf.TagLexDwarfBlock, stddwarf.TagInlinedSubroutine:
			if s := findCallSite(c, ret); s != nil {
				return s
			}
		}
	}
	return nil
}

// EntryValue returns the value parameter v had when the frame's function
// was entered ("v@entry" in GDB), recovered from the caller's call-site
// information when v lived in a register at the entry. Inlined frames
// have no entry values. The result is a LocValue Variable named
// "NAME@entry"; errors wrap ErrOptimizedOut when the value is unknown.
func (f *Frame) EntryValue(ctx context.Context, v Variable) (Variable, error) {
	if f.Inlined || f.Function == nil || v.Kind != VarParam {
		return Variable{}, fmt.Errorf("%s@entry: %w", v.Name, ErrOptimizedOut)
	}
	var e attrGetter
	if root, err := f.Function.Tree(); err == nil {
		// A parameter of an out-of-line frame is a child of its function's
		// DIE, already loaded.
		for _, c := range root.Children {
			if c.Offset == v.Offset {
				e = c
				break
			}
		}
	}
	if e == nil {
		r := f.Image.dw.Reader()
		r.Seek(v.Offset)
		de, err := r.Next()
		if err != nil || de == nil {
			return Variable{}, &FormatError{".debug_info", uint64(v.Offset), fmt.Sprint("read parameter: ", err)}
		}
		e = de
	}
	fld := e.AttrField(stddwarf.AttrLocation)
	if fld == nil {
		return Variable{}, fmt.Errorf("%s@entry: %w", v.Name, ErrOptimizedOut)
	}
	var expr []byte
	switch fld.Class {
	case stddwarf.ClassExprLoc, stddwarf.ClassBlock:
		expr, _ = fld.Val.([]byte)
	default:
		var err error
		if expr, err = f.Image.loclistExpr(f.Function.cu, fld, f.Function.Entry, true); err != nil {
			return Variable{}, err
		}
	}
	if len(expr) != 1 || expr[0] < opReg0 || expr[0] > opReg31 {
		return Variable{}, fmt.Errorf("%s@entry: not in a register at entry: %w", v.Name, ErrOptimizedOut)
	}
	val, err := f.entryValue(ctx, expr)
	if err != nil {
		return Variable{}, fmt.Errorf("%s@entry: %w", v.Name, err)
	}
	if f.Image.isReferenceType(v.TypeOff) && !f.referenceDataKnown(ctx, int(expr[0]-opReg0)) {
		return Variable{}, fmt.Errorf("%s@entry: the call site gives the reference but not the value it refers to: %w", v.Name, ErrOptimizedOut)
	}
	ev := v
	ev.Name = v.Name + "@entry"
	ev.Location = Location{Kind: LocValue, Bytes: binary.LittleEndian.AppendUint64(nil, val)}
	ev.LocErr = nil
	return ev, nil
}

const (
	attrCallTarget     stddwarf.Attr = 0x83   // DW_AT_call_target
	attrGNUCallSiteTgt stddwarf.Attr = 0x2113 // DW_AT_GNU_call_site_target
)

// callsFunction reports whether the call site in this (caller) frame is
// known to call callee's function, as GDB requires before it trusts
// call-site values: the site names the callee (DW_AT_call_origin), or its
// DW_AT_call_target evaluates in this frame to the callee's entry.
func (f *Frame) callsFunction(ctx context.Context, site *godwarf.Tree, callee *Frame) bool {
	fn := callee.Function
	if fn == nil {
		return false
	}
	var origin stddwarf.Offset
	if fl := site.AttrField(attrCallOrigin); fl != nil {
		origin, _ = fl.Val.(stddwarf.Offset)
	} else if fl := site.AttrField(stddwarf.AttrAbstractOrigin); fl != nil {
		origin, _ = fl.Val.(stddwarf.Offset)
	}
	if origin != 0 {
		name, linkage, _, _, _, _ := f.Image.resolveDecl(origin)
		return name == fn.dwarfName || linkage != "" && linkage == fn.LinkageName
	}
	var expr []byte
	if fl := site.AttrField(attrCallTarget); fl != nil {
		expr, _ = fl.Val.([]byte)
	} else if fl := site.AttrField(attrGNUCallSiteTgt); fl != nil {
		expr, _ = fl.Val.([]byte)
	}
	if expr == nil {
		return false
	}
	env := f.exprEnv(ctx)
	env.entryValue = nil
	target, err := evalValue(expr, env)
	return err == nil && callee.Image == f.Image && target == fn.Entry+callee.Bias
}
