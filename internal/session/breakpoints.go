package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/linespec"
	"github.com/rrmcp/rrmcp/rsp"
)

// breakpoint is a user breakpoint or watchpoint. Its server-side entries
// stay inserted across resumes while it is enabled.
type breakpoint struct {
	num      int
	typ      rsp.BreakpointType
	spec     string
	addrs    []uint64
	fn, file string
	line     int
	cond     string
	enabled  bool
	temp     bool
	hits     int
	size     int    // watchpoints: bytes watched
	old      []byte // watchpoints: value at the last stop
	// chain: watchpoints that follow their expression (watchfollow.go),
	// the memory its address is read from, watched for writes
	chain []watchLoc
	// regVar: a software watchpoint whose address is read through this
	// variable of its frame, which the compiler keeps in a register
	// there: the expression is evaluated again as the program runs
	// (watchfollow.go); evalErr is why that failed, for the stop
	regVar, evalErr string
	// gone: a software watchpoint whose frame a step left (softRun),
	// for the stop to delete
	gone bool
	// readAsAccess: a read watchpoint the server set as an access one
	// (x86 debug registers trap no reads alone): a hit that changed the
	// value was a write, and is no stop (GDB's bpstat_check_watchpoint)
	readAsAccess bool
	valueType    string // watchpoints: type for printing, "" = raw
	lv           *lvalue
	changed      bool        // watchpoints: the last hit changed the value
	scope        *watchScope // watchpoints on a frame's variables: that frame (watchscope.go)
	soft         bool        // watchpoints: software (softwatch.go), no server entry
	note         string      // watchpoints: why software, and what it costs; hardware breakpoints: why software
	hwAsked      bool        // a hardware breakpoint was asked for (hbreak)
	hwPass       bool        // moved to a debug register by rrmcp (hwpass.go)
	pending      bool        // not resolved yet: waits for the shared libraries
	// syms holds, per address, the symbol whose block a stop there shows
	// the inlined calls starting at the pc down to (GDB's bp_location
	// symbol): the function or inlined copy for "break NAME", the one
	// innermost at a line's address (linespec.Result.Symbols), none
	// (linespec.Symbol{}) for *ADDR (all of them). A concrete function's
	// hides them all.
	syms []linespec.Symbol
	// tcode is the condition compiled to agent bytecode per address
	// (agentcond.go); ttried marks addresses where compiling was tried.
	tcode  map[uint64][]byte
	ttried map[uint64]bool
	// evaluated: the condition was evaluated at a hit, so where it is
	// evaluated is known (Breakpoint.ConditionBy).
	evaluated bool
	// serverOnly: the condition is tcode alone, with nothing for the host
	// to evaluate (the stop rule of a query's tracepoint run,
	// tracequery.go); every reported hit stops.
	serverOnly bool
}

func (b *breakpoint) isWatch() bool { return b.typ >= rsp.WriteWatchpoint }

func (b *breakpoint) info() Breakpoint {
	out := Breakpoint{Number: b.num, Location: b.spec, Function: b.fn, File: b.file, Line: b.line,
		Condition: b.cond, Enabled: b.enabled, Temporary: b.temp, Hits: b.hits}
	switch {
	case b.cond == "" || b.serverOnly:
	case len(b.tcode) > 0:
		out.ConditionBy = "server"
	case b.evaluated:
		out.ConditionBy = "rrmcp"
	}
	switch b.typ {
	case rsp.WriteWatchpoint:
		out.Type = "watchpoint"
	case rsp.ReadWatchpoint:
		out.Type = "read-watchpoint"
	case rsp.AccessWatchpoint:
		out.Type = "access-watchpoint"
		if b.readAsAccess {
			out.Type = "read-watchpoint"
		}
	case rsp.HardwareBreakpoint:
		out.Type = "hw-breakpoint"
		if b.hwPass {
			out.Type = "breakpoint"
		}
	default:
		out.Type = "breakpoint"
	}
	if b.hwPass {
		out.Mechanism, out.Note = "hardware breakpoint", hwPassNote
	}
	if b.hwAsked {
		out.Mechanism, out.Note = "software breakpoint", b.note
		if b.typ == rsp.HardwareBreakpoint {
			out.Mechanism = "hardware breakpoint"
		}
	}
	if b.isWatch() {
		out.Expression, out.Size = b.spec, b.size
		out.Mechanism, out.Note = "hardware watchpoint", b.note
		if b.soft {
			out.Mechanism = "software watchpoint"
		}
		if n := chainNote(b); n != "" {
			out.Note = strings.TrimPrefix(out.Note+"; "+n, "; ")
		}
	}
	for _, a := range b.addrs {
		if !b.byValue() {
			out.Addresses = append(out.Addresses, hexAddr(a))
		}
	}
	out.Pending = b.pending
	return out
}

func (s *Session) hasPending() bool {
	for _, b := range s.bps {
		if b.pending && b.enabled {
			return true
		}
	}
	return false
}

// resolvePending resolves and inserts pending breakpoints; it returns a
// note for the stop's message.
func (s *Session) resolvePending(ctx context.Context) string {
	var notes []string
	for _, b := range s.bps {
		if !b.pending {
			continue
		}
		r, err := s.resolveBreakpoint(ctx, b.spec)
		if err != nil {
			notes = append(notes, fmt.Sprintf("breakpoint #%d (%s) is still pending: %v", b.num, b.spec, err))
			continue
		}
		b.addrs, b.fn, b.file, b.line, b.syms, b.pending = r.addrs, r.fn, r.file, r.line, r.syms, false
		if b.enabled {
			if err := s.insert(ctx, b); err != nil {
				notes = append(notes, fmt.Sprintf("breakpoint #%d (%s): %v", b.num, b.spec, err))
				continue
			}
		}
		notes = append(notes, fmt.Sprintf("pending breakpoint #%d resolved to %s", b.num, b.fn))
	}
	return strings.Join(notes, "; ")
}

// bpAt returns the enabled code breakpoint at pc, if any.
func (s *Session) bpAt(pc uint64) *breakpoint {
	for _, b := range s.bps {
		if b.enabled && !b.isWatch() && slices.Contains(b.addrs, pc) {
			return b
		}
	}
	return nil
}

// inlineEntryAt says which inlined calls that start at pc a stop there
// shows, following GDB's stopped_by_user_bp_inline_frame: none (frame 0
// is the caller at the call site) unless a user breakpoint is at pc; at
// a breakpoint on a function (break NAME) or a line the calls down to
// the block of the location's symbol (sym: Result.Symbols; an inlined
// copy's DIE, compared as GDB compares blocks, not names), at an
// address breakpoint (*ADDR) all of them (sym zero).
// At the stop's own pc it is what was decided when the stop was made.
func (s *Session) inlineEntryAt(pc uint64) (keep bool, sym linespec.Symbol) {
	if e := s.entry; e != nil && e.t == s.inf.Cur && e.pc == pc {
		return e.keep, e.sym
	}
	return s.bpInlineEntry(pc)
}

// inlineEntry is inlineEntryAt's answer for thread t's stop at pc.
type inlineEntry struct {
	t    rsp.Thread
	pc   uint64
	keep bool
	sym  linespec.Symbol
}

// freezeInlineEntry decides inlineEntryAt for the current thread's stop
// at pc from the breakpoints there now (Session.entry).
func (s *Session) freezeInlineEntry(pc uint64) {
	keep, sym := s.bpInlineEntry(pc)
	s.entry = &inlineEntry{t: s.inf.Cur, pc: pc, keep: keep, sym: sym}
}

// bpInlineEntry is inlineEntryAt from the breakpoints at pc now.
func (s *Session) bpInlineEntry(pc uint64) (keep bool, sym linespec.Symbol) {
	for _, b := range s.bps {
		if !b.enabled || b.pending || b.isWatch() || !slices.Contains(b.addrs, pc) {
			continue
		}
		if i := slices.Index(b.addrs, pc); i < len(b.syms) {
			return true, b.syms[i]
		}
	}
	return false, linespec.Symbol{}
}

// mainFile is the source file of the program's main function, where
// GDB's breakpoint at main would be, or "".
func (s *Session) mainFile() string {
	for _, name := range []string{"main", "main.main"} {
		for _, fn := range s.inf.Img.FuncsByName(name) {
			if !fn.IsMain() {
				continue
			}
			pc, le := s.inf.Img.BreakpointAddr(fn)
			if le.File == "" {
				if l, ok := s.inf.Img.PCToLine(pc); ok {
					le.File = l.File
				}
			}
			if le.File != "" {
				return le.File
			}
		}
	}
	return ""
}

func (s *Session) findBP(n int) (*breakpoint, error) {
	for _, b := range s.bps {
		if b.num == n {
			return b, nil
		}
	}
	var have []string
	for _, b := range s.bps {
		have = append(have, strconv.Itoa(b.num))
	}
	if len(have) == 0 {
		have = []string{"none"}
	}
	return nil, fmt.Errorf("no breakpoint number %d (existing: %s): %w", n, strings.Join(have, ", "), ErrNotFound)
}

// insert puts b's entries into the server's table.
func (s *Session) insert(ctx context.Context, b *breakpoint) error {
	if b.soft {
		return nil // checked by softRun, nothing in the server's table
	}
	for i, a := range b.addrs {
		kind := 0
		if b.isWatch() {
			kind = b.size
		}
		if err := s.debugRegisterFits(b.typ, a, max(kind, 1)); err != nil {
			for _, done := range b.addrs[:i] {
				s.removeEntry(ctx, b, done)
			}
			return err
		}
		if err := s.c.InsertBreakpoint(ctx, b.typ, a, kind); err != nil {
			for _, done := range b.addrs[:i] {
				s.removeEntry(ctx, b, done)
			}
			if b.isWatch() {
				return fmt.Errorf("the server refused a %d-byte %s at %#x (x86 has 4 hardware watchpoints of 1, 2, 4 or 8 aligned bytes): %w", b.size, b.info().Type, a, err)
			}
			return fmt.Errorf("insert breakpoint at %#x: %w", a, err)
		}
	}
	for i, l := range b.chain {
		err := s.debugRegisterFits(rsp.WriteWatchpoint, l.addr, l.size)
		if err == nil {
			err = s.c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, l.addr, l.size)
		}
		if err != nil {
			for _, done := range b.chain[:i] {
				s.removeServerEntry(ctx, rsp.WriteWatchpoint, done.addr, done.size, b) //nolint:errcheck // undoing
			}
			for _, done := range b.addrs {
				s.removeEntry(ctx, b, done)
			}
			return fmt.Errorf("the server refused a %d-byte write watchpoint at %#x, which %s's address is read from (x86 has 4 hardware watchpoints): %w", l.size, l.addr, b.spec, err)
		}
	}
	return nil
}

// debugRegisterFits refuses a debug register (a hardware breakpoint or
// watchpoint) for n bytes at a past the end of user space on a live
// program: the kernel refuses it, and gdbserver exits when it cannot
// write a debug register, ending the session.
func (s *Session) debugRegisterFits(typ rsp.BreakpointType, a uint64, n int) error {
	if typ == rsp.SoftwareBreakpoint || s.c.Dialect() != rsp.DialectGDBServer {
		return nil
	}
	if end := hwdebug.UserEnd(s.inf.I386()); a >= end || uint64(n) > end-a {
		return argErrorf("location", "%#x is not a user-space address (a process's debug registers end at %#x): the kernel refuses a hardware breakpoint or watchpoint there", a, end)
	}
	return nil
}

// uninsert takes b's entries out of the server's table unless another
// enabled breakpoint still needs them.
func (s *Session) uninsert(ctx context.Context, b *breakpoint) error {
	if b.soft {
		return nil
	}
	for _, a := range b.addrs {
		if err := s.removeEntry(ctx, b, a); err != nil {
			return err
		}
	}
	for _, l := range b.chain {
		if err := s.removeServerEntry(ctx, rsp.WriteWatchpoint, l.addr, l.size, b); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) removeEntry(ctx context.Context, b *breakpoint, a uint64) error {
	return s.removeServerEntry(ctx, b.typ, a, b.size, b)
}

// removeServerEntry takes the server's entry of type typ (size bytes,
// watchpoints) at a out of its table unless an enabled breakpoint other
// than except needs it: a user's breakpoint or watchpoint, or a
// watchpoint's scope breakpoint (watchscope.go).
func (s *Session) removeServerEntry(ctx context.Context, typ rsp.BreakpointType, a uint64, size int, except *breakpoint) error {
	for _, o := range s.bps {
		if o != except && o.enabled && (o.typ == typ && slices.Contains(o.addrs, a) && o.size == size ||
			typ == rsp.WriteWatchpoint && slices.Contains(o.chain, watchLoc{a, size})) {
			return nil
		}
	}
	if typ == rsp.SoftwareBreakpoint && s.scopeNeeds(a, except) {
		return nil
	}
	kind := 0
	if typ >= rsp.WriteWatchpoint {
		kind = size
	}
	for _, e := range s.c.Breakpoints() {
		if e.Type == typ && e.Addr == a {
			if err := s.c.RemoveBreakpoint(ctx, typ, a, kind); err != nil {
				return fmt.Errorf("remove breakpoint at %#x: %w", a, err)
			}
			if typ == rsp.SoftwareBreakpoint {
				delete(s.tconds, a) // the server dropped its conditions with it
			}
		}
	}
	return nil
}

// SetBreakpoint sets a breakpoint at a function, file:line, line, or
// *address, optionally with a condition evaluated at each hit.
func (s *Session) SetBreakpoint(ctx context.Context, location, cond string, temporary bool) (Breakpoint, error) {
	return s.AddBreakpoint(ctx, BreakpointRequest{Location: location, Condition: cond, Temporary: temporary})
}

// BreakpointRequest is what rr_breakpoint_set asks for.
type BreakpointRequest struct {
	Location, Condition string
	Temporary           bool
	// Hardware asks for a hardware breakpoint (GDB's hbreak, Z1): the
	// debug registers, no int3 in the code. Where they do not fire (the
	// probe's verdict) or the server refuses one, the breakpoint is a
	// software one and its Note says why.
	Hardware bool
}

// ownSourceLine reports whether location is a FILE:LINE in one of the
// program's own source files (not a header, which a library may share):
// no library loaded later brings that line code, so a breakpoint there
// is refused, as GDB refuses it ("No line N in file"), not left pending.
func (s *Session) ownSourceLine(location string) bool {
	spec, err := linespec.Parse(location)
	if err != nil || spec.Form != linespec.FileLine || s.inf.Img == nil {
		return false
	}
	switch strings.ToLower(filepath.Ext(spec.File)) {
	case ".c", ".cc", ".cpp", ".cxx", ".c++", ".rs", ".go", ".s":
	default:
		return false
	}
	return len(s.inf.Img.LinesWithCode(spec.File)) > 0
}

// AddBreakpoint sets a breakpoint (see SetBreakpoint).
func (s *Session) AddBreakpoint(ctx context.Context, r BreakpointRequest) (Breakpoint, error) {
	location, cond, temporary := r.Location, r.Condition, r.Temporary
	var out Breakpoint
	if s.kind == KindCore {
		return out, s.coreCannotMove()
	}
	err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
		if s.exited != nil && s.c.Dialect() == rsp.DialectGDBServer {
			// gdbserver ends with the program: asking it would lose the
			// session, whose debug information still answers ptype and
			// the like (a replay keeps its server and goes back)
			return s.exitedErr("a live program does not run again, so a breakpoint cannot be set; start a new session (rr_live_start) and set it there")
		}
		location = strings.TrimSpace(location)
		b, err := s.resolveBreakpoint(ctx, location)
		if err != nil {
			// Before ld.so has loaded the program's libraries, a function
			// or line that may be in one becomes a pending breakpoint.
			if !errors.Is(err, ErrNotFound) || strings.HasPrefix(location, "*") || !s.inf.BeforeLibs(ctx) || s.ownSourceLine(location) {
				return err
			}
			b = &breakpoint{typ: rsp.SoftwareBreakpoint, spec: location, pending: true}
		}
		b.cond, b.temp, b.enabled = strings.TrimSpace(cond), temporary, true
		if b.cond != "" {
			if err := s.checkCondition(ctx, b.cond); err != nil {
				return err
			}
		}
		if r.Hardware {
			b.hwAsked = true
			if b.note = s.hardwareBreakNote(ctx); b.note == "" {
				b.typ = rsp.HardwareBreakpoint
			}
		}
		if !b.pending {
			err := s.insert(ctx, b)
			if err != nil && b.typ == rsp.HardwareBreakpoint {
				b.typ = rsp.SoftwareBreakpoint
				b.note = fmt.Sprintf("the server refused a hardware breakpoint (%v); using a software breakpoint", err)
				err = s.insert(ctx, b)
			}
			if err != nil {
				return err
			}
		}
		out = s.number(b)
		return nil
	})
	return out, err
}

// resolveBreakpoint turns a location into addresses (package linespec;
// *EXPR is evaluated here, a bare LINE is in the selected frame's file).
func (s *Session) resolveBreakpoint(ctx context.Context, loc string) (*breakpoint, error) {
	spec, err := linespec.Parse(loc)
	if err != nil {
		return nil, err
	}
	b := &breakpoint{typ: rsp.SoftwareBreakpoint, spec: loc}
	if spec.Form == linespec.Address {
		a, err := s.addressOf(ctx, spec.Expr)
		if err != nil {
			return nil, err
		}
		b.addrs, b.syms = []uint64{a}, []linespec.Symbol{{}}
		l := s.locate(ctx, a)
		b.fn, b.file, b.line = l.Function, l.File, l.Line
		return b, nil
	}
	if s.inf.Img == nil {
		return nil, fmt.Errorf("cannot resolve %q: %w; use *ADDRESS", loc, s.inf.ImgErr)
	}
	var r linespec.Result
	switch spec.Form {
	case linespec.FileLine:
		r, err = linespec.ResolveLine(ctx, s.inf, spec.File, spec.Line)
	case linespec.Line:
		file := ""
		if f, ferr := s.selectedFrame(ctx); ferr == nil {
			file = f.File
		}
		if file == "" {
			// GDB's default source file before a stop in code with
			// lines: main's (select_source_symtab)
			file = s.mainFile()
		}
		if file == "" {
			return nil, argErrorf("location", "line %d needs a current source file (the program's main has no line information); give file:line", spec.Line)
		}
		r, err = linespec.ResolveLine(ctx, s.inf, file, spec.Line)
	default:
		r, err = linespec.ResolveFunction(ctx, s.inf, spec.File, spec.Name)
	}
	if err != nil {
		return nil, err
	}
	b.addrs, b.fn, b.file, b.line, b.syms = r.Addrs, r.Function, r.File, r.Line, r.Symbols
	return b, nil
}

// RemoveBreakpoint deletes breakpoint or watchpoint n.
func (s *Session) RemoveBreakpoint(ctx context.Context, n int) error {
	return s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
		b, err := s.findBP(n)
		if err != nil {
			return err
		}
		return s.deleteBP(ctx, b)
	})
}

func (s *Session) deleteBP(ctx context.Context, b *breakpoint) error {
	if b.enabled && !b.pending && s.exited == nil {
		if err := s.uninsert(ctx, b); err != nil {
			return err
		}
		if err := s.removeScope(ctx, b); err != nil {
			return err
		}
	}
	s.bps = slices.DeleteFunc(s.bps, func(o *breakpoint) bool { return o == b })
	return nil
}

// Breakpoints lists breakpoints and watchpoints.
func (s *Session) Breakpoints(ctx context.Context) ([]Breakpoint, error) {
	out := []Breakpoint{}
	err := s.do(ctx, s.to.Breakpoint, func(context.Context) error {
		for _, b := range s.bps {
			out = append(out, b.info())
		}
		return nil
	})
	return out, err
}

// EnableBreakpoint enables or disables breakpoint n.
func (s *Session) EnableBreakpoint(ctx context.Context, n int, on bool) (Breakpoint, error) {
	return s.changeBP(ctx, n, func(ctx context.Context, b *breakpoint) error {
		if b.enabled != on && !b.pending {
			var err error
			if on {
				if err = s.insert(ctx, b); err == nil {
					err = s.insertScope(ctx, b)
				}
			} else if err = s.unpass(ctx, b); err == nil {
				if err = s.uninsert(ctx, b); err == nil {
					err = s.removeScope(ctx, b)
				}
			}
			if err != nil {
				return err
			}
		}
		b.enabled = on
		return nil
	})
}

// SetCondition sets (or with "" clears) the condition of breakpoint n.
func (s *Session) SetCondition(ctx context.Context, n int, cond string) (Breakpoint, error) {
	cond = strings.TrimSpace(cond)
	return s.changeBP(ctx, n, func(ctx context.Context, b *breakpoint) error {
		if cond != "" {
			if err := s.checkCondition(ctx, cond); err != nil {
				return err
			}
		}
		if err := s.unpass(ctx, b); err != nil {
			return err
		}
		b.cond = cond
		b.tcode, b.ttried, b.evaluated = nil, nil, false // recompiled at the next hit
		return nil
	})
}

// changeBP runs change on breakpoint n under the session lock and
// returns the breakpoint as it is afterwards.
func (s *Session) changeBP(ctx context.Context, n int, change func(ctx context.Context, b *breakpoint) error) (Breakpoint, error) {
	var out Breakpoint
	err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
		b, err := s.findBP(n)
		if err != nil {
			return err
		}
		if err := change(ctx, b); err != nil {
			return err
		}
		out = b.info()
		return nil
	})
	return out, err
}

// checkCondition rejects conditions that cannot even be parsed.
func (s *Session) checkCondition(ctx context.Context, cond string) error {
	if err := s.parseExpr(ctx, cond); err != nil {
		return argErrorf("condition", "%q is not a valid expression: %v", cond, err)
	}
	return nil
}

// SetWatchpoint watches the lvalue expr for writes, reads or any access.
func (s *Session) SetWatchpoint(ctx context.Context, expr, access string) (Breakpoint, error) {
	var out Breakpoint
	if s.kind == KindCore {
		return out, s.coreCannotMove()
	}
	err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("cannot set a watchpoint")
		}
		lv, err := s.lvalueOf(ctx, expr)
		if err != nil {
			return err
		}
		typ := rsp.WriteWatchpoint
		switch access {
		case "read":
			typ = rsp.ReadWatchpoint
		case "access":
			typ = rsp.AccessWatchpoint
		}
		if lv.inReg {
			b, err := s.valueWatch(ctx, expr, lv, typ)
			if err != nil {
				return err
			}
			out = s.number(b)
			return nil
		}
		why := s.softReason(ctx, lv.size)
		regVar := s.registerVar(ctx, expr)
		if regVar != "" && why == "" && s.softFollows(ctx) {
			why = fmt.Sprintf("its address is read through %s, which the compiler keeps in a register here (a debug register cannot watch one), so the expression is evaluated again after each instruction, as GDB does", regVar)
		}
		if why == "" && (lv.size <= 0 || lv.size > 8) {
			return argErrorf("expression", "%s is %d bytes; a hardware watchpoint covers 1, 2, 4 or 8 bytes (watch a member or element instead)", expr, lv.size)
		}
		size := lv.size
		if why == "" && (size == 3 || size > 4 && size < 8) {
			size = 8
		}
		b := &breakpoint{typ: typ, spec: expr, addrs: []uint64{lv.addr}, size: size, enabled: true, lv: lv}
		if why != "" {
			// (makeSoft checks the size before reading the value)
			if err := s.makeSoft(ctx, b, why); err != nil {
				return err
			}
			if regVar != "" && s.softFollows(ctx) {
				b.regVar = regVar
				b.note = "software watchpoint: " + why + "; " + valueCost
			}
		} else if lv.size == size {
			b.old = s.watchedAt(ctx, b, lv.addr)
		}
		if lv.size == size {
			b.chain = s.watchChain(ctx, expr, lv)
		}
		err = s.insert(ctx, b)
		if err != nil && len(b.chain) > 0 {
			// The debug registers do not hold the chain too: watch the
			// object alone (a software watchpoint keeps following).
			chain := b.chain
			b.chain = nil
			if err2 := s.insert(ctx, b); err2 == nil {
				b.note = fmt.Sprintf("does not follow %s: the server refused to watch what its address depends on too (%v)", expr, err)
				err = nil
			} else {
				b.chain = chain
			}
		}
		var argErr *ArgError
		if err != nil {
			switch {
			case errors.As(err, &argErr):
				return err // (past user space: no watchpoint can be there)
			case typ == rsp.WriteWatchpoint && s.c.Dialect() == rsp.DialectGDBServer && lv.size <= maxSoftWatch:
				// The debug registers are taken or refuse this range.
				if err2 := s.makeSoft(ctx, b, fmt.Sprintf("the server refused a hardware watchpoint (%v)", err)); err2 != nil {
					return err2
				}
			case typ != rsp.ReadWatchpoint:
				return err
			default:
				// x86 debug registers cannot trap reads only (gdbserver
				// refuses Z3); GDB uses an access watchpoint then, and so do
				// we, and ignores the hits that change the value (writes).
				b.typ, b.readAsAccess = rsp.AccessWatchpoint, true
				if err2 := s.insert(ctx, b); err2 != nil {
					return err
				}
			}
		}
		if regVar != "" && b.regVar == "" {
			b.note = strings.TrimSpace(b.note + fmt.Sprintf(" Watches the object %s names now and does not follow %s, which the compiler keeps in a register here: GDB evaluates the expression again after each instruction (a software watchpoint), which only a live program under gdbserver can do.", expr, regVar))
		}
		b.scope = s.watchScopeOf(ctx, expr)
		if err := s.insertScope(ctx, b); err != nil {
			s.uninsert(ctx, b) //nolint:errcheck // the error says what failed
			return err
		}
		out = s.number(b)
		return nil
	})
	return out, err
}

// number gives b, inserted, the next breakpoint number and lists it
// among the session's breakpoints.
func (s *Session) number(b *breakpoint) Breakpoint {
	s.nextBP++
	b.num = s.nextBP
	s.bps = append(s.bps, b)
	return b.info()
}

// makeSoft turns b into a software watchpoint (softwatch.go), for the
// reason why.
func (s *Session) makeSoft(ctx context.Context, b *breakpoint, why string) error {
	if b.typ != rsp.WriteWatchpoint {
		return argErrorf("access", "a %s needs a hardware watchpoint, and %s; software watchpoints (as GDB's) only watch writes: use access \"write\"", b.info().Type, why)
	}
	if b.lv.size <= 0 || b.lv.size > maxSoftWatch {
		return argErrorf("expression", "%s is %d bytes; a software watchpoint compares at most %d bytes after each store (watch a member or element instead)", b.spec, b.lv.size, maxSoftWatch)
	}
	b.soft, b.size = true, b.lv.size
	b.old = s.watchedAt(ctx, b, b.addrs[0])
	b.note = "software watchpoint: " + why + "; " + softCost
	return nil
}

// peek reads n bytes or returns nil.
func (s *Session) peek(ctx context.Context, a uint64, n int) []byte {
	b := make([]byte, n)
	if _, err := s.inf.ReadMem(ctx, a, b); err != nil {
		return nil
	}
	return b
}

// watchedAt reads the bytes watchpoint b watches at a: of a bit-field,
// the field's bits alone (maskBits).
func (s *Session) watchedAt(ctx context.Context, b *breakpoint, a uint64) []byte {
	return b.maskBits(s.peek(ctx, a, b.size))
}

// maskBits clears, in v (b's bytes, read), the bits a bit-field
// watchpoint does not watch, and returns v.
func (b *breakpoint) maskBits(v []byte) []byte {
	if b.lv == nil || b.lv.bitSize == 0 {
		return v
	}
	for i := range v {
		for bit := range 8 {
			if n := i*8 + bit; n < b.lv.bitOff || n >= b.lv.bitOff+b.lv.bitSize {
				v[i] &^= 1 << bit
			}
		}
	}
	return v
}

// watchHit fills in which watchpoint triggered and its old/new values,
// and refreshes the remembered values of every watchpoint.
func (s *Session) watchHit(ctx context.Context, st rsp.Stop) *WatchHit {
	var ws []*breakpoint
	at := -1 // the watchpoint whose memory the server says was hit
	for _, b := range s.bps {
		if b.isWatch() && b.enabled {
			// (matched before following moves b's entries: the trap is
			// on what b watched when it fired)
			if a := b.addrs[0]; at < 0 && st.WatchAddr != 0 && !b.byValue() && (st.WatchAddr-a < uint64(b.size) || b.inChain(st.WatchAddr)) {
				at = len(ws)
			}
			ws = append(ws, b)
		}
	}
	nows := make([][]byte, len(ws))
	for i, b := range ws {
		if len(b.chain) > 0 || b.regVar != "" && b.evalErr == "" {
			nows[i] = s.followNow(ctx, b)
		} else {
			nows[i] = s.watchNow(ctx, b)
		}
	}
	// The watchpoint at the stop's address; where the stop has none (a
	// value watch's, or a server that does not say), the first whose
	// value changed, else the first.
	pick := slices.IndexFunc(ws, func(b *breakpoint) bool { return b.evalErr != "" || b.gone }) // (softRun stopped for it)
	if pick < 0 {
		pick = at
	}
	if pick < 0 && st.WatchAddr == 0 && len(ws) > 0 {
		pick = 0
		for i, b := range ws {
			if b.old != nil && nows[i] != nil && string(b.old) != string(nows[i]) {
				pick = i
				break
			}
		}
	}
	var hit *WatchHit
	for i, b := range ws {
		now := nows[i]
		if i == pick {
			b.hits++
			hit = &WatchHit{Number: b.num, Expression: b.spec, Kind: b.info().Type, Mechanism: b.info().Mechanism}
			if !b.byValue() {
				hit.Address = hexAddr(b.addrs[0])
			}
			b.changed = b.old == nil || now == nil || string(b.old) != string(now)
			if b.evalErr != "" {
				hit.Error = b.evalErr // (the stop deletes it)
				continue
			}
			if b.typ != rsp.WriteWatchpoint && !b.changed {
				// a read (or an access that wrote the same value): GDB
				// prints "Value = …"
				hit.Value = s.formatWatch(ctx, b, now)
			} else {
				hit.Old = s.formatWatch(ctx, b, b.old)
				hit.New = s.formatWatch(ctx, b, now)
			}
		}
		if now != nil || !b.byValue() {
			b.old = now // (a value watch outside its frame keeps its value)
		}
	}
	if hit == nil {
		hit = &WatchHit{Address: hexAddr(st.WatchAddr), Kind: st.Watch.String()}
	}
	return hit
}

// refreshWatches remembers the current values of all watchpoints.
func (s *Session) refreshWatches(ctx context.Context) {
	for _, b := range s.bps {
		if b.isWatch() && b.enabled {
			if now := s.watchNow(ctx, b); now != nil || !b.byValue() {
				b.old = now
			}
		}
	}
}

// hardwareBreakNote says why a hardware breakpoint cannot be used here,
// "" when it can: on a live backend the probe must have seen one fire.
func (s *Session) hardwareBreakNote(ctx context.Context) string {
	if s.c.Dialect() != rsp.DialectGDBServer || s.hardware(ctx).Break {
		return ""
	}
	return "hardware breakpoints do not fire here (the debug register probe saw none trigger; rr_session_list shows its verdict); using a software breakpoint"
}
