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
	stop *Stop
	err  error
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
	return &interruptedError{stop: out, err: err}
}

// asStop returns the stop of an interrupted move as its result: a time
// limit or a cancellation is a stop with reason "interrupted" (or what the
// program stopped for meanwhile), the place, and why — not a tool error.
func (s *Session) asStop(out *Stop, err error) (*Stop, error) {
	var ie *interruptedError
	if !errors.As(err, &ie) {
		return out, err
	}
	st := ie.stop
	why := "the request was cancelled"
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		why = "the command ran past its time limit (RR_MCP_TIMEOUT_FORWARD / RR_MCP_TIMEOUT_REVERSE)"
	} else if st.Reason == "interrupted" {
		st.Reason = "cancelled"
	}
	st.Message = strings.TrimSpace(fmt.Sprintf("Interrupted: %s; the program is stopped in %s and the session is usable. %s", why, st.where(), st.Message))
	return st, nil
}

// noteCancelled keeps where a command the client cancelled left the
// program: the interrupted stop of a resume, or the last stop of a
// command that resumes many times (a query, a last-writer search), as a
// stop with reason "cancelled" that Info reports (rr_session_list), since
// the cancelled call's own result may never reach the client.
func (s *Session) noteCancelled(ctx context.Context, err error) {
	var st *Stop
	var ie *interruptedError
	switch {
	case errors.As(err, &ie):
		cp := *ie.stop
		st = &cp
	case s.c != nil && s.c.Dead() == nil && !s.c.Exited():
		last := s.c.LastStop()
		if last.Raw == "" {
			return
		}
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		st = s.makeStop(ictx, last)
	default:
		return
	}
	if st.Reason == "interrupted" || st.Reason == "step" {
		st.Reason = "cancelled"
	}
	st.Message = strings.TrimSpace(fmt.Sprintf("Cancelled by the client: the program was interrupted and is stopped in %s; the session is usable. %s", st.where(), st.Message))
	s.cancelled.Store(st)
}
