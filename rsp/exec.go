package rsp

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BreakpointType is the Z/z packet type.
type BreakpointType int

const (
	SoftwareBreakpoint BreakpointType = 0 // Z0
	HardwareBreakpoint BreakpointType = 1 // Z1
	WriteWatchpoint    BreakpointType = 2 // Z2
	ReadWatchpoint     BreakpointType = 3 // Z3 (rr treats it as access; gdbserver x86: unsupported)
	AccessWatchpoint   BreakpointType = 4 // Z4
)

func (t BreakpointType) String() string {
	switch t {
	case SoftwareBreakpoint:
		return "software breakpoint"
	case HardwareBreakpoint:
		return "hardware breakpoint"
	case WriteWatchpoint:
		return "write watchpoint"
	case ReadWatchpoint:
		return "read watchpoint"
	case AccessWatchpoint:
		return "access watchpoint"
	}
	return "Z" + strconv.Itoa(int(t))
}

// Breakpoint is one entry of the client's Z table.
type Breakpoint struct {
	Type BreakpointType
	Addr uint64
	Kind int // breakpoint instruction length for Z0/Z1, byte length for Z2-4
}

func (b Breakpoint) packet(op byte) string {
	return string(op) + strconv.Itoa(int(b.Type)) + "," + strconv.FormatUint(b.Addr, 16) + "," + strconv.FormatInt(int64(b.Kind), 16)
}

func (c *Client) addBP(b Breakpoint) {
	if !c.bps[b] {
		c.bps[b] = true
		c.bpOrder = append(c.bpOrder, b)
	}
}

func (c *Client) delBP(b Breakpoint) {
	if !c.bps[b] {
		return
	}
	delete(c.bps, b)
	for i, x := range c.bpOrder {
		if x == b {
			c.bpOrder = append(c.bpOrder[:i], c.bpOrder[i+1:]...)
			break
		}
	}
}

// Breakpoints returns the client's table of inserted breakpoints and
// watchpoints, in insertion order.
func (c *Client) Breakpoints() []Breakpoint {
	return append([]Breakpoint(nil), c.bpOrder...)
}

// InsertBreakpoint sends Z<type>,<addr>,<kind> and records it in the
// client's table. For software and hardware breakpoints kind 0 means the
// architecture's breakpoint length (1 on x86, 4 on aarch64); for
// watchpoints kind is the watched length in bytes. Inserting an entry that
// is already in the table is a no-op.
func (c *Client) InsertBreakpoint(ctx context.Context, typ BreakpointType, addr uint64, kind int) error {
	b := c.breakpoint(typ, addr, kind)
	if c.bps[b] {
		return nil
	}
	if c.undoom(b) {
		return nil // still in the server
	}
	if err := c.cmd(ctx, b.packet('Z')); err != nil {
		c.rollbackInsert(ctx, b)
		return fmt.Errorf("insert %v at %#x: %w", typ, addr, err)
	}
	c.addBP(b)
	delete(c.moribund, addr) // alive again
	return nil
}

// InsertBreakpointLater adds a breakpoint to the client's table at no
// cost of its own: its Z goes to the server in the same write as the next
// resume, as a step over's re-insertion does (stepover.go). Where the
// server refuses it, that resume interrupts the target at once and returns
// the error with the stop. It suits a breakpoint that matters only to the
// run that follows (the return address of a finish); InsertBreakpoint
// checks with the server at once. kind is as for InsertBreakpoint.
func (c *Client) InsertBreakpointLater(typ BreakpointType, addr uint64, kind int) {
	b := c.breakpoint(typ, addr, kind)
	if c.bps[b] {
		return
	}
	if !c.undoom(b) {
		c.owed = append(c.owed, b)
		c.fresh = append(c.fresh, b)
	}
	c.addBP(b)
	delete(c.moribund, addr) // alive again
}

// RemoveBreakpointLater takes an entry out of the client's table at no cost
// of its own: its z goes to the server in the same write as the next
// resume (or before a detach). Until then the server still has it, which
// nothing but a run can tell: the server shows memory without its
// breakpoints. Removing an entry that is not in the table is refused.
func (c *Client) RemoveBreakpointLater(typ BreakpointType, addr uint64, kind int) error {
	b := c.breakpoint(typ, addr, kind)
	if !c.bps[b] {
		return refused(b.packet('z'), "no such breakpoint was inserted")
	}
	if !c.dropOwed(b) {
		c.doomed = append(c.doomed, b)
	}
	c.dropFresh(b)
	c.delBP(b)
	c.retire(b)
	return nil
}

// breakpoint is the table entry for a request; kind 0 of a software or
// hardware breakpoint is the architecture's length.
func (c *Client) breakpoint(typ BreakpointType, addr uint64, kind int) Breakpoint {
	if (typ == SoftwareBreakpoint || typ == HardwareBreakpoint) && kind == 0 {
		kind = c.g.bpKind
	}
	return Breakpoint{Type: typ, Addr: addr, Kind: kind}
}

// RemoveBreakpoint sends z for an entry of the client's table. Removing an
// entry that is not in the table is refused locally (rr dies on it).
func (c *Client) RemoveBreakpoint(ctx context.Context, typ BreakpointType, addr uint64, kind int) error {
	b := c.breakpoint(typ, addr, kind)
	if !c.bps[b] {
		return refused(b.packet('z'), "no such breakpoint was inserted")
	}
	if c.dropOwed(b) {
		// A step over took it out of the server already (or it was
		// never sent: InsertBreakpointLater).
		c.dropFresh(b)
		c.delBP(b)
		c.retire(b)
		return nil
	}
	if err := c.cmd(ctx, b.packet('z')); err != nil {
		var re *Error
		if !errors.As(err, &re) {
			return fmt.Errorf("remove %v at %#x: %w", typ, addr, err)
		}
		// The server says it has no such breakpoint (gdbserver: E01): it
		// is already out — an earlier z whose reply was lost to a timeout
		// or cancellation removed it. Removing it is done.
	}
	c.delBP(b)
	c.retire(b)
	return nil
}

// reinsertBreakpoints re-sends Z for the whole table, after the server
// dropped them (rr's vRun, QEMU's "?").
func (c *Client) reinsertBreakpoints(ctx context.Context) error {
	c.owed, c.doomed, c.fresh = nil, nil, nil // all go back now; the server had none
	var errs []error
	for _, b := range c.bpOrder {
		if err := c.cmd(ctx, b.packet('Z')); err != nil {
			errs = append(errs, fmt.Errorf("re-insert %v at %#x: %w", b.Type, b.Addr, err))
		}
	}
	return errors.Join(errs...)
}

// StopReason sends "?" and returns the current stop. On QEMU "?" deletes
// all breakpoints; the client re-inserts its table afterwards.
func (c *Client) StopReason(ctx context.Context) (Stop, error) {
	p, err := c.exchange(ctx, "?")
	if err != nil {
		return Stop{}, err
	}
	if err := replyError("?", p); err != nil {
		return Stop{}, err
	}
	st, err := c.noteStop(p)
	if err != nil {
		return st, err
	}
	if c.g.dialect == DialectQEMU && len(c.bpOrder) > 0 {
		return st, c.reinsertBreakpoints(ctx)
	}
	return st, nil
}

// noteStop parses a stop reply and updates the client's view of the target.
func (c *Client) noteStop(p []byte) (Stop, error) {
	st, err := ParseStop(string(p))
	if err != nil {
		return st, err
	}
	c.record(st)
	return st, nil
}

func (c *Client) record(st Stop) {
	c.lastStop = st
	c.regsWritten = false
	if st.Thread != (Thread{}) && len(c.stopThreads) < 4096 {
		if c.stopThreads == nil {
			c.stopThreads = map[Thread]struct{}{}
		}
		c.stopThreads[st.Thread] = struct{}{}
		c.threadsSeen = max(c.threadsSeen, len(c.stopThreads))
	}
	c.regs = map[Thread][]byte{}
	if st.Thread.Pid > 0 {
		c.pid = st.Thread.Pid
	} else if st.Pid > 0 {
		c.pid = st.Pid
	}
	if st.Thread != (Thread{}) {
		// After a stop, servers make the stopped thread the general thread.
		c.hg, c.hgValid = st.Thread, true
	} else {
		c.hgValid = false
	}
	if st.Exited() {
		c.g.exited = true
	}
}

// encThread renders t for the wire, adding the pid when multiprocess ids
// are in use.
func (c *Client) encThread(t Thread) string {
	if !c.multiprocess {
		return hexID(t.Tid)
	}
	if t.Pid == 0 && t.Tid > 0 && c.pid > 0 {
		t.Pid = c.pid
	}
	if t.Pid == 0 {
		return hexID(t.Tid)
	}
	return t.String()
}

// resume sends a resume packet and waits for the stop reply, delivering
// console output on the way. Cancelling ctx sends 0x03 and keeps reading so
// the stream stays in sync; the stop is returned with ctx's error.
// raw is the reply when it was not a stop (empty or Exx).
func (c *Client) resume(ctx context.Context, pkt string, dir Direction, internal bool) (st Stop, raw string, err error) {
	return c.resumeAfter(ctx, nil, pkt, dir, internal)
}

// resumeAfter is resume with breakpoint requests (z, from a step over)
// sent first. They and the re-insertion of the breakpoints owed go out in
// the same write as the resume where the connection is in no-ack mode:
// the server handles them in order before it resumes, and their replies
// come before the stop reply. A breakpoint the server fails to re-insert
// gets the target interrupted at once (it must not run past it unseen)
// and the error is returned with the stop.
func (c *Client) resumeAfter(ctx context.Context, zs []Breakpoint, pkt string, dir Direction, internal bool) (st Stop, raw string, err error) {
	if c.g.exited && !internal && !strings.HasPrefix(pkt, "vRun") {
		return Stop{}, "", fmt.Errorf("rsp: %s: %w", pkt, ErrExited)
	}
	if err := c.conn.deadErr(); err != nil {
		return Stop{}, "", fmt.Errorf("rsp: %s: %w", pkt, err)
	}
	if err := c.g.check(pkt); err != nil {
		return Stop{}, "", err
	}
	if err := ctx.Err(); err != nil {
		return Stop{}, "", fmt.Errorf("rsp: %s: %w", pkt, err)
	}
	disarm := c.arm(ctx)
	err = c.resync()
	disarm()
	if err != nil {
		return Stop{}, "", c.wrap(ctx, pkt, err)
	}
	prefix := c.breakpointPrefix(zs)
	if c.conn.ack && len(prefix) > 0 {
		// With acks, one request at a time, before the resume.
		for _, r := range prefix {
			if err := c.cmd(ctx, r.pkt); err != nil {
				if rerr := r.done(err); rerr != nil {
					return Stop{}, "", rerr
				}
				continue
			}
			r.done(nil) //nolint:errcheck // no error to report
		}
		prefix = nil
	}
	c.regs = map[Thread][]byte{}
	c.interrupted.Store(false)
	c.interrupts.Store(0)
	c.running.Store(true)
	defer c.running.Store(false)
	// No read deadline from here on: the stop may take arbitrarily long.
	// Cancellation sends 0x03 (once the request is out) and then bounds the
	// wait for the stop by InterruptTimeout.
	var (
		mu        sync.Mutex
		written   bool
		cancelled bool
	)
	waitDone := make(chan struct{})
	sent := make(chan struct{})
	stopCancel := context.AfterFunc(ctx, func() {
		mu.Lock()
		cancelled = true
		w := written
		mu.Unlock()
		if w {
			c.Interrupt() //nolint:errcheck // a dead connection shows up in the read
		}
		close(sent)
		select {
		case <-waitDone:
		case <-time.After(c.opts.InterruptTimeout):
			c.conn.fail(fmt.Errorf("%w: no stop reply within %v of an interrupt", ErrClosed, c.opts.InterruptTimeout))
		}
	})
	defer func() {
		close(waitDone)
		if !stopCancel() {
			// The interrupt is (being) sent; make sure it is on the wire
			// before the next request, whose resync flushes its answer.
			<-sent
		}
	}()
	if len(prefix) > 0 {
		pkts := make([]string, 0, len(prefix)+1)
		for _, r := range prefix {
			pkts = append(pkts, r.pkt)
		}
		c.pending += len(prefix) + 1
		err = c.conn.writePackets(append(pkts, pkt))
	} else {
		c.pending++
		err = c.conn.writePacket([]byte(pkt))
	}
	mu.Lock()
	written = true
	late := cancelled
	mu.Unlock()
	if err != nil {
		return Stop{}, "", c.wrap(ctx, pkt, err)
	}
	if late {
		c.Interrupt() //nolint:errcheck
	}
	var prefixErr error
	for _, r := range prefix {
		p, rerr := c.readReply()
		if rerr != nil {
			return Stop{}, "", c.wrap(ctx, r.pkt, rerr)
		}
		c.pending--
		if e := r.done(okReply(r.pkt, p)); e != nil {
			if prefixErr == nil && r.insert {
				// The target runs without a breakpoint it should have:
				// stop it where it is.
				c.Interrupt() //nolint:errcheck
			}
			prefixErr = errors.Join(prefixErr, e)
		}
	}
	if prefixErr != nil {
		defer func() { err = errors.Join(prefixErr, err) }()
	}

	for {
		p, rerr := c.conn.readPacket()
		if rerr != nil {
			if ctx.Err() != nil {
				return Stop{}, "", fmt.Errorf("rsp: %s: %w (%w)", pkt, ctx.Err(), rerr)
			}
			return Stop{}, "", fmt.Errorf("rsp: %s: %w", pkt, rerr)
		}
		if isConsole(p) {
			c.console(p)
			continue
		}
		if string(p) == "OK" {
			continue // some stubs acknowledge vCont before the stop
		}
		c.pending--
		if e := replyError(pkt, p); e != nil {
			var re *Error
			if errors.As(e, &re) {
				re.Resume = true
			}
			if dir == Reverse && c.g.dialect == DialectQEMU {
				if re != nil && re.Code == 0x14 {
					st := Stop{Core: -1, Direction: Reverse, AtHistoryStart: true, Raw: string(p)}
					return st, string(p), fmt.Errorf("%w: %w", ErrHistoryStart, e)
				}
			}
			return Stop{}, string(p), e
		}
		st, perr := ParseStop(string(p))
		if perr != nil {
			return Stop{}, string(p), c.wrap(ctx, pkt, perr)
		}
		st.Direction = dir
		st.Interrupted = c.interrupted.Load()
		if c.staleSIGINT(st) {
			// The SIGINT an earlier interrupt left pending (interrupt.go):
			// not the program's; resume as asked, without a signal.
			if ctx.Err() != nil {
				st.Interrupted = true // ours: never delivered to the program
				c.record(st)
				return st, "", fmt.Errorf("rsp: %s: %w", pkt, ctx.Err())
			}
			pkt = withoutSignal(pkt)
			c.log.Debug("rsp: stale SIGINT from an earlier interrupt resumed without the signal", "packet", pkt)
			c.pending++
			if err := c.conn.writePacket([]byte(pkt)); err != nil {
				return Stop{}, "", c.wrap(ctx, pkt, err)
			}
			continue
		}
		consume := st.Interrupted && c.noteInterruptRace(st)
		if st.ReplayLog == "begin" && dir == Reverse {
			st.AtHistoryStart = true
		}
		if c.g.dialect == DialectRR && st.Kind == StopSignal {
			if dir == Reverse && st.Signal == Sig0 && !st.Interrupted {
				st.AtHistoryStart = true
			}
			if dir == Forward && st.Signal == SIGKILL {
				st.AboutToExit = true
			}
		}
		c.record(st)
		if consume {
			st = c.consumeSIGINT(ctx, st)
		}
		if ctx.Err() != nil {
			return st, "", fmt.Errorf("rsp: %s: %w", pkt, ctx.Err())
		}
		return st, "", nil
	}
}

// Continue resumes all threads forward until the next stop. If the thread
// that last stopped sits on a breakpoint from the client's table, it is
// first stepped over it (remove, single-step, re-insert) unless
// Options.NoStepOver is set.
func (c *Client) Continue(ctx context.Context) (Stop, error) {
	if st, stepped, err := c.stepOver(ctx); err != nil || (stepped && !plainStep(st)) {
		return st, err
	}
	st, _, err := c.resume(ctx, c.contPacket(), Forward, false)
	return c.goOn(ctx, st, err)
}

// ContinuePast is Continue for a caller that knows no thread reaches the
// stopped thread's pc before the next stop (Session.Finish proves it for
// a function that returns without coming back there): the breakpoints at
// that pc stay out of the server for the whole continue, owed until the
// next resume, instead of out for a single-step only. The step off them
// and the continue become one resume: one round trip instead of two.
func (c *Client) ContinuePast(ctx context.Context) (Stop, error) {
	st, over, err := c.stepOverBy(ctx, c.contPacket())
	if !over && err == nil {
		st, _, err = c.resume(ctx, c.contPacket(), Forward, false)
	}
	return c.goOn(ctx, st, err)
}

// ContinueWithSignal resumes all threads, delivering sig (GDB numbering)
// to thread t, e.g. to let a SIGSEGV kill the process.
func (c *Client) ContinueWithSignal(ctx context.Context, t Thread, sig Signal) (Stop, error) {
	sigHex := fmt.Sprintf("%02x", int(sig)&0xff)
	if c.vcont["C"] {
		st, _, err := c.resume(ctx, "vCont;C"+sigHex+":"+c.encThread(t)+";c", Forward, false)
		return c.goOn(ctx, st, err)
	}
	if err := c.selectThread(ctx, 'c', t); err != nil {
		return Stop{}, err
	}
	st, _, err := c.resume(ctx, "C"+sigHex, Forward, false)
	return c.goOn(ctx, st, err)
}

// StepWithSignal single-steps thread t delivering sig (GDB numbering) to
// it, as GDB resumes a thread stopped by a signal it passes when asked
// to step: where the program handles sig, Linux reports the step on the
// handler's first instruction (the step goes into the handler); else it
// is an ordinary step. Where t sits on a breakpoint, the breakpoint is
// out for the step, as for Step.
func (c *Client) StepWithSignal(ctx context.Context, t Thread, sig Signal) (Stop, error) {
	if t == (Thread{}) {
		t = c.lastStop.Thread
	}
	sigHex := fmt.Sprintf("%02x", int(sig)&0xff)
	pkt := "S" + sigHex
	if c.vcont["S"] {
		pkt = "vCont;S" + sigHex + ":" + c.encThread(t)
	} else if err := c.selectThread(ctx, 'c', t); err != nil {
		return Stop{}, err
	}
	if t == c.lastStop.Thread {
		if st, stepped, err := c.stepOverBy(ctx, pkt); stepped || err != nil {
			return st, err
		}
	}
	st, _, err := c.resume(ctx, pkt, Forward, false)
	return st, err
}

func (c *Client) contPacket() string {
	if c.vcont["c"] {
		return "vCont;c"
	}
	return "c"
}

// Step single-steps thread t (AnyThread: the thread that last stopped).
// On rr the stop may be reported for a different thread.
func (c *Client) Step(ctx context.Context, t Thread) (Stop, error) {
	return c.stepThread(ctx, t, false)
}

// StepOthersRunning single-steps thread t while the other threads run
// (vCont;s:T;c), as GDB steps with scheduler-locking off: a thread
// waiting for another (a spin-wait) is not left waiting for ever, and
// another thread's breakpoint is hit as it would be. Where t sits on a
// breakpoint, the step over it runs t alone, as Step does (another
// thread could pass the breakpoint while it is out). A server without
// vCont continue steps t alone.
func (c *Client) StepOthersRunning(ctx context.Context, t Thread) (Stop, error) {
	return c.stepThread(ctx, t, true)
}

// stepThread is Step, with the other threads running where others is
// set and the server can.
func (c *Client) stepThread(ctx context.Context, t Thread, others bool) (Stop, error) {
	if t == (Thread{}) {
		t = c.lastStop.Thread
	}
	if t == c.lastStop.Thread {
		// If t sits on a breakpoint, the step-over is the step.
		if st, stepped, err := c.stepOver(ctx); stepped || err != nil {
			return st, err
		}
	}
	if others && c.vcont["s"] && c.vcont["c"] && t != (Thread{}) {
		st, _, err := c.resume(ctx, "vCont;s:"+c.encThread(t)+";c", Forward, false)
		return st, err
	}
	return c.step(ctx, t)
}

func (c *Client) step(ctx context.Context, t Thread) (Stop, error) {
	return c.stepAfter(ctx, nil, t)
}

// stepAfter single-steps thread t with the breakpoints zs taken out of the
// server for the step (a step over them; they are owed afterwards).
func (c *Client) stepAfter(ctx context.Context, zs []Breakpoint, t Thread) (Stop, error) {
	if c.vcont["s"] {
		pkt := "vCont;s"
		if t != (Thread{}) {
			pkt += ":" + c.encThread(t)
		}
		st, _, err := c.resumeAfter(ctx, zs, pkt, Forward, false)
		return st, err
	}
	if t != (Thread{}) {
		if err := c.selectThread(ctx, 'c', t); err != nil {
			return Stop{}, err
		}
	}
	st, _, err := c.resumeAfter(ctx, zs, "s", Forward, false)
	return st, err
}

// RangeStepOthersRunning is RangeStep with the other threads running
// (vCont;r…:T;c), as StepOthersRunning is Step.
func (c *Client) RangeStepOthersRunning(ctx context.Context, t Thread, lo, hi uint64) (Stop, error) {
	if t == (Thread{}) {
		t = c.lastStop.Thread
	}
	if !c.vcont["c"] {
		return c.RangeStep(ctx, t, lo, hi)
	}
	if t == c.lastStop.Thread {
		// Off a breakpoint at the pc by one step of t alone (another
		// thread could pass the breakpoint while it is out), then the
		// rest of the range with the breakpoint back in and the others
		// running: a range step with it out would run t alone to the
		// range's end, for ever where t waits for another thread.
		if st, stepped, err := c.stepOver(ctx); err != nil || stepped && !plainStep(st) {
			return st, err
		} else if stepped {
			pc, err := c.readPC(ctx, st)
			if err != nil || pc < lo || pc >= hi {
				return st, err
			}
			lo = pc
		}
	}
	pkt := fmt.Sprintf("vCont;r%x,%x:%s;c", lo, hi, c.encThread(t))
	if !c.vcont["r"] {
		return Stop{}, refused(pkt, "the server's vCont? lists no range stepping (r)")
	}
	st, _, err := c.resume(ctx, pkt, Forward, false)
	return st, err
}

// RangeStep runs thread t (AnyThread: the thread that last stopped)
// while its pc stays in [lo, hi): gdbserver's range stepping, vCont;r.
// Where t sits on a breakpoint of the client's table, that breakpoint is
// out of the server for the run, as Step takes it out for one
// instruction, and goes back with the next resume: one resume where a
// step over and a range step would be two. That is done where t is at
// lo, and the caller must know that no instruction in [lo, hi) can send
// t back to lo, where the breakpoint would have been hit.
func (c *Client) RangeStep(ctx context.Context, t Thread, lo, hi uint64) (Stop, error) {
	if t == (Thread{}) {
		t = c.lastStop.Thread
	}
	pkt := fmt.Sprintf("vCont;r%x,%x:%s", lo, hi, c.encThread(t))
	if !c.vcont["r"] {
		return Stop{}, refused(pkt, "the server's vCont? lists no range stepping (r)")
	}
	if t == c.lastStop.Thread {
		if pc, err := c.readPC(ctx, c.lastStop); err == nil && pc == lo {
			if st, over, err := c.stepOverBy(ctx, pkt); over || err != nil {
				return st, err
			}
		}
	}
	st, _, err := c.resume(ctx, pkt, Forward, false)
	return st, err
}

// stepOver does the step-over-breakpoint dance when the stopped thread's pc
// holds a software or hardware breakpoint from the table. stepped reports
// whether it single-stepped; st is that step's stop.
func (c *Client) stepOver(ctx context.Context) (Stop, bool, error) {
	return c.stepOverBy(ctx, "")
}

// stepOverBy is stepOver resuming the thread with pkt (a range step of
// it) instead of a single-step; over reports whether it resumed.
func (c *Client) stepOverBy(ctx context.Context, pkt string) (st Stop, over bool, err error) {
	last := c.lastStop
	if c.opts.NoStepOver || len(c.bpOrder) == 0 || last.Kind != StopSignal || c.g.exited || last.Thread == (Thread{}) {
		return Stop{}, false, nil
	}
	pc, err := c.readPC(ctx, last)
	if err != nil {
		return Stop{}, false, nil // cannot tell; resume normally
	}
	var hits []Breakpoint
	for _, b := range c.bpOrder {
		if (b.Type == SoftwareBreakpoint || b.Type == HardwareBreakpoint) && b.Addr == pc {
			hits = append(hits, b)
		}
	}
	if len(hits) == 0 || c.resumeFlagPasses(last, hits) {
		return Stop{}, false, nil
	}
	sp0, spErr := uint64(0), error(nil)
	if len(c.unfinished) > 0 {
		sp0, spErr = c.readSP(ctx, last)
	}
	if pkt == "" {
		st, err = c.stepAfter(ctx, hits, last.Thread)
	} else {
		st, _, err = c.resumeAfter(ctx, hits, pkt, Forward, false)
	}
	if err != nil {
		return st, true, err
	}
	c.noteInterruptedStepOver(ctx, st, last.Thread, pc)
	if spErr == nil && len(c.unfinished) > 0 && st.Kind == StopSignal && (st.Signal == SIGTRAP || st.Signal == Sig0) {
		c.finishedStepOver(pc, sp0)
	}
	return st, true, nil
}

// plainStep reports whether st is an ordinary single-step completion, after
// which a continue may go on; anything else (signal, watchpoint, breakpoint,
// exit) is the answer to the continue.
func plainStep(st Stop) bool {
	return st.Kind == StopSignal && st.Signal == SIGTRAP && st.Watch == WatchNone && !st.SWBreak && !st.HWBreak
}

// readPC returns the pc of the thread that stopped, from expedited
// registers when present, else from a (cached) g.
func (c *Client) readPC(ctx context.Context, st Stop) (uint64, error) {
	return c.stopReg(ctx, st, c.pcReg, "pc")
}

// readSP is readPC for the stack pointer.
func (c *Client) readSP(ctx context.Context, st Stop) (uint64, error) {
	return c.stopReg(ctx, st, c.spReg, "stack pointer")
}

func (c *Client) stopReg(ctx context.Context, st Stop, name, what string) (uint64, error) {
	if name == "" {
		return 0, fmt.Errorf("no %s register in target description", what)
	}
	r, _ := c.tdesc.Lookup(name)
	if v, ok := st.Register(r); ok {
		return v, nil
	}
	g, err := c.ReadRegisters(ctx, st.Thread)
	if err != nil {
		return 0, err
	}
	return c.tdesc.Uint(g, name)
}

// ReverseContinue runs backward until a breakpoint, watchpoint or the start
// of history ("bc"). It requires ReverseContinue+ from qSupported. On rr it
// first sends Hc-1 (Hcp-1.-1), because rr filters bc stops by the continue
// thread, which it resets to the stopped thread after every forward stop.
// At the start of history the stop has AtHistoryStart set; on QEMU the
// error also matches ErrHistoryStart.
func (c *Client) ReverseContinue(ctx context.Context) (Stop, error) {
	if c.features["ReverseContinue"] != "+" {
		return Stop{}, refused("bc", "server does not advertise ReverseContinue+")
	}
	if c.g.exited {
		return Stop{}, fmt.Errorf("rsp: bc: %w", ErrExited)
	}
	if c.g.dialect == DialectRR {
		all := "-1"
		if c.multiprocess {
			all = "p-1.-1"
		}
		if err := c.cmd(ctx, "Hc"+all); err != nil {
			return Stop{}, err
		}
	}
	st, _, err := c.resume(ctx, "bc", Reverse, false)
	return st, err
}

// ReverseStep steps thread t one instruction backward ("Hc<t>" then "bs").
// AnyThread means the thread that last stopped.
func (c *Client) ReverseStep(ctx context.Context, t Thread) (Stop, error) {
	if c.features["ReverseStep"] != "+" {
		return Stop{}, refused("bs", "server does not advertise ReverseStep+")
	}
	if c.g.exited {
		return Stop{}, fmt.Errorf("rsp: bs: %w", ErrExited)
	}
	if t == (Thread{}) {
		t = c.lastStop.Thread
	}
	if t != (Thread{}) {
		if err := c.cmd(ctx, "Hc"+c.encThread(t)); err != nil {
			return Stop{}, err
		}
	}
	st, _, err := c.resume(ctx, "bs", Reverse, false)
	return st, err
}

// Resume sends an arbitrary vCont action list (e.g. "vCont;s:p1.2;c") and
// waits for the stop. No step-over dance is done.
func (c *Client) Resume(ctx context.Context, vcont string) (Stop, error) {
	st, _, err := c.resume(ctx, vcont, directionOf(vcont), false)
	return st, err
}

// Restart is rr's vRun: where "" goes back to the restart point, "<N>"
// seeks to (the end of) event N, "c<N>" restores checkpoint N, "t<T>"
// seeks to tick T of the current thread. It then sends the throw-away
// resume rr needs (the first resume after vRun returns T00 without moving)
// and re-inserts every breakpoint and watchpoint of the client's table,
// because vRun clears them on the server. A re-insertion failure is
// returned as an error together with the stop.
func (c *Client) Restart(ctx context.Context, where string) (Stop, error) {
	if c.g.dialect != DialectRR {
		return Stop{}, refused("vRun", "Restart is rr's vRun seek; dialect is "+c.g.dialect.String())
	}
	pkt := "vRun;"
	if where != "" {
		pkt += ";" + hex.EncodeToString([]byte(where))
	}
	st, _, err := c.resume(ctx, pkt, Forward, true)
	if err != nil {
		return st, err
	}
	c.g.exited = false
	dummy, _, err := c.resume(ctx, c.contPacket(), Forward, true)
	if err != nil {
		return st, fmt.Errorf("rsp: resume after vRun: %w", err)
	}
	if dummy.Kind != StopSignal || dummy.Signal != Sig0 {
		c.log.Warn("rsp: unexpected stop after vRun", "stop", dummy.Raw)
	}
	// The vRun reply repeats the last stop signal; it says nothing about
	// the ends of history.
	st.AboutToExit, st.AtHistoryStart = false, false
	c.record(st)
	c.hgValid = false
	return st, c.reinsertBreakpoints(ctx)
}

// SeekEvent is Restart(ctx, "<event>").
func (c *Client) SeekEvent(ctx context.Context, event int64) (Stop, error) {
	return c.Restart(ctx, strconv.FormatInt(event, 10))
}

// SeekTicks is Restart(ctx, "t<ticks>"): seek to a tick count of the
// current thread (gdb's seek-ticks macro).
func (c *Client) SeekTicks(ctx context.Context, ticks int64) (Stop, error) {
	return c.Restart(ctx, "t"+strconv.FormatInt(ticks, 10))
}

// RestoreCheckpoint is Restart(ctx, "c<id>").
func (c *Client) RestoreCheckpoint(ctx context.Context, id int) (Stop, error) {
	return c.Restart(ctx, "c"+strconv.Itoa(id))
}

// Detach detaches from the debuggee ("D;<pid>" when multiprocess ids are in
// use, which gdbserver and QEMU require; rr accepts it) and closes the
// connection. rr exits (unless -k), gdbserver --once exits and lets the
// process run.
func (c *Client) Detach(ctx context.Context) error {
	pkt := "D"
	if c.multiprocess && c.pid > 0 {
		pkt = "D;" + hexID(c.pid)
	}
	for _, b := range c.doomed { // the program runs on without them
		c.cmd(ctx, b.packet('z')) //nolint:errcheck // detaching anyway
	}
	c.doomed = nil
	err := c.cmd(ctx, pkt)
	c.Close()
	if err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	return nil
}

// Kill kills the debuggee ("k") and closes the connection. The reply is
// optional in the protocol: rr exits without answering and gdbserver --once
// exits too, so EOF counts as success, as does any reply. Without a
// deadline in ctx the wait is bounded by 5 seconds.
func (c *Client) Kill(ctx context.Context) error {
	if err := c.conn.deadErr(); err != nil {
		return fmt.Errorf("rsp: kill: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	disarm := c.arm(ctx)
	defer disarm()
	defer c.Close()
	if err := c.resync(); err != nil {
		if errors.Is(err, ErrClosed) {
			return nil
		}
		return c.wrap(ctx, "k", err)
	}
	if err := c.conn.writePacket([]byte("k")); err != nil {
		if errors.Is(err, ErrClosed) && !isTimeout(err) && ctx.Err() == nil {
			return nil // EOF instead of an ack: the server is gone, as wanted
		}
		return c.wrap(ctx, "k", err)
	}
	_, err := c.conn.readPacket()
	if err == nil || (errors.Is(err, ErrClosed) && ctx.Err() == nil) {
		return nil
	}
	return c.wrap(ctx, "k", err)
}
