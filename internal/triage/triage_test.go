package triage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

func TestSuspectFor(t *testing.T) {
	vals := []session.Value{
		{Name: "count", Type: "int", Value: "3"},
		{Name: "p", Type: "struct node *", Value: "0x5555deadbeef"},
		{Name: "s", Type: "const char *", Value: `0x555555556004 "alice"`},
		{Name: "", Type: "char *", Value: "0x1000"},
	}
	for _, c := range []struct {
		p    uint64
		want string
	}{
		{0x5555deadbeef, "p"},
		{0x555555556004, "s"}, // the pointer before the string
		{3, ""},               // not a pointer
		{0x1000, ""},          // a value without a name
		{0x5555deadbeee, ""},  // another address
	} {
		if got := suspectFor(vals, c.p); got != c.want {
			t.Errorf("suspectFor(%#x) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestLiveCrash: list_corrupt dies of SIGSEGV in count_duplicates under
// gdbserver. The report names the signal and its meaning, decodes the
// faulting instruction with an unreadable memory operand, gives the
// backtrace with count_duplicates' argument n and its locals, and says
// why a live session has no last writer. Once the signal has killed
// the program the report says so and the error is ErrExited. (The tools'
// TestLiveTriage checks the same report against GDB's backtrace and
// disassembly.)
func TestLiveCrash(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "list_corrupt")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	m := session.NewManager(session.Config{})
	t.Cleanup(m.Close)
	s, _, err := m.StartLive(ctx, session.LiveOptions{Command: []string{prog}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Signal != "SIGSEGV" {
		t.Fatalf("continue: %+v %v", st, err)
	}
	r, err := Run(ctx, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reason != "signal" || r.Signal != "SIGSEGV" || r.SignalMeaning != rsp.SIGSEGV.Meaning() || r.SignalMeaning == "" {
		t.Errorf("reason %q signal %q meaning %q", r.Reason, r.Signal, r.SignalMeaning)
	}
	if r.Instruction == nil {
		t.Fatal("no faulting instruction")
	}
	faulting := false
	for _, op := range r.Instruction.Operands {
		faulting = faulting || op.Kind == "memory" && op.Error != "" && op.Address != ""
	}
	if !faulting {
		t.Errorf("no unreadable memory operand in %+v", r.Instruction)
	}
	if len(r.Backtrace) < 2 || r.Backtrace[0].Function != "count_duplicates" || r.Backtrace[1].Function != "main" {
		t.Fatalf("backtrace %+v", r.Backtrace)
	}
	if a := r.Backtrace[0].Args; len(a) != 1 || a[0].Name != "n" {
		t.Errorf("count_duplicates' arguments %+v, want n", a)
	}
	names := map[string]bool{}
	for _, v := range r.Locals {
		names[v.Name] = true
	}
	if !names["n"] || !names["dups"] {
		t.Errorf("locals %+v, want n and dups", r.Locals)
	}
	if r.LastWriter != nil || !strings.Contains(r.LastWriterWhy, "keeps no history") {
		t.Errorf("last writer %+v (%q) on a live session", r.LastWriter, r.LastWriterWhy)
	}
	// The frame selection is left at the crash.
	if vals, f, err := s.Locals(ctx); err != nil || f.Function != "count_duplicates" || len(vals) != len(r.Locals) {
		t.Errorf("after the report the selected frame is %+v (%v)", f, err)
	}
	if cut, err := Run(ctx, s, Options{MaxFrames: 1, MaxLocals: 1}); err != nil || len(cut.Backtrace) != 1 || !cut.MoreFrames || len(cut.Locals) != 1 || !cut.MoreLocals {
		t.Errorf("max 1 frame, 1 local: %+v %v", cut, err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "killed" {
		t.Fatalf("continue past the signal: %+v %v", st, err)
	}
	r, err = Run(ctx, s, Options{})
	if !errors.Is(err, session.ErrExited) || !strings.Contains(err.Error(), "killed by SIGSEGV") {
		t.Errorf("report after the program died: error %v", err)
	}
	if r.Reason != "killed" || r.Signal != "SIGSEGV" || r.Instruction != nil || r.Backtrace != nil {
		t.Errorf("report after the program died: %+v", r)
	}
}

// TestQEMUReverse: on the test kernel's QEMU replay, stopped after
// corrupt() overwrote slot (no signal: the report is of the current
// stop), the report gives the backtrace kmain and, for suspect slot, the
// planted writer found going backward. QEMU 10's replay deadlocks now
// and then in a reverse seek (docs/peers.md §2.5): such an attempt runs
// again on a fresh replay, and two of them are a skip that make test
// lists, never a pass.
func TestQEMUReverse(t *testing.T) {
	rctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	kernel, rec := testenv.KernelRecording(t, rctx, t.TempDir())
	var hangs []string
	for attempt := 1; attempt <= 2; attempt++ {
		r, s := qemuReport(t, kernel, rec.Dir)
		if errors.Is(r.lastWriterErr, session.ErrTimeout) || errors.Is(r.lastWriterErr, context.DeadlineExceeded) {
			hangs = append(hangs, fmt.Sprintf("attempt %d: %s", attempt, r.LastWriterWhy))
			continue
		}
		if r.Reason != "stopped" || len(r.Notes) == 0 {
			t.Errorf("reason %q notes %q: want a report of the current stop, saying there is no signal", r.Reason, r.Notes)
		}
		if len(r.Backtrace) == 0 || r.Backtrace[0].Function != "kmain" || r.Instruction == nil {
			t.Fatalf("report: %+v", r)
		}
		if r.LastWriter == nil || len(r.LastWriter.Writers) != 1 {
			t.Fatalf("last writer: %+v (%s)", r.LastWriter, r.LastWriterWhy)
		}
		w := r.LastWriter.Writers[0]
		if w.Frame.Function != "corrupt" || w.Frame.Line != testenv.KernelLine(t, "slot = v; /* PLANTED-WRITE */") || w.Old != "7" || w.New != "57005" {
			t.Errorf("last writer %+v", w)
		}
		if st, err := s.StopState(rctx); err != nil || st.Regs.PC() == 0 {
			t.Errorf("after the report: %+v %v", st, err)
		}
		return
	}
	t.Skip("SKIP(qemu deadlock): " + strings.Join(hangs, "; "))
}

// qemuReport replays the kernel's recording in a fresh QEMU, runs it to
// the line after corrupt() overwrote slot and returns the report with
// suspect slot, within 40 s.
func qemuReport(t *testing.T, kernel, recDir string) (*Report, *session.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	rep, err := qemu.StartReplay(ctx, recDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rep.Kill)
	m := session.NewManager(session.Config{})
	t.Cleanup(m.Close)
	s, _, err := m.Connect(ctx, session.ConnectOptions{Address: rep.Addr(), Program: kernel})
	if err != nil {
		t.Fatalf("connect to the QEMU replay: %v\nQEMU output:\n%s", err, rep.Output(20))
	}
	after := testenv.KernelLine(t, "sum += slot - 0xdead")
	bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("kernel.c:%d", after), "", false)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to kernel.c:%d: %+v %v", after, st, err)
	}
	// Off the breakpoint: a reverse-continue from a breakpoint hit is
	// where QEMU 10's replay deadlocks most (rsp/qemu_test.go).
	if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, s, Options{Suspect: "slot"})
	if err != nil {
		t.Fatal(err)
	}
	return r, s
}
