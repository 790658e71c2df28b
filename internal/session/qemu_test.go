package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
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
	m := NewManager(Config{})
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
	frames, _, _, err := s.Backtrace(ctx, 10)
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
