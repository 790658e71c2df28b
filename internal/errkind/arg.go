package errkind

import "fmt"

// ArgError reports invalid input: which argument, and why. Every layer
// that checks a tool's arguments (internal/session, internal/rr,
// internal/proc, tools) returns one, so that a caller tells bad input
// apart with errors.As whichever layer found it.
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

// Argf returns an *ArgError for arg with a formatted message.
func Argf(arg, format string, a ...any) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// Shorten cuts s to at most n bytes for an error message, saying how long
// it was: errors never echo a whole (possibly huge) input.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
