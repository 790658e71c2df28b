package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/rrmcp/rrmcp/rsp"
)

// Stops that say what happened on a reverse-capable server, where the
// stop reply alone does not.
//
// QEMU's replay answers a reverse-continue with a plain "T05thread:…;"
// both when a watchpoint fired (no watch: field, docs/peers.md §2.4) and
// when it reached the start of the recording (no replaylog:begin; only the
// next reverse request gets E14). A reverse-continue stops only at a
// breakpoint, a watchpoint, the start of history or an interrupt, so a
// plain stop that is none of the others (at no breakpoint of the
// server's table) is told apart by the replay's
// instruction count, which QEMU's monitor reports ("info replay",
// rsp.Client.ReplayIcount): 0 is the start; otherwise a watchpoint fired.

// explainReverseStop fills in what a plain reverse-continue stop on QEMU
// was: the start of the recording, or the watchpoint that fired.
func (s *Session) explainReverseStop(ctx context.Context, st rsp.Stop) rsp.Stop {
	if s.c.Dialect() != rsp.DialectQEMU || st.Direction != rsp.Reverse || st.Kind != rsp.StopSignal ||
		st.Signal != rsp.SIGTRAP || st.Watch != rsp.WatchNone || st.AtHistoryStart || st.Interrupted || st.SWBreak || st.HWBreak {
		return st
	}
	if n, err := s.c.ReplayIcount(ctx); err == nil && n == 0 {
		st.AtHistoryStart = true
		return st
	}
	if pc, err := s.inf.PC(ctx, st.Thread); err == nil && (s.bpAt(pc) != nil || s.breakAt(pc)) {
		// At a breakpoint: a user's, or one a move put there (a reverse
		// finish's at the function's entry). The watched value may still
		// differ from the last stop's: QEMU's reverse-continue does not
		// stop for the write just behind the thread where it starts.
		return st
	}
	var watches []*breakpoint
	for _, b := range s.bps {
		if b.isWatch() && b.enabled {
			watches = append(watches, b)
		}
	}
	if len(watches) == 0 {
		return st
	}
	// The value is the one the access wrote (the state right after it):
	// of several watchpoints, the one whose value differs from what it
	// was at the later stop we came from.
	hit := watches[0]
	for _, b := range watches {
		if now := s.watchedAt(ctx, b, b.addrs[0]); b.old != nil && now != nil && string(now) != string(b.old) {
			hit = b
			break
		}
	}
	st.Watch = map[rsp.BreakpointType]rsp.WatchKind{rsp.ReadWatchpoint: rsp.WatchRead, rsp.AccessWatchpoint: rsp.WatchAccess}[hit.typ]
	if st.Watch == rsp.WatchNone {
		st.Watch = rsp.WatchWrite
	}
	st.WatchAddr = hit.addrs[0]
	return st
}

// atHistoryStart turns QEMU's E14 (a reverse request at the start of the
// recording) into the stop it describes: nothing moved, the program is at
// the start of history.
func atHistoryStart(st rsp.Stop, err error) (rsp.Stop, error) {
	if errors.Is(err, rsp.ErrHistoryStart) && st.AtHistoryStart {
		return st, nil
	}
	return st, err
}

// exitMessage says what can be done after the program exited, as canMove
// will enforce it.
func (s *Session) exitMessage() string {
	switch {
	case s.c.Dialect() == rsp.DialectQEMU:
		return "The replay reached the end of its log and QEMU has ended it; nothing can run any more (neither forward nor reverse): stop the session and start a new replay."
	case s.caps.Seek:
		return "The process exited. To look at earlier states go back with rr_run_to_event or rr_checkpoint_restore (a continue or step, also reverse=true, cannot start from the exit)."
	}
	return ""
}

// deadError is the error of an operation during which the connection to
// the server was lost: whatever else happened (a timeout, an interrupt
// that got no answer), the session cannot be used any more.
func (s *Session) deadError(err error) error {
	dead := s.c.Dead()
	if dead == nil {
		return nil
	}
	why := ""
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		why = "the server did not stop the program when interrupted; "
	}
	return &goneError{msg: fmt.Sprintf("%sthe connection to the debug server is gone (%s); this session is dead: stop it and start a new one%s", why, s.serverState(), s.serverOutput()), err: errors.Join(err, dead)}
}
