package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxOutputKept bounds the bytes kept per stream; older bytes are dropped
// (their offsets stay valid: reading them says they are gone).
const maxOutputKept = 4 << 20

// outputLog keeps the debuggee's stdout and stderr, never the MCP
// stream's. stdout is an unlinked temporary file the program writes
// itself, so its size is exact at every stop; stderr is shared with
// gdbserver's messages and arrives line by line through a pipe, so at a
// stop its last line may still be on the way.
type outputLog struct {
	stdout  *os.File
	mu      sync.Mutex
	streams [2]outStream // stderr only in [1]; [0] unused
	drained atomic.Bool  // waited for the last bytes after the exit
}

// newOutputLog creates the stdout file.
func newOutputLog() (*outputLog, error) {
	f, err := os.CreateTemp("", "rrmcp-stdout-")
	if err != nil {
		return nil, fmt.Errorf("capture the program's output: %w", err)
	}
	os.Remove(f.Name()) //nolint:errcheck // kept open; gone with the session
	return &outputLog{stdout: f}, nil
}

func (o *outputLog) addErr(b []byte) { o.add(true, b) }

func (o *outputLog) stdoutSize() int64 {
	fi, err := o.stdout.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
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
	return &OutputSize{Stdout: o.stdoutSize(), Stderr: o.streams[1].base + int64(len(o.streams[1].data))}
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
		return Output{}, fmt.Errorf("this %s session does not capture the program's output (rr_live_start and rr replay sessions do): %w", s.kind, ErrUnsupported)
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
	if srv := s.srv; i == 1 && srv != nil && s.exited != nil && !s.out.drained.Load() {
		// The program is gone: its last stderr bytes may still be in the
		// pipe, which gdbserver shares, so no end of file tells;
		// gdbserver exiting (after the client goes) does. Wait once,
		// bounded.
		s.out.drained.Store(true)
		t := time.NewTimer(time.Second)
		select {
		case <-srv.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	// The stream's kept bytes [base, base+len(data)) and its total.
	var (
		base, total int64
		data        []byte
	)
	if i == 0 {
		total = s.out.stdoutSize()
		if offset < 0 {
			offset = max(total+offset, 0)
		}
		if offset >= 0 && offset <= total {
			data = make([]byte, min(int64(limit), total-offset))
			if _, err := s.out.stdout.ReadAt(data, offset); err != nil && len(data) > 0 {
				return Output{}, fmt.Errorf("read the captured stdout: %w", err)
			}
		}
		base = offset
	} else {
		s.out.mu.Lock()
		st := s.out.streams[1]
		s.out.mu.Unlock()
		base, data, total = st.base, st.data, st.base+int64(len(st.data))
		if offset < 0 {
			offset = max(total+offset, 0)
		}
	}
	out := Output{Stream: stream, Offset: offset, Total: total}
	if offset > total {
		return out, argErrorf("offset", "%d is past the end of %s (%d bytes written so far)", offset, stream, total)
	}
	if offset < base {
		out.Dropped, out.Offset = base-offset, base
		out.Note = fmt.Sprintf("Bytes %d to %d are no longer kept (the last %d bytes are).", offset, base, maxOutputKept)
		offset = base
	}
	b := data[offset-base:]
	if len(b) > limit {
		b = b[:limit]
	}
	if end := offset + int64(len(b)); end < total {
		out.NextOffset = end
		out.Note = fmt.Sprintf("Cut at %d bytes; read on with offset=%d.", len(b), end)
	}
	out.Text = string(b)
	if s.kind == KindRR {
		out.Note = strings.TrimSpace(out.Note + " " + rrOutputNote)
	}
	return out, nil
}

// rrOutputNote says what an rr replay's output is.
const rrOutputNote = "On rr this is what the replay echoed of the program's writes while running forward: reverse execution and seeks echo nothing, and re-running a stretch echoes its writes again."
