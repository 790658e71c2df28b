package session

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/rrmcp/rrmcp/internal/gdbmi"
	"github.com/rrmcp/rrmcp/internal/relay"
	"github.com/rrmcp/rrmcp/rsp"
)

// gdbFallback is GDB/MI connected to the session's target through a
// read-only relay, started on first use.
type gdbFallback struct {
	relay *relay.Relay
	gdb   *gdbmi.GDB
}

func (g *gdbFallback) close() {
	if g.gdb != nil {
		g.gdb.Close() //nolint:errcheck
	}
	if g.relay != nil {
		g.relay.Close() //nolint:errcheck
	}
}

// gdbEvaluate evaluates expr with GDB in the selected thread and frame.
// The caller holds the session lock, so GDB's reads, forwarded by the
// relay on its own goroutine, are the only users of the client meanwhile.
func (s *Session) gdbEvaluate(ctx context.Context, expr string) (string, error) {
	return s.withGDB(ctx, func(g *gdbmi.GDB, tid string) (string, error) {
		return g.Evaluate(ctx, expr, tid, s.frame)
	})
}

// gdbPtype is GDB's ptype (whatis) of expr in the selected thread and
// frame: what follows its "type = ".
func (s *Session) gdbPtype(ctx context.Context, expr string, whatis bool) (string, error) {
	cmd := "ptype "
	if whatis {
		cmd = "whatis "
	}
	return s.withGDB(ctx, func(g *gdbmi.GDB, tid string) (string, error) {
		out, err := g.ConsoleAt(ctx, cmd+expr, tid, s.frame)
		if err != nil {
			return "", err
		}
		t, ok := strings.CutPrefix(strings.TrimSpace(out), "type = ")
		if !ok {
			return "", fmt.Errorf("gdb: %s", strings.TrimSpace(out))
		}
		return t, nil
	})
}

// withGDB runs f with the session's GDB, started on first use, and the
// selected thread as the RSP names it.
func (s *Session) withGDB(ctx context.Context, f func(g *gdbmi.GDB, tid string) (string, error)) (string, error) {
	if s.program == "" {
		return "", errors.New("no program file for GDB")
	}
	if s.gdb == nil {
		path := s.m.cfg.GDB
		if path == "" {
			path = "gdb"
		}
		if _, err := exec.LookPath(path); err != nil {
			return "", fmt.Errorf("gdb is not installed: %w", err)
		}
		r, err := relay.New(relay.Config{
			Forward:      relay.ClientForward(s.c, nil),
			Stop:         func() string { return s.c.LastStop().Raw },
			Multiprocess: s.c.Multiprocess(),
			// $_siginfo: reading it is harmless on gdbserver; rr
			// starts a diversion (rsp's rr dialect refuses it too).
			Siginfo: s.c.Dialect() == rsp.DialectGDBServer,
		})
		if err != nil {
			return "", fmt.Errorf("start the relay for gdb: %w", err)
		}
		g, err := gdbmi.Config{Path: path, Env: s.m.cfg.Env}.Start(ctx, s.program, r.Addr())
		if err != nil {
			r.Close() //nolint:errcheck
			return "", fmt.Errorf("start gdb: %w", err)
		}
		s.gdb = &gdbFallback{relay: r, gdb: g}
	}
	tid := ""
	if s.inf.Cur.Tid > 0 {
		tid = s.inf.Cur.String()
	}
	v, err := f(s.gdb.gdb, tid)
	if errors.Is(err, gdbmi.ErrClosed) {
		s.gdb.close()
		s.gdb = nil
	}
	return v, err
}
