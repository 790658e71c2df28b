package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/outlog"
)

// OutputSize is how many bytes the program has written so far.
type OutputSize = outlog.Size

// Output is a slice of one output stream.
type Output struct {
	Stream     string `json:"stream" jsonschema:"stdout or stderr"`
	Offset     int64  `json:"offset" jsonschema:"byte offset of text in the stream"`
	Text       string `json:"text"`
	Total      int64  `json:"total" jsonschema:"bytes written to the stream so far"`
	NextOffset int64  `json:"next_offset,omitempty" jsonschema:"when more is there: the offset to read next"`
	Dropped    int64  `json:"dropped,omitempty" jsonschema:"bytes before this offset that are no longer kept"`
	Note       string `json:"note,omitempty"`
}

// Output reads up to limit bytes of stream ("stdout" or "stderr") from
// offset; a negative offset counts back from the end.
func (s *Session) Output(ctx context.Context, stream string, offset int64, limit int) (Output, error) {
	if s.out == nil {
		if s.attached {
			return Output{}, fmt.Errorf("the program was attached to, so its output goes where it did before (not through rrmcp): %w", ErrUnsupported)
		}
		return Output{}, fmt.Errorf("this %s session does not capture the program's output (rr_live_start and rr replay sessions do): %w", s.kind, ErrUnsupported)
	}
	which := outlog.Stdout
	switch stream {
	case "", "stdout":
		stream = "stdout"
	case "stderr":
		which = outlog.Stderr
	default:
		return Output{}, argErrorf("stream", "%q is not stdout or stderr", stream)
	}
	if limit <= 0 {
		limit = 4096
	}
	if srv := s.srv; which == outlog.Stderr && srv != nil && s.exited != nil && s.out.FirstDrain() {
		// The program is gone: its last stderr bytes may still be in the
		// pipe, which gdbserver shares, so no end of file tells;
		// gdbserver exiting (after the client goes) does. Wait once,
		// bounded.
		t := time.NewTimer(time.Second)
		select {
		case <-srv.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	sl, err := s.out.Read(which, offset, limit)
	out := Output{Stream: stream, Offset: sl.Offset, Total: sl.Total, NextOffset: sl.NextOffset, Dropped: sl.Dropped, Text: string(sl.Text)}
	switch {
	case errors.Is(err, outlog.ErrPastEnd):
		return out, argErrorf("offset", "%d is past the end of %s (%d bytes written so far)", offset, stream, sl.Total)
	case err != nil:
		return Output{}, err
	}
	if sl.Dropped > 0 {
		out.Note = fmt.Sprintf("Bytes %d to %d are no longer kept (the last %d bytes are).", sl.Offset-sl.Dropped, sl.Offset, outlog.MaxKept)
	}
	if sl.NextOffset > 0 {
		out.Note = fmt.Sprintf("Cut at %d bytes; read on with offset=%d.", len(sl.Text), sl.NextOffset)
	}
	if s.kind == KindRR {
		out.Note = strings.TrimSpace(out.Note + " " + rrOutputNote)
	}
	return out, nil
}

// rrOutputNote says what an rr replay's output is.
const rrOutputNote = "On rr this is what the replay echoed of the program's writes while running forward: reverse execution and seeks echo nothing, and re-running a stretch echoes its writes again."
