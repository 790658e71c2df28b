package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rrmcp/rrmcp/internal/coredump"
	"github.com/rrmcp/rrmcp/internal/relay"
	"github.com/rrmcp/rrmcp/rsp"
)

// KindCore is a post-mortem session on a core dump: no process and no debug
// server. The core is served by the read-only relay (internal/relay) with
// a ForwardFunc that answers from the core file (coredump.Server), so
// every inspection tool runs the code it runs on a live target.
const KindCore Kind = "core"

// OpenCore starts a session on a core dump of program exe.
func (m *Manager) OpenCore(ctx context.Context, corePath, exe string) (*Session, *Stop, error) {
	abs, err := filepath.Abs(exe)
	if err != nil {
		return nil, nil, argErrorf("executable", "%v", err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return nil, nil, argErrorf("executable", "%s is not a file: give the program that dumped the core", abs)
	}
	cf, err := coredump.Open(corePath)
	if errors.Is(err, coredump.ErrI386) {
		return nil, nil, fmt.Errorf("%v: rr_core_open reads x86-64 cores only; run the program with rr_live_start (i386 programs run there) and rr_continue to the crash, or open the core with GDB: %w", err, ErrUnsupported)
	}
	if err != nil {
		if errors.Is(err, coredump.ErrNotCore) || errors.Is(err, os.ErrNotExist) {
			return nil, nil, argErrorf("core_file", "%v", err)
		}
		return nil, nil, argErrorf("core_file", "cannot read it as an ELF core dump: %v", err)
	}
	srv := coredump.NewServer(cf, abs)
	r, err := relay.New(relay.Config{Forward: srv.Answer, Stop: srv.StopReply, Multiprocess: true})
	if err != nil {
		cf.Close()
		return nil, nil, fmt.Errorf("serve the core: %w", err)
	}
	s := m.newSession(KindCore)
	s.addr = r.Addr()
	s.program = abs
	s.traceDir = corePath
	s.core = func() {
		r.Close()  //nolint:errcheck
		cf.Close() //nolint:errcheck
	}
	st, err := m.open(ctx, s, rsp.DialectAuto, "")
	if err != nil {
		s.core()
		return nil, nil, err
	}
	return s, st, nil
}

// coreCannotMove is the error of every tool that would run the program.
func (s *Session) coreCannotMove() error {
	return fmt.Errorf("session %s is a core dump (%s): there is no process to run, step or set breakpoints in; inspect it (rr_backtrace, rr_select_frame, rr_locals, rr_evaluate, rr_read_memory, rr_registers, rr_thread_list, rr_disassemble), or run the program with rr_record / rr_live_start: %w", s.id, s.traceDir, ErrUnsupported)
}
