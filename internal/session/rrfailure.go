package session

import (
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/rr"
)

// rrFailure is the tool error for an rr failure rr.Diagnose recognised:
// one sentence with the cause and the fix, rr's own line, and the way on
// without rr. what is "record" or "replay". It matches ErrUnsupported and
// rr.ErrUnavailable.
func rrFailure(what string, f *rr.Failure) error {
	msg := fmt.Sprintf("rr could not %s: %s", what, f.Cause)
	msg += "; fix: " + f.Fix
	if !strings.Contains(f.Fix, "rr_live_start") {
		msg += "; to debug without a recording use rr_live_start"
	}
	if f.Said != "" {
		msg += " (rr said: " + f.Said + ")"
	}
	return fmt.Errorf("%s: %w", msg, &failureErr{f: f})
}

// failureErr carries f and ErrUnsupported for errors.Is/As.
type failureErr struct{ f *rr.Failure }

func (e *failureErr) Error() string { return ErrUnsupported.Error() }
func (e *failureErr) Unwrap() []error {
	return []error{ErrUnsupported, e.f}
}
