package relay

import (
	"bufio"
	"context"
	"debug/elf"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// rawClient is a minimal RSP client for the test, standing in for the
// session's rsp.Client: no-ack mode, run-length decoding, "}" unescaping.
type rawClient struct {
	mu   sync.Mutex
	c    net.Conn
	rd   *bufio.Reader
	stop string // the last stop reply
}

func dialRaw(ctx context.Context, addr string) (*rawClient, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	rc := &rawClient{c: c, rd: bufio.NewReader(c)}
	// The handshake runs in ack mode: skip the '+' before each reply.
	for _, p := range []string{"qSupported:swbreak+", "QStartNoAckMode"} {
		if _, err := rc.exchange(ctx, p, true); err != nil {
			c.Close()
			return nil, err
		}
	}
	if _, err := c.Write([]byte("+")); err != nil {
		c.Close()
		return nil, err
	}
	if rc.stop, err = rc.exchange(ctx, "?", false); err != nil {
		c.Close()
		return nil, err
	}
	return rc, nil
}

func (rc *rawClient) forward(ctx context.Context, pkt string) (string, error) {
	return rc.exchange(ctx, pkt, false)
}

func (rc *rawClient) exchange(ctx context.Context, pkt string, acks bool) (string, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		rc.c.SetDeadline(dl)
	}
	if _, err := rc.c.Write(appendFrame(nil, pkt)); err != nil {
		return "", err
	}
	for {
		it, err := readItem(rc.rd)
		if err != nil {
			return "", err
		}
		if it.kind != '$' {
			continue
		}
		if acks {
			rc.c.Write([]byte("+"))
		}
		return decodeRLE(it.raw), nil // binary (qXfer) replies would still need unescaping
	}
}

func decodeRLE(s string) string {
	if !strings.Contains(s, "*") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && i > 0 && i+1 < len(s) {
			prev := s[i-1]
			for n := int(s[i+1]) - 29; n > 0; n-- {
				b.WriteByte(prev)
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (rc *rawClient) stopReply() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.stop
}

// runTo inserts a breakpoint at addr, continues to it and removes it.
func (rc *rawClient) runTo(ctx context.Context, addr uint64) error {
	z := fmt.Sprintf("Z0,%x,1", addr)
	if r, err := rc.exchange(ctx, z, false); err != nil || r != "OK" {
		return fmt.Errorf("%s: %q %v", z, r, err)
	}
	r, err := rc.exchange(ctx, "c", false)
	if err != nil || !strings.HasPrefix(r, "T05") {
		return fmt.Errorf("c: %q %v", r, err)
	}
	rc.mu.Lock()
	rc.stop = r
	rc.mu.Unlock()
	if r, err := rc.exchange(ctx, "z"+z[1:], false); err != nil || r != "OK" {
		return fmt.Errorf("z0: %q %v", r, err)
	}
	return nil
}

func buildChain(t *testing.T) string {
	t.Helper()
	testenv.NeedTool(t, "gcc")
	exe := filepath.Join(t.TempDir(), "chain")
	src := filepath.Join(testenv.Root(t), "internal", "relay", "testdata", "chain.c")
	out, err := exec.Command("gcc", "-g", "-O0", "-no-pie", "-fno-omit-frame-pointer", "-o", exe, src).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return exe
}

func symbolAddr(t *testing.T, exe, name string) uint64 {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("no symbol %s in %s", name, exe)
	return 0
}

// TestRelayWithGDB drives real GDB through the relay against a real
// gdbserver target stopped in stop_here(): bt and print work; continue,
// set var, break, step and next are refused and the target neither moves nor changes
// (its registers are identical afterwards and it exits with the status
// its unmodified locals give).
func TestRelayWithGDB(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildChain(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	srv, addr, err := proc.StartGDBServer(ctx, exe, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(0)
	rc, err := dialRaw(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.c.Close()
	if err := rc.runTo(ctx, symbolAddr(t, exe, "stop_here")); err != nil {
		t.Fatal(err)
	}
	regsBefore, err := rc.forward(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}

	r, err := New(Config{Forward: rc.forward, Stop: rc.stopReply})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	cmd := exec.CommandContext(ctx, gdb, "-nx", "-q", "--batch",
		"-ex", "set sysroot /",
		"-ex", "target remote "+r.Addr(),
		"-ex", "bt",
		"-ex", "up",
		"-ex", "print local",
		"-ex", "set var local = 1",
		"-ex", "continue",
		"-ex", "break leaf",
		"-ex", "continue",
		"-ex", "delete",
		"-ex", "step",
		"-ex", "next",
		"-ex", "print $pc",
		exe)
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	t.Logf("gdb output:\n%s", out)
	if err != nil && ctx.Err() != nil {
		t.Fatalf("gdb did not finish: %v", err)
	}
	for _, want := range []string{
		"#0  stop_here (v=", "#1  ", "leaf (n=4)", "#4  ", "chain (n=3)", "main ()",
		"$1 = 42",
		"Cannot access memory at address", // set var local = 1
		"Remote failure reply: E.rrmcp relay is read-only", // continue
		"Cannot insert breakpoint 1",                       // break leaf + continue
	} {
		if !strings.Contains(out, want) {
			t.Errorf("gdb output lacks %q", want)
		}
	}
	// step and next (after delete) are refused too, and GDB does not loop.
	if n := strings.Count(out, "Remote failure reply: E.rrmcp"); n != 3 {
		t.Errorf("%d refused resumes reported by GDB, want 3 (continue, step, next)", n)
	}
	st := r.Stats()
	if st.Refused < 3 {
		t.Errorf("relay refused %d packets, want at least 3 (write, resume, breakpoint)", st.Refused)
	}

	regsAfter, err := rc.forward(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	if regsAfter != regsBefore {
		t.Errorf("registers changed while GDB was connected:\nbefore %s\nafter  %s", regsBefore, regsAfter)
	}
	// Let the target finish: 42 + 3 if GDB changed nothing.
	reply, err := rc.forward(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if reply != "W2d" {
		t.Errorf("target finished with %q, want W2d (exit status 45)", reply)
	}
}
