package dwarf

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/regnum"

	"github.com/rrmcp/rrmcp/symbols"
)

// UnwindOptions tune Unwind. The zero value behaves like GDB's default
// "backtrace".
type UnwindOptions struct {
	// MaxFrames bounds the number of frames (default 1024).
	MaxFrames int
	// PastMain keeps unwinding beyond main (GDB: set backtrace past-main).
	PastMain bool
	// ShowInlineEntries shows, for frame 0, that many of the inlined
	// calls that start at the stop pc (their entry, or the start of one
	// of their ranges; HiddenAt), outermost first. GDB hides those (frame
	// 0 is then the caller at the call site) after "step"/"next"/
	// "finish", signals and breakpoints on an enclosing function or line;
	// it shows them after "stepi", down to the function a breakpoint at
	// the pc is on, at address breakpoints ("*ADDR"), and one more at each
	// "step" there, which goes one call deeper without running (GDB's
	// step_into_inline_frame).
	ShowInlineEntries int
}

// Backtrace is the result of Unwind.
type Backtrace struct {
	Frames []*Frame
	// Stop says why unwinding ended: "outermost" (undefined return
	// address, pc 0, thread entry), "main" (past-main off), "max frames",
	// or an error text such as GDB's "previous frame inner to this frame
	// (corrupt stack?)".
	Stop string
}

// Unwind walks the stack of a stopped thread whose registers are regs.
// The pc's module comes from t.Modules, or is img with load bias bias
// when t.Modules is nil. ctx is checked between frames.
func (img *Image) Unwind(ctx context.Context, t *Target, regs Regs, bias uint64, opts UnwindOptions) (*Backtrace, error) {
	if t == nil || t.ReadMemory == nil {
		return nil, fmt.Errorf("unwind: %w", ErrNoMemory)
	}
	modules := t.Modules
	if modules == nil {
		modules = func(_ context.Context, pc uint64) (*Image, uint64, bool) { return img, bias, true }
	}
	maxFrames := opts.MaxFrames
	if maxFrames <= 0 {
		maxFrames = 1024
	}
	bt := &Backtrace{}
	var prev *physFrame
	cur := &physFrame{regs: regs, t: t, ar: img.arch}
	for {
		if err := ctx.Err(); err != nil {
			return bt, err
		}
		cur.locate(ctx, modules, prev)
		// frames for this physical frame (inlined ones first)
		show := opts.ShowInlineEntries // frame 0: the inlined calls starting at its pc shown
		if prev != nil {
			show = -1 // all
		}
		frames := cur.frames(len(bt.Frames), show)
		truncated := false
		for _, f := range frames {
			if len(bt.Frames) >= maxFrames {
				truncated = true
				break
			}
			bt.Frames = append(bt.Frames, f)
		}
		atMain := len(frames) > 0 && !opts.PastMain && frames[len(frames)-1].IsMain()
		// unwind this frame even when it is the last one returned: its
		// CFA (frame base) and caller (entry values) are needed
		next, err := cur.unwindOne(ctx, t, prev == nil)
		for _, f := range frames {
			f.CFA = cur.cfa
			if cur.signal {
				f.Signal, f.Name = true, SignalFrameName
			}
		}
		if truncated {
			if err == nil && !atMain {
				next.t, next.ar = t, cur.ar
				next.locate(ctx, modules, cur)
				next.frames(0, -1)
				cur.caller = next
			}
			bt.Stop = "max frames"
			return bt, nil
		}
		if atMain {
			// Like GDB with "backtrace past-main off", main has no caller:
			// entry values of main's parameters are optimized out.
			bt.Stop = "main"
			return bt, nil
		}
		if err != nil {
			if err == errOutermost {
				bt.Stop = "outermost"
			} else {
				bt.Stop = err.Error()
				var me *MemoryError
				if errors.As(err, &me) {
					bt.Stop = me.Error() // GDB's "Backtrace stopped: Cannot access memory at address A"
				}
			}
			return bt, nil
		}
		if next.regs.PC() == 0 {
			bt.Stop = "outermost"
			return bt, nil
		}
		if !cur.signal && prev != nil && next.regs.SP() <= cur.regs.SP() && next.regs.PC() == cur.regs.PC() {
			bt.Stop = "previous frame identical to this frame (corrupt stack?)"
			return bt, nil
		}
		if !cur.signal && next.regs.SP() < cur.regs.SP() {
			bt.Stop = "previous frame inner to this frame (corrupt stack?)"
			return bt, nil
		}
		next.t, next.ar = t, cur.ar
		cur.caller = next
		// frames of functions that tail-called their way to cur
		for _, tf := range cur.tailFrames(ctx, next, modules) {
			tf.Level = len(bt.Frames)
			bt.Frames = append(bt.Frames, tf)
		}
		prev, cur = cur, next
		cur.callee = prev
	}
}

// SignalFrameName is the Name of a signal trampoline frame, as GDB
// prints it.
const SignalFrameName = "<signal handler called>"

// physFrame is one real stack frame during unwinding.
type physFrame struct {
	regs   Regs
	pc     uint64 // runtime pc
	lookup uint64 // runtime pc used for lookups (pc-1 in callers)
	cfa    uint64
	hasCFA bool
	mod    *Image
	bias   uint64
	signal bool       // this frame is a signal trampoline
	callee *physFrame // the frame this one called (nil for frame 0)
	caller *physFrame // the frame that called this one, once unwound
	// tailCaller is the innermost tail-call frame between this frame and
	// caller, if tail calls were found: call-site values come from there.
	tailCaller *physFrame
	t          *Target
	ar         *arch    // the architecture of the thread (pointer size)
	fr         []*Frame // the Frames made from it
}

// locate finds the module of the frame's pc and the pc used for lookups
// (pc-1 in callers, since the return address may be past the call's
// line or function; the exact pc after a signal frame).
func (p *physFrame) locate(ctx context.Context, modules ModuleFunc, callee *physFrame) {
	pc := p.regs.PC()
	p.pc = pc
	p.mod, p.bias, _ = modules(ctx, pc)
	if p.mod != nil && pc < p.bias {
		p.mod = nil
	}
	p.lookup = pc
	if callee != nil && !callee.signal {
		p.lookup = pc - 1
	}
}

// unwindOne computes the caller's registers.
func (p *physFrame) unwindOne(ctx context.Context, t *Target, innermost bool) (*physFrame, error) {
	if p.mod == nil {
		if innermost {
			// a call to a bad address: the return address is on top of
			// the stack, as GDB assumes
			return p.popReturn(ctx, t, p.regs.SP())
		}
		return nil, fmt.Errorf("no module for pc %#x", p.pc)
	}
	file := p.lookup - p.bias
	if fc, signal, err := p.mod.rulesAt(file); fc != nil && err == nil {
		p.signal = signal
		return p.applyCFI(ctx, t, fc)
	}
	if name, _, ok := p.mod.SymbolAt(file); ok && name == "__restore_rt" && p.ar.ptr() == 8 {
		p.signal = true
		return p.sigcontext(ctx, t)
	}
	return p.prologueFrame(ctx, t)
}

func (p *physFrame) exprEnv(ctx context.Context, t *Target) *exprEnv {
	return &exprEnv{ctx: ctx, regs: &p.regs, mem: t.ReadMemory, cfa: p.cfa, hasCFA: p.hasCFA, bias: p.bias, arch: p.ar}
}

func (p *physFrame) applyCFI(ctx context.Context, t *Target, fc *frame.FrameContext) (*physFrame, error) {
	switch fc.CFA.Rule {
	case frame.RuleCFA:
		v, ok := p.regs.Get(int(fc.CFA.Reg))
		if !ok {
			return nil, fmt.Errorf("CFA register %s unknown", regLabel(int(fc.CFA.Reg)))
		}
		p.cfa = v + uint64(fc.CFA.Offset)
	case frame.RuleExpression:
		v, err := evalValue(fc.CFA.Expression, p.exprEnv(ctx, t))
		if err != nil {
			return nil, fmt.Errorf("CFA expression: %w", err)
		}
		p.cfa = v
	default:
		return nil, fmt.Errorf("CFA rule %d: %w", fc.CFA.Rule, ErrUnsupported)
	}
	p.hasCFA = true
	ra := fc.RetAddrReg
	if ra == 0 {
		ra = regnum.AMD64_Rip
	}
	rule, ok := fc.Regs[ra]
	if !ok || rule.Rule == frame.RuleUndefined {
		return nil, errOutermost
	}
	next := &physFrame{regs: p.regs} // unspecified registers: same value (as GDB)
	next.regs.Invalidate(regnum.AMD64_Rip)
	for reg, rule := range fc.Regs {
		if reg >= NumRegs {
			continue
		}
		if err := p.applyRule(ctx, t, next, int(reg), rule); err != nil {
			if int(reg) == int(ra) {
				return nil, err
			}
			next.regs.Invalidate(int(reg))
		}
	}
	if ra != regnum.AMD64_Rip {
		v, ok := next.regs.Get(int(ra))
		if !ok {
			return nil, errOutermost
		}
		next.regs.Set(regnum.AMD64_Rip, v)
	}
	if _, ok := next.regs.Get(regnum.AMD64_Rip); !ok {
		return nil, errOutermost
	}
	if _, ok := fc.Regs[regnum.AMD64_Rsp]; !ok {
		next.regs.Set(regnum.AMD64_Rsp, p.cfa)
	}
	return next, nil
}

func (p *physFrame) applyRule(ctx context.Context, t *Target, next *physFrame, reg int, rule frame.DWRule) error {
	switch rule.Rule {
	case frame.RuleUndefined:
		next.regs.Invalidate(reg)
	case frame.RuleSameVal:
	case frame.RuleOffset:
		v, err := t.readUint(ctx, p.cfa+uint64(rule.Offset), p.ar.ptr())
		if err != nil {
			return err
		}
		next.regs.Set(reg, v)
	case frame.RuleValOffset:
		next.regs.Set(reg, p.cfa+uint64(rule.Offset))
	case frame.RuleRegister:
		v, ok := p.regs.Get(int(rule.Reg))
		if !ok {
			return fmt.Errorf("register %d unknown", rule.Reg)
		}
		next.regs.Set(reg, v)
	case frame.RuleExpression, frame.RuleValExpression:
		env := p.exprEnv(ctx, t)
		env.initStack = []uint64{p.cfa}
		v, err := evalValue(rule.Expression, env)
		if err != nil {
			return err
		}
		if rule.Rule == frame.RuleExpression {
			if v, err = t.readUint(ctx, v, p.ar.ptr()); err != nil {
				return err
			}
		}
		next.regs.Set(reg, v)
	case frame.RuleCFA:
		v, ok := p.regs.Get(int(rule.Reg))
		if !ok {
			return fmt.Errorf("register %d unknown", rule.Reg)
		}
		next.regs.Set(reg, v+uint64(rule.Offset))
	default:
		return fmt.Errorf("register rule %d: %w", rule.Rule, ErrUnsupported)
	}
	return nil
}

// sigcontext unwinds through __restore_rt without CFI: the stack pointer
// points at the ucontext_t whose uc_mcontext holds the interrupted
// registers (gregs in the order r8..r15, rdi, rsi, rbp, rbx, rdx, rax,
// rcx, rsp, rip).
func (p *physFrame) sigcontext(ctx context.Context, t *Target) (*physFrame, error) {
	const mcontext = 40 // uc_flags, uc_link, uc_stack
	order := []int{8, 9, 10, 11, 12, 13, 14, 15,
		regnum.AMD64_Rdi, regnum.AMD64_Rsi, regnum.AMD64_Rbp, regnum.AMD64_Rbx,
		regnum.AMD64_Rdx, regnum.AMD64_Rax, regnum.AMD64_Rcx, regnum.AMD64_Rsp, regnum.AMD64_Rip}
	base := p.regs.SP() + mcontext
	buf := make([]byte, 8*len(order))
	if n, err := t.ReadMemory(ctx, base, buf); err != nil || n < len(buf) {
		return nil, fmt.Errorf("read signal context at %#x: %v", base, err)
	}
	next := &physFrame{}
	for i, reg := range order {
		next.regs.Set(reg, binary.LittleEndian.Uint64(buf[8*i:]))
	}
	p.cfa, p.hasCFA = base, true
	return next, nil
}

// prologueFrame unwinds code without CFI as GDB's fallback unwinders do
// ("amd64 prologue", amd64_frame_cache; "i386 prologue",
// i386_frame_cache): the function's first instructions, up to the pc,
// say whether its frame is set up yet (prologueAnalysis). Once push
// %rbp; mov %rsp,%rbp has run, the frame's base is the frame pointer;
// before that, or in a function without that prologue, the base is
// worked out from the stack pointer: at the entry the return address is
// on top of the stack, after the push above the saved frame pointer.
// The caller's pc is at base+ptr, its stack pointer base+2*ptr (the CFA),
// a saved frame pointer at base and, on i386, registers pushed after the
// frame's setup below it; other registers keep their values.
func (p *physFrame) prologueFrame(ctx context.Context, t *Target) (*physFrame, error) {
	n := uint64(p.ar.ptr())
	var start uint64 // the function's runtime entry (GDB's get_frame_func); 0: unknown
	if fn := p.mod.FuncAt(p.lookup - p.bias); fn != nil {
		start = fn.Entry + p.bias
	} else if _, off, ok := p.mod.SymbolAt(p.lookup - p.bias); ok {
		start = p.lookup - off
	}
	var base uint64
	if n == 4 {
		// i386_frame_cache_1: the frame pointer is the base unless the
		// analysis finds no frame set up; 0 marks the outermost frame.
		base, _ = p.regs.Get(regnum.AMD64_Rbp)
		if base == 0 {
			return nil, errOutermost
		}
	}
	a := prologueAnalysis{spOffset: -int64(n), saved: map[int]int64{}}
	if start != 0 {
		a.analyze(ctx, t, p.ar, start, p.pc)
	}
	if !a.framed {
		switch {
		case start != 0 || n == 8 || !t.readable(ctx, p.pc):
			base = p.regs.SP() + uint64(a.spOffset)
		default:
			// i386, no function known at a readable pc: the typical
			// frame, the caller's frame pointer saved at the base
			a.saved[regnum.AMD64_Rbp] = 0
		}
	} else if n == 8 {
		base, _ = p.regs.Get(regnum.AMD64_Rbp)
	}
	if base == 0 {
		return nil, errOutermost // amd64_frame_unwind_stop_reason
	}
	ra, err := t.readUint(ctx, base+n, int(n))
	if err != nil {
		return nil, err
	}
	p.cfa, p.hasCFA = base+2*n, true
	next := &physFrame{regs: p.regs}
	next.regs.Set(regnum.AMD64_Rip, ra)
	next.regs.Set(regnum.AMD64_Rsp, p.cfa)
	for reg, off := range a.saved {
		if reg == regnum.AMD64_Rsp {
			continue // the caller's is the CFA
		}
		if v, err := t.readUint(ctx, base+uint64(off), int(n)); err == nil {
			next.regs.Set(reg, v)
		} else {
			next.regs.Invalidate(reg)
		}
	}
	return next, nil
}

// readable says whether the byte at addr can be read (GDB's
// target_read_code succeeding).
func (t *Target) readable(ctx context.Context, addr uint64) bool {
	var b [1]byte
	n, err := t.ReadMemory(ctx, addr, b[:])
	return err == nil && n == 1
}

// prologueAnalysis is what GDB's prologue analyzers
// (amd64_analyze_prologue, i386_analyze_prologue) learn from a
// function's first instructions up to the pc: whether the frame pointer
// is set up (framed), the stack pointer's offset from the frame's base
// (the base less ptr at the entry: the return address is on top), and
// the registers saved, by their offset from the base (Regs' numbering).
// Not analyzed, as GDB does: the stack realignment of main (lea/and/push
// -8(%reg)), i386's struct-return popl %eax; xchgl, its stack probe and
// the instructions GCC may put between push %ebp and mov %esp,%ebp.
type prologueAnalysis struct {
	framed   bool
	spOffset int64
	locals   int64 // i386: the bytes sub/lea/enter allocate after the setup (-1: no frame)
	saved    map[int]int64
}

// analyze reads the code at start (runtime address), not past pc.
func (a *prologueAnalysis) analyze(ctx context.Context, t *Target, ar *arch, start, pc uint64) {
	code := make([]byte, 64)
	n, _ := t.ReadMemory(ctx, start, code)
	code = code[:max(n, 0)]
	at := func(i uint64) int {
		if i >= uint64(len(code)) {
			return -1
		}
		return int(code[i])
	}
	has := func(i uint64, b ...byte) bool {
		for k, c := range b {
			if at(i+uint64(k)) != int(c) {
				return false
			}
		}
		return true
	}
	if pc <= start {
		return
	}
	lim := pc - start // analysis stops where the pc is
	var i uint64
	if ar.ptr() == 8 {
		if has(i, 0xf3, 0x0f, 0x1e, 0xfa) { // endbr64
			i += 4
		}
		if lim <= i || at(i) != 0x55 { // push %rbp
			return
		}
		a.saved[regnum.AMD64_Rbp] = 0
		a.spOffset += 8
		if lim <= i+1 {
			return
		}
		// mov %rsp,%rbp: the frame is set up (once the pc is past the push)
		a.framed = has(i+1, 0x48, 0x89, 0xe5) || has(i+1, 0x48, 0x8b, 0xec)
		return
	}
	a.locals = -1
	if has(i, 0xf3, 0x0f, 0x1e, 0xfb) { // endbr32
		i += 4
	}
	for { // i386_skip_noop: nop, mov %edi,%edi
		if at(i) == 0x90 {
			i++
		} else if has(i, 0x8b, 0xff) {
			i += 2
		} else {
			break
		}
	}
	// i386_follow_jump: a function that starts with a jump to its
	// setup is analyzed there
	switch {
	case at(i) == 0xe9 && i+5 <= uint64(len(code)):
		i += 5 + uint64(int64(int32(binary.LittleEndian.Uint32(code[i+1:]))))
	case at(i) == 0xeb && i+2 <= uint64(len(code)):
		i += 2 + uint64(int64(int8(code[i+1])))
	}
	i = a.frameSetup386(i, lim, code)
	// i386_analyze_register_saves: push %reg after the setup
	off := int64(0)
	if a.locals > 0 {
		off -= a.locals
	}
	for k := 0; k < 8 && i < lim; k++ {
		op := at(i)
		if op < 0x50 || op > 0x57 {
			break
		}
		off -= 4
		a.saved[ar.reg(op-0x50)] = off
		a.spOffset += 4
		i++
	}
}

// frameSetup386 is i386_analyze_frame_setup from offset i of the
// function (code: its first bytes; lim: the pc's offset): push %ebp;
// mov %esp,%ebp (or lea (%esp),%ebp) with an optional sub/lea that
// allocates the locals, or enter. It returns the offset after what it
// recognized.
func (a *prologueAnalysis) frameSetup386(i, lim uint64, code []byte) uint64 {
	at := func(i uint64) int {
		if i >= uint64(len(code)) {
			return -1
		}
		return int(code[i])
	}
	if lim <= i {
		return lim
	}
	switch at(i) {
	case 0x55: // push %ebp
		a.saved[regnum.AMD64_Rbp] = 0
		a.spOffset += 4
		i++
		if lim <= i {
			return lim
		}
		switch {
		case at(i) == 0x8b && at(i+1) == 0xec, at(i) == 0x89 && at(i+1) == 0xe5: // mov %esp,%ebp
			i += 2
		case at(i) == 0x8d && at(i+1) == 0x2c && at(i+2) == 0x24: // lea (%esp),%ebp
			i += 3
		default:
			return i
		}
		a.framed, a.locals = true, 0
		if lim <= i {
			return lim
		}
		switch {
		case at(i) == 0x83 && at(i+1) == 0xec && at(i+2) >= 0: // sub $imm8,%esp
			a.locals = int64(int8(at(i + 2)))
			return i + 3
		case at(i) == 0x81 && at(i+1) == 0xec && i+6 <= uint64(len(code)): // sub $imm32,%esp
			a.locals = int64(int32(binary.LittleEndian.Uint32(code[i+2:])))
			return i + 6
		case at(i) == 0x8d && at(i+1) == 0x64 && at(i+3) >= 0: // lea -N(%esp),%esp
			a.locals = -int64(int8(at(i + 3)))
			return i + 4
		}
		return i
	case 0xc8: // enter $N,$0
		if i+3 <= uint64(len(code)) {
			a.framed, a.locals = true, int64(binary.LittleEndian.Uint16(code[i+1:]))
		}
		return i + 4
	}
	return i
}

// popReturn makes a caller frame whose return address is at sp.
func (p *physFrame) popReturn(ctx context.Context, t *Target, sp uint64) (*physFrame, error) {
	n := uint64(p.ar.ptr())
	ra, err := t.readUint(ctx, sp, int(n))
	if err != nil {
		return nil, err
	}
	p.cfa, p.hasCFA = sp+n, true
	next := &physFrame{regs: p.regs}
	next.regs.Set(regnum.AMD64_Rip, ra)
	next.regs.Set(regnum.AMD64_Rsp, sp+n)
	return next, nil
}

// frames turns the physical frame into GDB-style frames: one per inlined
// call active at the pc (innermost first), then the function itself.
// With show >= 0 (frame 0) the calls that start at the pc are hidden,
// all but the show outermost of them (UnwindOptions.ShowInlineEntries);
// show < 0 keeps them all.
func (p *physFrame) frames(level int, show int) []*Frame {
	base := Frame{PC: p.pc, Regs: p.regs, Image: p.mod, Bias: p.bias, phys: p, ShowAddr: true}
	if p.mod == nil {
		f := base
		f.Level = level
		p.fr = []*Frame{&f}
		return p.fr
	}
	file := p.lookup - p.bias
	fn := p.mod.FuncAt(file)
	if fn == nil {
		f := base
		f.Level = level
		if name, _, ok := p.mod.SymbolAt(file); ok {
			f.Name = symbols.FrameName(name)
			if name == "__restore_rt" {
				f.Signal, f.Name = true, SignalFrameName
			}
		}
		if le, ok := p.mod.PCToLine(file); ok {
			f.File, f.Line, f.Column = le.File, le.Line, le.Column
			f.ShowAddr = p.pc-p.bias != le.Addr || !le.IsStmt
		}
		p.fr = []*Frame{&f}
		return p.fr
	}
	full := fn.InlineChain(file)
	chain := full
	if show >= 0 {
		chain = full[:len(full)-max(HiddenAt(full, file)-show, 0)]
	}
	hidden := len(chain) < len(full)
	le, _ := p.mod.PCToLine(file)
	file0, line0, col0 := le.File, le.Line, le.Column
	if hidden {
		// stopped at the entry of a hidden inlined call: GDB shows the
		// call site in the caller
		h := full[len(chain)]
		file0, line0, col0 = h.CallFile, h.CallLine, 0
	}
	var out []*Frame
	for i := len(chain); i >= 0; i-- {
		f := base
		f.Level = level + len(out)
		if i == len(chain) {
			f.File, f.Line, f.Column = file0, line0, col0
			// GDB prints the pc unless it starts an is_stmt row of the
			// line (or the frame is shown at a hidden inlined call's site)
			f.ShowAddr = line0 != le.Line || file0 != le.File || p.pc-p.bias != le.Addr || !le.IsStmt
			if hidden {
				f.ShowAddr = false
			}
		} else {
			f.File, f.Line = chain[i].CallFile, chain[i].CallLine
			f.ShowAddr = false // GDB: the caller of an inlined frame
		}
		if i > 0 {
			in := chain[i-1]
			f.Name, f.Inlined = in.Name, true
			f.Function = fn
			f.Inline = &chain[i-1]
		} else {
			f.Name, f.Function = fn.Name, fn
		}
		out = append(out, &f)
	}
	p.fr = out
	return out
}

// tailFrames returns GDB-style tail-call frames between p and its caller
// next, innermost first.
func (p *physFrame) tailFrames(ctx context.Context, next *physFrame, modules ModuleFunc) []*Frame {
	if p.mod == nil || p.signal || len(p.fr) == 0 || p.fr[len(p.fr)-1].Function == nil {
		return nil
	}
	callee := p.fr[len(p.fr)-1].Function
	pc := next.regs.PC()
	mod, bias, ok := modules(ctx, pc)
	if !ok || mod != p.mod || pc < bias {
		return nil
	}
	caller := mod.FuncAt(pc - bias - 1)
	hops := tailCallChain(caller, pc-bias, callee)
	var out []*Frame
	callee2 := p
	for i := len(hops) - 1; i >= 0; i-- {
		h := hops[i]
		tp := &physFrame{regs: next.regs, pc: h.ret + bias, lookup: h.ret + bias - 1, mod: mod, bias: bias, cfa: p.cfa, hasCFA: p.hasCFA, t: p.t, ar: p.ar, caller: next}
		// entry values of the callee come from the tail call site
		if callee2 == p {
			p.tailCaller = tp
		} else {
			callee2.caller = tp
		}
		callee2 = tp
		tp.regs.Set(16, tp.pc)
		// GDB gives a tail-call frame no inline frames: it is named after
		// the innermost function at its pc and shows that pc's line.
		fs := tp.frames(0, -1)
		f := fs[0]
		f.Inlined = false // f.Inline stays: its scope is the frame's scope
		if le, ok := mod.PCToLine(h.ret - 1); ok {
			f.File, f.Line, f.Column = le.File, le.Line, le.Column
		}
		f.CFA = p.cfa
		f.TailCall = true
		tp.fr = []*Frame{f}
		out = append(out, f)
	}
	return out
}
