package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rrmcp/rrmcp/internal/inferior"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/rsp"
)

// open connects s to its server, loads the program's symbols and
// registers the session. It returns the initial stop.
func (m *Manager) open(ctx context.Context, s *Session, d rsp.Dialect, rrVer string) (*Stop, error) {
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeouts.Connect)
	defer cancel()
	if s.pkts == nil {
		s.pkts = rsp.NewPacketRing(packetRingLines)
	}
	opts := rsp.Options{Dialect: d, RRVersion: rrVer, PacketLog: m.cfg.PacketLog, PacketRing: s.pkts, InterruptTimeout: m.cfg.Timeouts.Interrupt}
	var (
		c   *rsp.Client
		err error
	)
	if s.conn != nil {
		// A server started with its end of a socket pair (gdbserver -).
		c, err = rsp.NewClient(cctx, s.conn, opts)
	} else {
		c, err = rsp.Dial(cctx, s.addr, opts)
	}
	if errors.Is(err, rsp.ErrClosed) && cctx.Err() == nil {
		// The server took the connection and let it go: said as that,
		// not as the wire's last read (EOF, a reset).
		return nil, &goneError{msg: fmt.Sprintf("connect to the debug %s: the server closed the connection before the handshake finished", s.serverName()), err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("connect to the debug %s (raise RR_MCP_TIMEOUT_CONNECT if it is slow): %w", s.serverName(), err)
	}
	s.c = c
	s.caps = Caps{Reverse: c.Supports("ReverseContinue") && c.Supports("ReverseStep")}
	if c.Dialect() == rsp.DialectRR {
		s.caps.Events, s.caps.Checkpoints, s.caps.Seek = true, true, true
	}
	if c.Dialect() == rsp.DialectGDBServer {
		m.hw.Start() // asked for at the first hardware breakpoint or watchpoint (hardware)
	}
	s.pid = int(c.Pid())
	if s.program == "" {
		if exe, err := c.ExecFile(cctx, c.Pid()); err == nil {
			s.program = exe
		}
	}
	local := 0
	if s.kind == KindLive {
		local = s.pid // its /proc/PID/maps lists the libraries before ld.so has
		if !s.attached && s.srv != nil {
			s.group, _ = proc.GroupOf(s.pid, s.srv.Pid())
		}
	}
	s.inf = inferior.New(c, s.program, local)
	s.sem <- struct{}{}
	defer s.release()
	s.inf.Load(cctx)
	if err := s.applySignals(cctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("set the signals to pass: %w", err)
	}
	last := c.LastStop()
	if last.Thread != (rsp.Thread{}) {
		s.inf.Cur = last.Thread
	}
	st := s.makeStop(cctx, last)
	if st.Reason == "step" || st.Reason == "interrupted" {
		st.Reason = "started"
	}
	if st.Frame != nil && st.Frame.Location.Function == "" && s.inf.Img != nil {
		st.Message = s.outsideProgram(st.Frame.Location.PC)
	}
	if err := m.add(s); err != nil {
		c.Close()
		return nil, err
	}
	return st, nil
}

// outsideProgram explains a first stop whose pc no symbol of the program
// covers (a machine at its reset vector, a loader): where the program
// starts and how to get there.
func (s *Session) outsideProgram(pc string) string {
	msg := fmt.Sprintf("The program counter %s is outside %s (firmware or loader code; GDB shows it as \"?? ()\").", pc, filepath.Base(s.program))
	e := s.inf.Img.ELF().Entry
	if name, ok := s.inf.Syms.FunctionNamedAt(e); ok {
		return msg + fmt.Sprintf(" The program starts at %s (%#x): set a breakpoint there or on a function of it and continue.", name, e+s.inf.Bias)
	}
	return msg + " Set a breakpoint on a function of the program and continue."
}
