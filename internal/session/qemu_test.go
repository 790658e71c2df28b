package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// Sessions on QEMU's record/replay of the i386 multiboot test kernel
// (testprogs/kernel): the real reverse-capable peer (docs/peers.md §2).
// One recording serves every test of the package; each test replays it.

var kernelRec struct {
	once   sync.Once
	tmp    string // removed by TestMain
	kernel string
	dir    string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if kernelRec.tmp != "" {
		os.RemoveAll(kernelRec.tmp)
	}
	os.Exit(code)
}

// recordKernel builds and records the test kernel once per test binary.
func recordKernel(t *testing.T) (kernel, recDir string) {
	t.Helper()
	testenv.QEMU(t)
	testenv.NeedTool(t, "qemu-img")
	testenv.NeedTool(t, "make")
	testenv.NeedTool(t, "gcc")
	root := testenv.Root(t)
	kernelRec.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
		defer cancel()
		dir, err := os.MkdirTemp("", "rrmcp-session-kernel-")
		if err != nil {
			kernelRec.err = err
			return
		}
		kernelRec.tmp = dir
		kernelRec.kernel, kernelRec.err = qemu.BuildKernel(ctx, filepath.Join(root, "testprogs", "kernel"), dir)
		if kernelRec.err != nil {
			return
		}
		rec, err := qemu.Record(ctx, filepath.Join(dir, "rec"), kernelRec.kernel)
		if err != nil {
			kernelRec.err = err
			return
		}
		kernelRec.dir = rec.Dir
	})
	if kernelRec.err != nil {
		t.Fatal(kernelRec.err)
	}
	return kernelRec.kernel, kernelRec.dir
}

// qemuSession replays the kernel recording and connects a session to it.
func qemuSession(t *testing.T, ctx context.Context) (*Session, *Stop, *qemu.Replay) {
	t.Helper()
	kernel, dir := recordKernel(t)
	rep, err := qemu.StartReplay(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rep.Kill)
	cfg := Config{}
	if os.Getenv("RRMCP_QEMU_PACKETS") != "" {
		cfg.PacketLog = os.Stderr
	}
	m := NewManager(cfg)
	t.Cleanup(m.Close)
	s, st, err := m.Connect(ctx, ConnectOptions{Address: rep.Addr(), Program: kernel})
	if err != nil {
		t.Fatalf("connect to the QEMU replay: %v\nQEMU output:\n%s", err, rep.Output(20))
	}
	return s, st, rep
}

// TestQEMUKernelStart: a session on the i386 kernel's replay starts where
// the machine is (the BIOS reset vector), says that this is outside the
// kernel and where the kernel starts, names i386 registers; then break
// bump, continue (forward replay) and inspect the 32-bit frame: backtrace
// bump <- kmain, parameters, globals, a finish back into kmain.
func TestQEMUKernelStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, st, _ := qemuSession(t, ctx)
	if st.Frame == nil || st.Frame.Location.PC == "0x0" {
		t.Fatalf("first stop %+v: want the machine's real pc", st)
	}
	if !strings.Contains(st.Message, "outside kernel.elf") || !strings.Contains(st.Message, "_start") {
		t.Errorf("first stop message %q: want it to say the pc is outside kernel.elf and where the kernel starts", st.Message)
	}
	regs, err := s.Registers(ctx, []string{"pc", "eip", "esp", "eflags"})
	if err != nil {
		t.Fatal(err)
	}
	if regs[0].Name != "eip" || regs[1].Value != regs[0].Value || regs[0].Value != st.Frame.Location.PC {
		t.Errorf("registers %+v: want $pc named eip, equal to the stop pc %s", regs, st.Frame.Location.PC)
	}
	if _, err := s.SetBreakpoint(ctx, "bump", "", false); err != nil {
		t.Fatal(err)
	}
	for hit := 1; hit <= 2; hit++ {
		if st, err = s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
			t.Fatalf("continue to bump #%d: %+v %v", hit, st, err)
		}
	}
	frames, _, _, _, err := s.Backtrace(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) < 2 || frames[0].Location.Function != "bump" || frames[1].Location.Function != "kmain" ||
		filepath.Base(frames[0].Location.File) != "kernel.c" || frames[1].Location.Line != 74 {
		t.Fatalf("backtrace %+v: want bump (kernel.c) <- kmain at kernel.c:74", frames)
	}
	for _, c := range []struct{ expr, want string }{
		{"v", "2"}, {"counter", "1"}, {"sizeof(long)", "4"}, {"sizeof(&counter)", "4"},
		{"$sp == $esp", "1"}, {"*(int *)&counter + v", "3"},
	} {
		r, err := s.Evaluate(ctx, c.expr)
		if err != nil || r.Value != c.want {
			t.Errorf("evaluate %s = %+v %v, want %s", c.expr, r, err, c.want)
		}
	}
	if st, err = s.Finish(ctx, false); err != nil || st.Frame == nil || st.Frame.Location.Function != "kmain" {
		t.Fatalf("finish: %+v %v, want a stop in kmain", st, err)
	}
	vals, _, err := s.Locals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vals {
		got[v.Name] = v.Value
	}
	if got["sum"] != "3" || got["i"] != "2" {
		t.Errorf("kmain locals %v: want sum 3, i 2", got)
	}
}

// errQEMUHung marks a QEMU operation that got no answer in time: QEMU
// 10.0's replay deadlocks now and then inside a reverse seek, more often
// under load (docs/peers.md §2.5; rsp/qemu_test.go measured it).
var errQEMUHung = errors.New("qemu replay hung")

// qemuOpTimeout bounds one session call on the replay.
const qemuOpTimeout = 20 * time.Second

// runQEMUSession runs scenario on a fresh replay, once more if QEMU hung;
// two hangs skip the test saying so (a deadlocked QEMU says nothing about
// the session), any other failure fails it. make test runs these tests
// alone, after the rest (TestQEMUReverse*, TestQEMUHistory*).
func runQEMUSession(t *testing.T, scenario func(ctx context.Context, s *Session, rep *qemu.Replay) error) {
	t.Helper()
	var hangs []error
	for attempt := 1; attempt <= 2; attempt++ {
		err := func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			s, _, rep := qemuSession(t, ctx)
			defer rep.Kill()
			return scenario(ctx, s, rep)
		}()
		if err == nil {
			return
		}
		if !errors.Is(err, errQEMUHung) {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		t.Logf("attempt %d: %v; QEMU was killed", attempt, err)
		hangs = append(hangs, err)
	}
	t.Skip("SKIP(qemu deadlock): QEMU replay hung in both attempts (known QEMU 10 reverse-seek deadlock, docs/peers.md §2.5): " + errors.Join(hangs...).Error())
}

// qemuOp runs one session call with its own deadline; a deadline hit is
// errQEMUHung, and so is a move the session interrupted at its own time
// limit (RR_MCP_TIMEOUT_*, shorter than the deadline): the replay did
// not answer in time either way.
func qemuOp[T any](ctx context.Context, what string, f func(ctx context.Context) (T, error)) (T, error) {
	octx, cancel := context.WithTimeout(ctx, qemuOpTimeout)
	defer cancel()
	v, err := f(octx)
	if err != nil && octx.Err() != nil && ctx.Err() == nil {
		return v, fmt.Errorf("%s: %w (%w)", what, errQEMUHung, err)
	}
	if st, ok := any(v).(*Stop); ok && err == nil && st != nil && st.Reason == "interrupted" && strings.Contains(st.Message, "time limit") {
		return v, fmt.Errorf("%s: %w (%s)", what, errQEMUHung, st.Message)
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// TestQEMUReverseWatchpointStop: a reverse-continue that stops because a
// watchpoint fired is reported as that watchpoint (QEMU's reply has no
// watch: field), with the value the write produced. As the rsp test does,
// it steps off the forward watchpoint stop first (a reverse-continue that
// starts at one deadlocks QEMU 10.0.2).
func TestQEMUReverseWatchpointStop(t *testing.T) {
	runQEMUSession(t, func(ctx context.Context, s *Session, _ *qemu.Replay) error {
		w, err := s.SetWatchpoint(ctx, "counter", "write")
		if err != nil {
			return err
		}
		for _, want := range []string{"1", "3"} {
			st, err := qemuOp(ctx, "continue to the watchpoint", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, false) })
			if err != nil {
				return err
			}
			if st.Reason != "watchpoint" || st.Watch == nil || st.Watch.New != want {
				return fmt.Errorf("forward watchpoint stop %+v (watch %+v), want counter = %s", st, st.Watch, want)
			}
		}
		if _, err := qemuOp(ctx, "step off", func(ctx context.Context) (*Stop, error) { return s.StepInstruction(ctx, 1, false, false) }); err != nil {
			return err
		}
		st, err := qemuOp(ctx, "reverse-continue", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, true) })
		if err != nil {
			return err
		}
		if st.Reason != "watchpoint" || st.Watch == nil || st.Watch.Number != w.Number || st.Breakpoint != w.Number || st.Watch.New != "3" {
			return fmt.Errorf("reverse-continue stopped with %+v (watch %+v); want watchpoint %d with counter = 3", st, st.Watch, w.Number)
		}
		if st.Frame == nil || st.Frame.Location.Function != "bump" {
			return fmt.Errorf("reverse watchpoint stop at %+v, want in bump", st.Frame)
		}
		return nil
	})
}

// TestQEMUHistoryBoundsStops: a reverse-continue with nothing behind
// reports the start of the recording the first time it gets there (QEMU
// sends a plain stop then, E14 only to the next request), and again when
// asked to go further back; the end of the log is reported as an exit
// whose message does not promise reverse execution, and the next reverse
// call is refused saying so.
func TestQEMUHistoryBoundsStops(t *testing.T) {
	runQEMUSession(t, func(ctx context.Context, s *Session, rep *qemu.Replay) error {
		bp, err := s.SetBreakpoint(ctx, "add", "", false)
		if err != nil {
			return err
		}
		if st, err := qemuOp(ctx, "continue to add", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, false) }); err != nil || st.Reason != "breakpoint" {
			return fmt.Errorf("continue to add: %+v %v", st, err)
		}
		if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
			return err
		}
		for i := 1; i <= 2; i++ {
			st, err := qemuOp(ctx, "reverse-continue to the start", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, true) })
			if err != nil {
				return err
			}
			if st.Reason != "history-start" {
				return fmt.Errorf("reverse-continue #%d with nothing behind: %+v; want history-start", i, st)
			}
		}
		st, err := qemuOp(ctx, "continue to the end", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, false) })
		if err != nil {
			return err
		}
		if st.Reason != "exited" || strings.Contains(st.Message, "still works") || !strings.Contains(st.Message, "end of its log") {
			return fmt.Errorf("end of the log: %+v; want an exit that says the replay ended", st)
		}
		_, err = s.Continue(ctx, true)
		if !errors.Is(err, ErrExited) && !errors.Is(err, rsp.ErrClosed) {
			return fmt.Errorf("reverse-continue after the end of the log: %v; want a refusal", err)
		}
		return nil
	})
}

// TestQEMUConnectionLost: when the server dies under a stopped session,
// the next call fails saying the session is dead (not "still usable"),
// and the session list shows it dead.
func TestQEMUConnectionLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, _, rep := qemuSession(t, ctx)
	rep.Kill()
	<-rep.Done()
	_, err := s.Continue(ctx, false)
	if err == nil || !errors.Is(err, rsp.ErrClosed) || errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("continue after the server died: %v; want an error that says the session is dead", err)
	}
	if got := s.Info().State; got != "dead" {
		t.Errorf("session state %q after the connection was lost, want dead", got)
	}
	for _, in := range s.m.List() {
		if in.ID == s.ID() && in.State != "dead" {
			t.Errorf("session list shows %+v, want state dead", in)
		}
	}
}
