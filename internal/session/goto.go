package session

import (
	"context"
	"fmt"
)

// Moment names a point of a recorded execution, as query rows and
// last-writer answers carry it.
type Moment struct {
	Event  int64 // rr: the event number
	Icount int64 // QEMU replay: the instruction count
}

// Goto puts the session at a recorded moment: on rr by event (vRun). A
// live program has no past to go to.
func (s *Session) Goto(ctx context.Context, m Moment) (*Stop, error) {
	switch {
	case m.Event > 0 && s.caps.Seek:
		return s.RunToEvent(ctx, m.Event)
	case !s.caps.Reverse:
		return nil, fmt.Errorf("a live program has no recorded past to go to; rows of a live query are numbered hits: re-run (rr_live_start) and query again with a smaller limit to stop at a row, or record with rr where a PMU is available: %w", ErrNoReverse)
	case m.Event > 0:
		return nil, argErrorf("event", "this backend cannot seek by rr event (it is not rr); give icount on a QEMU replay")
	case m.Icount > 0:
		// QEMU's monitor replay_seek followed by "?" got no answer from
		// QEMU 10.0.2 in our tests, so seeking a QEMU replay is not offered.
		return nil, fmt.Errorf("going to an instruction count on a QEMU replay is not supported yet; use rr_continue reverse=true with a breakpoint or rr_last_write: %w", ErrUnsupported)
	}
	return nil, argErrorf("event", "give event (rr) or icount (QEMU replay) from a query row or a last-writer answer")
}
