package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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
// o.AttachPID; proc.StartLive picks and starts the server) and connects
// to it. The program stops before its first instruction.
func (m *Manager) StartLive(ctx context.Context, o LiveOptions) (*Session, *Stop, error) {
	sctx, cancel := context.WithTimeout(ctx, m.cfg.Timeouts.Startup)
	defer cancel()
	s := m.newSession(KindLive)
	// Where gdbserver overwrites AVX-512 registers at stops, glibc is
	// kept from its AVX-512 functions (hwdebug.ZMM).
	zmm := m.zmm.Get(sctx)
	l := proc.Live{Command: o.Command, Dir: o.Dir, Env: m.cfg.Env, Extra: o.Env, AttachPID: o.AttachPID, Agent: o.InProcessAgent, I386: &m.i386,
		MaskAVX512: zmm.Clobbered}
	if o.AttachPID <= 0 {
		// The program's output, kept apart from the MCP stream.
		var err error
		if s.out, err = outlog.NewFiles(); err != nil {
			return nil, nil, err
		}
		l.Stdout, l.Stderr = s.out.Stdout(), s.out.Stderr()
	}
	srv, err := proc.StartLive(sctx, l)
	if err != nil {
		if s.out != nil {
			s.out.Close()
		}
		return nil, nil, err
	}
	s.srv, s.conn, s.addr, s.program, s.attached, s.ipa, s.serverNote = srv.Process, srv.Conn, srv.Addr, srv.Program, srv.Attached, srv.Agent, srv.Note
	if zmm.Clobbered && srv.Note == "" { // gdbserver's
		s.registersNote = zmm.Reason + "; "
		if srv.Attached {
			s.registersNote += "the attached process keeps its environment: its glibc string functions, which keep data in " +
				"ymm16-ymm19, may misbehave after a stop inside them (a single-step, a software watchpoint, a signal)"
		} else {
			s.registersNote += "so the program runs with glibc's AVX-512 functions masked (GLIBC_TUNABLES=" +
				proc.MaskAVX512Tunables("") + "; the same results from its AVX2 ones); " +
				"the program's own AVX-512 code may still misbehave after a stop inside it, and $zmm registers read through gdbserver are wrong"
		}
		s.registersNote += "; gdbserver from GDB 14 or later reads this processor's layout"
	}
	st, err := m.open(ctx, s, rsp.DialectGDBServer, "")
	if err != nil {
		if srv.Conn != nil {
			srv.Conn.Close()
		}
		srv.Stop(0) //nolint:errcheck
		return nil, nil, err
	}
	return s, st, nil
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
	s := &Session{m: m, kind: k, to: m.cfg.Timeouts, sem: make(chan struct{}, 1), src: sources.Cache{Rules: m.cfg.SourceMap}}
	s.initVars()
	return s
}
