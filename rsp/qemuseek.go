package rsp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// QEMU's replay seek, driven through its gdbstub (QEMU 10).
//
// The monitor command "replay_seek N" (sent as qRcmd) loads the nearest
// snapshot at or before instruction count N, arms a replay break at N and
// starts the VM; the VM pauses when it gets there. QEMU sends no stop
// reply for that pause (the gdbstub only sends one after a resume packet
// or a 0x03), and while the VM runs, any byte it receives pauses it and
// is dropped: a "?" sent right after the seek is eaten and never answered.
// So the client:
//
//  1. sends the seek and reads qRcmd's OK (the VM now runs toward N, or is
//     already there);
//  2. sends 0x03: if the VM still runs, QEMU pauses it short of N and
//     answers T02; if it is already paused the byte is ignored — the next
//     request's resync flushes the T02 if there is one;
//  3. reads the instruction count ("info replay"); short of N, the replay
//     break is still armed, so a continue runs to N (or to a breakpoint on
//     the way, after which it continues again) and QEMU answers T02 there;
//  4. asks "?" for the stop at N (which on QEMU drops the breakpoints; the
//     client re-inserts its table).

var replayIcountRE = regexp.MustCompile(`instruction count = (\d+)`)

// ReplayIcount reads a QEMU replay's instruction count (monitor
// "info replay").
func (c *Client) ReplayIcount(ctx context.Context) (int64, error) {
	out, err := c.Monitor(ctx, "info replay")
	if err != nil {
		return 0, err
	}
	m := replayIcountRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("rsp: info replay: no instruction count in %q: %w", strings.TrimSpace(out), ErrUnsupported)
	}
	return strconv.ParseInt(m[1], 10, 64)
}

// SeekIcount puts a QEMU replay at instruction count n, backward or
// forward, and returns the stop there. A count the replay cannot reach
// is an *Error carrying QEMU's answer (before the first snapshot: "cannot
// seek to the specified instruction count"), or ErrExited when the replay
// ends before it.
func (c *Client) SeekIcount(ctx context.Context, n int64) (Stop, error) {
	if c.g.dialect != DialectQEMU {
		return Stop{}, fmt.Errorf("rsp: replay_seek needs a QEMU replay: %w", ErrUnsupported)
	}
	out, err := c.Monitor(ctx, fmt.Sprintf("replay_seek %d", n))
	c.invalidate()
	if err != nil {
		return Stop{}, err
	}
	if msg := strings.TrimSpace(out); msg != "" {
		// QEMU reports a refused seek on the monitor and leaves the VM as
		// it was ("cannot seek to the specified instruction count").
		return Stop{}, &Error{Packet: fmt.Sprintf("replay_seek %d", n), Code: -1, Text: msg}
	}
	if err := c.Interrupt(); err != nil {
		return Stop{}, err
	}
	for {
		at, err := c.ReplayIcount(ctx)
		if err != nil {
			return Stop{}, c.dropReplayBreak(ctx, err)
		}
		if at == n {
			return c.StopReason(ctx)
		}
		if at > n {
			return Stop{}, c.dropReplayBreak(ctx, &Error{Packet: fmt.Sprintf("replay_seek %d", n), Code: -1, Text: fmt.Sprintf("the replay stopped at instruction count %d, past it", at)})
		}
		st, err := c.Continue(ctx)
		if err != nil {
			return st, c.dropReplayBreak(ctx, err)
		}
		if st.Kind != StopSignal {
			return st, fmt.Errorf("rsp: replay_seek %d: the replay ended at instruction count %d first: %w", n, at, ErrExited)
		}
	}
}

// dropReplayBreak disarms the replay break of a seek that did not get
// there, so a later continue does not stop at it unasked.
func (c *Client) dropReplayBreak(ctx context.Context, err error) error {
	if errors.Is(err, ErrClosed) {
		return err
	}
	c.Monitor(context.WithoutCancel(ctx), "replay_delete_break") //nolint:errcheck // best effort; err says what failed
	return err
}
