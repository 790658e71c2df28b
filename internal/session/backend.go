package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/outlog"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/sources"
	"github.com/rrmcp/rrmcp/rsp"
)

// RROptions selects what rr replays.
type RROptions struct {
	TraceDir  string // "" = the latest recording
	PID       int    // recorded process to debug (rr -p); 0 = the first
	Fork      bool   // with PID: attach at fork (rr -f) instead of exec
	GotoEvent int64  // start at this event (rr -g); 0 = beginning
}

// LiveOptions says what to run (or attach to) under gdbserver.
type LiveOptions struct {
	Command   []string
	Dir       string
	Env       map[string]string
	AttachPID int
	// InProcessAgent preloads gdbserver's in-process agent
	// (libinproctrace.so) into the program, for fast tracepoints
	// (rr_query kind calls, tracequery.go).
	InProcessAgent bool
}

// ConnectOptions names an RSP server.
type ConnectOptions struct {
	Address string
	Program string // local copy of the executable; "" = ask the server
}

var gdbserverListenRE = regexp.MustCompile(`^Listening on port (\d+)`)

// StartRR replays an rr recording under `rr replay -s 0` (package
// internal/rr, which reads the port from rr's own output) and connects to it.
func (m *Manager) StartRR(ctx context.Context, o RROptions) (*Session, *Stop, error) {
	if o.TraceDir == "" {
		if err := checkHaveRecording(); err != nil {
			return nil, nil, err
		}
	}
	if _, err := exec.LookPath("rr"); err != nil {
		return nil, nil, rr.ErrNotInstalled.Explain("replay")
	}
	if o.TraceDir != "" {
		if _, err := rr.CheckTraceDir(o.TraceDir); err != nil {
			return nil, nil, err
		}
	}
	sctx, cancel := context.WithTimeout(ctx, m.cfg.Timeouts.Startup)
	defer cancel()
	// rr echoes the program's writes as it replays them forward: its
	// stdout is the program's, its stderr shared with rr's messages.
	out, err := outlog.New()
	if err != nil {
		return nil, nil, err
	}
	rep, err := rr.StartReplay(sctx, rr.ReplayOptions{TraceDir: o.TraceDir, Pid: o.PID, OnFork: o.Fork, GotoEvent: o.GotoEvent,
		Stdout: out.Stdout(), Stderr: out.AddStderr})
	if err != nil {
		out.Close()
		if errors.Is(err, rr.ErrNoProcess) {
			return nil, nil, argErrorf("pid", "process %d is not in the recording (rr_ps lists them)", o.PID)
		}
		switch {
		case errors.As(err, new(*rr.Failure)):
			f, _ := rr.AsFailure(err)
			return nil, nil, f.Explain("replay")
		case errors.Is(err, proc.ErrExited):
			return nil, nil, fmt.Errorf("rr replay exited before serving: %w", err)
		}
		return nil, nil, fmt.Errorf("rr replay did not start in time (raise RR_MCP_TIMEOUT_STARTUP if it needs longer): %w", err)
	}
	s := m.newSession(KindRR)
	s.replay = rep
	s.out = out
	s.addr = rep.Addr()
	s.traceDir = o.TraceDir
	if s.traceDir == "" {
		s.traceDir, _ = filepath.EvalSymlinks(filepath.Join(rr.TraceRoot(), "latest-trace"))
	}
	s.program = rep.ExePath()
	st, err := m.open(ctx, s, rsp.DialectRR, rep.Version())
	if err != nil {
		rep.Stop() //nolint:errcheck
		return nil, nil, err
	}
	return s, st, nil
}

// StartLive runs o.Command under gdbserver (or attaches gdbserver to
// o.AttachPID) and connects to it. The program stops before its first
// instruction.
func (m *Manager) StartLive(ctx context.Context, o LiveOptions) (*Session, *Stop, error) {
	if _, err := exec.LookPath("gdbserver"); err != nil {
		return nil, nil, fmt.Errorf("gdbserver is not installed (apt install gdbserver): %w", ErrUnsupported)
	}
	sctx, cancel := context.WithTimeout(ctx, m.cfg.Timeouts.Startup)
	defer cancel()
	s := m.newSession(KindLive)
	var (
		p    *proc.Process
		addr string
		err  error
	)
	if o.AttachPID > 0 {
		exe, rerr := os.Readlink(fmt.Sprintf("/proc/%d/exe", o.AttachPID))
		if rerr != nil {
			return nil, nil, argErrorf("attach_pid", "no process %d that this user can debug: %v", o.AttachPID, rerr)
		}
		s.program, s.attached = exe, true
		p, err = proc.Start(sctx, proc.Config{Path: "gdbserver", Args: []string{"--once", "--attach", "127.0.0.1:0", strconv.Itoa(o.AttachPID)}, Env: m.cfg.Env})
		if err == nil {
			var mm []string
			mm, err = p.WaitLine(sctx, gdbserverListenRE)
			if err != nil {
				p.Stop(0) //nolint:errcheck
			} else {
				addr = "127.0.0.1:" + mm[1]
			}
		}
	} else {
		if err := proc.CheckLaunch(o.Command, o.Dir, o.Env); err != nil {
			return nil, nil, err
		}
		prog, perr := proc.ResolveProgram(o.Command[0], o.Dir)
		if perr != nil {
			return nil, nil, perr
		}
		s.program = prog
		env := m.cfg.Env
		if len(o.Env) > 0 {
			if env == nil {
				env = os.Environ()
			}
			env = append([]string(nil), env...)
			for k, v := range o.Env {
				env = append(env, k+"="+v)
			}
		}
		if s.out, err = outlog.New(); err != nil {
			return nil, nil, err
		}
		qemu, note, qerr := m.i386Server(sctx, prog)
		switch {
		case qerr != nil:
			return nil, nil, qerr
		case qemu != "" && o.InProcessAgent:
			return nil, nil, argErrorf("in_process_agent", "the 32-bit program runs under qemu-i386's stub, which has no in-process agent")
		case qemu != "":
			s.serverNote = note
			p, addr, err = proc.StartQEMUUser(sctx, qemu, prog, o.Command[1:], o.Dir, env, s.out.Stdout(), s.out.AddStderr)
			if err != nil {
				return nil, nil, fmt.Errorf("start qemu-i386: %w", err)
			}
		case o.InProcessAgent:
			lib, lerr := findInProcessAgent()
			if lerr != nil {
				return nil, nil, lerr
			}
			pre := lib
			if old := envValue(env, o.Env, "LD_PRELOAD"); old != "" {
				pre += ":" + old
			}
			s.ipa = lib
			p, addr, err = proc.StartGDBServerWrapped(sctx, []string{"env", "LD_PRELOAD=" + pre}, prog, o.Command[1:], o.Dir, env, s.out.Stdout(), s.out.AddStderr)
		default:
			p, addr, err = proc.StartGDBServerOutput(sctx, prog, o.Command[1:], o.Dir, env, s.out.Stdout(), s.out.AddStderr)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("start gdbserver: %w", err)
	}
	s.srv = p
	s.addr = addr
	st, err := m.open(ctx, s, rsp.DialectGDBServer, "")
	if err != nil {
		p.Stop(0) //nolint:errcheck
		return nil, nil, err
	}
	return s, st, nil
}

// findInProcessAgent is the path of libinproctrace.so, looked for where
// Debian, Fedora and a default build of GDB install it.
func findInProcessAgent() (string, error) {
	dirs := []string{"/usr/lib", "/usr/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/local/lib64"}
	for _, d := range dirs {
		p := filepath.Join(d, "libinproctrace.so")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", &ArgError{Arg: "in_process_agent", Msg: fmt.Sprintf("gdbserver's in-process agent libinproctrace.so is not in %s (Debian and Ubuntu ship it in the gdbserver package; Fedora in gdb-gdbserver)", strings.Join(dirs, ", "))}
}

// envValue is the value of variable k for the program: extra's, else
// env's (nil env: this process's environment).
func envValue(env []string, extra map[string]string, k string) string {
	if v, ok := extra[k]; ok {
		return v
	}
	if env == nil {
		return os.Getenv(k)
	}
	v := ""
	for _, e := range env {
		if name, val, ok := strings.Cut(e, "="); ok && name == k {
			v = val
		}
	}
	return v
}

// Connect attaches a session to an RSP server somebody else started.
func (m *Manager) Connect(ctx context.Context, o ConnectOptions) (*Session, *Stop, error) {
	s := m.newSession(KindConnect)
	s.addr = o.Address
	if o.Program != "" {
		abs, err := filepath.Abs(o.Program)
		if err != nil {
			return nil, nil, argErrorf("program", "%v", err)
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, nil, argErrorf("program", "%s does not exist", abs)
		}
		s.program = abs
	}
	st, err := m.open(ctx, s, rsp.DialectAuto, "")
	if err != nil {
		return nil, nil, err
	}
	return s, st, nil
}

func (m *Manager) newSession(k Kind) *Session {
	return &Session{m: m, kind: k, to: m.cfg.Timeouts, sem: make(chan struct{}, 1), cur: rsp.AnyThread, src: sources.Cache{Rules: m.cfg.SourceMap}}
}
