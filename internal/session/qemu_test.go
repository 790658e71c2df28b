package session

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// qemuSession records testprogs/kernel under QEMU and connects a session
// to a replay of it (the real reverse peer, docs/peers.md §2). It returns
// the kernel's path. The kernel is i386: rrmcp's DWARF engine reads amd64
// only, so the test finds lines and symbols itself with debug/dwarf.
func qemuSession(t *testing.T) (*Session, string) {
	t.Helper()
	testenv.QEMU(t)
	testenv.NeedTool(t, "qemu-img")
	testenv.NeedTool(t, "make")
	testenv.NeedTool(t, "gcc")
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	defer cancel()
	dir := t.TempDir()
	kernel, err := qemu.BuildKernel(ctx, filepath.Join(testenv.Root(t), "testprogs", "kernel"), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := qemu.Record(ctx, filepath.Join(dir, "rec"), kernel)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := qemu.StartReplay(ctx, rec.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rep.Kill)
	m := NewManager(Config{Timeouts: Timeouts{Startup: 30 * time.Second, Connect: 30 * time.Second, Forward: 30 * time.Second, Reverse: 60 * time.Second, Breakpoint: 10 * time.Second, Eval: 10 * time.Second}})
	t.Cleanup(m.Close)
	s, _, err := m.Connect(ctx, ConnectOptions{Address: rep.Addr(), Program: kernel})
	if err != nil {
		t.Fatal(err)
	}
	return s, kernel
}

// kernelLines is the kernel's line table and symbols, read with the
// standard library (the oracle for what the session reports).
type kernelLines struct {
	rows []dwarf.LineEntry
	syms map[string]uint64
	src  []string
}

func readKernelLines(t *testing.T, path string) *kernelLines {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k := &kernelLines{syms: map[string]uint64{}}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		k.syms[s.Name] = s.Value
	}
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for lr.Next(&le) == nil {
			if le.File != nil && strings.HasSuffix(le.File.Name, "kernel.c") {
				k.rows = append(k.rows, le)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(testenv.Root(t), "testprogs", "kernel", "kernel.c"))
	if err != nil {
		t.Fatal(err)
	}
	k.src = strings.Split(string(b), "\n")
	return k
}

// line returns the 1-based line of kernel.c whose text contains marker.
func (k *kernelLines) line(t *testing.T, marker string) int {
	for i, l := range k.src {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("kernel.c has no line with %q", marker)
	return 0
}

// addrOf is the first statement address of line n.
func (k *kernelLines) addrOf(t *testing.T, n int) uint64 {
	for _, r := range k.rows {
		if r.Line == n && r.IsStmt {
			return r.Address
		}
	}
	t.Fatalf("no code for kernel.c:%d", n)
	return 0
}

// lineAt maps pc to its line (the row with the greatest address <= pc).
func (k *kernelLines) lineAt(pc uint64) int {
	best, line := uint64(0), 0
	for _, r := range k.rows {
		if r.Address <= pc && r.Address >= best && !r.EndSequence {
			best, line = r.Address, r.Line
		}
	}
	return line
}

// TestQEMUReverseLastWrite: the kernel sets slot = 7 in kmain, then
// corrupt() overwrites it with 0xdead (PLANTED-WRITE). Stopped after
// that, LastWrite with count 2 must name the planted line with old 7 and
// new 0xdead, then kmain's "slot = 7" with old 0 and new 7, with QEMU
// instruction counts in decreasing order.
func TestQEMUReverseLastWrite(t *testing.T) {
	s, kernel := qemuSession(t)
	k := readKernelLines(t, kernel)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	after := k.line(t, "sum += slot - 0xdead")
	bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("*%#x", k.addrOf(t, after)), "", false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to kernel.c:%d: %+v %v", after, st, err)
	}
	// Off the breakpoint: a reverse-continue from a breakpoint hit is
	// where QEMU 10's replay deadlocks most (rsp/qemu_test.go).
	if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StepInstruction(ctx, 1, false, false); err != nil {
		t.Fatal(err)
	}
	slot := k.syms["slot"]
	if slot == 0 {
		t.Fatal("kernel.elf has no symbol slot")
	}
	lw, err := s.LastWrite(ctx, fmt.Sprintf("*%#x", slot), 4, 2)
	if errors.Is(err, ErrTimeout) {
		// QEMU 10.0.2's bc with a write watchpoint inserted after the
		// replay ran forward got no stop reply in every run on the Intel
		// Xeon VM (the replay hangs, peers.md §2.5); the same bc with the
		// watchpoint in place from icount 0 answers
		// (rsp.TestQEMUReverseWatchpoint). Listed by make test as a skip.
		t.Skip("SKIP(qemu deadlock): " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	if lw.Current != "0xadde0000" || !lw.Complete || len(lw.Writers) != 2 {
		t.Fatalf("last writes of slot: %+v", lw)
	}
	want := []struct {
		line     int
		old, new string
	}{
		{k.line(t, "PLANTED-WRITE"), "0x07000000", "0xadde0000"},
		{k.line(t, "slot = 7;"), "0x00000000", "0x07000000"},
	}
	for i, w := range want {
		got := lw.Writers[i]
		var pc uint64
		fmt.Sscanf(got.Frame.PC, "0x%x", &pc)
		if l := k.lineAt(pc); l != w.line || got.Old != w.old || got.New != w.new {
			t.Errorf("writer %d: pc %s (kernel.c:%d) old %s new %s; want kernel.c:%d old %s new %s", i, got.Frame.PC, l, got.Old, got.New, w.line, w.old, w.new)
		}
	}
	if lw.Writers[0].Icount <= lw.Writers[1].Icount || lw.Writers[1].Icount <= 0 {
		t.Errorf("icounts %d, %d: want decreasing, positive", lw.Writers[0].Icount, lw.Writers[1].Icount)
	}
	t.Logf("writers: %+v", lw.Writers)
}
