package session

import (
	"errors"
	"fmt"
)

// Error vocabulary of the package. Match with errors.Is; the wrapped text
// says what exactly went wrong.
var (
	// ErrNoSession: no session with that id, or none at all.
	ErrNoSession = errors.New("no such session")
	// ErrNotStopped: the target is running (a resume is in flight).
	ErrNotStopped = errors.New("the target is not stopped")
	// ErrNoReverse: reverse execution or event seeking on a backend that
	// cannot go backwards.
	ErrNoReverse = errors.New("reverse execution is not available")
	// ErrUnsupported: the backend or server does not offer the operation.
	ErrUnsupported = errors.New("not supported")
	// ErrExited: the debuggee has exited; only reverse execution (rr) or
	// stopping the session make sense.
	ErrExited = errors.New("the program has exited")
	// ErrTimeout: the operation ran past its RR_MCP_TIMEOUT_* limit. A
	// resume was interrupted and the session is still usable.
	ErrTimeout = errors.New("timed out")
	// ErrNotFound: no function, file, line, variable, thread, frame,
	// breakpoint or checkpoint matches.
	ErrNotFound = errors.New("not found")
	// ErrNoDebugInfo: the program has no usable DWARF for the request.
	ErrNoDebugInfo = errors.New("no debug information")
	// ErrUnsupportedExpr: the native evaluator cannot handle the
	// expression and no fallback engine answered it.
	ErrUnsupportedExpr = errors.New("unsupported expression")
)

// ArgError reports invalid input: which argument, and why.
type ArgError struct {
	Arg string // argument name as the tool calls it
	Msg string
}

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Arg, e.Msg)
}

func argErrorf(arg, format string, a ...any) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}
