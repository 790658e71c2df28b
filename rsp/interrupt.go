package rsp

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The interrupt discipline. A timeout or cancellation of a resume sends one
// 0x03 (resume) and waits for the stop inside the same call; a stray stop
// reply is flushed by resync. Two things can outlive the call, and both are
// handled here:
//
//   - The interrupt races the stop: the target stopped on its own (a step
//     finished, a breakpoint hit) while 0x03 was on the wire. gdbserver
//     still acts on the byte — it sends SIGINT to the stopped process
//     (getpkt's '\003' → request_interrupt → kill(-pid, SIGINT)) — so a
//     SIGINT is pending for the program. The next resume would stop with
//     it at once, and delivering it (vCont;C02) would kill the program.
//     Where the SIGINT is certainly pending (one 0x03, a stop for another
//     reason), the same call consumes it: it single-steps the stopped
//     thread, which stops with the pending SIGINT before its instruction
//     runs (consumeSIGINT). Otherwise (more than one 0x03: two SIGINTs
//     may have merged into the one reported) the client remembers that it
//     may owe one (sigintOwed) and, when a later resume reports it,
//     resumes again without the signal: the program never sees it.
//   - Breakpoint bookkeeping: a Z whose reply was lost is undone, a z the
//     server answers with an error means it is already out, and a
//     step-over that was cut short puts its breakpoints back.

// noteInterruptRace records, after a resume this call interrupted, whether
// the interrupt may have left a SIGINT pending in the program; certain
// reports that it did.
func (c *Client) noteInterruptRace(st Stop) (certain bool) {
	if c.g.dialect != DialectGDBServer && c.g.dialect != DialectAuto {
		return false // rr and QEMU stop without signalling the program
	}
	if st.Kind != StopSignal {
		c.sigintOwed = false // exited or killed: nothing is pending any more
		return false
	}
	// A stop for another reason, or more than one 0x03 (rr_interrupt and
	// a timeout, or repeated rr_interrupt): a SIGINT can be left pending.
	// Standard signals do not queue, so one flag covers them all.
	if st.Signal != SIGINT || c.interrupts.Load() > 1 {
		c.sigintOwed = true
	}
	return st.Signal != SIGINT && c.interrupts.Load() == 1
}

// consumeSIGINT takes the SIGINT an interrupt that raced st left pending
// out of the program within the interrupted call, so that nothing is owed
// when the call returns (a detach, or a raw resume, would otherwise meet
// it). It single-steps st's thread alone: the kernel reports the pending
// signal before the instruction runs (signal-delivery-stop), gdbserver
// reports that SIGINT (it is never in the pass list), and the program is
// where it was. gdbserver has read the 0x03, and so sent the signal,
// before it reads the step: the stream is in order. Should another stop
// come instead (the thread blocks SIGINT), the program moved one
// instruction; that stop is returned as the call's stop, and the debt
// stays for a later resume to skip.
func (c *Client) consumeSIGINT(ctx context.Context, st Stop) Stop {
	if !c.vcont["s"] || st.Thread == (Thread{}) || c.conn.deadErr() != nil {
		return st
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.InterruptTimeout)
	defer cancel()
	disarm := c.arm(dctx)
	defer disarm()
	pkt := "vCont;s:" + c.encThread(st.Thread)
	c.pending++
	if err := c.conn.writePacket([]byte(pkt)); err != nil {
		return st // the connection's failure shows in the next request
	}
	for {
		p, err := c.conn.readPacket()
		if err != nil {
			return st // the reply is owed: the next request's resync bounds it
		}
		if isConsole(p) {
			c.console(p)
			continue
		}
		if string(p) == "OK" {
			continue
		}
		c.pending--
		got, err := ParseStop(string(p))
		if err != nil {
			c.log.Debug("rsp: unexpected reply to the step that consumes a pending SIGINT", "reply", printable(p))
			return st
		}
		if got.Kind == StopSignal && got.Signal == SIGINT {
			c.sigintOwed = false
			c.log.Debug("rsp: SIGINT left pending by a raced interrupt consumed", "thread", st.Thread.String())
			c.record(st)
			return st
		}
		c.regs = map[Thread][]byte{}
		got.Direction, got.Interrupted = Forward, true
		if got.Kind != StopSignal {
			c.sigintOwed = false
		}
		c.record(got)
		return got
	}
}

// staleSIGINT reports whether st is the SIGINT an earlier, raced interrupt
// left pending; it clears the debt.
func (c *Client) staleSIGINT(st Stop) bool {
	if !c.sigintOwed || c.interrupted.Load() {
		return false
	}
	if st.Kind != StopSignal {
		c.sigintOwed = false
		return false
	}
	if st.Signal == SIGINT {
		c.sigintOwed = false
		return true
	}
	return false
}

// withoutSignal turns a resume packet that delivers a signal into the same
// resume delivering none: the signal was delivered before the stale SIGINT
// was reported, and must not be delivered twice.
func withoutSignal(pkt string) string {
	if rest, ok := strings.CutPrefix(pkt, "vCont;"); ok {
		acts := strings.Split(rest, ";")
		for i, a := range acts {
			if len(a) >= 3 && (a[0] == 'C' || a[0] == 'S') && isHex(a[1]) && isHex(a[2]) {
				acts[i] = strings.ToLower(a[:1]) + a[3:]
			}
		}
		return "vCont;" + strings.Join(acts, ";")
	}
	if len(pkt) >= 3 && (pkt[0] == 'C' || pkt[0] == 'S') && isHex(pkt[1]) && isHex(pkt[2]) {
		p := strings.ToLower(pkt[:1])
		if addr, ok := strings.CutPrefix(pkt[3:], ";"); ok {
			p += addr
		}
		return p
	}
	return pkt
}

// rollbackInsert undoes a Z whose reply never came (the request may have
// reached the server): z with a fresh, bounded context; the server answers
// OK or an error if it never inserted it — either way it is out.
func (c *Client) rollbackInsert(ctx context.Context, b Breakpoint) {
	if ctx.Err() == nil || c.conn.deadErr() != nil {
		return // a server error: it did not insert it
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.InterruptTimeout)
	defer cancel()
	c.exchange(rctx, b.packet('z')) //nolint:errcheck
}

// expectsStop reports whether a request's reply is a stop reply. A stop
// reply received for any other request is stray (a duplicate, or the
// answer to an interrupt that raced a stop) and is discarded.
func expectsStop(pkt string) bool {
	return pkt == "?" || isResume(pkt) || strings.HasPrefix(pkt, "vAttach") || strings.HasPrefix(pkt, "vRun") ||
		strings.HasPrefix(pkt, "vStopped") || strings.HasPrefix(pkt, "qRRCmd:") || strings.HasPrefix(pkt, "vKill")
}

// boundOwed makes a wait for replies owed to abandoned requests end: if
// none comes within the interrupt timeout, counted from the first wait for
// them (a caller's shorter time limit ends one wait, not the count), the
// reply was lost (dropped or cut short on the way) or the server no longer
// answers, and the stream cannot be matched to requests any more; the
// connection is declared dead, saying so. The returned function disarms
// it.
func (c *Client) boundOwed() func() {
	if c.pending == 0 {
		c.owedSince = time.Time{}
		return func() {}
	}
	if c.owedSince.IsZero() {
		c.owedSince = time.Now()
	}
	dead := func() {
		c.conn.fail(fmt.Errorf("%w: no reply to an abandoned request within %v: a reply was lost or the server stopped answering, and the connection is out of step", ErrClosed, c.opts.InterruptTimeout))
	}
	left := c.opts.InterruptTimeout - time.Since(c.owedSince)
	if left <= 0 {
		dead()
		return func() {}
	}
	t := time.AfterFunc(left, dead)
	return func() {
		t.Stop()
		if c.pending == 0 {
			c.owedSince = time.Time{}
		}
	}
}

// Settle waits for the replies still owed to requests that a time limit
// or a cancellation abandoned (bounded by Options.InterruptTimeout, after
// which the connection is declared dead), so that a caller about to
// answer from what it cached knows whether the connection is still good.
// Without owed replies it costs nothing.
func (c *Client) Settle(ctx context.Context) error {
	if c.pending == 0 && !c.interrupted.Load() {
		return c.conn.deadErr()
	}
	disarm := c.arm(ctx)
	defer disarm()
	if err := c.resync(); err != nil {
		return c.wrap(ctx, "(replies owed)", err)
	}
	return nil
}
