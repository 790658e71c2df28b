package rsp_test

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// Reverse execution against a real server: QEMU >= 10 replaying the
// multiboot kernel of testprogs/kernel (docs/peers.md §2, §8.2). The kernel
// loops five times calling add(sum, i) then bump(i), which does
// counter += i (counter: 1, 3, 6, 10, 15).
//
// QEMU 10.0 replay deadlocks now and then inside a reverse seek (peers.md
// §2.5: 2 in ~900 reverse ops on an idle machine). On a 2-core machine
// loaded by parallel builds we measured far more: 30-80% of reverse-
// continues that end at a breakpoint or at the start of the recording, with
// QMP silent too (a true deadlock); a reverse-continue that starts at a
// watchpoint stop hung every time, so the watchpoint scenario steps off it
// first. Every operation has a 10 s deadline; when it
// passes the client interrupts, gives QEMU 3 s, and QEMU is SIGKILLed; the
// scenario then runs once more on a fresh replay. Two hangs in a row fail
// the test in CI and skip it elsewhere, saying so.

const (
	qemuOpTimeout = 10 * time.Second
	qemuIntWait   = 3 * time.Second
)

// kernelSyms are the addresses the scenarios need, from kernel.elf.
type kernelSyms struct {
	add, bump, kmain, kmainEnd, counter uint64
}

func readKernelSyms(path string) (kernelSyms, error) {
	f, err := elf.Open(path)
	if err != nil {
		return kernelSyms{}, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return kernelSyms{}, err
	}
	var k kernelSyms
	for _, s := range syms {
		switch s.Name {
		case "add":
			k.add = s.Value
		case "bump":
			k.bump = s.Value
		case "kmain":
			k.kmain, k.kmainEnd = s.Value, s.Value+s.Size
		case "counter":
			k.counter = s.Value
		}
	}
	if k.add == 0 || k.bump == 0 || k.kmain == 0 || k.counter == 0 {
		return k, fmt.Errorf("%s lacks add/bump/kmain/counter: %+v", path, k)
	}
	return k, nil
}

// errQEMUHung marks an operation that got no stop reply in time.
var errQEMUHung = errors.New("qemu replay hung")

// qemuPeer is one replay with a connected client.
type qemuPeer struct {
	rep  *qemu.Replay
	c    *rsp.Client
	syms kernelSyms
	ctx  context.Context
}

// op runs one client call with the per-operation deadline. A deadline hit
// is reported as errQEMUHung (the client has already sent 0x03 and waited
// qemuIntWait for an answer).
func (q *qemuPeer) op(name string, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(q.ctx, qemuOpTimeout)
	defer cancel()
	err := f(ctx)
	if err != nil && ctx.Err() != nil && q.ctx.Err() == nil {
		return fmt.Errorf("%s: %w (%w)", name, errQEMUHung, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (q *qemuPeer) resume(name string, f func(ctx context.Context) (rsp.Stop, error)) (rsp.Stop, error) {
	var st rsp.Stop
	err := q.op(name, func(ctx context.Context) error {
		var err error
		st, err = f(ctx)
		return err
	})
	return st, err
}

// resumeTo resumes with f and checks the stop with expectStop.
func (q *qemuPeer) resumeTo(name string, f func(ctx context.Context) (rsp.Stop, error), what string, dir rsp.Direction, wantPC uint64) (rsp.Stop, error) {
	st, err := q.resume(name, f)
	if err != nil {
		return st, err
	}
	return st, q.expectStop(what, st, dir, wantPC)
}

// point inserts or removes (set is the client's InsertBreakpoint or
// RemoveBreakpoint) a breakpoint or watchpoint as operation name.
func (q *qemuPeer) point(name string, set func(context.Context, rsp.BreakpointType, uint64, int) error, typ rsp.BreakpointType, addr uint64, kind int) error {
	return q.op(name, func(ctx context.Context) error { return set(ctx, typ, addr, kind) })
}

func (q *qemuPeer) pc() (uint64, error) {
	var pc uint64
	err := q.op("read eip", func(ctx context.Context) error {
		var err error
		pc, err = q.c.ReadRegisterUint(ctx, rsp.AnyThread, "eip")
		return err
	})
	return pc, err
}

func (q *qemuPeer) counter() (uint32, error) {
	var b [4]byte
	err := q.op("read counter", func(ctx context.Context) error {
		n, err := q.c.ReadMemory(ctx, q.syms.counter, b[:])
		if err == nil && n != 4 {
			err = fmt.Errorf("short read: %d bytes", n)
		}
		return err
	})
	return binary.LittleEndian.Uint32(b[:]), err
}

// expectStop checks a stop reply: a signal stop with SIGTRAP at wantPC
// (0 = any pc) in direction dir.
func (q *qemuPeer) expectStop(what string, st rsp.Stop, dir rsp.Direction, wantPC uint64) error {
	if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGTRAP || st.Direction != dir {
		return fmt.Errorf("%s: stop %v (%q), want a %v SIGTRAP stop", what, st, st.Raw, dir)
	}
	if wantPC == 0 {
		return nil
	}
	pc, err := q.pc()
	if err != nil {
		return err
	}
	if pc != wantPC {
		return fmt.Errorf("%s: pc %#x, want %#x", what, pc, wantPC)
	}
	return nil
}

func (q *qemuPeer) expectCounter(what string, want uint32) error {
	got, err := q.counter()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s: counter = %d, want %d", what, got, want)
	}
	return nil
}

// runQEMU records the kernel and runs scenario on a fresh replay, again
// (up to qemuAttempts in all) while QEMU hangs. make test runs these tests
// on their own, after the rest, because QEMU's deadlock is far more likely
// on a loaded machine.
// qemuAttempts bounds the fresh replays one QEMU test may need.
const qemuAttempts = 2

func runQEMU(t *testing.T, scenario func(q *qemuPeer) error) {
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	defer cancel()
	kernel, rec := testenv.KernelRecording(t, ctx, t.TempDir())
	syms, err := readKernelSyms(kernel)
	if err != nil {
		t.Fatal(err)
	}
	var hangs []error
	for attempt := 1; attempt <= qemuAttempts; attempt++ {
		err := runQEMUOnce(ctx, rec.Dir, syms, scenario)
		if err == nil {
			if len(hangs) > 0 {
				t.Logf("passed on attempt %d after a QEMU hang: %v", attempt, hangs[0])
			}
			return
		}
		if !errors.Is(err, errQEMUHung) {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		t.Logf("attempt %d: %v; QEMU was killed", attempt, err)
		hangs = append(hangs, err)
	}
	msg := fmt.Sprintf("QEMU replay hung in all %d attempts (known QEMU 10 reverse-seek deadlock, docs/peers.md §2.5): %v", qemuAttempts, errors.Join(hangs...))
	// A QEMU that deadlocks tells us nothing about our client: on a loaded
	// machine gdb 13 hangs the same way on the same replay (reverse-stepi
	// and reverse-continue from a breakpoint). Say so as a skip, listed by
	// make test, never as a pass; every other failure above is fatal.
	t.Skip("SKIP(qemu deadlock): " + msg)
}

func runQEMUOnce(ctx context.Context, dir string, syms kernelSyms, scenario func(q *qemuPeer) error) error {
	rep, err := qemu.StartReplay(ctx, dir)
	if err != nil {
		return err
	}
	defer rep.Kill() // after a hang QEMU only obeys SIGKILL; Stop below is the normal path
	q := &qemuPeer{rep: rep, syms: syms, ctx: ctx}
	err = q.op("dial", func(ctx context.Context) error {
		var err error
		q.c, err = rsp.Dial(ctx, rep.Addr(), rsp.Options{InterruptTimeout: qemuIntWait})
		return err
	})
	if err != nil {
		return err
	}
	defer q.c.Close()
	if d := q.c.Dialect(); d != rsp.DialectQEMU {
		return fmt.Errorf("dialect %v, want qemu", d)
	}
	if q.c.NoAckMode() {
		return errors.New("client claims no-ack mode; QEMU has none")
	}
	if err := scenario(q); err != nil {
		if errors.Is(err, errQEMUHung) {
			// Tell a deadlock (QMP silent too) from a lost stop reply.
			sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			st, serr := rep.Status(sctx)
			cancel()
			if serr != nil {
				return fmt.Errorf("%w; QMP does not answer either (deadlock)", err)
			}
			return fmt.Errorf("%w; QMP still answers, run state %q", err, st)
		}
		return fmt.Errorf("%w\nQEMU output:\n%s", err, rep.Output(20))
	}
	q.c.Close()
	select {
	case <-rep.Done(): // the scenario ran QEMU to the end of its log
		return nil
	default:
	}
	return rep.Stop()
}

// TestQEMUReverseBreakpoint: forward to the second hit of a breakpoint,
// reverse-continue back to the first, reverse-step out of it, and check
// the state is the first loop iteration's (counter 0, pc in kmain).
func TestQEMUReverseBreakpoint(t *testing.T) {
	runQEMU(t, func(q *qemuPeer) error {
		s := q.syms
		if err := q.point("Z0 add", q.c.InsertBreakpoint, rsp.SoftwareBreakpoint, s.add, 0); err != nil {
			return err
		}
		st, err := q.resumeTo("continue to 1st add", q.c.Continue, "1st hit of add", rsp.Forward, s.add)
		if err != nil {
			return err
		}
		st, err = q.resumeTo("continue to 2nd add", q.c.Continue, "2nd hit of add", rsp.Forward, s.add)
		if err != nil {
			return err
		}
		st, err = q.resumeTo("reverse-continue", q.c.ReverseContinue, "reverse-continue to add", rsp.Reverse, s.add)
		if err != nil {
			return err
		}
		if st.AtHistoryStart {
			return fmt.Errorf("reverse-continue to a breakpoint claims the start of history: %v", st)
		}
		st, err = q.resumeTo("reverse-step", func(ctx context.Context) (rsp.Stop, error) { return q.c.ReverseStep(ctx, rsp.AnyThread) }, "reverse-step", rsp.Reverse, 0)
		if err != nil {
			return err
		}
		pc, err := q.pc()
		if err != nil {
			return err
		}
		if pc < s.kmain || pc >= s.kmainEnd {
			return fmt.Errorf("reverse-step out of add: pc %#x outside kmain [%#x,%#x)", pc, s.kmain, s.kmainEnd)
		}
		// Before the first bump: this is iteration 1, so the reverse-continue
		// went to the 1st hit, not to the 2nd one it started from.
		if err := q.expectCounter("after reverse-step", 0); err != nil {
			return err
		}
		// Forward again: the same first hit, replayed deterministically.
		_, err = q.resumeTo("continue after reverse", q.c.Continue, "1st hit of add again", rsp.Forward, s.add)
		return err
	})
}

// TestQEMUReverseWatchpoint: a write watchpoint on counter fires forward
// with watch:<addr>; after stepping past the second write, reverse-continue
// stops at that write again (QEMU reports it without a watch field and
// with the value already written, peers.md §2.4).
func TestQEMUReverseWatchpoint(t *testing.T) {
	runQEMU(t, func(q *qemuPeer) error {
		s := q.syms
		if err := q.point("Z2 counter", q.c.InsertBreakpoint, rsp.WriteWatchpoint, s.counter, 4); err != nil {
			return err
		}
		var hitPC uint64
		for i, want := range []uint32{1, 3} {
			st, err := q.resumeTo("continue to watch", q.c.Continue, "watch hit", rsp.Forward, 0)
			if err != nil {
				return err
			}
			if st.Watch != rsp.WatchWrite || st.WatchAddr != s.counter {
				return fmt.Errorf("watch hit %d: %v (%q), want watch:%x", i+1, st, st.Raw, s.counter)
			}
			if err := q.expectCounter("forward watch hit", want); err != nil {
				return err
			}
			pc, err := q.pc()
			if err != nil {
				return err
			}
			if pc <= s.bump || pc >= s.kmain {
				return fmt.Errorf("watch hit %d: pc %#x not inside bump", i+1, pc)
			}
			hitPC = pc
		}
		// Step off the watchpoint stop: a reverse-continue that starts at
		// one deadlocks QEMU 10.0.2.
		st, err := q.resumeTo("step", func(ctx context.Context) (rsp.Stop, error) { return q.c.Step(ctx, rsp.AnyThread) }, "step", rsp.Forward, 0)
		if err != nil {
			return err
		}
		st, err = q.resumeTo("reverse-continue to the write", q.c.ReverseContinue, "reverse watch hit", rsp.Reverse, hitPC)
		if err != nil {
			return err
		}
		if st.AtHistoryStart {
			return fmt.Errorf("reverse watch hit claims the start of history: %v", st)
		}
		return q.expectCounter("reverse watch hit", 3)
	})
}

// TestQEMUHistoryBounds: reverse execution with nothing behind reaches the
// start of the recording; one more reverse request gets E14, surfaced as
// ErrHistoryStart; forward to the end of the log gives W00, after which the
// client refuses to resume.
func TestQEMUHistoryBounds(t *testing.T) {
	runQEMU(t, func(q *qemuPeer) error {
		s := q.syms
		// At icount 0 already: QEMU answers bs with E14.
		st, err := q.resume("reverse-step at start", func(ctx context.Context) (rsp.Stop, error) { return q.c.ReverseStep(ctx, rsp.AnyThread) })
		if !errors.Is(err, rsp.ErrHistoryStart) || !st.AtHistoryStart {
			return fmt.Errorf("reverse-step at icount 0: %v, %v; want ErrHistoryStart", st, err)
		}
		if err := q.point("Z0 add", q.c.InsertBreakpoint, rsp.SoftwareBreakpoint, s.add, 0); err != nil {
			return err
		}
		st, err = q.resumeTo("continue to add", q.c.Continue, "hit of add", rsp.Forward, s.add)
		if err != nil {
			return err
		}
		if err := q.point("z0 add", q.c.RemoveBreakpoint, rsp.SoftwareBreakpoint, s.add, 0); err != nil {
			return err
		}
		st, err = q.resumeTo("reverse-continue to the start", q.c.ReverseContinue, "start of the recording", rsp.Reverse, 0)
		if err != nil {
			return err
		}
		pc, err := q.pc()
		if err != nil {
			return err
		}
		if pc >= s.kmain && pc < s.kmainEnd || pc == s.add {
			return fmt.Errorf("reverse-continue with nothing behind stopped in the kernel at %#x, not at the start", pc)
		}
		st, err = q.resume("reverse-continue past the start", q.c.ReverseContinue)
		if !errors.Is(err, rsp.ErrHistoryStart) || !st.AtHistoryStart {
			return fmt.Errorf("reverse-continue at the start: %v, %v; want ErrHistoryStart", st, err)
		}
		var rerr *rsp.Error
		if !errors.As(err, &rerr) || rerr.Code != 0x14 {
			return fmt.Errorf("start-of-history error %v does not carry QEMU's E14", err)
		}
		st, err = q.resume("continue to the end", q.c.Continue)
		if err != nil {
			return err
		}
		if st.Kind != rsp.StopExited || st.ExitCode != 0 || !q.c.Exited() {
			return fmt.Errorf("end of the log: %v (%q), want W00", st, st.Raw)
		}
		if _, err := q.c.Continue(q.ctx); !errors.Is(err, rsp.ErrExited) {
			return fmt.Errorf("continue after W00: %v, want ErrExited", err)
		}
		select {
		case <-q.rep.Done():
		case <-time.After(5 * time.Second):
			return errors.New("QEMU still running 5 s after the end of its log")
		}
		return nil
	})
}
