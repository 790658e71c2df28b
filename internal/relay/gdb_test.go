package relay

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

func buildChain(t *testing.T) string {
	t.Helper()
	testenv.NeedTool(t, "gcc")
	exe := filepath.Join(t.TempDir(), "chain")
	src := filepath.Join(testenv.Root(t), "internal", "relay", "testdata", "chain.c")
	if err := testenv.CompileDebug("gcc", src, exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestRelayWithGDB drives real GDB through the relay against a real
// gdbserver target stopped in stop_here(): bt and print work; continue,
// set var, break, step and next are refused and the target neither moves nor changes
// (its registers are identical afterwards and it exits with the status
// its unmodified locals give).
func TestRelayWithGDB(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	exe := buildChain(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	_, addr := testenv.GDBServer(t, ctx, exe)
	c, err := rsp.Dial(ctx, addr, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex // stands in for the session's lock on the client
	bp := testenv.Symbol(t, exe, "stop_here").Value
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, bp, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, bp, 1); err != nil {
		t.Fatal(err)
	}
	regs := func() string {
		mu.Lock()
		defer mu.Unlock()
		r, err := c.Exchange(ctx, "g", false)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	regsBefore := regs()
	stop := func() string {
		mu.Lock()
		defer mu.Unlock()
		return c.LastStop().Raw
	}

	r := newRelay(t, Config{Forward: ClientForward(c, &mu), Stop: stop, Multiprocess: c.Multiprocess()})

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

	if regsAfter := regs(); regsAfter != regsBefore {
		t.Errorf("registers changed while GDB was connected:\nbefore %s\nafter  %s", regsBefore, regsAfter)
	}
	// Let the target finish: 42 + 3 if GDB changed nothing.
	mu.Lock()
	defer mu.Unlock()
	end, err := c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !end.Exited() || end.ExitCode != 45 {
		t.Errorf("target finished with %v, want exit status 45", end)
	}
}
