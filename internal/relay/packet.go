package relay

import (
	"strconv"
	"strings"
)

// action says what the relay does with one request from GDB.
type action int

const (
	actLocal   action = iota // answer with the reply computed locally
	actForward               // send the packet to the backend unchanged
	actRefuse                // answer with the reply and count a refusal
	actStop                  // answer with the current stop reply
	actNoAck                 // answer OK, then leave ack mode
	actClose                 // close the connection without a reply (k)
)

// refusedResume is the reply to any resume. GDB prints it as
// "warning: Remote failure reply: E.…" and treats the target as stopped
// where it was, so the reason reaches the user.
const refusedResume = "E.rrmcp relay is read-only: GDB may not resume the target; use rrmcp's tools to move it"

// errReply is the reply to writes, breakpoint insertion, detach and kill.
const errReply = "E01"

// packetSize is the largest packet GDB may send us, advertised in hex. An
// m read of up to packetSize/2 bytes fits in one reply.
const packetSize = 0x4000

// classify decides how the relay handles one request. For actLocal and
// actRefuse the reply is returned; a request is only ever forwarded if it is
// a well-formed read (rr exits on malformed packets, §12 of rr-rsp.md).
// offer is what the backend lets the relay offer GDB beyond plain reads.
type offer struct {
	multiprocess bool // thread ids p<pid>.<tid>
	siginfo      bool // qXfer:siginfo:read, harmless on gdbserver (rr starts a diversion)
}

func classify(pkt string, o offer) (action, string) {
	if pkt == "" {
		return actLocal, ""
	}
	switch pkt[0] {
	case 'm':
		if isAddrLen(pkt[1:]) {
			return actForward, ""
		}
		return actLocal, errReply
	case 'x':
		// The binary read differs between servers (rr-rsp.md §12.13);
		// "unsupported" makes GDB use m.
		return actLocal, ""
	case 'g':
		if pkt == "g" {
			return actForward, ""
		}
		return actLocal, errReply
	case 'p':
		if isHexN(pkt[1:], 8) {
			return actForward, ""
		}
		return actLocal, errReply
	case 'H':
		return classifyH(pkt)
	case 'T':
		if isThreadID(pkt[1:]) {
			return actForward, ""
		}
		return actLocal, errReply
	case '?':
		if pkt == "?" {
			return actStop, ""
		}
		return actLocal, ""
	case 'q':
		return classifyQuery(pkt, o)
	case 'Q':
		if pkt == "QStartNoAckMode" {
			return actNoAck, "OK"
		}
		// Settings GDB pushes (signals to pass, non-stop, environment…)
		// would change how the backend runs the target: not supported.
		return actLocal, ""
	case 'v':
		return classifyV(pkt)
	case 'c', 'C', 's', 'S', 'i', 'I':
		return actRefuse, refusedResume
	case 'b':
		if pkt == "bc" || pkt == "bs" {
			return actRefuse, refusedResume
		}
		return actLocal, ""
	case 'Z', 'z', 'M', 'X', 'P', 'G', 'D', 'A', 'R', 'r', '!':
		return actRefuse, errReply
	case 'k':
		return actClose, ""
	}
	return actLocal, ""
}

func classifyH(pkt string) (action, string) {
	if len(pkt) < 2 {
		return actLocal, errReply
	}
	switch pkt[1] {
	case 'g':
		if isThreadID(pkt[2:]) {
			return actForward, ""
		}
		return actLocal, errReply
	case 'c':
		// The continue thread only matters for resumes, which are refused;
		// forwarding it would change what the session's next bc does on rr.
		return actLocal, "OK"
	}
	return actLocal, errReply
}

func classifyQuery(pkt string, o offer) (action, string) {
	switch {
	case pkt == "qfThreadInfo", pkt == "qsThreadInfo", pkt == "qC":
		return actForward, ""
	case strings.HasPrefix(pkt, "qSupported"):
		return actLocal, supported(pkt, o)
	case pkt == "qAttached" || strings.HasPrefix(pkt, "qAttached:"):
		// Attached: on quit GDB detaches (refused) instead of killing.
		return actLocal, "1"
	case strings.HasPrefix(pkt, "qSymbol:"):
		return actLocal, "OK"
	case strings.HasPrefix(pkt, "qXfer:"):
		return classifyXfer(pkt, o)
	case strings.HasPrefix(pkt, "qRcmd,"), strings.HasPrefix(pkt, "qRRCmd"):
		// monitor commands reach rr's own command set (checkpoints, seeks).
		return actRefuse, errReply
	}
	// qOffsets, qTStatus, qGetTLSAddr, qThreadExtraInfo (fatal on rr for a
	// dead thread), qSearch, qCRC, qL…: unsupported.
	return actLocal, ""
}

// xferAnnex says which annexes each forwarded qXfer object accepts.
var xferAnnex = map[string]func(string) bool{
	"features":       isFeatureAnnex,
	"auxv":           func(a string) bool { return a == "" },
	"libraries-svr4": func(a string) bool { return a == "" },
	"exec-file":      func(a string) bool { return a == "" || isHexN(a, 16) },
}

// classifyXfer forwards "qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH" for the
// objects in xferAnnex, and siginfo where o offers it; writes are refused
// and other objects unsupported (reading siginfo starts a diversion in rr).
func classifyXfer(pkt string, o offer) (action, string) {
	parts := strings.SplitN(pkt, ":", 5)
	if len(parts) != 5 {
		return actLocal, errReply
	}
	obj, op, annex, span := parts[1], parts[2], parts[3], parts[4]
	if op == "write" {
		return actRefuse, errReply
	}
	ok, known := xferAnnex[obj]
	if obj == "siginfo" && o.siginfo {
		ok, known = func(a string) bool { return a == "" }, true
	}
	if !known || op != "read" {
		return actLocal, ""
	}
	if !ok(annex) || !isAddrLen(span) {
		return actLocal, errReply
	}
	return actForward, ""
}

func classifyV(pkt string) (action, string) {
	switch {
	case pkt == "vMustReplyEmpty", pkt == "vCont?":
		// No vCont: GDB falls back to c/s, which are refused.
		return actLocal, ""
	case strings.HasPrefix(pkt, "vCont"), strings.HasPrefix(pkt, "vRun"),
		strings.HasPrefix(pkt, "vAttach"):
		return actRefuse, refusedResume
	case strings.HasPrefix(pkt, "vKill"), strings.HasPrefix(pkt, "vCtrlC"):
		return actRefuse, errReply
	}
	// vFile (only used with a "target:" sysroot), vStopped…: unsupported.
	return actLocal, ""
}

// supported builds the qSupported reply: only what the relay serves.
// multiprocess+ is echoed only if GDB offered it and the backend
// connection uses p<pid>.<tid> thread ids too.
func supported(pkt string, o offer) string {
	var b strings.Builder
	b.WriteString("PacketSize=")
	b.WriteString(hexString(packetSize))
	b.WriteString(";QStartNoAckMode+;qXfer:features:read+;qXfer:auxv:read+;qXfer:exec-file:read+;qXfer:libraries-svr4:read+")
	if o.siginfo {
		b.WriteString(";qXfer:siginfo:read+")
	}
	if o.multiprocess && strings.Contains(pkt, "multiprocess+") {
		b.WriteString(";multiprocess+")
	}
	return b.String()
}

func hexString(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var buf [16]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = digits[v&15]
		v >>= 4
	}
	return string(buf[i:])
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isHexN reports whether s is 1..max hex digits.
func isHexN(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// isAddrLen reports whether s is "ADDR,LEN" in hex with 0 < LEN <= the
// packet size and ADDR at most 64 bits.
func isAddrLen(s string) bool {
	addr, n, ok := strings.Cut(s, ",")
	if !ok || !isHexN(addr, 16) || !isHexN(n, 8) {
		return false
	}
	v, err := strconv.ParseUint(n, 16, 32)
	return err == nil && v > 0 && v <= packetSize
}

// isThreadID accepts the RSP thread-id forms: -1, 0, hex, and
// p<pid>.<tid> where each part is hex or -1.
func isThreadID(s string) bool {
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		pid, tid, ok := strings.Cut(rest, ".")
		if !ok {
			return isIDPart(rest)
		}
		return isIDPart(pid) && isIDPart(tid)
	}
	return isIDPart(s)
}

func isIDPart(s string) bool { return s == "-1" || isHexN(s, 16) }

// isFeatureAnnex accepts the target-description file names GDB asks for
// (target.xml and the files it includes).
func isFeatureAnnex(s string) bool {
	if s == "" || len(s) > 128 || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// sanitizeStop reduces a backend stop reply to what GDB understands
// without any negotiated feature: the signal, the thread, the core and
// expedited registers. Fields such as swbreak:, hwbreak:, watch: or rr's
// replaylog: depend on features the relay does not offer GDB (GDB rejects
// "Unexpected swbreak stop reason"), and GDB never needs them here: it has
// no breakpoints of its own. Other replies (S, W, X) are passed through.
func sanitizeStop(st string) string {
	if len(st) < 3 || st[0] != 'T' || !isHexN(st[1:3], 2) {
		if st == "" {
			return "S05"
		}
		return st
	}
	var b strings.Builder
	b.WriteString(st[:3])
	for _, f := range strings.Split(st[3:], ";") {
		k, _, ok := strings.Cut(f, ":")
		if !ok {
			continue
		}
		if k == "thread" || k == "core" || isHexN(k, 4) {
			b.WriteString(f)
			b.WriteByte(';')
		}
	}
	return b.String()
}

// anyThread reports whether pkt selects "any thread" for register reads:
// Hg0, or Hgp<pid>.0 / Hgp0.0 in multiprocess form.
func anyThread(pkt string) bool {
	t, ok := strings.CutPrefix(pkt, "Hg")
	if !ok {
		return false
	}
	if p, ok := strings.CutPrefix(t, "p"); ok {
		_, tid, ok := strings.Cut(p, ".")
		return ok && tid == "0"
	}
	return t == "0"
}

// stopThread is the thread: field of a stop reply, "" if it has none.
func stopThread(st string) string {
	if len(st) < 3 || st[0] != 'T' {
		return ""
	}
	for _, f := range strings.Split(st[3:], ";") {
		if v, ok := strings.CutPrefix(f, "thread:"); ok {
			return v
		}
	}
	return ""
}
