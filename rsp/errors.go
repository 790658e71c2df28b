package rsp

import (
	"errors"
	"fmt"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Sentinel errors. Match them with errors.Is; each but ErrHistoryStart
// also matches its kind of internal/errkind (ErrExited is errkind.Exited…).
var (
	// ErrUnsupported: the server answered a request with an empty packet,
	// which in the GDB protocol means "I do not understand this request".
	ErrUnsupported = errkind.New("rsp: request not supported by server", errkind.Unsupported)

	// ErrClosed: the connection is gone (EOF, read/write failure, Close, or a
	// stream that could not be brought back in sync). Every later call fails
	// with an error that wraps ErrClosed.
	ErrClosed = errkind.New("rsp: connection closed", errkind.Closed)

	// ErrRefused: the client refused to send a request because the dialect
	// says it would crash or desynchronise the server (see Dialect), or
	// because Exchange was asked to send a resume without allowResume.
	ErrRefused = errkind.New("rsp: request refused", errkind.Refused)

	// ErrExited: the debuggee has exited (W or X stop reply was seen); no
	// more resumes are possible except Restart.
	ErrExited = errkind.New("rsp: process exited", errkind.Exited)

	// ErrHistoryStart: a reverse request could not move because execution is
	// at the start of the recorded history (QEMU answers E14 instead of a
	// stop reply there).
	ErrHistoryStart = errors.New("rsp: at start of recorded history")
)

// Error is an "Exx" error reply from the server (or "E.text", which newer
// gdbservers send; Code is then -1).
type Error struct {
	Packet string // the request (may be truncated)
	Code   int    // xx, parsed as hex
	Text   string // the text of an "E.text" reply
	// Resume: the request was a resume (continue, step, range step, in
	// either direction) and the server answered with an error in place
	// of a stop: the target did not run.
	Resume bool
}

func (e *Error) Error() string {
	if e.Text != "" {
		return fmt.Sprintf("rsp: %s: server error: %s", e.Packet, e.Text)
	}
	return fmt.Sprintf("rsp: %s: server error E%02x", e.Packet, e.Code)
}

// ProtocolError reports bytes from the server that do not follow the protocol:
// a malformed frame, a bad checksum in no-ack mode, or an unparsable reply.
type ProtocolError struct {
	Packet string // the request being answered, if any
	Data   string // the offending bytes (quoted, possibly truncated)
	Msg    string
}

func (e *ProtocolError) Error() string {
	s := "rsp: protocol error"
	if e.Packet != "" {
		s += " (" + e.Packet + ")"
	}
	s += ": " + e.Msg
	if e.Data != "" {
		s += ": " + e.Data
	}
	return s
}

// RefusedError is returned when the client declines to send a request.
// It matches ErrRefused with errors.Is.
type RefusedError struct {
	Packet string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("rsp: refused to send %q: %s", e.Packet, e.Reason)
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// FileError is an error result of a vFile request (F-1,errno).
// Errno uses the GDB File-I/O numbering (which equals Linux for the common ones:
// 2 ENOENT, 9 EBADF, 13 EACCES, ...).
type FileError struct {
	Op    string
	Errno int
}

func (e *FileError) Error() string {
	return fmt.Sprintf("rsp: vFile:%s: errno %d", e.Op, e.Errno)
}

func unsupported(pkt string) error {
	return fmt.Errorf("%s: %w", short(pkt), ErrUnsupported)
}

func refused(pkt, reason string) error {
	return &RefusedError{Packet: short(pkt), Reason: reason}
}

// short truncates a packet for use in error messages and logs.
func short(pkt string) string {
	const max = 64
	if len(pkt) > max {
		return pkt[:max] + "…"
	}
	return pkt
}
