package session

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// maxOutputKept bounds the bytes kept per stream; older bytes are dropped
// (their offsets stay valid: reading them says they are gone).
const maxOutputKept = 4 << 20

// outputLog keeps the debuggee's stdout and stderr, written by the
// goroutines reading gdbserver's pipes, never by the MCP stream.
type outputLog struct {
	mu      sync.Mutex
	streams [2]outStream // stdout, stderr
	drained atomic.Bool  // waited for the last bytes after the exit
}

type outStream struct {
	base int64 // offset of data[0]
	data []byte
}

func (o *outputLog) add(stderr bool, b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := &o.streams[0]
	if stderr {
		st = &o.streams[1]
	}
	st.data = append(st.data, b...)
	if over := len(st.data) - maxOutputKept; over > 0 {
		st.data = append([]byte(nil), st.data[over:]...)
		st.base += int64(over)
	}
}

// OutputSize is how many bytes the program has written so far.
type OutputSize struct {
	Stdout int64 `json:"stdout"`
	Stderr int64 `json:"stderr"`
}

func (o *outputLog) size() *OutputSize {
	o.mu.Lock()
	defer o.mu.Unlock()
	return &OutputSize{Stdout: o.streams[0].base + int64(len(o.streams[0].data)), Stderr: o.streams[1].base + int64(len(o.streams[1].data))}
}

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
		return Output{}, fmt.Errorf("this %s session does not capture the program's output (only rr_live_start does): %w", s.kind, ErrUnsupported)
	}
	i := 0
	switch stream {
	case "", "stdout":
		stream = "stdout"
	case "stderr":
		i = 1
	default:
		return Output{}, argErrorf("stream", "%q is not stdout or stderr", stream)
	}
	if limit <= 0 {
		limit = 4096
	}
	if srv := s.srv; srv != nil && s.exited != nil && !s.out.drained.Load() {
		// The program is gone: its last bytes may still be in the pipe,
		// which gdbserver shares, so no end of file tells; gdbserver
		// exiting (after the client goes) does. Wait once, bounded.
		s.out.drained.Store(true)
		t := time.NewTimer(time.Second)
		select {
		case <-srv.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	st := s.out.streams[i]
	total := st.base + int64(len(st.data))
	if offset < 0 {
		offset = max(total+offset, 0)
	}
	out := Output{Stream: stream, Offset: offset, Total: total}
	if offset > total {
		return out, argErrorf("offset", "%d is past the end of %s (%d bytes written so far)", offset, stream, total)
	}
	if offset < st.base {
		out.Dropped, out.Offset = st.base-offset, st.base
		out.Note = fmt.Sprintf("Bytes %d to %d are no longer kept (the last %d bytes are).", offset, st.base, maxOutputKept)
		offset = st.base
	}
	b := st.data[offset-st.base:]
	if len(b) > limit {
		b = b[:limit]
		out.NextOffset = offset + int64(limit)
		out.Note = fmt.Sprintf("Cut at %d bytes; read on with offset=%d.", limit, out.NextOffset)
	}
	out.Text = string(b)
	return out, nil
}
