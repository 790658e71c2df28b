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
	cancelled bool  // the client cancelled the request (not a time limit)
	noted     *Stop // the cancelled stop the session keeps (noteCancelled)
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
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if s.c.Owed() > 0 && s.c.Settle(ictx) != nil {
		// The request ctx abandoned (a step in flight) is answered soon
		// by a server that answers at all; one that has not has no stop
		// to report, and the program's state is unknown.
		return err
	}
	if st.Raw == "" {
		st = s.c.LastStop()
		if st.Raw == "" {
			return err
		}
	}
	out := s.makeStop(ictx, st)
	if out.Reason == "step" {
		out.Reason = "interrupted"
	}
	return &interruptedError{stop: out, err: err, cancelled: errors.Is(ctx.Err(), context.Canceled)}
}

// command names the command a call runs for in its cancelled stop. The
// outermost command names it: the continues of a query are the query's.
type command struct {
	name string
	// ownStops: the command's own breakpoints make its stops (a query's),
	// so its cancelled stop has reason "cancelled" even where the interrupt
	// met one of their hits: the client never set them.
	ownStops bool
}

type commandKey struct{}

// naming returns ctx naming the command name, unless an outer command
// already named one.
func naming(ctx context.Context, name string, ownStops bool) context.Context {
	if _, ok := ctx.Value(commandKey{}).(command); ok {
		return ctx
	}
	return context.WithValue(ctx, commandKey{}, command{name: name, ownStops: ownStops})
}

// commandOf is the command ctx names (the zero command when none).
func commandOf(ctx context.Context) command {
	c, _ := ctx.Value(commandKey{}).(command)
	return c
}

// asStop returns the stop of an interrupted move as its result: a time
// limit is a stop with reason "interrupted", a cancellation by the client
// one with reason "cancelled" naming the command ctx names (or, either
// way, what the program stopped for meanwhile), the place, and why — not a
// tool error.
func (s *Session) asStop(ctx context.Context, out *Stop, err error) (*Stop, error) {
	var ie *interruptedError
	if !errors.As(err, &ie) || errors.Is(err, rsp.ErrClosed) {
		// (the connection died since the interrupt: no stop to report,
		// and no usable session)
		return out, err
	}
	if ie.cancelled && ie.noted != nil {
		return ie.noted, nil // the command's do kept it (noteCancelled)
	}
	st, _ := s.interruptStop(ctx, err)
	return st, nil
}

// interruptStop is the structured stop of the command ctx names that a
// time limit or the client's cancellation ended, for a command that
// reports it itself (rr_last_write); ok is false when err is something
// else. A cancelled stop is kept in the session's state.
func (s *Session) interruptStop(ctx context.Context, err error) (*Stop, bool) {
	var ie *interruptedError
	if !errors.As(err, &ie) || errors.Is(err, rsp.ErrClosed) {
		return nil, false
	}
	if ie.cancelled {
		return s.keepCancelled(ie.stop, commandOf(ctx)), true
	}
	st := ie.stop
	st.Message = strings.TrimSpace(fmt.Sprintf("Interrupted: the command ran past its time limit (RR_MCP_TIMEOUT_FORWARD / RR_MCP_TIMEOUT_REVERSE); the program is stopped in %s and the session is usable. %s", st.where(), st.Message))
	return st, true
}

// moveName names a move for a cancelled stop: "continue", "reverse step"…
func moveName(m string, rev bool) string {
	if rev {
		return "reverse " + m
	}
	return m
}

// cancelledPrefix starts the message of every cancelled stop.
const cancelledPrefix = "Cancelled by the client"

// keepCancelled stores, as the session's cancelled stop, a copy of st
// with reason cancelled, the command cmd (unnamed when cmd is zero) and a
// message saying so. Stored stops are never changed afterwards (Info
// reads them unlocked).
func (s *Session) keepCancelled(st *Stop, cmd command) *Stop {
	cp := *st
	if cp.Reason == "interrupted" || cp.Reason == "step" || cmd.ownStops {
		cp.Reason = "cancelled"
	}
	if cmd.ownStops {
		cp.Breakpoint = 0
	}
	cp.Cancelled = cmd.name
	head := cancelledPrefix
	if cmd.name != "" {
		head += " (" + cmd.name + ")"
	}
	cp.Message = strings.TrimSpace(fmt.Sprintf("%s: the program was interrupted and is stopped in %s; the session is usable. %s", head, cp.where(), st.Message))
	s.cancelled.Store(&cp)
	return &cp
}

// noteCancelled keeps where a command the client cancelled left the
// program: the interrupted stop of a resume, or the last stop of a
// command that resumes many times (a query, a last-writer search), as a
// stop with reason "cancelled" that Info reports (rr_session_list), since
// the cancelled call's own result may never reach the client. A stop the
// command kept itself (with its operation's name) stays.
func (s *Session) noteCancelled(ctx context.Context, err error) {
	if s.cancelled.Load() != nil {
		return
	}
	var ie *interruptedError
	switch {
	case errors.As(err, &ie):
		ie.noted = s.keepCancelled(ie.stop, commandOf(ctx))
	case s.c != nil && s.c.Dead() == nil && !s.c.Exited():
		last := s.c.LastStop()
		if last.Raw == "" {
			return
		}
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.keepCancelled(s.makeStop(ictx, last), commandOf(ctx))
	}
}

// queryCancelled turns the end of a query's move by the client's cancel
// into the query's cancelled stop: the continue's own (it interrupted the
// target), or, when the cancel came between two moves, where the program
// is. Other results pass through.
func (s *Session) queryCancelled(ctx context.Context, st *Stop, err error) (*Stop, error) {
	switch {
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
	return s.keepCancelled(here, commandOf(ctx)), nil
}

// keepingCancelled runs the clean-up f of a command made of several (a
// query removing its breakpoints) without letting f's own commands clear
// the cancelled stop the command left.
func (s *Session) keepingCancelled(f func()) {
	keep := s.cancelled.Load()
	f()
	if keep != nil {
		s.cancelled.CompareAndSwap(nil, keep)
	}
}
