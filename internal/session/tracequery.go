package session

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/cexpr"
	"github.com/rrmcp/rrmcp/dwarf/eval"
	"github.com/rrmcp/rrmcp/dwarf/format"
	"github.com/rrmcp/rrmcp/internal/traceplan"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// rr_query kind calls collected by a tracepoint (gdbserver).
//
// The breakpoint path stops at every call and reads each row's values
// with several round trips. Where the server runs tracepoints (GNU
// gdbserver; not rr, not QEMU) the rows after the first are collected by
// the server without stopping:
//
//  1. The first hit is an ordinary stop of the query's breakpoint. Its
//     values are evaluated live (row 1, as the breakpoint path does), and
//     again on a snapshot of the frame that logs every memory read. The
//     reads plan what a tracepoint must collect: the registers, a stack
//     window around the frame (sp-relative, an X action), and the static
//     ranges of the program's writable data (M actions). Read-only data
//     of the program is read live (it cannot change). A read anywhere
//     else (the heap, a library) is not collectable: the breakpoint path
//     goes on. The plan is checked on row 1 itself: the values evaluated
//     from exactly what the tracepoint would collect must equal the live
//     ones, or the breakpoint path goes on.
//  2. One tracepoint at the breakpoint address collects the plan, with
//     the query's condition compiled as its condition (agentcond.go; a
//     condition that does not compile keeps the breakpoint path). The
//     registers travel as trace state variables (tracev), since gdbserver
//     records every register for an R action (2.4 KB per frame with
//     AVX-512). An X action counts the frames collected in a trace state
//     variable, and the query's breakpoint gets the server-side condition
//     count >= stop-at: the program stops exactly at the last row wanted,
//     with that row collected, as the breakpoint path leaves it.
//  3. The run ends at that stop, or at any other (exit, another
//     breakpoint, a signal, a cancel: interrupt); then the buffer is read
//     in bulk (qTBuffer) and each frame evaluated on the host with the
//     same evaluator, reading the frame's snapshot. A value that needs
//     memory the frame lacks reads "<not collected: …>".
//
// Runs are cut in chunks that fit the trace buffer; between chunks the
// program stops at the breakpoint, and the trace is set up again.

// tracePlan is what the tracepoint collects at each hit
// (package traceplan), with what the session keeps for the rows.
type tracePlan struct {
	traceplan.Plan
	frame *dwarf.Frame          // the live frame of the first hit
	loc   *Location             // of the plan's address, for the rows' frames (once)
	exprs map[string]cexpr.Expr // the collected expressions, parsed (once)
	// firstLen: the length of the instruction at the address, where a
	// fast tracepoint's jump displaces more (fastTrace)
	firstLen int
}

// queryStart is where the tracepoint path leaves the breakpoint path to
// begin: a stop already reached, which the loop handles as its first one
// (with its row when that was collected already), or nothing, and the loop
// starts with a Continue.
type queryStart struct {
	stop *Stop
	row  *QueryRow // stop's row, when it was read (the stop is a hit)
}

// traceCalls runs the tracepoint path of Query kind calls with bp, the
// query's breakpoint. done says it answered the query (res filled, err
// its error). Otherwise the breakpoint path goes on from first.
func (s *Session) traceCalls(ctx context.Context, o QueryOptions, bp Breakpoint, res *QueryResult) (first queryStart, done bool, err error) {
	var ok bool
	var why string
	s.do(ctx, s.to.Eval, func(ctx context.Context) error { //nolint:errcheck // why says it
		ok, why = s.traceEligible(o, bp)
		return nil
	})
	if !ok {
		res.MechanismNote = why
		return queryStart{}, false, nil
	}
	st, err := s.Continue(ctx, false)
	if st, err = s.queryCancelled(ctx, st, err); err != nil {
		res.Stop = st
		return queryStart{}, true, err
	}
	if st.Breakpoint != bp.Number || st.Reason != "breakpoint" {
		return queryStart{stop: st}, false, nil // the loop reports it
	}
	row := s.hitRow(ctx, o, st, o.Cursor)
	var plan *tracePlan
	s.do(ctx, s.to.Eval, func(ctx context.Context) error { //nolint:errcheck // why says it
		plan, why = s.planTrace(ctx, o, row, bp.Number)
		return nil
	})
	if plan == nil {
		res.MechanismNote = why
		return queryStart{stop: st, row: &row}, false, nil
	}
	res.Rows = append(res.Rows, row)
	res.Stop = st
	res.report(o, 0)
	var fast int
	s.do(ctx, s.to.Eval, func(ctx context.Context) error { //nolint:errcheck // why says it
		fast, why = s.fastTrace(ctx, plan)
		return nil
	})
	if fast > 0 {
		if done, err := s.fastCalls(ctx, o, bp, res, plan, fast); done {
			return queryStart{}, true, err
		}
	} else if why != "" {
		res.MechanismNote = why
	}
	res.Mechanism = "tracepoint"
	defer s.traceCleanup(ctx, bp.Number)
	firstStop, firstRow := st, row
	for len(res.Rows) < o.Limit {
		chunk := plan.Chunk(o.Limit-len(res.Rows), o.traceChunk)
		var maps []symbols.Mapping // at the start of the run
		if err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
			maps = s.procMaps()
			return s.traceSetup(ctx, plan, bp.Number, chunk, 0)
		}); err != nil {
			// A cancel between two moves: the query's cancelled stop.
			if st, cerr := s.queryCancelled(ctx, res.Stop, err); cerr == nil {
				res.Stop, res.Ended = st, st.Reason
				return queryStart{}, true, nil
			}
			if len(res.Rows) == 1 && ctx.Err() == nil {
				// Nothing ran yet: the breakpoint path goes on from the
				// first hit (after the deferred clean-up).
				res.Rows, res.Mechanism = nil, ""
				res.MechanismNote = fmt.Sprintf("the server refused the tracepoint run (%v)", err)
				return queryStart{stop: firstStop, row: &firstRow}, false, nil
			}
			return queryStart{}, true, fmt.Errorf("setting up the tracepoint run: %w", err)
		}
		st, err := s.traceRun(ctx, res)
		var status rsp.TraceStatus
		var frames int
		var rerr error
		s.keepingCancelled(func() { // a cancelled stop stays the session's
			rerr = s.do(context.WithoutCancel(ctx), s.to.Eval, func(ctx context.Context) error {
				var err error
				status, frames, err = s.collectRows(ctx, o, plan, maps, res)
				return err
			})
		})
		if err == nil && rerr == nil && frames == chunk {
			frames = s.settleRunEnd(ctx, o, st, bp, res, frames)
		}
		res.report(o, len(res.Rows)-frames)
		if err != nil {
			return queryStart{}, true, err
		}
		if rerr != nil {
			return queryStart{}, true, fmt.Errorf("reading the trace buffer: %w", rerr)
		}
		res.noteOverflow(status)
		if st.Breakpoint != bp.Number || st.Reason != "breakpoint" {
			res.endAt(st)
			return queryStart{}, true, nil
		}
		if frames != chunk {
			return queryStart{}, true, fmt.Errorf("the tracepoint run stopped after %d of %d calls: %w", frames, chunk, ErrUnsupported)
		}
	}
	res.cutAtLimit(o)
	return queryStart{}, true, nil
}

// traceRun continues the program through a trace run, set up, and keeps
// the stop it reached (a cancelled one included) as res.Stop.
func (s *Session) traceRun(ctx context.Context, res *QueryResult) (*Stop, error) {
	st, err := s.Continue(ctx, false)
	st, err = s.queryCancelled(ctx, st, err)
	if st != nil {
		res.Stop = st
	}
	return st, err
}

// collectRows reads the frames of the trace run that ended (maps: the
// program's mappings at its start) and appends their rows to res; n is
// how many it appended.
func (s *Session) collectRows(ctx context.Context, o QueryOptions, p *tracePlan, maps []symbols.Mapping, res *QueryResult) (status rsp.TraceStatus, n int, err error) {
	status, frames, err := s.traceCollect(ctx, maps)
	if err != nil {
		return status, 0, err
	}
	for i := range frames {
		res.Rows = append(res.Rows, s.traceRow(ctx, o, p, &frames[i], o.Cursor+len(res.Rows)))
	}
	return status, len(frames), nil
}

// settleRunEnd makes a run's rows agree with where it stopped, after a
// run that collected all its chunk (n rows, appended to res last). The
// hit that collected the last row fulfilled the stop condition, and
// gdbserver stopped the program to report it; but in all-stop it then
// reports any thread's pending event, picked at random (linux-low.cc,
// select_event_lwp, called from linux_wait_1: "Giving equal priority to
// all LWPs that have had events", gdb 13.1), and keeps the fulfilling
// hit pending, to be processed (collected) again at the next resume.
// That happens when several threads hit the tracepoint at once. So the
// last row goes, whichever thread stopped: where the stop is that hit,
// the stop's own row takes its place; where it is another thread's hit
// at the breakpoint, that hit was never collected and is the last row
// (the pending one comes again); any other stop ends the run a row
// short. A hit at the breakpoint is a row whatever the stop's reason: a
// query cancelled as the run ended says "cancelled" of it, and the next
// continue steps over it, uncounted otherwise. It returns the run's rows
// now.
func (s *Session) settleRunEnd(ctx context.Context, o QueryOptions, st *Stop, bp Breakpoint, res *QueryResult, n int) int {
	res.Rows = res.Rows[:len(res.Rows)-1]
	if st == nil || st.Breakpoint != bp.Number {
		return n - 1
	}
	res.Rows = append(res.Rows, s.hitRow(ctx, o, st, o.Cursor+len(res.Rows)))
	return n
}

// traceEligible says whether the tracepoint path can serve the query,
// and why not: why is empty where tracepoints are not a thing to mention
// (not gdbserver, or a mechanism forced).
func (s *Session) traceEligible(o QueryOptions, bp Breakpoint) (ok bool, why string) {
	switch {
	case o.Mechanism == "breakpoint":
		return false, ""
	case s.c == nil || s.c.Dialect() != rsp.DialectGDBServer || s.exited != nil:
		return false, ""
	case !s.c.SupportsTracepoints():
		return false, "the server does not support tracepoints"
	case o.AtReturn:
		return false, "at_return needs a stop at each return"
	case o.Limit < 2:
		return false, "one row needs one stop"
	case s.inf.Img == nil:
		return false, "the program has no debug information"
	case len(s.softWatches()) > 0:
		return false, "a software watchpoint single-steps the program"
	}
	b, err := s.findBP(bp.Number)
	if err != nil || b.pending || len(b.addrs) != 1 || b.typ != rsp.SoftwareBreakpoint {
		return false, "the function has more than one breakpoint location"
	}
	for _, ob := range s.bps {
		if ob != b && ob.enabled && slices.Contains(ob.addrs, b.addrs[0]) {
			return false, fmt.Sprintf("breakpoint #%d is at the same address", ob.num)
		}
	}
	return true, ""
}

// planTrace plans the tracepoint at the first hit, where the live values
// of the row are row's (see the package comment above). nil and why
// when the tracepoint cannot collect what the values need.
func (s *Session) planTrace(ctx context.Context, o QueryOptions, row QueryRow, bpNum int) (*tracePlan, string) {
	f := s.quickFrame(ctx)
	if f == nil || f.CFA == 0 {
		return nil, "the frame at the breakpoint is inlined or has no call frame information"
	}
	b, err := s.findBP(bpNum)
	if err != nil || len(b.addrs) != 1 || f.PC != b.addrs[0] {
		return nil, "the stop is not at the breakpoint address"
	}
	p := &tracePlan{Plan: traceplan.Plan{Addr: f.PC}, frame: f}
	td := s.c.Target()
	spr, ok := td.Lookup(s.inf.SPName())
	if !ok {
		return nil, "the target has no stack pointer register"
	}
	p.SPReg = spr.Regnum
	if p.PCReg, ok = s.inf.RegNum(s.inf.PCName()); !ok {
		return nil, "no DWARF number for the pc"
	}
	ngpr := 16
	if s.inf.I386() {
		ngpr = 8
	}
	for n := range ngpr {
		r, ok := td.Lookup(s.inf.RegName(n))
		if !ok || r.Size() > 8 {
			continue
		}
		p.Regs, p.DRegs = append(p.Regs, r.Regnum), append(p.DRegs, n)
	}
	if p.CFAReg, p.CFAOff, ok = f.Image.CFARule(f.PC - f.Bias); !ok || !slices.Contains(p.DRegs, p.CFAReg) {
		return nil, "the CFA rule at the breakpoint is not register + offset"
	}
	if o.Condition != "" {
		if p.Cond, ok = s.compileCond(ctx, o.Condition, f, true); !ok {
			return nil, "the condition does not compile to agent bytecode"
		}
	}
	// Evaluate on the live frame, logging the reads.
	var reads []traceplan.Span
	logged := func(ctx context.Context, addr uint64, buf []byte) (int, error) {
		n, err := s.inf.ReadMem(ctx, addr, buf)
		if n > 0 {
			reads = append(reads, traceplan.Span{Lo: addr, Hi: addr + uint64(n)})
		}
		return n, err
	}
	for _, e := range o.Collect {
		if v := s.snapValue(ctx, s.frameScopeMem(ctx, f, logged), e, nil, nil); v != row.Values[e] {
			return nil, fmt.Sprintf("%s evaluates differently outside a stop (%s, not %s)", e, v, row.Values[e])
		}
	}
	readOnly := func(addr uint64) bool { return s.inf.ReadOnlySection(addr) != nil }
	others, why := p.Layout(reads, f.Regs.SP(), f.CFA, s.inf.PtrSize(), readOnly, s.staticObject)
	if why != "" {
		return nil, why
	}
	if len(others) > 0 {
		if s.procMaps() == nil {
			// Without the memory map a failed read of a wild pointer
			// would pass for data (traceplan.DropUnreadable).
			return nil, "memory reached through pointers is only collected for a local process (its memory map tells failed reads)"
		}
		read := func(a, n uint64) []byte {
			buf := make([]byte, n)
			if _, err := s.inf.ReadMem(ctx, a, buf); err != nil {
				return nil
			}
			return buf
		}
		if why := p.PlanChases(&f.Regs, read, s.inf.PtrSize(), others); why != "" {
			return nil, why
		}
	}
	// Check the plan on row 1: what the tracepoint would collect must
	// give the live values. First with only the registers that locate
	// the frame (traceplan.Plan.Few), then with every general register.
	spDwarf, _ := s.inf.RegNum(s.inf.SPName())
	few := *p
	few.Plan = *p.Few(spDwarf)
	readLive := func(addr uint64, b []byte) error {
		_, err := s.inf.ReadMem(ctx, addr, b)
		return err
	}
	for _, q := range []*tracePlan{&few, p} {
		tf, err := q.LiveFrame(&f.Regs, readLive)
		if err != nil {
			return nil, fmt.Sprintf("reading the frame: %v", err)
		}
		check := s.traceRow(ctx, o, q, tf, row.N)
		why = ""
		for _, e := range o.Collect {
			if check.Values[e] != row.Values[e] {
				why = fmt.Sprintf("%s needs more than a tracepoint collects (%s, not %s)", e, check.Values[e], row.Values[e])
				break
			}
		}
		if why == "" {
			return q, ""
		}
	}
	return nil, why
}

// staticObject says whether r is in the program's writable static data
// (.data, .bss), and gives the whole object there: another hit may read
// another element of the same array.
func (s *Session) staticObject(r traceplan.Span) (traceplan.Span, bool) {
	if !s.writableData(r.Lo, r.Hi-r.Lo) {
		return r, false
	}
	if s.inf.Syms != nil {
		if sym, off, err := s.inf.Syms.LookupAddr(r.Lo - s.inf.Bias); err == nil && sym.Size <= traceplan.MaxBlock && off+r.Hi-r.Lo <= sym.Size {
			return traceplan.Span{Lo: r.Lo - off, Hi: r.Lo - off + sym.Size}, true
		}
	}
	return r, true
}

// traceRow is row n evaluated on trace frame tf.
func (s *Session) traceRow(ctx context.Context, o QueryOptions, p *tracePlan, tf *rsp.TraceFrame, n int) QueryRow {
	if p.loc == nil {
		loc := s.locate(ctx, p.Addr) // as makeStop says it at a stop there
		p.loc = &loc
	}
	row := QueryRow{N: n, Frame: &Frame{Level: 0, Location: *p.loc}}
	if len(o.Collect) == 0 {
		return row
	}
	row.Values = map[string]string{}
	// A new Frame, never a copy of the first hit's: a Frame caches its
	// physical frame (registers) once used.
	pf := p.frame
	f := dwarf.Frame{PC: p.Addr, Image: pf.Image, Bias: pf.Bias, Function: pf.Function, Name: pf.Name}
	regs, cfa, ok := p.Registers(tf)
	if !ok {
		for _, e := range o.Collect {
			row.Values[e] = "<not collected: the frame's registers>"
		}
		return row
	}
	f.Regs, f.CFA = regs, cfa
	sn := &traceplan.Snapshot{Frame: tf, File: s.inf.ReadOnlyFile}
	fs := s.frameScopeMem(ctx, &f, sn.Read)
	if p.exprs == nil {
		// Parsed once: every row is at the same pc, where names mean
		// the same (a failed parse is made again each row, for its error).
		p.exprs = map[string]cexpr.Expr{}
		for _, e := range o.Collect {
			if x, err := eval.Parse(ctx, s.evalScope(fs), e); err == nil {
				p.exprs[e] = x
			}
		}
	}
	for _, e := range o.Collect {
		row.Values[e] = s.snapValue(ctx, fs, e, p.exprs[e], sn)
	}
	return row
}

// snapValue is the value of expr in scope fs as a query row shows it
// (Evaluate's native path, errors as "<error: …>"); with sn, a value
// that needed memory the trace frame lacks is "<not collected: …>".
func (s *Session) snapValue(ctx context.Context, fs *dwarf.FrameScope, expr string, parsed cexpr.Expr, sn *traceplan.Snapshot) string {
	if sn != nil {
		sn.Reset()
	}
	var o dwarf.Object
	var err error
	if parsed != nil {
		o, err = eval.Eval(ctx, s.evalScope(fs), parsed)
	} else {
		o, err = eval.EvalExpr(ctx, s.evalScope(fs), expr)
	}
	var v string
	var whole error
	if err == nil {
		v, whole, _ = format.Render(fs.Values(), o)
	}
	var nc *traceplan.NotCollectedError
	if sn != nil && sn.Missed() != nil || errors.As(err, &nc) {
		if nc == nil {
			nc = sn.Missed()
		}
		return "<not collected: " + strings.TrimPrefix(nc.Error(), "not collected by the tracepoint: ") + ">"
	}
	if err != nil {
		return "<error: " + exprError(expr, err).Error() + ">"
	}
	if whole != nil {
		return "<error: " + exprError(expr, whole).Error() + ">"
	}
	return v
}

// traceSetup defines the tracepoint run of plan p for chunk more rows
// and arms the query breakpoint bpNum to stop at the last. fast > 0
// makes it a fast tracepoint displacing fast bytes of code, whose pass
// count ends the run (fasttrace.go) and which leaves bpNum alone.
func (s *Session) traceSetup(ctx context.Context, p *tracePlan, bpNum, chunk, fast int) error {
	b, err := s.findBP(bpNum)
	if err != nil {
		return err
	}
	run := p.Run(chunk, fast)
	if err := s.c.DefineTraceRun(ctx, run); err != nil {
		return err
	}
	if fast > 0 {
		// The instructions the jump displaces move into the pad
		// together (x86code.RelocateSpan), one or several.
		return s.c.TraceStartRelocating(ctx, func(code []byte, from, to uint64) ([]byte, error) {
			if from == p.Addr {
				return x86code.RelocateSpan(code, from, to, fast)
			}
			return x86code.Relocate(code, from, to)
		})
	}
	if b.tcode == nil {
		b.ttried, b.tcode = map[uint64]bool{}, map[uint64][]byte{}
	}
	b.tcode[p.Addr], b.ttried[p.Addr], b.serverOnly = traceplan.StopRule(), true, true
	return s.c.TraceStart(ctx)
}

// traceCollect ends the run (unless the program is gone: gdbserver 13
// drops the connection at a QTStop after the exit) and reads its
// frames, without the blocks no mapping of before (the memory map at
// the start of the run) or of the end of the run could have given.
func (s *Session) traceCollect(ctx context.Context, before []symbols.Mapping) (rsp.TraceStatus, []rsp.TraceFrame, error) {
	if s.exited == nil {
		if err := s.c.TraceStop(ctx); err != nil {
			return rsp.TraceStatus{}, nil, err
		}
	}
	st, err := s.c.TraceStatus(ctx)
	if err != nil {
		return st, nil, err
	}
	buf, err := s.c.TraceBuffer(ctx, st.Used())
	if err != nil {
		return st, nil, err
	}
	var order binary.ByteOrder = binary.LittleEndian
	if s.inf.Img != nil && s.inf.Img.ELF().ByteOrder != nil {
		order = s.inf.Img.ELF().ByteOrder
	}
	frames, err := rsp.ParseTraceFrames(buf, s.c.Target().Size, order)
	if maps := slices.Concat(before, s.procMaps()); err == nil && len(maps) > 0 {
		traceplan.DropUnreadable(frames, maps)
	}
	return st, frames, err
}

// procMaps is the live program's memory map (/proc/PID/maps of a local
// process), or nil.
func (s *Session) procMaps() []symbols.Mapping {
	if s.exited != nil {
		return nil
	}
	return s.inf.Maps()
}

// traceCleanup leaves no tracepoint, trace run or server-side stop rule
// behind.
func (s *Session) traceCleanup(ctx context.Context, bpNum int) {
	rctx := context.WithoutCancel(ctx)
	s.keepingCancelled(func() {
		s.do(rctx, s.to.Breakpoint, func(ctx context.Context) error { //nolint:errcheck // best effort
			if b, err := s.findBP(bpNum); err == nil {
				clear(b.tcode)
				clear(b.ttried)
				b.serverOnly = false
			}
			if s.exited != nil || s.c.Dead() != nil {
				return nil
			}
			return s.c.DefineTraceRun(ctx, rsp.TraceRun{BufferSize: -1})
		})
	})
}

// writableData reports whether [addr, addr+n) is in a writable section
// of the program (.data, .bss): a static address.
func (s *Session) writableData(addr, n uint64) bool {
	sec := s.inf.ProgramSection(addr, n)
	return sec != nil && sec.Flags&elf.SHF_WRITE != 0
}
