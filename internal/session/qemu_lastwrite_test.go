package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// qemuAfterCorrupt starts a QEMU replay of the kernel and runs it to the
// line after corrupt() overwrote slot, off the breakpoint that stopped
// it: a reverse-continue from a breakpoint hit is where QEMU 10's replay
// deadlocks most (rsp/qemu_test.go).
func qemuAfterCorrupt(t *testing.T, ctx context.Context) *Session {
	t.Helper()
	s, _, _ := qemuSession(t, ctx)
	after := testenv.KernelLine(t, "sum += slot - 0xdead")
	bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("kernel.c:%d", after), "", false)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to kernel.c:%d: %+v %v", after, st, err)
	}
	if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
		t.Fatal(err)
	}
	return s
}

// qemuDeadlock says whether err is a timeout: QEMU 10's replay deadlocks
// now and then in a reverse seek (peers.md §2.5, rsp/qemu_test.go), which
// the tests report as a skip that make test lists, never as a pass.
func qemuDeadlock(err error) bool {
	return errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// TestQEMUReverseLastWrite: the kernel sets slot = 7 in kmain, then
// corrupt() overwrites it with 0xdead (PLANTED-WRITE). Stopped after
// that, LastWrite with count 2 must name the planted line in corrupt with
// old 7 and new 57005, then kmain's "slot = 7" with old 0 and new 7, with
// QEMU instruction counts decreasing.
func TestQEMUReverseLastWrite(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	s := qemuAfterCorrupt(t, ctx)
	lw, err := s.LastWrite(ctx, "slot", 0, 2)
	if qemuDeadlock(err) {
		t.Skip("SKIP(qemu deadlock): " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	if lw.Current != "57005" || !lw.Complete || len(lw.Writers) != 2 {
		t.Fatalf("last writes of slot: %+v", lw)
	}
	want := []struct {
		fn       string
		line     int
		old, new string
	}{
		{"corrupt", testenv.KernelLine(t, "slot = v; /* PLANTED-WRITE */"), "7", "57005"},
		{"kmain", testenv.KernelLine(t, "slot = 7;"), "0", "7"},
	}
	for i, w := range want {
		got := lw.Writers[i]
		if got.Frame.Function != w.fn || got.Frame.Line != w.line || got.Old != w.old || got.New != w.new {
			t.Errorf("writer %d: %+v; want %s at kernel.c:%d old %s new %s", i, got, w.fn, w.line, w.old, w.new)
		}
	}
	if lw.Writers[0].Icount <= lw.Writers[1].Icount || lw.Writers[1].Icount <= 0 {
		t.Errorf("icounts %d, %d: want decreasing, positive", lw.Writers[0].Icount, lw.Writers[1].Icount)
	}
}
