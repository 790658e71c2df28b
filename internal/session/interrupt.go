package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// interruptedError: a resume ended by its time limit or by cancellation.
// The client interrupted the target once and read its stop within the same
// call (rsp's interrupt discipline); stop is where the program is now.
type interruptedError struct {
	stop      *Stop
	err       error
	cancelled bool // the client cancelled the request (not a time limit)
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("interrupted; the program is stopped in %s: %v", e.stop.where(), e.err)
}
func (e *interruptedError) Unwrap() error { return e.err }

// where names the stop's place for a message.
func (st *Stop) where() string {
	if st == nil || st.Frame == nil {
		return "an unknown location"
	}
	loc := orUnknown(st.Frame.Function)
	if st.Frame.File != "" {
		loc += fmt.Sprintf(" at %s:%d", st.Frame.File, st.Frame.Line)
	}
	return loc
}

// interruptedAt turns the error of a resume whose ctx ended into an
// interruptedError carrying where the program stopped: the interrupted
// stop, or — when ctx ended between two resumes of a multi-step command —
// the last stop. A lost connection stays what it is.
func (s *Session) interruptedAt(ctx context.Context, st rsp.Stop, err error) error {
	if errors.Is(err, rsp.ErrClosed) || s.c.Exited() {
		return err
	}
	if st.Raw == "" {
		st = s.c.LastStop()
		if st.Raw == "" {
			return err
		}
	}
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	out := s.makeStop(ictx, st)
	if out.Reason == "step" {
		out.Reason = "interrupted"
	}
	return &interruptedError{stop: out, err: err, cancelled: errors.Is(ctx.Err(), context.Canceled)}
}

// asStop returns the stop of an interrupted move as its result: a time
// limit is a stop with reason "interrupted", a cancellation by the client
// one with reason "cancelled" naming op (or, either way, what the program
// stopped for meanwhile), the place, and why — not a tool error.
func (s *Session) asStop(op string, out *Stop, err error) (*Stop, error) {
	st, ok := s.interruptStop(op, err)
	if !ok {
		return out, err
	}
	return st, nil
}

// interruptStop is the structured stop of an operation op that a time
// limit or the client's cancellation ended; ok is false when err is
// something else. A cancelled stop is also kept in the session's state
// (Info.Cancelled) and told by the next stop, since the client that
// cancelled may never read this result.
func (s *Session) interruptStop(op string, err error) (*Stop, bool) {
	var ie *interruptedError
	if !errors.As(err, &ie) {
		return nil, false
	}
	st := ie.stop
	if ie.cancelled {
		s.markCancelled(st, op)
		return st, true
	}
	st.Message = strings.TrimSpace(fmt.Sprintf("Interrupted: the command ran past its time limit (RR_MCP_TIMEOUT_FORWARD / RR_MCP_TIMEOUT_REVERSE); the program is stopped in %s and the session is usable. %s", st.where(), st.Message))
	return st, true
}

// cancelNote says, once, at the stop after a cancelled operation, where
// that operation had left the program.
func (s *Session) cancelNote() string {
	c := s.cancelled.Swap(nil)
	if c == nil {
		return ""
	}
	return fmt.Sprintf("The previous %s was cancelled by the client; it had stopped in %s.", c.Cancelled, c.where())
}

// moveName names a move for a cancelled stop: "continue", "reverse step"…
func moveName(m string, rev bool) string {
	if rev {
		return "reverse " + m
	}
	return m
}

// markCancelled makes st the structured stop of op, which the client
// cancelled, and keeps it in the session's state.
func (s *Session) markCancelled(st *Stop, op string) {
	if st.Reason == "interrupted" || st.Reason == "step" {
		st.Reason = "cancelled"
	}
	st.Cancelled = op
	st.Message = strings.TrimSpace(fmt.Sprintf("Cancelled: the client cancelled %s; the target was interrupted and the program is stopped in %s; the session is usable. %s", op, st.where(), st.Message))
	s.cancelled.Store(st)
}

// queryCancelled turns the end of a query's move by the client's cancel
// into the query's cancelled stop: the continue's own (it interrupted the
// target), or, when the cancel came between two moves, where the program
// is. Other results pass through.
func (s *Session) queryCancelled(ctx context.Context, st *Stop, err error) (*Stop, error) {
	switch {
	case err == nil && st != nil && st.Cancelled != "":
		st.Cancelled = "rr_query"
		st.Message = strings.Replace(st.Message, "cancelled continue;", "cancelled rr_query;", 1)
		return st, nil
	case err == nil || !errors.Is(ctx.Err(), context.Canceled) || s.c.Exited() || s.c.Dead() != nil:
		return st, err
	}
	var here *Stop
	s.do(context.WithoutCancel(ctx), s.to.Eval, func(ctx context.Context) error { //nolint:errcheck // here stays nil
		here = s.makeStop(ctx, s.c.LastStop())
		return nil
	})
	if here == nil {
		return st, err
	}
	here.Reason = "cancelled"
	s.markCancelled(here, "rr_query")
	return here, nil
}
