package proc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

func TestWaitLineAndStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := proc.Start(ctx, proc.Config{Path: "sh", Args: []string{"-c", "echo hello 42 >&2; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.WaitLine(ctx, regexp.MustCompile(`hello (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != "42" {
		t.Fatalf("submatch = %q, want 42", m[1])
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, _ := p.Exited(); !ok {
		t.Fatal("process still running after Stop")
	}
	if err := syscall.Kill(p.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill(pid, 0) after Stop = %v, want ESRCH", err)
	}
}

func TestWaitLineExited(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := proc.Start(ctx, proc.Config{Path: "sh", Args: []string{"-c", "echo nope; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.WaitLine(ctx, regexp.MustCompile(`never`))
	if !errors.Is(err, proc.ErrExited) {
		t.Fatalf("err = %v, want ErrExited", err)
	}
	if got := p.ExitCode(); got != 3 {
		t.Fatalf("exit code = %d, want 3", got)
	}
}

func TestWaitLineDeadline(t *testing.T) {
	p, err := proc.Start(t.Context(), proc.Config{Path: "sleep", Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(0)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.WaitLine(ctx, regexp.MustCompile(`x`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

// TestStopKillsGroup checks that a grandchild in the same process group,
// which ignores SIGTERM, is gone after Stop.
func TestStopKillsGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := proc.Start(ctx, proc.Config{Path: "sh", Args: []string{"-c", "trap '' TERM; sleep 60 & echo child $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.WaitLine(ctx, regexp.MustCompile(`child (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	p.Stop(200 * time.Millisecond)
	var pid int
	for _, c := range m[1] {
		pid = pid*10 + int(c-'0')
	}
	// The grandchild was SIGKILLed with its group; once reaped by init it is gone.
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after Stop", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling a pid we do not own: no event to wait on
	}
}

func TestStartGDBServer(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, addr, err := proc.StartGDBServer(ctx, "/bin/true", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(0)
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	c.Close()
}

// A program gdbserver cannot execute because it is open for writing (a
// probe file while another goroutine's fork holds its descriptor) is
// ETXTBSY, which RunProbe tries again; a program that is not there is
// another error, which it does not. The first try of the busy file runs
// while the file is held; RunProbe's second, after it is closed, starts.
func TestStartGDBServerTextBusy(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	exe, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "busy")
	if err := os.WriteFile(path, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tries := 0
	err = proc.RunProbe(ctx, 3, func() error {
		tries++
		p, _, err := proc.StartGDBServer(ctx, path, nil, "", nil)
		if tries == 1 {
			if !errors.Is(err, syscall.ETXTBSY) {
				t.Errorf("gdbserver on a file open for writing: %v, want ETXTBSY", err)
			}
			w.Close()
		}
		if err == nil {
			p.Stop(0)
		}
		return err
	})
	w.Close()
	if err != nil || tries != 2 {
		t.Errorf("RunProbe: %v after %d tries, want a start at the second", err, tries)
	}
	tries = 0
	err = proc.RunProbe(ctx, 3, func() error {
		tries++
		_, _, err := proc.StartGDBServer(ctx, filepath.Join(t.TempDir(), "absent"), nil, "", nil)
		return err
	})
	if err == nil || errors.Is(err, syscall.ETXTBSY) || tries != 1 {
		t.Errorf("a program that is not there: %v after %d tries, want one try and an error other than ETXTBSY", err, tries)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestGrandchildHoldsPipes: a grandchild in a session of its own (as a
// debuggee that gdbserver put in its own group) keeps the output pipes open
// after the child exited; the child must still count as exited, promptly.
func TestGrandchildHoldsPipes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := proc.Start(ctx, proc.Config{Path: "sh", Args: []string{"-c", "setsid sh -c 'echo gc $$; exec sleep 30' & sleep 0.2; exit 0"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.WaitLine(ctx, regexp.MustCompile(`gc (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	gc, _ := strconv.Atoi(m[1])
	defer syscall.Kill(gc, syscall.SIGKILL)
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("the child exited but Process.Done never closed while a grandchild held its pipes")
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestStartQEMUUser: qemu-i386 -g starts the -m32 test program stopped at
// its first instruction, and its gdbstub answers on the returned address,
// a Unix-domain socket (the peer for i386 programs where the kernel cannot
// execute them); the socket's directory goes with the process.
func TestStartQEMUUser(t *testing.T) {
	qemu := testenv.NeedTool(t, "qemu-i386")
	prog := testenv.Prog(t, "counter-m32")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	p, addr, err := proc.StartQEMUUser(ctx, qemu, prog, nil, t.TempDir(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second) //nolint:errcheck
	c, err := net.Dial("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("$?#3f")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
	b := make([]byte, 64)
	n, err := c.Read(b)
	for err == nil && !strings.Contains(string(b[:n]), "#") {
		var m int
		m, err = c.Read(b[n:])
		n += m
	}
	if err != nil || !strings.Contains(string(b[:n]), "$T05") {
		t.Fatalf("stop reply of qemu-i386: %q %v, want a T05 stop", b[:n], err)
	}
	c.Close()
	if err := p.Stop(time.Second); err != nil {
		t.Logf("stop: %v", err)
	}
	<-p.Done()
	deadline := time.Now().Add(10 * time.Second)
	for _, err := os.Stat(filepath.Dir(addr)); err == nil; _, err = os.Stat(filepath.Dir(addr)) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is still there after qemu-i386 ended", filepath.Dir(addr))
		}
		time.Sleep(time.Millisecond) // the directory goes on a goroutine of its own
	}
}

// TestStartGDBServerStdio runs a program under gdbserver on a socket pair
// to its end: the arguments reach it as given (quotes, spaces, $ and all,
// through the wrapper's shell), its stdout and stderr land in their own
// files, LD_PRELOAD in its environment only, and gdbserver's messages in
// gdbserver's file, read by Lines once scanned.
func TestStartGDBServerStdio(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	stdout, err := os.Create(dir + "/out")
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(dir + "/err")
	if err != nil {
		t.Fatal(err)
	}
	// An LD_PRELOAD that names no library: ld.so warns and runs on.
	preload := dir + "/no such lib.so"
	args := []string{"-c", `printf '%s|' "$@"; echo "[$LD_PRELOAD]"; echo to-stderr >&2`, "sh", "a b", "it's", "$HOME", `"q"`}
	p, conn, err := proc.StartGDBServerStdio(ctx, proc.Stdio{Prog: "/bin/sh", Args: args, Dir: dir, Preload: preload, Stdout: stdout, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(0)
	c, err := rsp.NewClient(ctx, conn, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Continue(ctx)
	for err == nil && !st.Exited() {
		st, err = c.Continue(ctx) // signals on the way (none expected)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != rsp.StopExited || st.ExitCode != 0 {
		t.Fatalf("stop %v, want exit 0", st)
	}
	out, _ := os.ReadFile(dir + "/out")
	if want := `a b|it's|$HOME|"q"|[` + preload + "]\n"; string(out) != want {
		t.Errorf("program stdout %q, want %q", out, want)
	}
	errText, _ := os.ReadFile(dir + "/err")
	if !strings.HasSuffix(string(errText), "to-stderr\n") || strings.Contains(string(errText), "Process") {
		t.Errorf("program stderr %q: want its own line last and none of gdbserver's", errText)
	}
	c.Close()
	<-p.Done()
	var lines []string
	for _, l := range p.Lines(0) {
		lines = append(lines, l.Text)
	}
	if all := strings.Join(lines, "\n"); !strings.Contains(all, "Process /bin/sh created") || strings.Contains(all, "to-stderr") {
		t.Errorf("gdbserver's lines: %q; want its own messages and not the program's", all)
	}
}

// TestGroup: the group a started child leads is found only with its real
// parent, and Kill ends the child and what it forked into the group (the
// session's TestStopEndsForkedChild has the child gone before); a group
// is never taken for another's (our own).
func TestGroup(t *testing.T) {
	ctx := t.Context()
	// The child forks a grandchild into its group, says its pid, and exits.
	p, err := proc.Start(ctx, proc.Config{Path: "sh", Args: []string{"-c", "sleep 60 & echo grandchild $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	m, err := p.WaitLine(ctx, regexp.MustCompile(`grandchild (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	grand, _ := strconv.Atoi(m[1])
	if _, ok := proc.GroupOf(p.Pid(), 1); ok {
		t.Errorf("GroupOf with a parent that is not the child's: ok")
	}
	g, ok := proc.GroupOf(p.Pid(), os.Getpid())
	if !ok || g.ID != p.Pid() {
		t.Fatalf("GroupOf(child, us) = %+v %v", g, ok)
	}
	if _, ok := proc.GroupOf(os.Getpid(), os.Getppid()); ok && syscall.Getpgrp() != os.Getpid() {
		t.Errorf("GroupOf(us): ok, though we lead no group")
	}
	if st, ok := proc.ReadStat(grand); !ok || st.PGrp != p.Pid() || st.Threads < 1 {
		t.Fatalf("grandchild stat %+v %v, want it in the child's group", st, ok)
	}
	g.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, ok := proc.ReadStat(grand)
		if !ok || st.PGrp != p.Pid() {
			break // gone (or reaped and its pid given to another)
		}
		if b, err := os.ReadFile("/proc/" + m[1] + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			break // a zombie: ended
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %d still runs after Kill", grand)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
