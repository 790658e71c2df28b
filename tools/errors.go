package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/rsp"
)

// kindHints is the advice for each kind of error the session reports,
// tried in order with errors.Is.
var kindHints = []struct {
	kind error
	hint string
}{
	{session.ErrNoSession, "Start a session with rr_replay_start (rr trace), rr_live_start (run a program under gdbserver) or rr_connect, or pass a valid session id."},
	{session.ErrNoReverse, "Reverse execution needs an rr recording: record with rr_record on a machine with a hardware PMU, then rr_replay_start. In this session, use forward execution with breakpoints and watchpoints."},
	{session.ErrTimeout, "Raise the limit with the RR_MCP_TIMEOUT_* environment variables, or set a breakpoint closer to where you want to stop; rr_session_list says whether the session is still usable."},
	{session.ErrExited, "Go backwards (reverse=true) if this is an rr replay, or stop the session and start a new one."},
	{session.ErrNotStopped, "Wait for the running command to finish, or call rr_interrupt."},
	{session.ErrUnsupportedExpr, "Simplify the expression (read members or array elements step by step), or use rr_read_memory."},
	{session.ErrNotFound, "Check the spelling; rr_backtrace, rr_locals and rr_thread_list show what exists."},
	{session.ErrUnsupported, "Not available with this backend or on this machine; the message says what to use instead (rr_session_list shows each session's capabilities)."},
	{rsp.ErrClosed, "The connection to the debug server is gone; stop this session (rr_replay_stop) and start a new one."},
	{rsp.ErrRefused, "rrmcp refused to send this request; the message says why (and which allow_ argument permits it, if any)."},
}

// explain turns an error from the session layer into a tool error message:
// what went wrong, then what the agent can do next.
func explain(tool string, err error) string {
	msg := err.Error()
	var hint string
	var ae *session.ArgError
	var re *rsp.Error
	if errors.As(err, &ae) {
		hint = "Fix the argument and call " + tool + " again."
	}
	if startsSession[tool] && errors.Is(err, rsp.ErrClosed) {
		// No session came of it: nothing to stop.
		hint = "No session was started. Check that the address is a GDB remote-protocol server that takes a debugger now (gdbserver --once serves one debugger; rr replay -s, QEMU -gdb), then call " + tool + " again."
	}
	for _, k := range kindHints {
		if hint != "" {
			break
		}
		if errors.Is(err, k.kind) {
			hint = k.hint
		}
	}
	switch {
	case hint != "":
	case errors.As(err, &re):
		hint = "The debug server refused the request: the address may be unmapped, or the server does not allow the operation in the program's current state."
	case errors.Is(err, context.Canceled):
		msg = "the request was cancelled"
		hint = "The program was interrupted; the session is still usable."
	case errors.Is(err, context.DeadlineExceeded):
		hint = "The operation took too long; raise the RR_MCP_TIMEOUT_* limits if needed."
	}
	msg = trimSentinels(strings.TrimPrefix(msg, "rsp: "))
	msg = strings.TrimSuffix(msg, ": rsp: connection closed: EOF")
	if hint == "" {
		return fmt.Sprintf("%s failed: %s", tool, msg)
	}
	return fmt.Sprintf("%s failed: %s\n%s", tool, msg, hint)
}

// startsSession are the tools that start a session: when they fail there
// is no session to stop.
var startsSession = map[string]bool{"rr_connect": true, "rr_live_start": true, "rr_replay_start": true, "rr_core_open": true}

// sentinelText are the texts of the error vocabulary that %w appends to
// messages; the hint says the same in words, so they are cut.
var sentinelText = []string{
	session.ErrNoSession.Error(), session.ErrNotStopped.Error(), session.ErrNoReverse.Error(),
	session.ErrUnsupported.Error(), session.ErrExited.Error(), session.ErrNotFound.Error(),
	session.ErrNoDebugInfo.Error(), session.ErrUnsupportedExpr.Error(),
}

func trimSentinels(msg string) string {
	for changed := true; changed; {
		changed = false
		for _, t := range sentinelText {
			if m, ok := strings.CutSuffix(msg, ": "+t); ok && m != "" {
				msg, changed = m, true
			}
		}
	}
	return msg
}
