package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/rsp"
)

// Moment names a point of a recorded execution, as query rows and
// last-writer answers carry it.
type Moment struct {
	Event  int64 // rr: the event number
	Icount int64 // QEMU replay: the instruction count
}

// Goto puts the session at a recorded moment: on rr by event (vRun), on a
// QEMU replay by instruction count (replay_seek). A live program has no
// past to go to.
func (s *Session) Goto(ctx context.Context, m Moment) (*Stop, error) {
	switch {
	case m.Event > 0 && s.caps.Seek:
		return s.RunToEvent(ctx, m.Event)
	case !s.caps.Reverse:
		return nil, fmt.Errorf("a live program has no recorded past to go to; rows of a live query are numbered hits: re-run (rr_live_start) and query again with a smaller limit to stop at a row, or record with rr where a PMU is available: %w", ErrNoReverse)
	case m.Event > 0:
		return nil, argErrorf("event", "this backend cannot seek by rr event (it is not rr); give icount on a QEMU replay")
	case m.Icount > 0 && s.c.Dialect() == rsp.DialectQEMU:
		return s.seekIcount(ctx, m.Icount)
	case m.Icount > 0:
		return nil, argErrorf("icount", "instruction counts are moments of a QEMU replay; this backend is not one (give event on rr)")
	}
	return nil, argErrorf("event", "give event (rr) or icount (QEMU replay) from a query row or a last-writer answer")
}

// seekIcount puts a QEMU replay at instruction count n (rsp's SeekIcount:
// the monitor's replay_seek, then the stop there). The stop's reason is
// "goto"; the message names the count.
func (s *Session) seekIcount(ctx context.Context, n int64) (*Stop, error) {
	ctx = naming(ctx, "rr_goto", false)
	var out *Stop
	err := s.do(ctx, s.to.Reverse, func(ctx context.Context) error {
		st, err := s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.SeekIcount(ctx, n) })
		if err != nil {
			var re *rsp.Error
			if errors.As(err, &re) {
				return argErrorf("icount", "the QEMU replay cannot go to instruction count %d (%s); counts run from the replay's first snapshot (where the debugger attached) to its end", n, re.Text)
			}
			if errors.Is(err, rsp.ErrExited) && st.Kind == rsp.StopExited {
				s.makeStop(ctx, st) // the session now knows the replay ended
				return argErrorf("icount", "instruction count %d is past the end of the QEMU replay: the replay ran to its end, which it cannot leave (stop this session and start a new replay); use counts from rr_last_write, rr_query rows or stops", n)
			}
			return err
		}
		out = s.makeStop(ctx, st)
		s.refreshWatches(ctx)
		out.Reason, out.Icount = "goto", n
		out.Message = strings.TrimSpace(fmt.Sprintf("At instruction count %d of the QEMU replay. %s", n, out.Message))
		return nil
	})
	return s.asStop(ctx, out, err)
}

// replayIcount is a QEMU replay's instruction count now, for a query row;
// 0 elsewhere. It is read only where a moment is reported, not at every
// stop: QEMU 10's replay deadlocks far more often in a reverse-continue
// that follows a stop where "info replay" was asked (on this project's
// Intel VM: TestQEMUReverseLastWrite passed 5 of 5 runs without it, 2 of
// 5 with it; the others hung until the interrupt found QEMU dead).
func (s *Session) replayIcount(ctx context.Context) int64 {
	if !s.caps.Reverse || s.c.Dialect() != rsp.DialectQEMU {
		return 0
	}
	var n int64
	s.do(ctx, s.to.Eval, func(ctx context.Context) error { //nolint:errcheck // n stays 0
		var err error
		n, err = s.c.ReplayIcount(ctx)
		return err
	})
	return n
}
