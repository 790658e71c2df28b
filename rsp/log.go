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
	ring   *PacketRing
	logger *slog.Logger
	now    func() time.Time
	buf    []byte
}

const maxLogPayload = 2048

func newPacketLog(w io.Writer, ring *PacketRing, logger *slog.Logger) *packetLog {
	if w == nil && ring == nil && logger == nil {
		return nil
	}
	return &packetLog{w: w, ring: ring, logger: logger, now: time.Now}
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
	if l.w == nil && l.ring == nil {
		return
	}
	now := l.now()
	if l.ring != nil {
		l.ring.add(now, dir, payload, note)
	}
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = appendLine(l.buf[:0], now, dir, payload, len(payload), note)
	l.w.Write(l.buf) //nolint:errcheck // logging is best effort
}

// appendLine appends the log line of a packet of n bytes, whose first
// bytes are payload: "15:04:05.000000 -> payload (note)\n".
func appendLine(b []byte, t time.Time, dir string, payload []byte, n int, note string) []byte {
	b = t.UTC().AppendFormat(b, "15:04:05.000000")
	b = append(b, ' ')
	b = append(b, dir...)
	b = append(b, ' ')
	b = appendPrintable(b, payload, n)
	if note != "" {
		b = append(b, " ("...)
		b = append(b, note...)
		b = append(b, ')')
	}
	return append(b, '\n')
}

// PacketRing keeps the last packets of a Client (Options.PacketRing) as
// they went: their bytes (the first 2,048 of each), time, direction and
// note. It formats them only when asked (Lines), so that a session can
// keep a packet log for its users at the cost of a copy per packet, not
// of a formatted line. It is safe for concurrent use.
type PacketRing struct {
	mu    sync.Mutex
	ents  []packetEntry // ring, len <= limit
	next  int           // where the next entry goes once the ring is full
	total int64
	limit int
}

type packetEntry struct {
	t       time.Time
	dir     string
	payload []byte // the first maxLogPayload bytes (the slot's buffer is reused)
	n       int    // the packet's length
	note    string
}

// NewPacketRing returns a ring of the last n packets.
func NewPacketRing(n int) *PacketRing { return &PacketRing{limit: max(n, 1)} }

func (r *PacketRing) add(t time.Time, dir string, payload []byte, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var e *packetEntry
	if len(r.ents) < r.limit {
		r.ents = append(r.ents, packetEntry{})
		e = &r.ents[len(r.ents)-1]
	} else {
		e = &r.ents[r.next]
		r.next = (r.next + 1) % r.limit
	}
	e.t, e.dir, e.n, e.note = t, dir, len(payload), note
	e.payload = append(e.payload[:0], payload[:min(len(payload), maxLogPayload)]...)
	r.total++
}

// Lines returns the packets kept, oldest first, one line each as
// Options.PacketLog writes them (without the newline), and how many
// packets the ring saw in all.
func (r *PacketRing) Lines() (lines []string, total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines = make([]string, 0, len(r.ents))
	var b []byte
	for i := range r.ents {
		e := &r.ents[(r.next+i)%len(r.ents)]
		b = appendLine(b[:0], e.t, e.dir, e.payload, e.n, e.note)
		lines = append(lines, string(b[:len(b)-1]))
	}
	return lines, r.total
}

// printable returns p as text; non-printable bytes force Go quoting, and
// long payloads are truncated.
func printable(p []byte) string { return string(appendPrintable(nil, p, len(p))) }

// appendPrintable appends p, the first bytes of a packet of n bytes, to
// dst as printable does (without a copy of its own).
func appendPrintable(dst, p []byte, n int) []byte {
	if len(p) > maxLogPayload {
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
