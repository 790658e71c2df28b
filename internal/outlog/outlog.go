// Package outlog keeps a debugged program's output apart from the MCP
// stream: each stream in an unlinked temporary file that the program
// writes itself (so the size is exact at every stop), or, for stderr
// under rr, which shares it with its own messages, gathered from that
// pipe (so at a stop the last line may still be on the way). The last
// MaxKept bytes of each stream are kept (a file's older ones become a
// hole at a stop: Trim) and read by offset; offsets stay valid after
// older bytes are dropped.
package outlog

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// MaxKept bounds the bytes kept per stream; older bytes are dropped
// (reading them says they are gone).
const MaxKept = 4 << 20

// Stream names one of the program's output streams.
type Stream int

const (
	Stdout Stream = iota
	Stderr
)

func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// Log is one program's captured output.
type Log struct {
	stdout  *os.File
	errFile *os.File        // stderr, when the program writes it itself (NewFiles)
	freed   [2]atomic.Int64 // per stream: bytes at the file's start given back (Trim)
	mu      sync.Mutex
	stderr  kept
	drained atomic.Bool // the last stderr bytes were waited for once
}

// kept is the kept tail of a stream.
type kept struct {
	base int64 // offset of data[0]
	data []byte
}

// New creates the stdout file; stderr is gathered (AddStderr).
func New() (*Log, error) {
	f, err := tempFile("stdout")
	if err != nil {
		return nil, err
	}
	return &Log{stdout: f}, nil
}

// NewFiles creates a file for each stream.
func NewFiles() (*Log, error) {
	l, err := New()
	if err != nil {
		return nil, err
	}
	if l.errFile, err = tempFile("stderr"); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func tempFile(stream string) (*os.File, error) {
	f, err := os.CreateTemp("", "rrmcp-"+stream+"-")
	if err != nil {
		return nil, fmt.Errorf("capture the program's output: %w", err)
	}
	os.Remove(f.Name()) //nolint:errcheck // kept open; gone with the log
	return f, nil
}

// Stdout is the file to give the program as its standard output.
func (l *Log) Stdout() *os.File { return l.stdout }

// Stderr is the file to give the program as its standard error; nil
// when stderr is gathered (New).
func (l *Log) Stderr() *os.File { return l.errFile }

// AddStderr appends b, read from the stderr pipe.
func (l *Log) AddStderr(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := &l.stderr
	st.data = append(st.data, b...)
	if over := len(st.data) - MaxKept; over > 0 {
		st.data = append([]byte(nil), st.data[over:]...)
		st.base += int64(over)
	}
}

// StdoutSize is how many bytes the program has written to stdout.
func (l *Log) StdoutSize() int64 { return fileSize(l.stdout) }

func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// file is the stream's file, nil for gathered stderr.
func (l *Log) file(stream Stream) *os.File {
	if stream == Stdout {
		return l.stdout
	}
	return l.errFile
}

// stderrSize is the size of stderr, l.mu held.
func (l *Log) stderrSize() int64 {
	if l.errFile != nil {
		return fileSize(l.errFile)
	}
	return l.stderr.base + int64(len(l.stderr.data))
}

// Size is how many bytes the program has written so far.
type Size struct {
	Stdout int64 `json:"stdout"`
	Stderr int64 `json:"stderr"`
}

// Size returns the streams' sizes.
func (l *Log) Size() *Size {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Size{Stdout: l.StdoutSize(), Stderr: l.stderrSize()}
}

// FirstDrain reports whether this is the first call for gathered stderr:
// a reader waits once, after the program is gone, for stderr bytes still
// in the pipe. A stderr file has none on the way.
func (l *Log) FirstDrain() bool { return l.errFile == nil && !l.drained.Swap(true) }

// Slice is what Read returns of a stream.
type Slice struct {
	Offset     int64 // where Text starts (past Dropped bytes)
	Text       []byte
	Total      int64 // bytes written to the stream so far
	NextOffset int64 // when more is there: the offset to read next
	Dropped    int64 // bytes asked for before Offset that are no longer kept
}

// ErrPastEnd is returned by Read for an offset past what was written
// (the Slice says how much was).
var ErrPastEnd = errors.New("offset past the end of the stream")

// Read returns up to limit bytes of stream from offset; a negative
// offset counts back from the end.
func (l *Log) Read(stream Stream, offset int64, limit int) (Slice, error) {
	// The stream's kept bytes [base, base+len(data)) and its total.
	var (
		base, total int64
		data        []byte
	)
	if f := l.file(stream); f != nil {
		total = fileSize(f)
		if offset < 0 {
			offset = max(total+offset, 0)
		}
		from := max(offset, l.freed[stream].Load()) // a hole reads as zeros: not the program's bytes
		if from <= total {
			data = make([]byte, min(int64(limit), total-from))
			if _, err := f.ReadAt(data, from); err != nil && len(data) > 0 {
				return Slice{}, fmt.Errorf("read the captured %s: %w", stream, err)
			}
		}
		base = from
	} else {
		l.mu.Lock()
		st := l.stderr
		l.mu.Unlock()
		base, data, total = st.base, st.data, st.base+int64(len(st.data))
		if offset < 0 {
			offset = max(total+offset, 0)
		}
	}
	out := Slice{Offset: offset, Total: total}
	if offset > total {
		return out, ErrPastEnd
	}
	if offset < base {
		out.Dropped, out.Offset = base-offset, base
		offset = base
	}
	b := data[offset-base:]
	if len(b) > limit {
		b = b[:limit]
	}
	if end := offset + int64(len(b)); end < total {
		out.NextOffset = end
	}
	out.Text = b
	return out, nil
}

// Trim gives back the disk space of a captured file's bytes older than
// its last MaxKept (in steps of a MiB; offsets stay, the file gets a
// hole): a program that prints without end must not fill the disk over a
// long run. It returns the streams' sizes, as Size does, from the same
// look at each file (a stat); called at every stop.
func (l *Log) Trim() *Size {
	l.mu.Lock()
	defer l.mu.Unlock()
	sz := &Size{Stderr: l.stderr.base + int64(len(l.stderr.data))}
	for _, stream := range []Stream{Stdout, Stderr} {
		f := l.file(stream)
		if f == nil {
			continue
		}
		n := fileSize(f)
		if stream == Stdout {
			sz.Stdout = n
		} else {
			sz.Stderr = n
		}
		l.freed[stream].Store(FreeBefore(f, l.freed[stream].Load(), n-MaxKept))
	}
	return sz
}

// FreeBefore gives back the disk space of f's bytes from freed (where
// the space is given back already) to end, rounded down to a MiB, and
// returns where the space is given back now: the file keeps its size
// and offsets, with a hole there (FALLOC_FL_PUNCH_HOLE). A file system
// that cannot punch holes keeps the bytes.
func FreeBefore(f *os.File, freed, end int64) int64 {
	end &^= 1<<20 - 1
	if end <= freed {
		return freed
	}
	const punchHole, keepSize = 0x02, 0x01 // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
	if err := syscall.Fallocate(int(f.Fd()), punchHole|keepSize, freed, end-freed); err != nil {
		return freed
	}
	return end
}

// Close closes the files (the program may still hold them).
func (l *Log) Close() error {
	if l.errFile != nil {
		l.errFile.Close()
	}
	return l.stdout.Close()
}
