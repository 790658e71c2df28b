package session

import (
	"context"
	"fmt"

	"github.com/rrmcp/rrmcp/dwarf"
)

const maxFrames = 1024

// unwind returns the frames of the selected thread, cached per stop.
func (s *Session) unwind(ctx context.Context) ([]*dwarf.Frame, error) {
	return s.unwindTo(ctx, maxFrames)
}

// unwindTo returns the selected thread's frames from 0 through level+1
// (frame level and its caller), or all of them where the stack has
// fewer: a look at the innermost frames of a deep stack does not pay for
// the rest, as GDB unwinds lazily too (rr_locals at the bottom of a
// 1,000-deep recursion unwound 1,000 frames). The frames are kept until
// the thread moves; asking for more unwinds again from frame 0.
func (s *Session) unwindTo(ctx context.Context, level int) ([]*dwarf.Frame, error) {
	// A "step" into an inlined call that starts at the pc does not run,
	// and shows one more frame: frames unwound before are not these.
	if s.frames != nil && s.framesT == s.inf.Cur && s.framesI == s.stepIn && (s.framesAll || len(s.frames) > level+1) {
		return s.frames, nil
	}
	if s.exited != nil {
		return nil, s.exitedErr("there is no stack")
	}
	regs, err := s.inf.Regs(ctx, s.inf.Cur)
	if err != nil {
		return nil, fmt.Errorf("read registers: %w", err)
	}
	img, bias := s.inf.Img, s.inf.Bias
	if m, b, ok := s.inf.Module(ctx, regs.PC()); ok {
		img, bias = m, b
	}
	if img == nil {
		// No symbols at all: a single frame with the pc.
		s.frames = []*dwarf.Frame{{Level: 0, PC: regs.PC(), Regs: regs}}
		s.framesT, s.framesI, s.framesAll = s.inf.Cur, s.stepIn, true
		return s.frames, nil
	}
	// The unwinder computes a frame's CFA only when it unwinds past it,
	// and locals of main need main's CFA. Unwinding past main would open
	// the C library's debug information (hundreds of ms on the first
	// backtrace of a session), so stop at main and compute its CFA from
	// its CFI (fillCFA).
	limit := maxFrames + 1
	if level+2 < maxFrames {
		limit = level + 2
	}
	opts := dwarf.UnwindOptions{MaxFrames: limit}
	// Frame 0 hides the inlined calls that start at the pc as the stop's
	// location does (hiddenInline: GDB's skip_inline_frames, down to the
	// function a breakpoint there is on, less those a step went into).
	if pc := regs.PC(); pc >= bias {
		if f := img.FuncAt(pc - bias); f != nil {
			chain := f.InlineChain(pc - bias)
			opts.ShowInlineEntries = dwarf.HiddenAt(chain, pc-bias) - s.hiddenInline(ctx, chain, pc, pc-bias)
		}
	}
	bt, err := img.Unwind(ctx, s.inf.Target(ctx), regs, bias, opts)
	if err != nil && (bt == nil || len(bt.Frames) == 0) {
		return nil, fmt.Errorf("unwind the stack: %w", err)
	}
	fr := bt.Frames
	all := bt.Stop != "max frames" || limit > maxFrames
	s.framesStop = ""
	switch bt.Stop {
	case "", "main", "outermost", "max frames":
	default:
		s.framesStop = bt.Stop
	}
	for i, f := range fr {
		if f.IsMain() {
			fr, all = fr[:i+1], true
			break
		}
	}
	if len(fr) > maxFrames {
		fr = fr[:maxFrames]
	}
	s.fillCFA(fr)
	s.frames = fr
	s.framesT, s.framesI, s.framesAll = s.inf.Cur, s.stepIn, all
	return s.frames, nil
}

// unwindUntil is unwindTo(level), unwinding further until enough says
// the frames suffice or the whole stack is there.
func (s *Session) unwindUntil(ctx context.Context, level int, enough func(fr []*dwarf.Frame) bool) ([]*dwarf.Frame, error) {
	for {
		fr, err := s.unwindTo(ctx, level)
		if err != nil || s.framesAll || enough(fr) {
			return fr, err
		}
		level = 2 * len(fr)
	}
}

// physicalAt is the level of the physical frame holding frame level
// (the frame itself, or the one an inlined frame is inlined into) in fr,
// and whether fr has that frame's caller too.
func physicalAt(fr []*dwarf.Frame, level int) (int, bool) {
	i := level
	for i+1 < len(fr) && fr[i].Inlined {
		i++
	}
	return i, i+1 < len(fr)
}

// quickFrame builds frame 0 of the selected thread from its registers
// and its function's CFI rule, without unwinding (which reads the stack):
// enough to look up and read its variables. nil when frame 0 is not a
// plain function frame (inlined calls at the pc, no symbols, a CFA rule
// other than register+offset): the caller unwinds then.
func (s *Session) quickFrame(ctx context.Context) *dwarf.Frame {
	f, inlined := s.quickPhysFrame(ctx)
	if len(inlined) > 0 {
		return nil
	}
	return f
}

// quickPhysFrame is quickFrame's physical frame also where the pc is in
// inlined calls, and those calls (outermost first).
func (s *Session) quickPhysFrame(ctx context.Context) (*dwarf.Frame, []dwarf.InlineFrame) {
	regs, err := s.inf.Regs(ctx, s.inf.Cur)
	if err != nil {
		return nil, nil
	}
	pc := regs.PC()
	img, bias, ok := s.inf.Module(ctx, pc)
	if !ok || img == nil {
		return nil, nil
	}
	fn := img.FuncAt(pc - bias)
	if fn == nil {
		return nil, nil
	}
	reg, off, ok := img.CFARule(pc - bias)
	if !ok {
		return nil, nil
	}
	v, ok := regs.Get(reg)
	if !ok {
		return nil, nil
	}
	f := &dwarf.Frame{PC: pc, Regs: regs, Image: img, Bias: bias, Function: fn, Name: fn.Name, CFA: v + uint64(off)}
	return f, fn.InlineChain(pc - bias)
}

// fillCFA sets the CFA of the outermost frames (main's physical frame and
// the inlined frames sharing it) from main's CFI rule when the unwinder,
// stopped there, did not compute it.
func (s *Session) fillCFA(fr []*dwarf.Frame) {
	if len(fr) == 0 {
		return
	}
	last := fr[len(fr)-1]
	if last.CFA != 0 || last.Image == nil || !last.IsMain() {
		return
	}
	reg, off, ok := last.Image.CFARule(last.PC - last.Bias)
	if !ok {
		return
	}
	v, ok := last.Regs.Get(reg)
	if !ok {
		return
	}
	cfa := v + uint64(off)
	for i := len(fr) - 1; i >= 0 && fr[i].CFA == 0 && fr[i].PC == last.PC; i-- {
		fr[i].CFA = cfa
	}
}

// funcName is the name GDB shows for fn of img in a backtrace or a stop:
// fn.Name, or where GDB cannot parse that name, its physname
// (dwarf.Function.PhysName).
func (s *Session) funcName(fn *dwarf.Function, img *dwarf.Image) string {
	if n, ok := fn.PhysName(func() *dwarf.TypeReader { return s.inf.Types(img) }); ok {
		return n
	}
	return fn.Name
}

// frameInfo converts a dwarf frame to the tool-facing Frame.
func (s *Session) frameInfo(ctx context.Context, f *dwarf.Frame) Frame {
	out := Frame{Level: f.Level, Inlined: f.Inlined, TailCall: f.TailCall}
	out.PC = hexAddr(f.PC)
	if f.CFA != 0 {
		out.CFA = hexAddr(f.CFA)
	}
	out.Function, out.File, out.Line = f.Name, f.File, f.Line
	if f.Function != nil && f.Name == f.Function.Name {
		out.Function = s.funcName(f.Function, f.Image) // the function's own frame, no inlined call's
	}
	if f.Image != nil && f.Image != s.inf.Img {
		out.Module = baseName(f.Image.Path)
	}
	if out.Function == "" {
		out.Function = s.inf.Symbolize(ctx, f.PC)
	}
	if out.File != "" && out.Line > 0 {
		out.Source = s.sourceLine(out.File, out.Line)
	}
	return out
}

// curFrame returns the selected dwarf frame.
func (s *Session) curFrame(ctx context.Context) (*dwarf.Frame, error) {
	fr, err := s.unwindTo(ctx, s.frame)
	if err != nil {
		return nil, err
	}
	if s.frame >= len(fr) {
		s.frame = 0
	}
	if len(fr) == 0 {
		return nil, fmt.Errorf("no stack frames: %w", ErrNotFound)
	}
	return fr[s.frame], nil
}

// selectedFrame is curFrame as a Frame.
func (s *Session) selectedFrame(ctx context.Context) (Frame, error) {
	f, err := s.curFrame(ctx)
	if err != nil {
		return Frame{}, err
	}
	return s.frameInfo(ctx, f), nil
}

// Backtrace returns up to max frames of the selected thread, whether more
// exist, and the selected frame level.
//
// stopped says why the stack ends where it does when that is no normal
// end (main, the outermost frame): GDB's "Backtrace stopped: …", a
// corrupt stack or memory the unwinder could not read.
func (s *Session) Backtrace(ctx context.Context, max int) (out []Frame, more bool, sel int, stopped string, err error) {
	err = s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		fr, err := s.unwindTo(ctx, max-1) // one more than max: whether there are more
		if err != nil {
			return err
		}
		if len(fr) > max {
			fr, more = fr[:max], true
		}
		for _, f := range fr {
			out = append(out, s.frameInfo(ctx, f))
		}
		sel = s.frame
		if !more {
			stopped = s.framesStop
		}
		return nil
	})
	return out, more, sel, stopped, err
}

// ThreadBacktrace is one thread's stack in BacktraceAll.
type ThreadBacktrace struct {
	Thread    string  `json:"thread" jsonschema:"RSP thread id (pPID.TID); pass to rr_thread_select"`
	TID       int     `json:"tid"`
	Current   bool    `json:"current,omitempty"`
	Frames    []Frame `json:"frames"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"more frames exist beyond max_depth"`
	Error     string  `json:"error,omitempty" jsonschema:"why this thread's stack could not be read"`
}

// BacktraceAll is every thread's backtrace, in the order of the thread
// list (GDB's thread apply all bt), each as rr_thread_select and
// rr_backtrace would show it, without changing the selected thread or
// frame (sel, the selected frame's level, as Backtrace). A thread whose
// stack cannot be read says why and the others still come.
func (s *Session) BacktraceAll(ctx context.Context, max int) (_ []ThreadBacktrace, sel int, _ error) {
	var out []ThreadBacktrace
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		sel = s.frame
		ts, err := s.threadList(ctx)
		if err != nil {
			return err
		}
		cur, frames, framesT, framesI, framesAll, stepIn := s.inf.Cur, s.frames, s.framesT, s.framesI, s.framesAll, s.stepIn
		defer func() {
			s.inf.Cur, s.frames, s.framesT, s.framesI, s.framesAll, s.stepIn = cur, frames, framesT, framesI, framesAll, stepIn
		}()
		for _, t := range ts {
			tb := ThreadBacktrace{Thread: t.String(), TID: int(t.Tid), Current: t == cur, Frames: []Frame{}}
			s.inf.Cur, s.stepIn = t, 0
			if t == cur {
				s.frames, s.framesT, s.framesI, s.framesAll, s.stepIn = frames, framesT, framesI, framesAll, stepIn
			}
			fr, err := s.unwindTo(ctx, max-1) // one more than max: whether there are more
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				tb.Error = err.Error()
			}
			if len(fr) > max {
				fr, tb.Truncated = fr[:max], true
			}
			for _, f := range fr {
				tb.Frames = append(tb.Frames, s.frameInfo(ctx, f))
			}
			if t == cur {
				frames, framesT, framesI, framesAll = s.frames, s.framesT, s.framesI, s.framesAll // keep what it unwound
			}
			out = append(out, tb)
		}
		return nil
	})
	return out, sel, err
}

// SelectFrame makes frame level the selected frame.
func (s *Session) SelectFrame(ctx context.Context, level int) (Frame, error) {
	var out Frame
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		fr, err := s.unwindTo(ctx, max(level, 0)) // all of them where there are not that many
		if err != nil {
			return err
		}
		if level < 0 || level >= len(fr) {
			return argErrorf("frame_level", "there is no frame %d; the stack has frames 0 to %d (see rr_backtrace)", level, len(fr)-1)
		}
		s.frame = level
		out = s.frameInfo(ctx, fr[level])
		return nil
	})
	return out, err
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
