package errkind

import "errors"

// The kinds (see the package documentation).
var (
	NotFound        = errors.New("not found")
	Unsupported     = errors.New("not supported")
	UnsupportedExpr = errors.New("unsupported expression")
	Exited          = errors.New("the program has exited")
	NotStopped      = errors.New("the target is not stopped")
	NoReverse       = errors.New("reverse execution is not available")
	Timeout         = errors.New("timed out")
	NoSession       = errors.New("no such session")
	NoDebugInfo     = errors.New("no debug information")
	Closed          = errors.New("connection closed")
	Refused         = errors.New("request refused")
	Malformed       = errors.New("malformed input")
)

// New returns a sentinel error with its own text that matches kind with
// errors.Is.
func New(text string, kind error) error { return &sentinel{text, kind} }

type sentinel struct {
	text string
	kind error
}

func (e *sentinel) Error() string        { return e.text }
func (e *sentinel) Is(target error) bool { return target == e.kind }
