package session

import (
	"context"

	"github.com/rrmcp/rrmcp/rsp"
)

// sigURG is SIGURG in the protocol's numbering (rsp/signal.go).
const sigURG rsp.Signal = 16

// passQuietSignals asks the server to deliver SIGURG without stopping:
// the Go runtime sends it to preempt goroutines, many times a second, so a
// Go program would otherwise stop on every continue. GDB does not stop on
// SIGURG either (nostop noprint pass by default). Servers without
// QPassSignals keep stopping on it.
func (s *Session) passQuietSignals(ctx context.Context) {
	if s.kind == KindCore || !s.c.Supports("QPassSignals") {
		return
	}
	if err := s.c.PassSignals(ctx, sigURG); err != nil {
		s.m.logf("session %s: QPassSignals: %v", s.id, err)
	}
}
