package session

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/sources"
	"github.com/rrmcp/rrmcp/rsp"
)

// Config configures a Manager.
type Config struct {
	Timeouts Timeouts
	// Env is the environment for children (rr, gdbserver, gdb); nil means
	// os.Environ().
	Env []string
	// GDB is the gdb binary for the GDB/MI fallback; "" means "gdb".
	GDB string
	// Log receives diagnostics (never stdout); nil discards them.
	Log func(format string, args ...any)
	// PacketLog, if set, receives every RSP packet of every session (one
	// line each, see rsp.Options.PacketLog); for tests and benchmarks.
	PacketLog io.Writer
	// SourceMap rewrites the source paths the debug information names
	// before they are read (GDB's set substitute-path), e.g. when the
	// program was built elsewhere. Only named files are ever read.
	SourceMap []sources.Substitution
}

// Manager owns the sessions of one MCP server. It is safe for concurrent
// use.
type Manager struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*Session
	order    []string // ids, oldest first
	next     int
	closed   bool

	hw   hwdebug.Cache    // the hardware debug register probe, run once
	zmm  hwdebug.ZMMCache // whether gdbserver keeps AVX-512 registers, probed once
	i386 proc.I386Probe   // whether the kernel runs i386 programs, probed once
}

// NewManager returns an empty Manager.
func NewManager(cfg Config) *Manager {
	if cfg.Timeouts == (Timeouts{}) {
		cfg.Timeouts = DefaultTimeouts()
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	return &Manager{cfg: cfg, sessions: make(map[string]*Session)}
}

// Timeouts returns the configured limits.
func (m *Manager) Timeouts() Timeouts { return m.cfg.Timeouts }

// add registers s under a new id and makes it the most recent session.
func (m *Manager) add(s *Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("the server is shutting down: %w", ErrNoSession)
	}
	m.next++
	s.id = "s" + strconv.Itoa(m.next)
	m.sessions[s.id] = s
	m.order = append(m.order, s.id)
	return nil
}

// Get returns the session with the given id, or the most recently started
// one when id is "".
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id == "" {
		if len(m.order) == 0 {
			return nil, fmt.Errorf("no session is active (start one with rr_replay_start, rr_live_start or rr_connect): %w", ErrNoSession)
		}
		return m.sessions[m.order[len(m.order)-1]], nil
	}
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q does not exist (active: %s): %w", id, m.idsLocked(), ErrNoSession)
	}
	return s, nil
}

func (m *Manager) idsLocked() string {
	if len(m.order) == 0 {
		return "none"
	}
	return fmt.Sprint(m.order)
}

// List returns a summary of every session, oldest first, as it is now: a
// gdbserver session's watchpoint verdict may be still to come (Settle).
func (m *Manager) List() []Info {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.order))
	for _, id := range m.order {
		ss = append(ss, m.sessions[id])
	}
	m.mu.Unlock()
	out := make([]Info, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.Info())
	}
	return out
}

// Settle waits, while ctx allows, for what a session summary (List) may
// still lack: the hardware debug register probe a gdbserver session
// began when it opened, whose verdict says what watchpoints are used.
func (m *Manager) Settle(ctx context.Context) {
	m.mu.Lock()
	var gdbserver bool
	for _, s := range m.sessions {
		gdbserver = gdbserver || s.c != nil && s.c.Dialect() == rsp.DialectGDBServer
	}
	m.mu.Unlock()
	if gdbserver {
		m.hw.Get(ctx, m.cfg.Env)
	}
}

// Idle uses the time between two calls of the client (stdio.Options.Idle)
// for work each session's next call would do first; it does not wait for
// a session another call holds.
func (m *Manager) Idle(ctx context.Context) {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	for _, s := range ss {
		s.idle(ctx)
	}
}

// Stop ends the session with the given id ("" = most recent): it
// interrupts a running resume, says goodbye to the server and stops every
// process the session started.
func (m *Manager) Stop(ctx context.Context, id string) (Info, error) {
	s, err := m.Get(id)
	if err != nil {
		return Info{}, err
	}
	m.remove(s.id)
	info := s.Info()
	s.close(ctx)
	info.State = "stopped"
	return info, nil
}

func (m *Manager) remove(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, id)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == id })
}

// Close stops every session (in parallel) and refuses new ones. It returns
// when all their processes have exited or grace ran out for each.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.sessions = map[string]*Session{}
	m.order = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s.close(ctx)
		})
	}
	wg.Wait()
}

func (m *Manager) logf(format string, args ...any) { m.cfg.Log(format, args...) }
