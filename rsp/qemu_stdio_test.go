package rsp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// stdioConn joins a child's stdout and stdin into one stream.
type stdioConn struct {
	io.Reader
	io.WriteCloser
	rc io.Closer
}

func (s stdioConn) Close() error {
	s.WriteCloser.Close()
	return s.rc.Close()
}

// TestQEMUAckModeStdio talks to QEMU's system-mode gdbstub over stdin/stdout
// (-gdb stdio) with the machine halted at the reset vector: a real peer
// that has no no-ack mode and retransmits unacknowledged replies, reached
// through a stream without deadlines. The reverse-execution tests against
// QEMU replay live with internal/qemu.
func TestQEMUAckModeStdio(t *testing.T) {
	qemu := testenv.QEMU(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.Command(qemu, "-S", "-display", "none", "-nodefaults", "-monitor", "none", "-serial", "none", "-gdb", "stdio")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, stdout := testenv.StartPiped(t, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	var log bytes.Buffer
	c, err := rsp.NewClient(ctx, stdioConn{stdout, stdin, stdout}, rsp.Options{PacketLog: &log})
	if err != nil {
		t.Fatalf("handshake: %v\n%s", err, stderr.String())
	}
	defer func() {
		if t.Failed() {
			t.Logf("packet log:\n%s", gsTail(log.String(), 30))
		}
	}()
	if c.Dialect() != rsp.DialectQEMU || c.NoAckMode() || c.PacketSize() != 0x1000 {
		t.Errorf("dialect %v, no-ack %v, packet size %#x", c.Dialect(), c.NoAckMode(), c.PacketSize())
	}
	td := c.Target()
	if td == nil || !strings.HasPrefix(td.Architecture, "i386") {
		t.Fatalf("target = %+v", td)
	}
	eip, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "eip")
	if err != nil || eip != 0xfff0 {
		t.Fatalf("eip = %#x, %v; want the reset vector 0xfff0", eip, err)
	}
	if r, ok := td.Lookup("eip"); !ok || r.Regnum != 8 || r.Offset != 32 {
		t.Errorf("eip = %+v", r)
	}
	// The BIOS's first instruction at 0xfffffff0 is a far jump (0xea).
	var insn [5]byte
	if _, err := c.ReadMemory(ctx, 0xfffffff0, insn[:]); err != nil || insn[0] != 0xea {
		t.Fatalf("reset vector = %x, %v", insn, err)
	}
	st, err := c.Step(ctx, rsp.AnyThread)
	if err != nil || st.Signal != rsp.SIGTRAP {
		t.Fatalf("step = %v, %v", st, err)
	}
	if eip2, _ := c.ReadRegisterUint(ctx, rsp.AnyThread, "eip"); eip2 == eip {
		t.Errorf("eip did not move: %#x", eip2)
	}
	// A running VM interrupted by a cancelled context answers T02.
	cctx, ccancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer ccancel()
	st, err = c.Continue(cctx)
	if !errors.Is(err, context.DeadlineExceeded) || st.Signal != rsp.SIGINT {
		t.Fatalf("interrupted continue = %v, %v", st, err)
	}
	if _, err := c.ReverseContinue(ctx); !errors.Is(err, rsp.ErrRefused) {
		t.Errorf("bc without replay: %v, want ErrRefused", err)
	}
	if strings.Contains(log.String(), "retransmit") {
		t.Errorf("retransmissions:\n%s", log.String())
	}
	if err := c.Kill(ctx); err != nil {
		t.Errorf("kill: %v", err)
	}
	select {
	case <-done:
		done <- nil // for the cleanup
	case <-time.After(5 * time.Second):
		t.Error("QEMU still running after k")
	}
}
