package rsp

import (
	"context"
	"encoding/binary"
)

// Moribund breakpoint locations, as GDB keeps them (breakpoint.c,
// moribund_locations): when several threads hit a software breakpoint at
// once, the server reports one hit and keeps the others pending. If the
// client removes the breakpoint before resuming, the next resume reports a
// pending hit of a breakpoint that no longer exists: a SIGTRAP nobody
// asked for. GDB remembers a removed breakpoint address for a while and
// drops such a SIGTRAP, moving the thread's pc back onto the (now
// original) instruction where the server did not (x86: the pc is past the
// int3); then it resumes as if nothing happened. Continue does the same.

// moribundEvents is for how many stop events a removed breakpoint address
// is remembered. GDB uses 3 * (number of threads + 1); a pending hit is
// reported at the next resume of its thread, so a few events per thread
// are enough. The count starts at removal; threads is the most threads
// seen so far, so the budget grows as more threads show up.
func moribundEvents(threads int) int { return 3 * (max(threads, 1) + 1) }

// retire remembers the address of a software or hardware breakpoint being
// removed.
//
// Not on rr: a replay runs one thread at a time and reports the hit of
// the thread that ran, so it never holds a second, pending hit; checking
// would only cost a register read per stop.
func (c *Client) retire(b Breakpoint) {
	if b.Type != SoftwareBreakpoint && b.Type != HardwareBreakpoint || c.g.dialect == DialectRR {
		return
	}
	if c.moribund == nil {
		c.moribund = map[uint64]int{}
	}
	c.moribund[b.Addr] = c.stopEvents
}

// moribundHit reports whether st is a pending hit of a breakpoint removed
// meanwhile; then it has put the thread's pc back on the breakpoint
// address if the server left it past the trap instruction. Every call
// counts one stop event towards retiring the remembered addresses.
func (c *Client) moribundHit(ctx context.Context, st Stop) bool {
	if len(c.moribund) == 0 {
		return false
	}
	c.stopEvents++
	defer func() {
		for a, at := range c.moribund {
			if c.stopEvents-at >= moribundEvents(c.threadsSeen) {
				delete(c.moribund, a)
			}
		}
	}()
	if st.Kind != StopSignal || st.Signal != SIGTRAP || st.Watch != WatchNone || st.HWBreak ||
		st.Thread == (Thread{}) || st.AtHistoryStart || st.AboutToExit || st.Direction != Forward {
		return false
	}
	pc, err := c.readPC(ctx, st)
	if err != nil {
		return false
	}
	addr := pc
	if !st.SWBreak {
		// A server that does not report swbreak leaves the pc where the
		// trap left it: past the int3 on x86 (GDB's decr_pc_after_break).
		if c.g.bpKind != 1 || pc == 0 {
			return false
		}
		addr = pc - 1
	}
	if _, ok := c.moribund[addr]; !ok || c.insertedAt(addr) {
		return false
	}
	if addr != pc {
		r, ok := c.tdesc.Lookup(c.pcReg)
		if !ok || r.Size() > 8 {
			return false
		}
		b := binary.LittleEndian.AppendUint64(nil, addr)[:r.Size()]
		if err := c.WriteRegister(ctx, st.Thread, r.Regnum, b); err != nil {
			return false
		}
	}
	c.moribundDropped++
	return true
}

// insertedAt reports whether a software or hardware breakpoint of the
// table is at addr.
func (c *Client) insertedAt(addr uint64) bool {
	for _, b := range c.bpOrder {
		if (b.Type == SoftwareBreakpoint || b.Type == HardwareBreakpoint) && b.Addr == addr {
			return true
		}
	}
	return false
}

// MoribundHits returns how many stale breakpoint hits Continue has
// dropped so far (pending hits of breakpoints removed meanwhile).
func (c *Client) MoribundHits() int { return c.moribundDropped }
