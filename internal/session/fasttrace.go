package session

import (
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// rr_query kind calls collected by a fast tracepoint (gdbserver with
// its in-process agent, LiveOptions.InProcessAgent).
//
// A fast tracepoint is the tracepoint of tracequery.go with the
// instruction at its address replaced by a 5-byte jump to a jump pad in
// the agent (libinproctrace.so, preloaded into the program), which saves
// the registers, collects the plan's actions in the program's own
// thread and jumps back through the displaced instruction, relocated:
// no trap and no round trip to gdbserver per call. What it takes:
//
//   - the agent loaded, and gdbserver told its symbols (qSymbol, served
//     from the libraries' ELF symbols once the agent is in the module
//     list);
//   - room for the jump (qTMinFTPILen, 5 bytes on x86-64): the
//     instruction at the address, or where it is shorter (as at most -O0
//     statements; GDB refuses those) the few instructions that make
//     room (x86code.JumpRoom), moved into the pad together. They move
//     only where no thread can ever run from inside them
//     (x86code.SpanMovable: no jump lands there, only the last transfers
//     control; no breakpoint in them; and before each run every thread
//     stopped in them, the query's own among them, is stepped out:
//     stepOutOfSpan); otherwise the trap tracepoint collects with a note
//     saying why;
//   - a function that is not a leaf: the jump pad pushes the registers
//     below the stack pointer, over the red zone where a leaf function
//     (GCC, Clang) may keep its locals;
//   - the jump pad within a rel32 jump of the address: the agent puts
//     its pads below 2 GiB, so a PIE program (0x5555…) is refused by
//     the server at QTStart and the trap tracepoint collects instead.
//
// The server relocates the displaced instruction by asking the client
// (qRelocInsn during QTStart, rsp.TraceStartRelocating; package
// x86code rewrites it).
//
// A fast tracepoint never stops the program, and gdbserver's breakpoint
// conditions cannot see the agent's trace state variables, so the stop
// rule of the trap tracepoint (the query's breakpoint with count >=
// stop-at) does not apply. Instead the tracepoint's pass count is the
// rows of the run: at the last one the agent calls its stop_tracing
// (gdb_agent_stop_tracing), where a breakpoint of the query stops the
// program; gdbserver has then stopped the run and removed the jump. The
// query's own breakpoint, out of the code during the run (at the same
// address it would catch every call before the jump), is put back and
// the program continues to the next call, a real stop whose row is read
// live. So each run collects all rows but the last of its chunk, and
// the query ends, as the breakpoint path does, stopped at its last row.

// fastTrace says whether plan p can be collected by a fast tracepoint:
// n the bytes of code at p.Addr its jump displaces (whole instructions:
// the first, or the first few where it is shorter than the jump), or 0
// and why not ("" where fast tracepoints are not a thing to mention: no
// agent).
func (s *Session) fastTrace(ctx context.Context, p *tracePlan) (n int, why string) {
	if s.ipa == "" {
		return 0, ""
	}
	if s.inf.I386() {
		return 0, "fast tracepoints are only relocated for x86-64"
	}
	if why := s.agentSymbols(ctx); why != "" {
		return 0, why
	}
	minLen, err := s.c.MinFastTracepointLen(ctx)
	if err != nil || minLen <= 0 {
		return 0, fmt.Sprintf("the server does not say the shortest instruction a fast tracepoint takes (qTMinFTPILen: %v)", err)
	}
	if p.frame.Function == nil {
		return 0, "the function of the tracepoint has no address ranges to check"
	}
	fc, why := s.functionCode(ctx, p.frame.Function, p.frame.Bias)
	if why != "" {
		return 0, why
	}
	if x86code.CallsNone(fc) {
		return 0, fmt.Sprintf("%s calls no function, so it may keep data in the red zone below the stack pointer, which a fast tracepoint's jump pad overwrites", p.frame.Function.Name)
	}
	insts, n, err := x86code.JumpRoom(fc, p.Addr, minLen)
	if err != nil {
		return 0, err.Error()
	}
	p.firstLen = insts[0].Len
	if len(insts) > 1 {
		why := x86code.SpanMovable(fc, p.Addr, insts)
		for _, b := range s.c.Breakpoints() {
			// The pad runs the moved copy, never the trap.
			if why == "" && b.Addr > p.Addr && b.Addr < p.Addr+uint64(n) {
				why = fmt.Sprintf("a breakpoint at %#x is inside them", b.Addr)
			}
		}
		if why != "" {
			return 0, fmt.Sprintf("the instruction at %#x is %d bytes, shorter than a fast tracepoint's %d-byte jump, and the %d instructions that would make room cannot move: %s", p.Addr, insts[0].Len, minLen, len(insts), why)
		}
	}
	return n, ""
}

// functionCode reads the code of fn (loaded at bias), every range: from
// the program's file where the range is in its code (no round trip),
// else from memory (a library's function).
func (s *Session) functionCode(ctx context.Context, fn *dwarf.Function, bias uint64) ([]x86code.Range, string) {
	if len(fn.Ranges) == 0 {
		return nil, fmt.Sprintf("%s has no address ranges to check", fn.Name)
	}
	var out []x86code.Range
	for _, r := range fn.Ranges {
		lo, hi := r[0]+bias, r[1]+bias
		if hi <= lo || hi-lo > 1<<20 {
			return nil, fmt.Sprintf("%s has an address range [%#x, %#x) too large to check", fn.Name, lo, hi)
		}
		code := make([]byte, hi-lo)
		if sec := s.inf.ProgramSection(lo, hi-lo); sec != nil && sec.Flags&elf.SHF_EXECINSTR != 0 && sec.Type != elf.SHT_NOBITS {
			if n, err := sec.ReadAt(code, int64(lo-s.inf.Bias-sec.Addr)); err == nil && n == len(code) {
				out = append(out, x86code.Range{Addr: lo, Code: code})
				continue
			}
		}
		if n, err := s.inf.ReadMem(ctx, lo, code); n < len(code) {
			return nil, fmt.Sprintf("reading the code of %s at %#x: %v", fn.Name, lo, err)
		}
		out = append(out, x86code.Range{Addr: lo, Code: code})
	}
	return out, ""
}

// stepOutOfSpan single-steps every thread stopped in [lo, lo+n), the
// instructions a fast tracepoint's jump displaces, out of them before the
// jump goes in (each run: the threads move between runs). A thread
// resumed at lo would be stepped over the jump by the server by one
// instruction only, into the span, where the jump's own bytes are; one
// inside would run them. The query's own thread is at lo (the call it is
// in was collected at the query's stop, as a trap tracepoint or a
// one-instruction fast one leaves it uncollected). Where the process has
// one thread (/proc) only that one is looked at; else every thread's pc
// is read (qfThreadInfo and a g each).
func (s *Session) stepOutOfSpan(ctx context.Context, lo uint64, n int) error {
	threads := []rsp.Thread{s.inf.Cur}
	if st, ok := s.procStat(); !ok || st.Threads != 1 {
		ts, err := s.c.Threads(ctx)
		if err != nil {
			return fmt.Errorf("list the threads to step them out of the instructions at %#x: %w", lo, err)
		}
		threads = ts
	}
	for _, t := range threads {
		for range n + 1 {
			pc, err := s.inf.PC(ctx, t)
			if err != nil {
				return err
			}
			if pc < lo || pc >= lo+uint64(n) {
				break
			}
			st, err := s.c.Step(ctx, t)
			if err != nil {
				return err
			}
			s.invalidate()
			// A worker that hit the query's breakpoint with the thread
			// that stopped reports that hit (pending in the server) in
			// place of its first step: the pc says whether it moved.
			pendingHit := st.Kind == rsp.StopSignal && st.Signal == rsp.SIGTRAP && st.Watch == rsp.WatchNone && (st.Thread == t || st.Thread == rsp.Thread{})
			if !plainStep(st) && !pendingHit {
				return fmt.Errorf("stepping thread %v out of the instructions at %#x before the fast tracepoint goes in: the step stopped for %v: %w", t, lo, st, ErrUnsupported)
			}
		}
	}
	return nil
}

// agentSymbols tells gdbserver the in-process agent's symbols (qSymbol)
// once the agent is loaded; why says what is missing.
func (s *Session) agentSymbols(ctx context.Context) (why string) {
	if s.ipaSyms {
		return ""
	}
	as := s.inf.ReloadAddressSpace(ctx)
	loaded := false
	if as != nil {
		for _, m := range as.Modules() {
			if filepath.Base(m.Path) == filepath.Base(s.ipa) {
				loaded = true
			}
		}
	}
	if !loaded {
		var paths []string
		if as != nil {
			for _, m := range as.Modules() {
				paths = append(paths, m.Path)
			}
		}
		return fmt.Sprintf("the in-process agent %s is not in the program's library list %v", s.ipa, paths)
	}
	asked, err := s.c.LookupSymbols(ctx, func(name string) (uint64, bool) { return s.inf.SymbolAddr(ctx, name) })
	if err != nil {
		return fmt.Sprintf("the server's symbol lookups (qSymbol) failed: %v", err)
	}
	s.ipaSyms = true
	s.ipaAsked = len(asked)
	return ""
}

// stopTracingAddr is the runtime address of the agent's
// gdb_agent_stop_tracing, which it calls when a run's pass count is
// reached.
func (s *Session) stopTracingAddr(ctx context.Context) (uint64, bool) {
	return s.inf.SymbolAddr(ctx, "gdb_agent_stop_tracing")
}

// fastCalls goes on with the rows of the query after its first hit
// (res.Rows[0], the program stopped there) with fast tracepoints of plan
// p, n the length of the instruction at p.Addr. done false: nothing ran,
// and the trap tracepoint path goes on with res.MechanismNote saying
// why.
func (s *Session) fastCalls(ctx context.Context, o QueryOptions, bp Breakpoint, res *QueryResult, p *tracePlan, n int) (done bool, err error) {
	stopAt, ok := s.stopTracingAddr(ctx)
	if !ok {
		res.MechanismNote = "the in-process agent has no gdb_agent_stop_tracing symbol"
		return false, nil
	}
	b, err := s.findBP(bp.Number)
	if err != nil {
		return false, nil
	}
	res.Mechanism = "fast tracepoint"
	stopIn := false // the stop breakpoint is in the server's table
	// A run that reaches the program's end would lose the rows in the
	// agent's buffer with the process: a breakpoint at libc's _exit (which
	// exit and the return from main reach) stops it while they are there.
	// The library list is read again: one from before libc was loaded has
	// only ld.so's own _exit, which the exit does not reach.
	exitAt, exitOK := uint64(0), false
	if as := s.inf.ReloadAddressSpace(ctx); as != nil {
		exitAt, exitOK = s.inf.SymbolAddr(ctx, "_exit")
	}
	exitIn := false
	restore := func(ctx context.Context) error {
		var err error
		if exitIn {
			if err = s.c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, exitAt, 1); err == nil {
				exitIn = false
			}
		}
		if stopIn {
			if serr := s.c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, stopAt, 1); serr == nil {
				stopIn = false
			} else if err == nil {
				err = serr
			}
		}
		if b.enabled && s.exited == nil {
			if ierr := s.insert(ctx, b); ierr != nil && err == nil {
				err = ierr
			}
		}
		return err
	}
	defer func() {
		s.keepingCancelled(func() {
			s.do(context.WithoutCancel(ctx), s.to.Breakpoint, func(ctx context.Context) error { //nolint:errcheck // best effort
				if s.exited != nil || s.c.Dead() != nil {
					return nil
				}
				return restore(ctx)
			})
		})
		s.traceCleanup(ctx, bp.Number)
	}()
	for len(res.Rows) < o.Limit {
		chunk := p.Chunk(o.Limit-len(res.Rows)-1, o.traceChunk)
		if chunk > 0 {
			var maps []symbols.Mapping
			if err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
				maps = s.procMaps()
				// The query's breakpoint would catch every call before
				// the jump: out of the code for the run.
				if err := s.uninsert(ctx, b); err != nil {
					return err
				}
				if err := s.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, stopAt, 1); err != nil {
					return err
				}
				stopIn = true
				if n > p.firstLen {
					if err := s.stepOutOfSpan(ctx, p.Addr, n); err != nil {
						return err
					}
				}
				// Not over a breakpoint of the user's (in the server,
				// or due there with the next resume): removing ours
				// would remove it from the server.
				if exitOK && !exitIn && s.bpAt(exitAt) == nil && !s.breakAt(exitAt) {
					if err := s.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, exitAt, 1); err == nil {
						exitIn = true
					}
				}
				return s.traceSetup(ctx, p, bp.Number, chunk, n)
			}); err != nil {
				if st, cerr := s.queryCancelled(ctx, res.Stop, err); cerr == nil {
					res.Stop, res.Ended = st, st.Reason
					return true, nil
				}
				if len(res.Rows) == 1 && ctx.Err() == nil {
					s.do(context.WithoutCancel(ctx), s.to.Breakpoint, func(ctx context.Context) error { //nolint:errcheck // the trap path sets up its own
						s.c.DefineTraceRun(ctx, rsp.TraceRun{}) //nolint:errcheck // QTinit: nothing defined
						return restore(ctx)
					})
					res.Mechanism = ""
					res.MechanismNote = fmt.Sprintf("the server refused the fast tracepoint (%v)", err)
					return false, nil
				}
				return true, fmt.Errorf("setting up the fast tracepoint run: %w", err)
			}
			st, err := s.traceRun(ctx, res)
			var status rsp.TraceStatus
			var frames int
			var rerr error
			atStop := false
			exiting := false // stopped at _exit: the rows are still there
			var lost error   // the frames of a run the exit cut
			from := len(res.Rows)
			runErr := err
			s.keepingCancelled(func() {
				rerr = s.do(context.WithoutCancel(ctx), s.to.Eval, func(ctx context.Context) error {
					// The trap at gdb_agent_stop_tracing is no breakpoint of
					// the session's: it reads as a step or a SIGTRAP.
					atStop = runErr == nil && st != nil && s.exited == nil && st.Breakpoint == 0 && s.pcOr0(ctx) == stopAt
					exiting = runErr == nil && st != nil && s.exited == nil && exitIn && st.Breakpoint == 0 && s.pcOr0(ctx) == exitAt
					var err error
					status, frames, err = s.collectRows(ctx, o, p, maps, res)
					if err != nil && (s.exited != nil || st != nil && (st.Reason == "exited" || st.Reason == "killed")) {
						// gdbserver 13 with the agent drops the connection
						// when asked for the buffer after the exit.
						lost = err
						return nil
					}
					if err != nil || s.exited != nil {
						return err
					}
					return restore(ctx)
				})
			})
			res.report(o, from)
			if rerr != nil && err == nil && st != nil && (st.Reason == "exited" || st.Reason == "killed") {
				lost, rerr = rerr, nil // see traceCollect above
			}
			if err != nil {
				return true, err
			}
			if rerr != nil {
				return true, fmt.Errorf("reading the trace buffer: %w", rerr)
			}
			res.noteOverflow(status)
			if exiting {
				// Every call before the exit is a row: the program ends
				// as it would have on the breakpoint path.
				st, err := s.Continue(ctx, false)
				if st, err = s.queryCancelled(ctx, st, err); err != nil {
					return true, err
				}
				res.Stop = st
				res.endAt(st)
				return true, nil
			}
			if !atStop {
				if lost != nil {
					res.Note = fmt.Sprintf("The program ended during a fast tracepoint run other than through _exit (a signal, a direct exit_group): the rows it collected after row %d were lost with the in-process agent's buffer (%v); query with a limit below the calls left, or without in_process_agent.", res.Rows[len(res.Rows)-1].N, lost)
				}
				res.endAt(st)
				return true, nil
			}
			if frames != chunk {
				return true, fmt.Errorf("the fast tracepoint run stopped after %d of %d calls: %w", frames, chunk, ErrUnsupported)
			}
		}
		// The next call: a stop at the query's breakpoint.
		st, err := s.Continue(ctx, false)
		if st, err = s.queryCancelled(ctx, st, err); err != nil {
			res.Stop = st
			return true, err
		}
		res.Stop = st
		if st.Breakpoint != bp.Number || st.Reason != "breakpoint" {
			res.endAt(st)
			return true, nil
		}
		res.Rows = append(res.Rows, s.hitRow(ctx, o, st, o.Cursor+len(res.Rows)))
		res.report(o, len(res.Rows)-1)
	}
	res.cutAtLimit(o)
	return true, nil
}
