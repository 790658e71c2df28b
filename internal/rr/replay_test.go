package rr

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func fakeTrace(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "prog-0")
	if err := makeFakeTrace(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStartReplayLifecycle(t *testing.T) {
	for _, tc := range []struct{ version, exe string }{
		{"5.8.0", "/tmp/my prog"},
		{"5.6.0", "/tmp/bin/prog"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			trace := fakeTrace(t)
			ctx := testCtx(t, 20*time.Second)
			r, err := StartReplay(ctx, ReplayOptions{TraceDir: trace, Pid: 4242, OnFork: true, GotoEvent: 77,
				RR: fakeRRPath(t), Env: fakeEnv("listen", "FAKE_RR_VERSION="+tc.version)})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Stop()
			if r.Version() != tc.version || r.ExePath() != tc.exe {
				t.Errorf("version %q exe %q; want %q %q", r.Version(), r.ExePath(), tc.version, tc.exe)
			}
			want := "--non-interactive replay -s 0 -f 4242 -g 77 " + trace
			if got := strings.Join(r.Args(), " "); got != want {
				t.Errorf("args %q, want %q", got, want)
			}
			c, err := net.Dial("tcp", r.Addr())
			if err != nil {
				t.Fatalf("dial %s: %v", r.Addr(), err)
			}
			c.Write([]byte("hello\n"))
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil || line != "echo:hello\n" {
				t.Fatalf("echo %q, %v", line, err)
			}
			c.Close() // rr exits when its client goes away
			select {
			case <-r.Done():
			case <-ctx.Done():
				t.Fatal("fake rr did not exit after the client hung up")
			}
			if err := r.Stop(); err != nil {
				t.Errorf("Stop after a clean exit: %v", err)
			}
			if out := r.Output(50); !strings.Contains(out, "fake rr args: -s 0 -f 4242 -g 77") {
				t.Errorf("output tail lacks the fake's stdout:\n%s", out)
			}
		})
	}
}

// TestStartReplayOutput: rr's stdout (the program's stdout, echoed as the
// replay runs forward) goes to ReplayOptions.Stdout byte for byte, the
// fake's own lines before listening included; of rr's stderr only the
// program's lines reach ReplayOptions.Stderr, not rr's warnings, log
// lines or its debugger command line.
func TestStartReplayOutput(t *testing.T) {
	trace := fakeTrace(t)
	ctx := testCtx(t, 20*time.Second)
	out, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errLines []string
	r, err := StartReplay(ctx, ReplayOptions{TraceDir: trace, RR: fakeRRPath(t), Env: fakeEnv("output"), Stdout: out,
		Stderr: func(b []byte) { mu.Lock(); errLines = append(errLines, string(b)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("hello\n"))
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case <-r.Done():
	case <-ctx.Done():
		t.Fatal("fake rr did not exit")
	}
	r.Stop()
	got, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := "fake rr args: -s 0 " + trace + "\ntracee output: target extended-remote 10.9.9.9:1 is not rr's line\nout 1\nout 2 without a newline"
	if string(got) != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(errLines, "|") != "prog: something went wrong\n" {
		t.Errorf("program stderr lines %q, want only the program's line", errLines)
	}
}

// TestStartReplayNoPMU: rr's FATAL about perf_event_open becomes a
// *Failure naming the missing counters, an errkind.Unsupported, so that no
// caller reads rr's text.
func TestStartReplayNoPMU(t *testing.T) {
	ctx := testCtx(t, 20*time.Second)
	_, err := StartReplay(ctx, ReplayOptions{TraceDir: fakeTrace(t), RR: fakeRRPath(t), Env: fakeEnv("nopmu")})
	f, ok := AsFailure(err)
	if !ok || !strings.Contains(f.Cause, "performance counter") || !errors.Is(err, errkind.Unsupported) || errors.Is(err, ErrNoProcess) {
		t.Fatalf("err = %v, want a no-PMU Failure (Unsupported)", err)
	}
}

func TestStartReplayNoProcess(t *testing.T) {
	ctx := testCtx(t, 20*time.Second)
	_, err := StartReplay(ctx, ReplayOptions{TraceDir: fakeTrace(t), Pid: 99, RR: fakeRRPath(t), Env: fakeEnv("noprocess")})
	if !errors.Is(err, ErrNoProcess) {
		t.Fatalf("err = %v, want ErrNoProcess", err)
	}
	if !strings.Contains(err.Error(), "Try 'rr ps'") {
		t.Errorf("error lacks rr's message: %v", err)
	}
}

func TestStartReplayDeadline(t *testing.T) {
	ctx := testCtx(t, 20*time.Second)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := StartReplay(short, ReplayOptions{TraceDir: fakeTrace(t), RR: fakeRRPath(t), Env: fakeEnv("silent"),
		StopGrace: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	if !strings.Contains(err.Error(), "fake rr args") {
		t.Errorf("error lacks rr's output: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("StartReplay took %v to give up", d)
	}
}

func TestReplayStopEscalates(t *testing.T) {
	ctx := testCtx(t, 20*time.Second)
	r, err := StartReplay(ctx, ReplayOptions{TraceDir: fakeTrace(t), RR: fakeRRPath(t), Env: fakeEnv("stubborn"),
		StopGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Stop()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop of an rr that ignores SIGTERM = %v, want a 'killed' error", err)
	}
	select {
	case <-r.Done():
	default:
		t.Fatal("Stop returned before rr was reaped")
	}
	if err2 := r.Stop(); err2 == nil {
		t.Error("second Stop forgot that rr was killed")
	}
}

func TestStartReplayNotATrace(t *testing.T) {
	_, err := StartReplay(t.Context(), ReplayOptions{TraceDir: t.TempDir(), RR: fakeRRPath(t), Env: fakeEnv("listen")})
	if !errors.Is(err, ErrNotTrace) {
		t.Fatalf("err = %v, want ErrNotTrace", err)
	}
}

func TestRecord(t *testing.T) {
	ctx := testCtx(t, 20*time.Second)
	root := t.TempDir()
	out := filepath.Join(root, "explicit")
	var lines []string
	res, err := Record(ctx, RecordOptions{Argv: []string{"/bin/prog", "x"}, TraceDir: out, Chaos: true,
		RR: fakeRRPath(t), Env: fakeEnv("ok", "FAKE_RR_EXIT=3")})
	if err != nil {
		t.Fatal(err)
	}
	if res.TraceDir != out || res.ExitStatus != 3 {
		t.Errorf("got %+v; want dir %s status 3", res, out)
	}
	if !IsTraceDir(res.TraceDir) {
		t.Errorf("%s is not a trace dir", res.TraceDir)
	}
	if !strings.Contains(res.Output, "tracee says hello: /bin/prog x") {
		t.Errorf("output tail: %q", res.Output)
	}
	_ = lines

	// Default location: rr decides, we read it from fd 3.
	def, err := Record(ctx, RecordOptions{Argv: []string{"/bin/true"}, RR: fakeRRPath(t),
		Env: fakeEnv("ok", "_RR_TRACE_DIR="+root)})
	if err != nil || def.ExitStatus != 0 || def.TraceDir != filepath.Join(root, "true-0") {
		t.Errorf("Record = %+v, %v", def, err)
	}

	// rr that never reports a directory is an error with its output.
	_, err = Record(ctx, RecordOptions{Argv: []string{"/bin/true"}, TraceDir: filepath.Join(root, "n"),
		RR: fakeRRPath(t), Env: fakeEnv("nodir")})
	if err == nil || !strings.Contains(err.Error(), "no trace directory") {
		t.Errorf("nodir: %v", err)
	}
}

func TestProbe(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	withPMU := t.TempDir()
	os.Mkdir(filepath.Join(withPMU, "cpu"), 0o755)
	noPMU := t.TempDir()
	os.Mkdir(filepath.Join(noPMU, "software"), 0o755)
	paranoid := func(v string) string {
		p := filepath.Join(t.TempDir(), "paranoid")
		os.WriteFile(p, []byte(v+"\n"), 0o644)
		return p
	}
	fake := fakeRRPath(t)
	tests := []struct {
		name  string
		env   probeEnv
		mode  string
		check string // "" = success
	}{
		{"no rr", probeEnv{rrPath: "", devicesDir: withPMU, paranoidFile: paranoid("1")}, "ok", CheckPath},
		{"no pmu", probeEnv{rrPath: fake, devicesDir: noPMU, paranoidFile: paranoid("1")}, "ok", CheckPMU},
		{"paranoid", probeEnv{rrPath: fake, devicesDir: withPMU, paranoidFile: paranoid("2"), euid: 1000}, "ok", CheckParanoid},
		{"paranoid as root", probeEnv{rrPath: fake, devicesDir: withPMU, paranoidFile: paranoid("2"), euid: 0}, "ok", ""},
		{"record fails", probeEnv{rrPath: fake, devicesDir: withPMU, paranoidFile: paranoid("1"), euid: 1000}, "nopmu", CheckRecord},
		{"all good", probeEnv{rrPath: fake, devicesDir: withPMU, paranoidFile: paranoid("-1"), euid: 1000}, "ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, kv := range fakeEnv(tt.mode) {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			if tt.name == "no rr" {
				t.Setenv("PATH", t.TempDir())
			}
			err := probe(ctx, tt.env)
			if tt.check == "" {
				if err != nil {
					t.Fatalf("probe: %v", err)
				}
				return
			}
			var pe *ProbeError
			if !errors.As(err, &pe) || pe.Check != tt.check || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("probe = %v; want a %s ProbeError", err, tt.check)
			}
			if tt.check == CheckRecord && !strings.Contains(err.Error(), "Unable to open performance counter") {
				t.Errorf("record failure lacks rr's message: %v", err)
			}
		})
	}
}

// TestProbeHere runs the real probe; on a machine without a PMU it must say so.
func TestProbeHere(t *testing.T) {
	err := Probe(testCtx(t, 60*time.Second))
	t.Logf("Probe() = %v", err)
	if err != nil && !errors.Is(err, ErrUnavailable) {
		t.Fatalf("probe error does not match ErrUnavailable: %v", err)
	}
	if _, statErr := os.Stat("/sys/bus/event_source/devices/cpu"); statErr != nil && !hasPMU("/sys/bus/event_source/devices") && err == nil {
		t.Fatal("probe passed on a machine with no PMU")
	}
}
