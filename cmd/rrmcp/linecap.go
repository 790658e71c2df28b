package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sync"
)

// maxLine caps one JSON-RPC message (one line on stdio). mcp-go reads lines
// without a limit: a 100 MB line took the server to 366 MB.
const maxLine = 4 << 20

// lockedWriter serialises writes to stdout, so that the line cap's error
// replies never interleave with mcp-go's (which writes each message with
// one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineCap passes complete lines of at most max bytes from r; a longer line
// is dropped, and tooLong is told its first bytes and its length (at the
// point it went over, and no more than once per line).
type lineCap struct {
	r       io.Reader
	max     int
	tooLong func(prefix []byte, n int)

	buf        []byte
	line       []byte // the current line, not complete yet
	out        []byte // complete lines ready for the reader
	discarding bool
	err        error
}

func newLineCap(r io.Reader, max int, tooLong func(prefix []byte, n int)) *lineCap {
	return &lineCap{r: r, max: max, tooLong: tooLong, buf: make([]byte, 64<<10)}
}

func (l *lineCap) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.err != nil {
			if len(l.line) > 0 && !l.discarding {
				l.out, l.line = l.line, nil // a last line without newline
				break
			}
			return 0, l.err
		}
		n, err := l.r.Read(l.buf)
		l.feed(l.buf[:n])
		l.err = err
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

func (l *lineCap) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i+1]
		}
		b = b[len(chunk):]
		switch {
		case l.discarding:
		case len(l.line)+len(chunk) > l.max:
			prefix := append(append([]byte(nil), l.line[:min(len(l.line), 512)]...), chunk[:min(len(chunk), 512-min(len(l.line), 512))]...)
			l.tooLong(prefix, len(l.line)+len(chunk))
			l.line = l.line[:0]
			l.discarding = true
		default:
			l.line = append(l.line, chunk...)
			if i >= 0 {
				l.out = append(l.out, l.line...)
				l.line = l.line[:0]
			}
		}
		if i >= 0 && l.discarding {
			l.discarding = false
		}
	}
}

var idRE = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?[0-9]{1,20})`)

// lineTooLongReply is the JSON-RPC error for a dropped line, with the
// request's id when its first bytes carry one.
func lineTooLongReply(prefix []byte, n, max int) []byte {
	id := "null"
	if m := idRE.FindSubmatch(prefix); m != nil {
		id = string(m[1])
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"request too large: the message is over rrmcp's limit of %d bytes per JSON-RPC line (it was dropped at %d bytes); send smaller arguments"}}`+"\n", id, max, n)
}
