package rsp

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Thread identifies a thread the way the protocol does. With the
// multiprocess extension a thread id is "p<pid>.<tid>" (hex); without it just
// "<tid>". Pid == 0 means "not given". The special values -1 ("all") and 0
// ("any") are valid for both fields.
type Thread struct {
	Pid int64
	Tid int64
}

// Special thread ids.
var (
	AnyThread  = Thread{Pid: 0, Tid: 0}
	AllThreads = Thread{Pid: -1, Tid: -1}
)

// String returns the wire form: "p<pid>.<tid>" when Pid is set, else "<tid>".
func (t Thread) String() string {
	if t.Pid != 0 {
		return "p" + hexID(t.Pid) + "." + hexID(t.Tid)
	}
	return hexID(t.Tid)
}

func hexID(v int64) string {
	if v < 0 {
		return "-" + strconv.FormatInt(-v, 16)
	}
	return strconv.FormatInt(v, 16)
}

func parseHexID(s string) (int64, error) {
	if s == "-1" {
		return -1, nil
	}
	if s == "" || len(s) > 16 {
		return 0, fmt.Errorf("bad thread id %q", s)
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad thread id %q", s)
	}
	return int64(v), nil
}

// ParseThread parses a thread id in either form ("p1cd6.1cd6", "1cd6",
// "p-1.-1", "-1", "0").
func ParseThread(s string) (Thread, error) {
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		ps, ts, found := strings.Cut(rest, ".")
		pid, err := parseHexID(ps)
		if err != nil {
			return Thread{}, err
		}
		if !found {
			return Thread{Pid: pid, Tid: -1}, nil
		}
		tid, err := parseHexID(ts)
		if err != nil {
			return Thread{}, err
		}
		return Thread{Pid: pid, Tid: tid}, nil
	}
	tid, err := parseHexID(s)
	return Thread{Tid: tid}, err
}

// StopKind says what kind of stop reply was received.
type StopKind int

const (
	StopSignal     StopKind = iota // T or S: the target stopped with a signal
	StopExited                     // W: the process exited with ExitCode
	StopTerminated                 // X: the process was killed by Signal
	StopNoResumed                  // N: no resumed threads left
)

func (k StopKind) String() string {
	switch k {
	case StopSignal:
		return "signal"
	case StopExited:
		return "exited"
	case StopTerminated:
		return "terminated"
	case StopNoResumed:
		return "no-resumed"
	}
	return "StopKind(" + strconv.Itoa(int(k)) + ")"
}

// WatchKind is the kind of a data watchpoint that triggered.
type WatchKind int

const (
	WatchNone   WatchKind = iota
	WatchWrite            // "watch:"
	WatchRead             // "rwatch:"
	WatchAccess           // "awatch:"
)

func (w WatchKind) String() string {
	return [...]string{"none", "watch", "rwatch", "awatch"}[w]
}

// Direction of the resume that produced a stop.
type Direction int

const (
	Forward Direction = iota
	Reverse
)

func (d Direction) String() string {
	if d == Reverse {
		return "reverse"
	}
	return "forward"
}

// Stop is a parsed stop reply (T, S, W, X or N packet).
//
// The fields in the second group are not in the packet; the Client fills
// them in from what it knows (the request it sent, the dialect).
type Stop struct {
	Kind     StopKind
	Signal   Signal // T/S/X
	ExitCode int    // W
	Thread   Thread // "thread:" field; zero if absent
	Pid      int64  // ";process:" of W/X; 0 if absent
	Core     int    // "core:"; -1 if absent

	Watch     WatchKind // watch/rwatch/awatch
	WatchAddr uint64    // the watchpoint's address as the server reports it
	SWBreak   bool      // "swbreak:"
	HWBreak   bool      // "hwbreak:"
	ReplayLog string    // "replaylog:" value: "begin" or "end"

	// Registers holds expedited registers ("06:e0e6ffffff7f0000;") keyed by
	// register number, as raw little-endian bytes. Unavailable ("xx") bytes
	// are zero.
	Registers map[int][]byte // see Register
	// Extra holds every other key:value field (fork, exec, library, create,
	// syscall_entry, reason, ...), keyed by name.
	Extra map[string]string
	Raw   string // the packet as received (RLE-decoded)

	// Filled by Client.
	Direction Direction // direction of the resume that produced this stop
	// Interrupted: an interrupt (0x03) was sent while the resume was
	// outstanding, so a SIG0/SIGINT stop may be the interrupt's answer.
	Interrupted bool
	// AtHistoryStart: reverse execution reached the beginning of the
	// recording ("replaylog:begin", or rr's bare T00 while reversing when no
	// interrupt was sent, or QEMU's E14).
	AtHistoryStart bool
	// AboutToExit: rr's synthetic SIGKILL (T09) — the last thread of the
	// debuggee is about to exit. State is still readable and reverse
	// execution still works; a further forward resume gives W00.
	AboutToExit bool
}

// Register returns the value of r, an integer register of at most 8
// bytes, where the stop reply expedited it (gdbserver sends the pc,
// stack and frame pointers with every stop).
func (s Stop) Register(r Register) (uint64, bool) {
	b, ok := s.Registers[r.Regnum]
	if !ok || len(b) == 0 || len(b) != r.Size() {
		return 0, false
	}
	v, err := leUint(b, r.Name)
	return v, err == nil
}

// Exited reports whether the process is gone (W or X).
func (s Stop) Exited() bool { return s.Kind == StopExited || s.Kind == StopTerminated }

// String gives a short human summary, e.g. "SIGTRAP thread p1.2 swbreak".
func (s Stop) String() string {
	var b strings.Builder
	switch s.Kind {
	case StopExited:
		fmt.Fprintf(&b, "exited with code %d", s.ExitCode)
	case StopTerminated:
		fmt.Fprintf(&b, "terminated by %v", s.Signal)
	case StopNoResumed:
		b.WriteString("no resumed threads")
	default:
		b.WriteString(s.Signal.String())
	}
	if s.Thread != (Thread{}) {
		b.WriteString(" thread " + s.Thread.String())
	}
	if s.SWBreak {
		b.WriteString(" swbreak")
	}
	if s.HWBreak {
		b.WriteString(" hwbreak")
	}
	if s.Watch != WatchNone {
		fmt.Fprintf(&b, " %v %#x", s.Watch, s.WatchAddr)
	}
	if s.ReplayLog != "" {
		b.WriteString(" replaylog:" + s.ReplayLog)
	}
	if s.AtHistoryStart {
		b.WriteString(" at-history-start")
	}
	if s.AboutToExit {
		b.WriteString(" about-to-exit")
	}
	return b.String()
}

// isStopReply reports whether a payload looks like a stop reply
// (what a stray reply after an interrupt looks like).
func isStopReply(p []byte) bool {
	if len(p) < 1 {
		return false
	}
	switch p[0] {
	case 'T', 'S', 'W', 'X':
		return len(p) >= 3 && isHex(p[1]) && isHex(p[2])
	case 'N':
		return len(p) == 1
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ParseStop parses a stop reply payload (already RLE-decoded). It accepts
// fields in any order, as gdbserver puts reasons before "thread:" and rr
// after.
func ParseStop(payload string) (Stop, error) {
	s := Stop{Raw: payload, Core: -1}
	bad := func(msg string) (Stop, error) {
		return Stop{}, &ProtocolError{Data: strconv.Quote(short(payload)), Msg: "bad stop reply: " + msg}
	}
	if payload == "N" {
		s.Kind = StopNoResumed
		return s, nil
	}
	if len(payload) < 3 || !isHex(payload[1]) || !isHex(payload[2]) {
		if len(payload) >= 2 && (payload[0] == 'W' || payload[0] == 'X') {
			// gdbserver does not zero-pad: "W3;process:4f9d".
			return parseExit(s, payload, bad)
		}
		return bad("missing signal")
	}
	switch payload[0] {
	case 'S':
		if len(payload) != 3 {
			return bad("trailing data after S")
		}
		v, _ := strconv.ParseUint(payload[1:3], 16, 8)
		s.Signal = Signal(v)
		return s, nil
	case 'W', 'X':
		return parseExit(s, payload, bad)
	case 'T':
	default:
		return bad("unknown kind")
	}
	v, _ := strconv.ParseUint(payload[1:3], 16, 8)
	s.Signal = Signal(v)
	rest := payload[3:]
	for rest != "" {
		var field string
		field, rest, _ = strings.Cut(rest, ";")
		if field == "" {
			continue
		}
		key, val, ok := strings.Cut(field, ":")
		if !ok {
			return bad("field without ':'")
		}
		if err := s.setField(key, val); err != nil {
			return bad(err.Error())
		}
	}
	return s, nil
}

func parseExit(s Stop, payload string, bad func(string) (Stop, error)) (Stop, error) {
	head, rest, _ := strings.Cut(payload[1:], ";")
	if len(head) == 0 || len(head) > 8 {
		return bad("bad exit status")
	}
	v, err := strconv.ParseUint(head, 16, 32)
	if err != nil {
		return bad("bad exit status")
	}
	if payload[0] == 'W' {
		s.Kind = StopExited
		s.ExitCode = int(v)
	} else {
		s.Kind = StopTerminated
		s.Signal = Signal(v)
	}
	for rest != "" {
		var field string
		field, rest, _ = strings.Cut(rest, ";")
		key, val, ok := strings.Cut(field, ":")
		if !ok {
			return bad("field without ':'")
		}
		if key == "process" {
			pid, err := parseHexID(val)
			if err != nil {
				return bad("bad process id")
			}
			s.Pid = pid
			continue
		}
		if s.Extra == nil {
			s.Extra = map[string]string{}
		}
		s.Extra[key] = val
	}
	return s, nil
}

func (s *Stop) setField(key, val string) error {
	switch key {
	case "thread":
		t, err := ParseThread(val)
		if err != nil {
			return err
		}
		s.Thread = t
	case "core":
		c, err := strconv.ParseUint(val, 16, 31)
		if err != nil {
			return fmt.Errorf("bad core %q", val)
		}
		s.Core = int(c)
	case "watch", "rwatch", "awatch":
		a, err := strconv.ParseUint(val, 16, 64)
		if err != nil {
			return fmt.Errorf("bad watch address %q", val)
		}
		s.Watch = map[string]WatchKind{"watch": WatchWrite, "rwatch": WatchRead, "awatch": WatchAccess}[key]
		s.WatchAddr = a
	case "swbreak":
		s.SWBreak = true
	case "hwbreak":
		s.HWBreak = true
	case "replaylog":
		s.ReplayLog = val
	default:
		if n, err := strconv.ParseUint(key, 16, 16); err == nil && isAllHex(key) {
			b, err := decodeHexUnavail(val)
			if err != nil {
				return fmt.Errorf("register %s: %v", key, err)
			}
			if s.Registers == nil {
				s.Registers = map[int][]byte{}
			}
			s.Registers[int(n)] = b
			return nil
		}
		if s.Extra == nil {
			s.Extra = map[string]string{}
		}
		s.Extra[key] = val
	}
	return nil
}

func isAllHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return s != ""
}

// decodeHexUnavail decodes hex where "xx" marks an unavailable byte (→ 0).
func decodeHexUnavail(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd-length hex")
	}
	if strings.IndexByte(s, 'x') < 0 {
		// The common case, a g reply without unavailable registers (4.8
		// KB at every stop with AVX-512): the table-driven decoder is
		// five times faster than the loop below, which words the errors.
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, lo := s[2*i], s[2*i+1]
		if hi == 'x' && lo == 'x' {
			continue
		}
		if !isHex(hi) || !isHex(lo) {
			return nil, fmt.Errorf("bad hex %q", s[2*i:2*i+2])
		}
		b[i] = unhex(hi)<<4 | unhex(lo)
	}
	return b, nil
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}
