package rsp_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

func stubCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHandshakeRR(t *testing.T) {
	var log bytes.Buffer
	c, s := dialStub(t, "rr", rsp.Options{PacketLog: &log}, nil)
	if c.Dialect() != rsp.DialectRR || !c.NoAckMode() || !c.Multiprocess() {
		t.Errorf("dialect %v noack %v multiprocess %v", c.Dialect(), c.NoAckMode(), c.Multiprocess())
	}
	if c.PacketSize() != 1<<20 {
		t.Errorf("PacketSize = %#x, want 0x100000", c.PacketSize())
	}
	// The order matters: ? before target.xml (gdbserver asserts otherwise),
	// and only annexes that target.xml includes.
	want := []string{
		"qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386",
		"QStartNoAckMode", "vCont?", "?",
		"qXfer:features:read:target.xml:0,ffff0",
		"qXfer:features:read:64bit-core.xml:0,ffff0",
		"qXfer:features:read:64bit-linux.xml:0,ffff0",
	}
	if got := s.requests(); !slices.Equal(got, want) {
		t.Errorf("handshake requests:\n got %q\nwant %q", got, want)
	}
	// No acks after no-ack mode: the only '+' are for qSupported and the OK.
	if s.acksIn != 2 {
		t.Errorf("client sent %d acks, want 2 (qSupported reply, QStartNoAckMode OK)", s.acksIn)
	}
	td := c.Target()
	for name, want := range map[string][2]int{"rax": {0, 0}, "rsp": {7, 56}, "rip": {16, 128}, "eflags": {17, 136}, "st0": {18, 140}, "orig_rax": {57, 150}, "fs_base": {58, 158}} {
		r, ok := td.Lookup(name)
		if !ok || r.Regnum != want[0] || r.Offset != want[1] {
			t.Errorf("%s = %+v, want regnum %d offset %d", name, r, want[0], want[1])
		}
	}
	ctx := stubCtx(t)
	rip, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "rip")
	if err != nil || rip != 0x401000 {
		t.Errorf("rip = %#x, %v", rip, err)
	}
	fs, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "fs_base")
	if err != nil || fs != 0x7ffff7d8a740 {
		t.Errorf("fs_base = %#x, %v", fs, err)
	}
	// One g served all three reads (and Hg was not needed: the stop selected the thread).
	n := 0
	for _, r := range s.requests() {
		if r == "g" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d g requests, want 1 (cache)", n)
	}
	if !strings.Contains(log.String(), "-> qSupported:") || !strings.Contains(log.String(), "<- T00thread:p3e8.3e8;") {
		t.Errorf("packet log:\n%s", log.String())
	}
}

// TestPacketRing: a ring keeps the last packets of a client and makes of
// them, when read, the lines the packet log writes; long payloads are cut
// as there, and the total counts every packet.
func TestPacketRing(t *testing.T) {
	var log bytes.Buffer
	ring := rsp.NewPacketRing(4)
	c, _ := dialStub(t, "rr", rsp.Options{PacketLog: &log, PacketRing: ring}, func(req string) []string {
		if req == "m1000,1000" {
			return []string{strings.Repeat("ab", 0x1000)}
		}
		return nil
	})
	b := make([]byte, 0x1000)
	if _, err := c.ReadMemory(stubCtx(t), 0x1000, b); err != nil {
		t.Fatal(err)
	}
	written := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	lines, total := ring.Lines()
	if total != int64(len(written)) || len(lines) != 4 {
		t.Fatalf("ring: %d lines of %d packets; the log wrote %d", len(lines), total, len(written))
	}
	if want := written[len(written)-4:]; !slices.Equal(lines, want) {
		t.Errorf("ring lines:\n%q\nthe log's last four:\n%q", lines, want)
	}
	if last := lines[3]; !strings.Contains(last, "<- abab") || !strings.HasSuffix(last, "…(8192 bytes)") {
		t.Errorf("the reply's line is %.80q…%q, want it cut after 2048 bytes", last, last[max(0, len(last)-20):])
	}
}

// QEMU has no no-ack mode and retransmits until it sees '+': every reply
// must be acknowledged before the next request.
func TestAckModeQEMU(t *testing.T) {
	c, s := dialStub(t, "qemu", rsp.Options{}, func(req string) []string {
		if req == "m1000,4" {
			return []string{"01020304"}
		}
		return nil
	})
	if c.Dialect() != rsp.DialectQEMU || c.NoAckMode() {
		t.Fatalf("dialect %v, no-ack %v", c.Dialect(), c.NoAckMode())
	}
	var b [4]byte
	if _, err := c.ReadMemory(stubCtx(t), 0x1000, b[:]); err != nil || b != [4]byte{1, 2, 3, 4} {
		t.Fatalf("read: %x, %v", b, err)
	}
	if s.missing != 0 {
		t.Errorf("%d requests were sent before the previous reply was acked", s.missing)
	}
	if slices.Contains(s.requests(), "QStartNoAckMode") {
		t.Error("QStartNoAckMode sent although not offered")
	}
}

// A reply with a bad checksum is NAKed and the retransmission accepted;
// a NAK from the server makes the client retransmit its request.
func TestAckRetransmit(t *testing.T) {
	nak := true
	var s *pipeStub
	c, s0 := dialStub(t, "qemu", rsp.Options{}, func(req string) []string {
		switch req {
		case "m2000,2":
			// Bad checksum first; the stub sends the good stubFrame on '-'.
			s.resendOnNAK("abcd")
			return []string{stubRaw + "$abcd#00"}
		case "m3000,1":
			if nak {
				nak = false
				return []string{stubNAK}
			}
			return []string{"7f"}
		}
		return nil
	})
	s = s0
	ctx := stubCtx(t)
	var b [2]byte
	if _, err := c.ReadMemory(ctx, 0x2000, b[:]); err != nil || b != [2]byte{0xab, 0xcd} {
		t.Fatalf("read after bad checksum: %x, %v", b, err)
	}
	if s.naksIn != 1 {
		t.Errorf("client sent %d NAKs, want 1", s.naksIn)
	}
	var one [1]byte
	if _, err := c.ReadMemory(ctx, 0x3000, one[:]); err != nil || one[0] != 0x7f {
		t.Fatalf("read after server NAK: %x, %v", one, err)
	}
	if got := s.requests(); got[len(got)-1] != "m3000,1" || got[len(got)-2] != "m3000,1" {
		t.Errorf("request not retransmitted after '-': %q", got[len(got)-3:])
	}
}

func TestRLEEscapesNotificationsConsole(t *testing.T) {
	var console bytes.Buffer
	c, _ := dialStub(t, "gdbserver", rsp.Options{Console: &console}, func(req string) []string {
		switch req {
		case "m2000,8":
			return []string{"0*,"} // 16 '0' = 8 zero bytes
		case "qXfer:auxv:read::0,47ef":
			// binary with escaped '}' '#' '$' '*' bytes, then a notification
			// that must be skipped.
			return []string{stubRaw + "%" + stubFrame("Stop:T05")[1:], "l}]}\x03}\x04}\x0a\x00"}
		case "vCont;c":
			return []string{"O" + stubHex("hello\n"), "T05thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	var z [8]byte
	if _, err := c.ReadMemory(ctx, 0x2000, z[:]); err != nil || z != [8]byte{} {
		t.Fatalf("RLE read: %x, %v", z, err)
	}
	aux, err := c.Auxv(ctx)
	if err != nil || !bytes.Equal(aux, []byte{'}', '#', '$', '*', 0}) {
		t.Fatalf("escaped auxv = %q, %v", aux, err)
	}
	st, err := c.Continue(ctx)
	if err != nil || st.Signal != rsp.SIGTRAP {
		t.Fatalf("continue: %v, %v", st, err)
	}
	if console.String() != "hello\n" {
		t.Errorf("console = %q", console.String())
	}
}

func TestGarbageAndDeadPeer(t *testing.T) {
	ctx := stubCtx(t)
	c, _ := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		switch req {
		case "m1,1":
			return []string{stubRaw + strings.Repeat("garbage!", 200)}
		}
		return nil
	})
	var b [1]byte
	_, err := c.ReadMemory(ctx, 1, b[:])
	var pe *rsp.ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("garbage: %v, want *ProtocolError", err)
	}
	if _, err := c.ReadMemory(ctx, 1, b[:]); !errors.Is(err, rsp.ErrClosed) {
		t.Errorf("after garbage: %v, want ErrClosed", err)
	}

	// A bad RLE count is a protocol error too, and never a panic.
	c2, _ := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		if req == "g" {
			return []string{"*\x01"}
		}
		return nil
	})
	if _, err := c2.ReadRegisters(ctx, rsp.AnyThread); !errors.As(err, &pe) {
		t.Errorf("bad RLE: %v, want *ProtocolError", err)
	}

	// The server dies in the middle of a resume.
	cli, s := newPipeStub(t, stubHandler("gdbserver", func(req string) []string {
		if req == "vCont;c" {
			return []string{stubRaw + "$T05thr"}
		}
		return nil
	}))
	c3, err := rsp.NewClient(ctx, cli, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for !slices.Contains(s.requests(), "vCont;c") {
			time.Sleep(time.Millisecond)
		}
		s.conn.Close()
	}()
	if _, err := c3.Continue(ctx); !errors.Is(err, rsp.ErrClosed) {
		t.Errorf("dead peer during continue: %v, want ErrClosed", err)
	}
	if _, err := c3.Threads(ctx); !errors.Is(err, rsp.ErrClosed) {
		t.Errorf("request on dead connection: %v, want ErrClosed", err)
	}
}

func TestEmptyAndErrorReplies(t *testing.T) {
	c, _ := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		switch {
		case req == "m0,1":
			return []string{"E0e"}
		case req == "c" || strings.HasPrefix(req, "vCont;c"):
			return []string{"E01"}
		case req == "s" || strings.HasPrefix(req, "vCont;s"):
			return []string{"E.resuming thread failed"}
		}
		return nil
	})
	ctx := stubCtx(t)
	var b [1]byte
	_, err := c.ReadMemory(ctx, 0, b[:])
	var e *rsp.Error
	if !errors.As(err, &e) || e.Code != 0x0e || !strings.HasPrefix(e.Packet, "m0,1") || e.Resume {
		t.Errorf("E0e: %v (Resume %v)", err, e != nil && e.Resume)
	}
	// An error in place of a stop reply says the target did not run.
	for _, tc := range []struct {
		name string
		op   func() (rsp.Stop, error)
		code int
	}{
		{"continue", func() (rsp.Stop, error) { return c.Continue(ctx) }, 1},
		{"step", func() (rsp.Stop, error) { return c.Step(ctx, rsp.Thread{Pid: 1, Tid: 1}) }, -1},
	} {
		_, err := tc.op()
		var re *rsp.Error
		if !errors.As(err, &re) || re.Code != tc.code || !re.Resume {
			t.Errorf("%s answered with an error: %v (%#v), want an *rsp.Error with Resume", tc.name, err, re)
		}
	}
	if _, err := c.ExecFile(ctx, 0); err == nil {
		t.Error("exec-file: want an error from the stub's empty reply")
	}
	if _, err := c.ReadXfer(ctx, "libraries-svr4", ""); !errors.Is(err, rsp.ErrUnsupported) {
		t.Errorf("empty reply: %v, want ErrUnsupported", err)
	}
}

// Cancelling a short request leaves its reply in flight; the next request
// must not get it.
func TestCancelShortRequestResync(t *testing.T) {
	release := make(chan struct{})
	c, _ := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		switch req {
		case "m1000,1":
			<-release // the reply comes late
			return []string{"11"}
		case "m2000,1":
			return []string{"22"}
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	var b [1]byte
	if _, err := c.ReadMemory(ctx, 0x1000, b[:]); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("late reply: %v, want deadline exceeded", err)
	}
	close(release)
	if _, err := c.ReadMemory(stubCtx(t), 0x2000, b[:]); err != nil || b[0] != 0x22 {
		t.Fatalf("next read = %x, %v; want 22 (the late 11 must be dropped)", b, err)
	}
}

// rr answers an interrupt that arrives after the target stopped with an
// extra T00 (rr-rsp.md §12.22); the client must not take it as the reply
// to its next request.
func TestStrayStopAfterInterrupt(t *testing.T) {
	stopped := true
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.9.0"}, func(req string) []string {
		switch req {
		case "\x03":
			if stopped {
				return []string{"T00thread:p3e8.3e8;"}
			}
		case "vCont;c":
			return []string{"T05thread:p3e8.3e8;swbreak:;"}
		case "qRRCmd:when:-1":
			return []string{stubHex("Completed event: 42\n")}
		}
		return nil
	})
	ctx := stubCtx(t)
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Interrupt(); err != nil { // too late: the target has stopped
		t.Fatal(err)
	}
	ev, err := c.When(ctx)
	if err != nil || ev != 42 {
		t.Fatalf("when = %d, %v; want 42", ev, err)
	}
	reqs := s.requests()
	if i := slices.Index(reqs, "\x03"); i < 0 || reqs[i+1] != "qC" {
		t.Errorf("no qC sync after the interrupt: %q", reqs)
	}
}

// Cancelling a resume sends 0x03, reads the stop and returns it with the
// context's error.
func TestCancelResumeInterrupts(t *testing.T) {
	c, s := dialStub(t, "rr", rsp.Options{}, func(req string) []string {
		switch req {
		case "vCont;c":
			return []string{} // runs until interrupted
		case "\x03":
			return []string{"T00thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	st, err := c.Continue(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if st.Signal != rsp.Sig0 || !st.Interrupted || st.AtHistoryStart {
		t.Errorf("stop = %+v", st)
	}
	if _, err := c.Threads(stubCtx(t)); err == nil {
		t.Error("stub has no qfThreadInfo; want ErrUnsupported")
	} else if !errors.Is(err, rsp.ErrUnsupported) {
		t.Errorf("after interrupted resume: %v", err)
	}
	_ = s
}

// A server that never answers an interrupt: the resume gives up after
// InterruptTimeout with ErrClosed instead of hanging.
func TestInterruptTimeout(t *testing.T) {
	c, _ := dialStub(t, "gdbserver", rsp.Options{InterruptTimeout: 50 * time.Millisecond}, func(req string) []string {
		if req == "vCont;c" {
			return []string{}
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Continue(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, rsp.ErrClosed) {
		t.Fatalf("err = %v, want deadline exceeded and ErrClosed", err)
	}
}

func TestReverseRR(t *testing.T) {
	var bsSeen int
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.9.0"}, func(req string) []string {
		switch req {
		case "bc":
			return []string{"T00thread:p3e8.3e8;replaylog:begin;"}
		case "bs":
			bsSeen++
			if bsSeen == 1 {
				return []string{"T05thread:p3e8.3e9;"}
			}
			return []string{"T00thread:p3e8.3e8;"} // rr <= 5.8: bare T00 at the start
		case "vCont;c":
			return []string{"T09thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	st, err := c.ReverseContinue(ctx)
	if err != nil || !st.AtHistoryStart || st.Direction != rsp.Reverse || st.ReplayLog != "begin" {
		t.Fatalf("bc = %+v, %v", st, err)
	}
	st, err = c.ReverseStep(ctx, rsp.Thread{Pid: 0x3e8, Tid: 0x3e9})
	if err != nil || st.AtHistoryStart || st.Thread.Tid != 0x3e9 {
		t.Fatalf("bs = %+v, %v", st, err)
	}
	st, err = c.ReverseStep(ctx, rsp.AnyThread)
	if err != nil || !st.AtHistoryStart {
		t.Fatalf("bs at start = %+v, %v", st, err)
	}
	st, err = c.Continue(ctx)
	if err != nil || !st.AboutToExit || st.Exited() {
		t.Fatalf("T09 = %+v, %v", st, err)
	}
	want := []string{"Hcp-1.-1", "bc", "Hcp3e8.3e9", "bs", "Hcp3e8.3e9", "bs", "vCont;c"}
	if got := s.requests()[7:]; !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
}

func TestRRExitThenOnlyRestart(t *testing.T) {
	runs := 0
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.6.0"}, func(req string) []string {
		switch req {
		case "vCont;c":
			runs++
			switch runs {
			case 1:
				return []string{"W00"}
			case 2:
				return []string{"T00thread:p3e8.3e8;"} // the no-op resume after vRun
			}
		case "vRun;;6331":
			return []string{"T05thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401100, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, 0x601000, 8); err != nil {
		t.Fatal(err)
	}
	st, err := c.Continue(ctx)
	if err != nil || st.Kind != rsp.StopExited || !c.Exited() {
		t.Fatalf("continue = %+v, %v", st, err)
	}
	for _, f := range []func() error{
		func() error { _, err := c.Continue(ctx); return err },
		func() error { _, err := c.Step(ctx, rsp.AnyThread); return err },
		func() error { _, err := c.ReverseContinue(ctx); return err },
		func() error { _, err := c.ReverseStep(ctx, rsp.AnyThread); return err },
		func() error { _, err := c.Exchange(ctx, "bc", true); return err },
	} {
		if err := f(); !errors.Is(err, rsp.ErrExited) && !errors.Is(err, rsp.ErrRefused) {
			t.Errorf("resume after W00: %v, want ErrExited/ErrRefused", err)
		}
	}
	n := len(s.requests())
	st, err = c.RestoreCheckpoint(ctx, 1)
	if err != nil || st.Signal != rsp.SIGTRAP || c.Exited() {
		t.Fatalf("restore = %+v, %v", st, err)
	}
	want := []string{"vRun;;6331", "vCont;c", "Z0,401100,1", "Z2,601000,8"}
	if got := s.requests()[n:]; !slices.Equal(got, want) {
		t.Errorf("restart requests:\n got %q\nwant %q", got, want)
	}
}

func TestRRCmdFormats(t *testing.T) {
	for _, tc := range []struct {
		version string
		reply   map[string]string
		want    []string
	}{
		{"5.9.0", map[string]string{"qRRCmd:when:-1": "Completed event: 100\n"}, []string{"qRRCmd:when:-1"}},
		{"5.6.0", map[string]string{"qRRCmd:" + stubHex("when"): "Current event: 101\n"}, []string{"qRRCmd:7768656e"}},
		// No version: probe with the new format; old rr says "not found".
		{"", map[string]string{"qRRCmd:when:-1": "Command '' not found.\n", "qRRCmd:" + stubHex("when"): "Current event: 101\n"},
			[]string{"qRRCmd:when:-1", "qRRCmd:7768656e"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c, s := dialStub(t, "rr", rsp.Options{RRVersion: tc.version}, func(req string) []string {
				if r, ok := tc.reply[req]; ok {
					return []string{stubHex(r)}
				}
				return nil
			})
			n := len(s.requests())
			ev, err := c.When(stubCtx(t))
			if err != nil || ev != 100 {
				t.Fatalf("when = %d, %v; want 100", ev, err)
			}
			if got := s.requests()[n:]; !slices.Equal(got, tc.want) {
				t.Errorf("requests %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRRCheckpoints(t *testing.T) {
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.9.0"}, func(req string) []string {
		switch req {
		case "qRRCmd:checkpoint:-1:" + stubHex("main.c:10"):
			return []string{stubHex("Checkpoint 1 at main.c:10\n")}
		case "qRRCmd:info checkpoints:-1":
			return []string{stubHex("ID\tWhen\tWhere\n1\t57\tmain.c:10\n")}
		case "qRRCmd:delete checkpoint:-1:" + stubHex("1"):
			return []string{stubHex("Deleted checkpoint 1.\n")}
		case "qRRCmd:when-ticks:-1":
			return []string{stubHex("Current tick: 12345\n")}
		}
		return nil
	})
	ctx := stubCtx(t)
	id, err := c.Checkpoint(ctx, "main.c:10")
	if err != nil || id != 1 {
		t.Fatalf("checkpoint = %d, %v", id, err)
	}
	list, err := c.Checkpoints(ctx)
	if err != nil || len(list) != 1 || list[0] != (rsp.CheckpointInfo{ID: 1, When: "57", Where: "main.c:10"}) {
		t.Fatalf("checkpoints = %+v, %v", list, err)
	}
	if err := c.DeleteCheckpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if ticks, err := c.WhenTicks(ctx); err != nil || ticks != 12345 {
		t.Errorf("when-ticks = %d, %v", ticks, err)
	}
	// Refused locally: nothing reaches the server.
	n := len(s.requests())
	if _, err := c.Checkpoint(ctx, ""); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("checkpoint without label: %v", err)
	}
	if _, err := c.RRCmd(ctx, "checkpoint", -1); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("qRRCmd checkpoint without arg: %v", err)
	}
	if len(s.requests()) != n {
		t.Errorf("refused requests reached the server: %q", s.requests()[n:])
	}
}

func TestKillEOFIsSuccess(t *testing.T) {
	var s *pipeStub
	c, s0 := dialStub(t, "rr", rsp.Options{}, func(req string) []string {
		if req == "k" {
			s.conn.Close() // rr exits without answering
			return []string{}
		}
		return nil
	})
	s = s0
	if err := c.Kill(stubCtx(t)); err != nil {
		t.Fatalf("kill: %v", err)
	}
}

func TestQEMUReverseAtStart(t *testing.T) {
	c, s := dialStub(t, "qemu", rsp.Options{}, func(req string) []string {
		switch req {
		case "bc":
			return []string{"E14"}
		case "?":
			return []string{"T05thread:p01.01;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	st, err := c.ReverseContinue(ctx)
	if !errors.Is(err, rsp.ErrHistoryStart) || !st.AtHistoryStart {
		t.Fatalf("bc at start = %+v, %v", st, err)
	}
	var e *rsp.Error
	if !errors.As(err, &e) || e.Code != 0x14 {
		t.Errorf("err %v should carry E14", err)
	}
	// QEMU drops breakpoints on "?": StopReason re-inserts the table.
	if err := c.InsertBreakpoint(ctx, rsp.HardwareBreakpoint, 0x100000, 0); err != nil {
		t.Fatal(err)
	}
	n := len(s.requests())
	if _, err := c.StopReason(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.requests()[n:]; !slices.Equal(got, []string{"?", "Z1,100000,1"}) {
		t.Errorf("requests %q", got)
	}
}

func TestReverseNotAdvertised(t *testing.T) {
	c, s := dialStub(t, "gdbserver", rsp.Options{}, nil)
	ctx := stubCtx(t)
	n := len(s.requests())
	if _, err := c.ReverseContinue(ctx); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("bc: %v", err)
	}
	if _, err := c.ReverseStep(ctx, rsp.AnyThread); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("bs: %v", err)
	}
	if _, err := c.Exchange(ctx, "bc", true); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("raw bc: %v", err)
	}
	if len(s.requests()) != n {
		t.Errorf("sent %q", s.requests()[n:])
	}
}

// Every rr-killing request is refused locally (rr-rsp.md §12.1) and never
// reaches the server.
func TestRRRefusals(t *testing.T) {
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.9.0"}, nil)
	ctx := stubCtx(t)
	n := len(s.requests())
	for _, pkt := range []string{
		"qSupported", "vRun", "vRun;/bin/true;", "vRun;;zz", "Z0,401000,2", "Z1,401000,4",
		"z0,401000,1", "qThreadExtraInfo,p1.1", "qGetTLSAddr:p1.1,0,0", "qXfer:siginfo:read::0,100",
		"qXfer:features:read:64bit-avx512.xml:0,1000", "qRRCmd:7768656e", "qRRCmd:checkpoint:-1",
		"m401000", "Hgxyz", "vFile:open:2f6574632f706173737764,0,1000", "X401000,1",
	} {
		if _, err := c.Exchange(ctx, pkt, true); !errors.Is(err, rsp.ErrRefused) {
			t.Errorf("%q: %v, want ErrRefused", pkt, err)
		}
	}
	if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 1); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("remove unset breakpoint: %v", err)
	}
	for _, pkt := range []string{"vCont;c", "vRun;", "bc", "k"} {
		if _, err := c.Exchange(ctx, pkt, false); !errors.Is(err, rsp.ErrRefused) {
			t.Errorf("%q without allowResume: %v", pkt, err)
		}
	}
	if got := s.requests()[n:]; len(got) != 0 {
		t.Errorf("refused requests were sent: %q", got)
	}
	// Allowed annexes and a well-formed request still go through.
	if r, err := c.Exchange(ctx, "qXfer:features:read:64bit-core.xml:0,10", false); err != nil || r == "" {
		t.Errorf("included annex: %q, %v", r, err)
	}
}

func TestExchangeKeepsBreakpointTable(t *testing.T) {
	c, _ := dialStub(t, "rr", rsp.Options{}, nil)
	ctx := stubCtx(t)
	if r, err := c.Exchange(ctx, "Z0,401000,1", false); err != nil || r != "OK" {
		t.Fatal(r, err)
	}
	if got := c.Breakpoints(); len(got) != 1 || got[0] != (rsp.Breakpoint{Type: rsp.SoftwareBreakpoint, Addr: 0x401000, Kind: 1}) {
		t.Errorf("table = %+v", got)
	}
	if r, err := c.Exchange(ctx, "z0,401000,1", false); err != nil || r != "OK" {
		t.Fatal(r, err)
	}
	if len(c.Breakpoints()) != 0 {
		t.Errorf("table = %+v", c.Breakpoints())
	}
}

// Without a deadline-capable stream, a cancelled request closes the
// connection rather than hanging.
func TestNoDeadlineStream(t *testing.T) {
	cli, _ := newPipeStub(t, stubHandler("gdbserver", func(req string) []string {
		if req == "m1,1" {
			return []string{}
		}
		return nil
	}))
	c, err := rsp.NewClient(stubCtx(t), struct{ io.ReadWriteCloser }{cli}, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	var b [1]byte
	if _, err := c.ReadMemory(ctx, 1, b[:]); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

// Continuing from a pc that holds a table breakpoint first steps over it
// (z0, vCont;s, Z0), as gdb and delve do; Step there is just that step,
// and the Z0 goes with the next resume.
func TestStepOverBreakpoint(t *testing.T) {
	c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		switch {
		case strings.HasPrefix(req, "vCont;s:"):
			return []string{"T05thread:p3e8.3e8;"}
		case req == "vCont;c":
			return []string{"T05thread:p3e8.3e8;swbreak:;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil { // == rip
		t.Fatal(err)
	}
	n := len(s.requests())
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"g", "z0,401000,1", "vCont;s:p3e8.3e8", "Z0,401000,1", "vCont;c"}
	if got := s.requests()[n:]; !slices.Equal(got, want) {
		t.Errorf("continue from a breakpoint:\n got %q\nwant %q", got, want)
	}
	n = len(s.requests())
	if _, err := c.Step(ctx, rsp.AnyThread); err != nil {
		t.Fatal(err)
	}
	// The step is the step over; the breakpoint is owed to the server
	// until the next resume, which sends it back first, in the same write.
	want = []string{"g", "z0,401000,1", "vCont;s:p3e8.3e8"}
	if got := s.requests()[n:]; !slices.Equal(got, want) {
		t.Errorf("step from a breakpoint:\n got %q\nwant %q", got, want)
	}
	if bps := c.Breakpoints(); len(bps) != 1 {
		t.Errorf("table after the step: %v, want the owed breakpoint in it", bps)
	}
	n = len(s.requests())
	if _, err := c.Continue(ctx); err != nil { // still at 0x401000: steps over again
		t.Fatal(err)
	}
	want = []string{"g", "vCont;s:p3e8.3e8", "Z0,401000,1", "vCont;c"}
	if got := s.requests()[n:]; !slices.Equal(got, want) {
		t.Errorf("continue after a step from a breakpoint:\n got %q\nwant %q", got, want)
	}
	n = len(s.requests())
	if _, err := c.Step(ctx, rsp.AnyThread); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	// Removing an owed breakpoint sends nothing: the server has it out.
	// (The stub then reports the removed breakpoint's address again and
	// again, which the client drops as pending hits of it: not compared.)
	want = []string{"g", "z0,401000,1", "vCont;s:p3e8.3e8", "vCont;c"}
	if got := s.requests()[n:]; len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("remove an owed breakpoint, continue:\n got %q\nwant %q", got, want)
	}
	c2, s2 := dialStub(t, "gdbserver", rsp.Options{NoStepOver: true}, func(req string) []string {
		if req == "vCont;c" {
			return []string{"T05thread:p3e8.3e8;swbreak:;"}
		}
		return nil
	})
	if err := c2.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil {
		t.Fatal(err)
	}
	n = len(s2.requests())
	if _, err := c2.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s2.requests()[n:]; !slices.Equal(got, []string{"vCont;c"}) {
		t.Errorf("NoStepOver: %q", got)
	}
}

// TestBreakpointLater: InsertBreakpointLater and RemoveBreakpointLater
// change the table at once and send their Z and z with the next resume,
// before it; a removal not yet sent goes before a detach.
func TestBreakpointLater(t *testing.T) {
	var mu sync.Mutex
	refuse := false
	c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case refuse && strings.HasPrefix(req, "Z0,402000"):
			return []string{"E01"}
		case strings.HasPrefix(req, "vCont;s:"):
			return []string{"T05thread:p3e8.3e8;"}
		case req == "vCont;c":
			if refuse {
				return []string{} // runs until interrupted
			}
			return []string{"T05thread:p3e8.3e8;swbreak:;"}
		case req == "\x03":
			return []string{"T02thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	since := func(n int) []string { // without the g reads of the step-over checks
		return slices.DeleteFunc(s.requests()[n:], func(r string) bool { return r == "g" })
	}
	table := func() []uint64 {
		var out []uint64
		for _, b := range c.Breakpoints() {
			out = append(out, b.Addr)
		}
		return out
	}
	sw := rsp.SoftwareBreakpoint

	// Inserted and removed before any resume: nothing is sent.
	n := len(s.requests())
	c.InsertBreakpointLater(sw, 0x402000, 0)
	if got := table(); !slices.Equal(got, []uint64{0x402000}) {
		t.Errorf("table after a later insert: %#x", got)
	}
	if err := c.RemoveBreakpointLater(sw, 0x402000, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpointLater(sw, 0x402000, 0); err == nil {
		t.Error("removing a breakpoint not in the table: no error")
	}
	if got := since(n); len(got) != 0 || len(table()) != 0 {
		t.Errorf("insert and remove later, no resume: sent %q, table %#x", got, table())
	}

	// Inserted later: its Z goes before the continue.
	c.InsertBreakpointLater(sw, 0x402000, 0)
	n = len(s.requests())
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := since(n), []string{"Z0,402000,1", "vCont;c"}; !slices.Equal(got, want) {
		t.Errorf("continue after a later insert:\n got %q\nwant %q", got, want)
	}

	// Removed later: out of the table at once, its z before the next
	// resume; put back before that, nothing is sent for it at all.
	if err := c.RemoveBreakpointLater(sw, 0x402000, 0); err != nil {
		t.Fatal(err)
	}
	if len(table()) != 0 {
		t.Errorf("table after a later removal: %#x", table())
	}
	if err := c.InsertBreakpoint(ctx, sw, 0x402000, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpointLater(sw, 0x402000, 0); err != nil {
		t.Fatal(err)
	}
	c.InsertBreakpointLater(sw, 0x402000, 0)
	if err := c.RemoveBreakpointLater(sw, 0x402000, 0); err != nil {
		t.Fatal(err)
	}
	n = len(s.requests())
	if _, err := c.Step(ctx, rsp.AnyThread); err != nil {
		t.Fatal(err)
	}
	if got, want := since(n), []string{"z0,402000,1", "vCont;s:p3e8.3e8"}; !slices.Equal(got, want) {
		t.Errorf("step after a later removal:\n got %q\nwant %q", got, want)
	}

	// Refused: the resume that carried it interrupts the program at
	// once and returns the insertion's error; the table drops it.
	mu.Lock()
	refuse = true
	mu.Unlock()
	c.InsertBreakpointLater(sw, 0x402000, 0)
	st, err := c.Continue(ctx)
	var re *rsp.Error
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "insert software breakpoint at 0x402000 (sent with the resume)") || st.Signal != rsp.SIGINT {
		t.Fatalf("continue with a refused later insert: stop %+v, error %v", st, err)
	}
	if len(table()) != 0 {
		t.Errorf("table after the refusal: %#x", table())
	}
	mu.Lock()
	refuse = false
	mu.Unlock()

	// A removal not yet sent goes before the detach.
	if err := c.InsertBreakpoint(ctx, sw, 0x403000, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpointLater(sw, 0x403000, 0); err != nil {
		t.Fatal(err)
	}
	n = len(s.requests())
	c.Detach(ctx) //nolint:errcheck // the stub's answer to D does not matter here
	if got := since(n); len(got) < 2 || got[0] != "z0,403000,1" || !strings.HasPrefix(got[1], "D") {
		t.Errorf("detach after a later removal: sent %q", got)
	}
}

// TestTraceBuffer: the whole buffer comes back whatever used says, as
// gdbserver serves it (replies cut at its packet size, "l" at the end, an
// error past it); with used right, the requests for it go out together
// and one more finds the end mark.
func TestTraceBuffer(t *testing.T) {
	buf := make([]byte, 100_000)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for _, most := range []int{1 << 20, 3000} { // the server's cap on a reply
		var mu sync.Mutex
		var reqs []string
		c, _ := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
			var off, n int
			if _, err := fmt.Sscanf(req, "qTBuffer:%x,%x", &off, &n); err != nil {
				return nil
			}
			mu.Lock()
			reqs = append(reqs, req)
			mu.Unlock()
			switch {
			case off == len(buf):
				return []string{"l"}
			case off > len(buf):
				return []string{"E01"}
			}
			n = min(n, len(buf)-off, most)
			return []string{hex.EncodeToString(buf[off : off+n])}
		})
		ctx := stubCtx(t)
		for _, used := range []int64{-1, int64(len(buf)), 6000, int64(len(buf)) + 5000} {
			mu.Lock()
			reqs = nil
			mu.Unlock()
			got, err := c.TraceBuffer(ctx, used)
			if err != nil || !bytes.Equal(got, buf) {
				t.Errorf("cap %d, used %d: %d bytes, %v; want the %d bytes", most, used, len(got), err, len(buf))
			}
			mu.Lock()
			var chunk int
			fmt.Sscanf(reqs[0], "qTBuffer:0,%x", &chunk) //nolint:errcheck // checked by the count
			if want := (len(buf)+chunk-1)/chunk + 1; most > chunk && used == int64(len(buf)) && len(reqs) != want {
				t.Errorf("used right: %d requests, want %d", len(reqs), want)
			}
			mu.Unlock()
		}
	}
}

// TestDefineTraceRun: the whole definition goes out in order, QTinit
// first; a refusal of any part is the error.
func TestDefineTraceRun(t *testing.T) {
	refuse := ""
	var mu sync.Mutex
	c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(req, "QT") {
			if refuse != "" && strings.HasPrefix(req, refuse) {
				return []string{"E01"}
			}
			return []string{"OK"}
		}
		return nil
	})
	ctx := stubCtx(t)
	run := rsp.TraceRun{
		BufferSize:  0x1000,
		Variables:   []rsp.TraceVariable{{Number: 0x100, Name: "a"}, {Number: 0x101, Initial: 6, Name: "b"}},
		Tracepoints: []rsp.Tracepoint{{Number: 1, Addr: 0x401000, Enabled: true, Pass: 6, Exprs: [][]byte{{0x27}}}},
	}
	n := len(s.requests())
	if err := c.DefineTraceRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	want := []string{"QTinit", "QTBuffer:size:1000", "QTDV:100:0:0:61", "QTDV:101:6:0:62", "QTDP:1:401000:E:0:6-", "QTDP:-1:401000:X1,27"}
	if got := s.requests()[n:]; !slices.Equal(got, want) {
		t.Errorf("sent %q\nwant %q", got, want)
	}
	mu.Lock()
	refuse = "QTDV:101"
	mu.Unlock()
	var re *rsp.Error
	if err := c.DefineTraceRun(ctx, run); !errors.As(err, &re) || !strings.Contains(err.Error(), "QTDV:101") {
		t.Errorf("a refused variable: %v", err)
	}
	n = len(s.requests())
	if err := c.DefineTraceRun(ctx, rsp.TraceRun{BufferSize: -1}); err != nil {
		t.Fatal(err)
	}
	if got := s.requests()[n:]; !slices.Equal(got, []string{"QTinit", "QTBuffer:size:-1"}) {
		t.Errorf("reset: sent %q", got)
	}
}

func TestLoggerAndBinaryUpload(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, s := dialStub(t, "generic", rsp.Options{Logger: logger}, func(req string) []string {
		switch {
		case strings.HasPrefix(req, "qSupported:"):
			return []string{"PacketSize=400;binary-upload+;qXfer:features:read+;QStartNoAckMode+"}
		case req == "x1000,4":
			return []string{"b}]}\x03ab"}
		case req == "x2000,1":
			return []string{"E01"}
		case req == "qRcmd,"+stubHex("info"):
			return []string{"O" + stubHex("line 1\n"), "O" + stubHex("line 2\n"), "OK"}
		}
		return nil
	})
	ctx := stubCtx(t)
	var b [4]byte
	if _, err := c.ReadMemory(ctx, 0x1000, b[:]); err != nil || string(b[:]) != "}#ab" {
		t.Fatalf("x read = %q, %v", b, err)
	}
	var e *rsp.Error
	if _, err := c.ReadMemory(ctx, 0x2000, b[:1]); !errors.As(err, &e) {
		t.Errorf("x error: %v", err)
	}
	out, err := c.Monitor(ctx, "info")
	if err != nil || out != "line 1\nline 2\n" {
		t.Errorf("monitor = %q, %v", out, err)
	}
	if !strings.Contains(logs.String(), "dir=-> packet=x1000,4") {
		t.Errorf("slog lacks the packet:\n%s", logs.String())
	}
	if slices.Contains(s.requests(), "m1000,4") {
		t.Error("fell back to m although x works")
	}
}

// With a small PacketSize, qXfer objects arrive in several m chunks and the
// client asks for the next offset each time.
func TestXferChunking(t *testing.T) {
	c, s := dialStub(t, "generic", rsp.Options{}, func(req string) []string {
		if strings.HasPrefix(req, "qSupported:") {
			return []string{"PacketSize=100;qXfer:features:read+"} // clamped to 0x100
		}
		return nil
	})
	if c.PacketSize() != 0x100 {
		t.Fatalf("PacketSize = %#x", c.PacketSize())
	}
	var offs []string
	for _, r := range s.requests() {
		if rest, ok := strings.CutPrefix(r, "qXfer:features:read:64bit-core.xml:"); ok {
			offs = append(offs, rest)
		}
	}
	n := (len(stubXML["64bit-core.xml"]) + 0xef) / 0xf0
	if len(offs) != n || offs[0] != "0,f0" || offs[1] != "f0,f0" {
		t.Errorf("chunk requests = %q, want %d of 0xf0 bytes", offs, n)
	}
	if r, ok := c.Target().Lookup("fs_base"); !ok || r.Regnum != 58 {
		t.Errorf("fs_base = %+v after chunked reads", r)
	}
}

// Without vCont the client falls back to c and Hc + s; rr gets X writes
// (its M is missing before 5.8), others M.
func TestResumeFallbacksAndWrites(t *testing.T) {
	c, s := dialStub(t, "generic", rsp.Options{}, func(req string) []string {
		switch {
		case strings.HasPrefix(req, "qSupported:"):
			return []string{"PacketSize=1000;qXfer:features:read+"}
		case req == "c", req == "s":
			return []string{"S05"}
		case strings.HasPrefix(req, "M"):
			return []string{"OK"}
		}
		return nil
	})
	ctx := stubCtx(t)
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, rsp.Thread{Pid: 0x3e8, Tid: 0x3e9}); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMemory(ctx, 0x1000, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	want := []string{"c", "Hc3e9", "s", "M1000,2:0102"} // no multiprocess+: plain tids
	if got := s.requests()[len(s.requests())-4:]; !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}

	rr, rs := dialStub(t, "rr", rsp.Options{}, func(req string) []string {
		if strings.HasPrefix(req, "X") {
			return []string{"E01"} // rr outside a diversion
		}
		return nil
	})
	err := rr.WriteMemory(ctx, 0x2000, []byte("$#"))
	var e *rsp.Error
	if !errors.As(err, &e) || e.Code != 1 {
		t.Errorf("rr write: %v, want E01", err)
	}
	if got := rs.requests()[len(rs.requests())-1]; got != "X2000,2:}\x04}\x03" {
		t.Errorf("rr write request %q, want an escaped X", got)
	}
}

// A server that keeps sending bad checksums in ack mode is given up on.
func TestAckModeEndlessBadChecksums(t *testing.T) {
	var s *pipeStub
	c, s0 := dialStub(t, "qemu", rsp.Options{}, func(req string) []string {
		if req == "m1,1" {
			return []string{stubRaw + "$41#00"}
		}
		return nil
	})
	s = s0
	s.mu.Lock()
	s.last = []byte("$41#00") // every NAK gets the same broken frame
	s.mu.Unlock()
	var b [1]byte
	_, err := c.ReadMemory(stubCtx(t), 1, b[:])
	var pe *rsp.ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *ProtocolError", err)
	}
	if s.naksIn < 2 {
		t.Errorf("gave up after %d NAKs", s.naksIn)
	}
}

// Requests that move the replay or change the selected thread behind the
// client's back drop its caches.
func TestCachesInvalidated(t *testing.T) {
	c, s := dialStub(t, "rr", rsp.Options{RRVersion: "5.9.0"}, func(req string) []string {
		if req == "qRRCmd:back:-1" || req == "qRRCmd:when:-1" {
			return []string{stubHex("Completed event: 1\n")}
		}
		return nil
	})
	ctx := stubCtx(t)
	count := func(pkt string) int {
		n := 0
		for _, r := range s.requests() {
			if r == pkt {
				n++
			}
		}
		return n
	}
	read := func() {
		t.Helper()
		if _, err := c.ReadRegisters(ctx, rsp.AnyThread); err != nil {
			t.Fatal(err)
		}
	}
	read()
	read()
	if count("g") != 1 {
		t.Fatalf("g sent %d times, want 1 (cached)", count("g"))
	}
	if _, err := c.When(ctx); err != nil {
		t.Fatal(err)
	}
	read()
	if count("g") != 1 {
		t.Errorf("when dropped the register cache")
	}
	if _, err := c.RRCmd(ctx, "back", -1); err != nil {
		t.Fatal(err)
	}
	read()
	if count("g") != 2 || count("Hgp3e8.3e8") != 1 {
		t.Errorf("after back: g %d, Hg %d; want a fresh Hg + g", count("g"), count("Hgp3e8.3e8"))
	}
	if _, err := c.Exchange(ctx, "Hgp3e8.3e9", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exchange(ctx, "P0=0100000000000000", false); err != nil {
		t.Fatal(err)
	}
	read()
	if count("g") != 3 || count("Hgp3e8.3e8") != 2 {
		t.Errorf("after raw Hg/P: g %d, Hg %d", count("g"), count("Hgp3e8.3e8"))
	}
}

// A breakpoint the server refuses to take back after a step over (its Z
// goes with the continue) must not let the program run past it unseen:
// the client interrupts at once, returns that stop with the error, and
// drops the breakpoint from its table.
func TestStepOverReinsertFails(t *testing.T) {
	var mu sync.Mutex
	zs := 0
	c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.HasPrefix(req, "Z0"):
			zs++
			if zs > 1 {
				return []string{"E01"}
			}
			return []string{"OK"}
		case strings.HasPrefix(req, "vCont;s:"):
			return []string{"T05thread:p3e8.3e8;"}
		case req == "vCont;c":
			return []string{} // runs until interrupted
		case req == "\x03":
			return []string{"T02thread:p3e8.3e8;"}
		}
		return nil
	})
	ctx := stubCtx(t)
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil { // == rip
		t.Fatal(err)
	}
	st, err := c.Continue(ctx)
	var re *rsp.Error
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "re-insert") || st.Signal != rsp.SIGINT || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("continue: stop %+v, error %v; want the interrupted stop and the re-insertion's error", st, err)
	}
	if !slices.Contains(s.requests(), "\x03") {
		t.Errorf("no interrupt sent: %q", s.requests())
	}
	if bps := c.Breakpoints(); len(bps) != 0 {
		t.Errorf("table %v, want the breakpoint the server refused gone", bps)
	}
}
