package session

import "github.com/rrmcp/rrmcp/internal/errkind"

// Error vocabulary of the package: the kinds of internal/errkind (one
// vocabulary for every layer), so that errors.Is(err, ErrNotFound) also
// holds for a dwarf or symbols "not found". Match with errors.Is; the
// wrapped text says what exactly went wrong.
var (
	// ErrNoSession: no session with that id, or none at all.
	ErrNoSession = errkind.NoSession
	// ErrNotStopped: the target is running (a resume is in flight).
	ErrNotStopped = errkind.NotStopped
	// ErrNoReverse: reverse execution or event seeking on a backend that
	// cannot go backwards.
	ErrNoReverse = errkind.NoReverse
	// ErrUnsupported: the backend or server does not offer the operation.
	ErrUnsupported = errkind.Unsupported
	// ErrExited: the debuggee has exited; only reverse execution (rr) or
	// stopping the session make sense.
	ErrExited = errkind.Exited
	// ErrTimeout: the operation ran past its RR_MCP_TIMEOUT_* limit. A
	// resume was interrupted and the session is still usable.
	ErrTimeout = errkind.Timeout
	// ErrNotFound: no function, file, line, variable, thread, frame,
	// breakpoint or checkpoint matches.
	ErrNotFound = errkind.NotFound
	// ErrNoDebugInfo: the program has no usable DWARF for the request.
	ErrNoDebugInfo = errkind.NoDebugInfo
	// ErrUnsupportedExpr: the native evaluator cannot handle the
	// expression and no fallback engine answered it.
	ErrUnsupportedExpr = errkind.UnsupportedExpr
)

// ArgError reports invalid input: which argument, and why. It is
// errkind's, so that bad input found by internal/rr or internal/proc is
// the same error.
type ArgError = errkind.ArgError

func argErrorf(arg, format string, a ...any) error { return errkind.Argf(arg, format, a...) }
