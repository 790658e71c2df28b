package session

import (
	"context"

	"github.com/rrmcp/rrmcp/rsp"
)

// A conditional breakpoint whose condition rrmcp evaluates itself (one
// that agent bytecode cannot express: a double, a function call, a
// string) stops the program at every hit, and every hit where the
// condition is false resumes from the breakpoint. From a software
// breakpoint that resume is GDB's remove/step/insert dance: two resumes
// and two round trips. From a hardware breakpoint on x86 under gdbserver
// it is one plain resume: the debug registers' resume flag lets the
// instruction run (rsp's resumeFlagPasses). So once such a condition is
// known to stay with rrmcp (its compiling failed at the first hit), a
// breakpoint of one address moves to a debug register while one is free
// on a local gdbserver whose hardware breakpoints fire (the probe), and a
// watchpoint that needs the register later takes it back (yieldDebugRegister).
// Which hits stop does not change: the same condition decides each.
// The cost moves, though: while a debug register is in use, gdbserver
// spends more on each signal it passes to the program silently (it checks
// and rewrites the debug registers at such stops), so in a program under
// a storm of signals (signal_storm: one SIGURG after another) the hits
// come slower than through step overs; in a program without one, each
// false hit costs a third less (bench/RESULTS.md, breakpoint_hits_10000).

// hwPassNote is what a moved breakpoint's listing says of it.
const hwPassNote = "rrmcp evaluates the condition at every hit; in a debug register, a hit where it is false resumes in one round trip " +
	"(a watchpoint that needs the register takes it back)"

// debugRegisters is how many addresses x86's debug registers watch or
// break at.
const debugRegisters = 4

// debugRegistersUsed counts the session's breakpoints and watchpoints
// that hold a debug register.
func (s *Session) debugRegistersUsed() int {
	n := 0
	for _, b := range s.bps {
		if !b.enabled || b.pending || b.soft {
			continue
		}
		switch {
		case b.isWatch():
			n += 1 + len(b.chain) // and what a followed expression's address is read from (watchfollow.go)
		case b.typ == rsp.HardwareBreakpoint:
			n += len(b.addrs)
		}
	}
	return n
}

// passByHardware moves b, a breakpoint whose condition rrmcp evaluates,
// to a hardware breakpoint where that is allowed and a debug register is
// free (see above); where the server refuses, b stays as it was.
func (s *Session) passByHardware(ctx context.Context, b *breakpoint) {
	if b.typ != rsp.SoftwareBreakpoint || b.hwAsked || b.serverOnly || len(b.addrs) != 1 || !b.enabled || b.pending ||
		s.kind != KindLive || s.pid <= 0 || s.exited != nil || s.c.Dialect() != rsp.DialectGDBServer ||
		s.debugRegistersUsed() >= debugRegisters {
		return
	}
	if hw := s.hardware(ctx); !hw.Break || hw.Forced {
		return
	}
	if err := s.removeEntry(ctx, b, b.addrs[0]); err != nil {
		return
	}
	b.typ, b.hwPass = rsp.HardwareBreakpoint, true
	if err := s.insert(ctx, b); err != nil {
		b.typ, b.hwPass = rsp.SoftwareBreakpoint, false
		s.insert(ctx, b) //nolint:errcheck // as before the move; a failure shows at the next hit
	}
}

// yieldDebugRegister gives a debug register back for a watchpoint: the
// last breakpoint passByHardware moved returns to a software breakpoint.
// It reports whether a register is free now.
func (s *Session) yieldDebugRegister(ctx context.Context) bool {
	for i := len(s.bps) - 1; i >= 0 && s.debugRegistersUsed() >= debugRegisters; i-- {
		if b := s.bps[i]; b.hwPass && b.enabled {
			s.unpass(ctx, b) //nolint:errcheck // the count says whether it worked
		}
	}
	return s.debugRegistersUsed() < debugRegisters
}

// unpass returns b, if passByHardware moved it, to a software breakpoint:
// for a watchpoint that needs the register, a condition that changed (it
// may compile now: agentcond.go compiles only a software breakpoint's),
// a breakpoint being disabled (enabled again, it must not need a register
// a watchpoint took meanwhile). Where the server refuses, b stays as it
// was.
func (s *Session) unpass(ctx context.Context, b *breakpoint) error {
	if !b.hwPass {
		return nil
	}
	inserted := b.enabled && !b.pending
	if inserted {
		if err := s.uninsert(ctx, b); err != nil {
			return err
		}
	}
	b.typ, b.hwPass = rsp.SoftwareBreakpoint, false
	if !inserted {
		return nil
	}
	if err := s.insert(ctx, b); err != nil {
		// Keep the breakpoint: back in its debug register.
		b.typ, b.hwPass = rsp.HardwareBreakpoint, true
		s.insert(ctx, b) //nolint:errcheck // the error is the first one
		return err
	}
	return nil
}
