package session

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// running reports whether pid is a process that has not ended (a zombie
// has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z")
}

// gone waits (up to 10 s) until pid has ended, and reports whether it
// did.
func gone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// TestStopEndsForkedChild: a child the live program forked, which
// gdbserver does not follow and which outlives the program, ends with the
// session (it is in the process group gdbserver made for the program);
// it was left running, adopted by init, while rr_replay_stop said the
// session's processes were gone (adversarial pass F2).
func TestStopEndsForkedChild(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "forkchild.c")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe, pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "exited" {
		t.Fatalf("continue to the end: %+v %v", st, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || child <= 1 {
		t.Fatalf("child pid %q: %v", b, err)
	}
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) }) //nolint:errcheck
	if !running(child) {
		t.Fatal("the forked child ended before the session stopped: the test proves nothing")
	}
	if _, err := m.Stop(ctx, s.ID()); err != nil {
		t.Fatal(err)
	}
	if !gone(child) {
		t.Errorf("the forked child %d still runs after the session stopped", child)
	}
}

// TestKilledServerMakesSessionDead: once the live session's gdbserver is
// killed under it, the session says dead and its calls fail saying so,
// before any read found the connection closed; it said stopped and
// answered rr_registers from what it had cached (adversarial pass F3).
func TestKilledServerMakesSessionDead(t *testing.T) {
	s := liveSession(t, "counter", "main")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := s.Registers(ctx, []string{"rip"}); err != nil {
		t.Fatal(err) // cached now
	}
	s.srv.Kill()
	if st := s.Info().State; st != "dead" {
		t.Errorf("state after gdbserver was killed: %q, want dead", st)
	}
	if _, err := s.Registers(ctx, []string{"rip"}); err == nil || !strings.Contains(err.Error(), "dead") {
		t.Errorf("registers after gdbserver was killed: %v, want the session dead", err)
	}
}
