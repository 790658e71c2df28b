package session

import (
	"context"
	"errors"
)

// gdbFallback is the GDB/MI engine for expressions the native evaluator
// does not support. It is started on first use.
type gdbFallback struct{}

func (g *gdbFallback) close() {}

var errNoGDBFallback = errors.New("the GDB/MI fallback is not available in this build")

// gdbEvaluate evaluates expr with GDB connected through the read-only relay.
func (s *Session) gdbEvaluate(ctx context.Context, expr string) (string, error) {
	return "", errNoGDBFallback
}
