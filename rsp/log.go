package rsp

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// packetLog writes one line per packet (timestamp, direction, payload) to an
// io.Writer and/or a slog.Logger at debug level. A nil *packetLog logs nothing.
type packetLog struct {
	mu     sync.Mutex
	w      io.Writer
	logger *slog.Logger
	now    func() time.Time
	buf    []byte
}

const maxLogPayload = 2048

func newPacketLog(w io.Writer, logger *slog.Logger) *packetLog {
	if w == nil && logger == nil {
		return nil
	}
	return &packetLog{w: w, logger: logger, now: time.Now}
}

// packet records one packet. dir is "->" (sent), "<-" (received) or "<%"
// (notification received).
func (l *packetLog) packet(dir string, payload []byte, note string) {
	if l == nil {
		return
	}
	if l.logger != nil && l.logger.Enabled(context.Background(), slog.LevelDebug) {
		attrs := []any{"dir", dir, "packet", printable(payload)}
		if note != "" {
			attrs = append(attrs, "note", note)
		}
		l.logger.Debug("rsp", attrs...)
	}
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.now().UTC().AppendFormat(l.buf[:0], "15:04:05.000000")
	b = append(b, ' ')
	b = append(b, dir...)
	b = append(b, ' ')
	b = appendPrintable(b, payload)
	if note != "" {
		b = append(b, " ("...)
		b = append(b, note...)
		b = append(b, ')')
	}
	b = append(b, '\n')
	l.buf = b
	l.w.Write(b) //nolint:errcheck // logging is best effort
}

// printable returns p as text; non-printable bytes force Go quoting, and
// long payloads are truncated.
func printable(p []byte) string { return string(appendPrintable(nil, p)) }

// appendPrintable appends p to dst as printable does (without a copy of
// its own: the packet log formats every packet).
func appendPrintable(dst, p []byte) []byte {
	n := len(p)
	if n > maxLogPayload {
		p = p[:maxLogPayload]
	}
	quote := false
	for _, c := range p {
		if c < 0x20 || c >= 0x7f {
			quote = true
			break
		}
	}
	if quote {
		dst = strconv.AppendQuoteToASCII(dst, string(p))
	} else {
		dst = append(dst, p...)
	}
	if n > maxLogPayload {
		dst = append(dst, "…("...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, " bytes)"...)
	}
	return dst
}
