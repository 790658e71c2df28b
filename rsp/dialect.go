package rsp

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// Dialect selects per-server rules: which requests are refused locally
// because they would kill or desynchronise the server, and how replies are
// interpreted. See doc.go for the list.
type Dialect int

const (
	// DialectAuto picks a dialect from the qSupported reply: gdbserver if
	// it offers QStartupWithShell+, QDisableRandomization+ or QNonStop+;
	// rr if it offers QStartNoAckMode+, ConditionalBreakpoints+ and
	// qXfer:siginfo:read+ (with or without ReverseContinue+, which rr's
	// emergency mode leaves out); QEMU if it offers target descriptions but
	// no no-ack mode; Generic otherwise. Pass the dialect explicitly when
	// you know the server: detection is a heuristic.
	DialectAuto Dialect = iota
	DialectGeneric
	DialectGDBServer
	DialectRR
	DialectQEMU
)

func (d Dialect) String() string {
	switch d {
	case DialectAuto:
		return "auto"
	case DialectGeneric:
		return "generic"
	case DialectGDBServer:
		return "gdbserver"
	case DialectRR:
		return "rr"
	case DialectQEMU:
		return "qemu"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

func detectDialect(f map[string]string) Dialect {
	has := func(k string) bool { return f[k] == "+" }
	switch {
	case has("QStartupWithShell") || has("QDisableRandomization") || has("QNonStop"):
		return DialectGDBServer
	case has("QStartNoAckMode") && has("ConditionalBreakpoints") && has("qXfer:siginfo:read"):
		return DialectRR
	case !has("QStartNoAckMode") && has("qXfer:features:read") && f["PacketSize"] != "":
		return DialectQEMU
	}
	return DialectGeneric
}

// guard holds what the dialect check needs to know about the session.
type guard struct {
	dialect  Dialect
	exited   bool            // W/X seen: rr dies on any resume now
	rrNewCmd bool            // qRRCmd uses the >= 5.8 format
	bpKind   int             // the only Z0/Z1 kind rr accepts (1 on x86, 4 on aarch64)
	annexes  map[string]bool // qXfer:features annexes referenced by target.xml
	features map[string]string
}

// isResume reports whether pkt makes the target run (or restart) so that
// the reply is a stop reply that may take arbitrarily long.
func isResume(pkt string) bool {
	switch {
	case pkt == "bc", pkt == "bs":
		return true
	case strings.HasPrefix(pkt, "vCont;"), strings.HasPrefix(pkt, "vRun"), strings.HasPrefix(pkt, "vAttach;"):
		return true
	case pkt == "k":
		return true
	case len(pkt) >= 1 && (pkt[0] == 'c' || pkt[0] == 's'):
		// c[addr], s[addr]; exclude nothing else: no query starts with c/s.
		return true
	case len(pkt) >= 3 && (pkt[0] == 'C' || pkt[0] == 'S') && isHex(pkt[1]) && isHex(pkt[2]):
		return true
	}
	return false
}

// check returns a *RefusedError if pkt must not be sent to this server.
func (g *guard) check(pkt string) error {
	// Rules for every dialect.
	switch {
	case pkt == "bc" && g.features["ReverseContinue"] != "+":
		return refused(pkt, "server does not advertise ReverseContinue+ (qemu-user answers twice and desynchronises)")
	case pkt == "bs" && g.features["ReverseStep"] != "+":
		return refused(pkt, "server does not advertise ReverseStep+")
	case g.dialect == DialectGDBServer && strings.HasPrefix(pkt, "vCont;") && strings.Contains(pkt, "p-1.-1"):
		return refused(pkt, "gdbserver exits on the ptid p-1.-1 in vCont")
	}
	if g.dialect != DialectRR {
		return nil
	}
	return g.checkRR(pkt)
}

// checkRR implements rr-rsp.md §12.1 and §4: requests that make rr exit(2),
// ASSERT or FATAL.
func (g *guard) checkRR(pkt string) error {
	if pkt == "" {
		return refused(pkt, "empty packet")
	}
	if g.exited && isResume(pkt) && !strings.HasPrefix(pkt, "vRun") && pkt != "k" {
		return refused(pkt, "rr dies on any resume after the process exited (W00); use vRun (Restart) or detach")
	}
	switch {
	case strings.HasPrefix(pkt, "qSupported"):
		if !strings.HasPrefix(pkt, "qSupported:") {
			return refused(pkt, "rr crashes on qSupported without ':'")
		}
	case strings.HasPrefix(pkt, "vRun"):
		rest, ok := strings.CutPrefix(pkt, "vRun;")
		if !ok {
			return refused(pkt, "rr crashes on vRun without ';' (strchr on NULL)")
		}
		file, args, _ := strings.Cut(rest, ";")
		if file != "" {
			return refused(pkt, "rr FATALs on vRun with a filename")
		}
		if args != "" && !isHexString(strings.Split(args, ";")[0]) {
			return refused(pkt, "rr exits on a non-hex vRun argument")
		}
	case strings.HasPrefix(pkt, "qThreadExtraInfo"):
		return refused(pkt, "rr crashes on qThreadExtraInfo for a dead thread")
	case strings.HasPrefix(pkt, "qGetTLSAddr"):
		return refused(pkt, "rr without thread_db FATALs on qGetTLSAddr; use fs_base")
	case strings.HasPrefix(pkt, "qXfer:siginfo:read"):
		return refused(pkt, "qXfer:siginfo:read starts an rr diversion")
	case strings.HasPrefix(pkt, "qXfer:features:read:"):
		annex, _, _ := strings.Cut(strings.TrimPrefix(pkt, "qXfer:features:read:"), ":")
		if annex != "" && annex != "target.xml" && !g.annexes[annex] {
			return refused(pkt, "rr FATALs on a features annex that target.xml did not include")
		}
	case strings.HasPrefix(pkt, "qRRCmd:"):
		return g.checkRRCmd(pkt)
	case pkt[0] == 'Z' || pkt[0] == 'z':
		typ, _, kind, ok := parseZ(pkt)
		if !ok {
			return refused(pkt, "rr exits on a malformed Z/z packet")
		}
		if (typ == 0 || typ == 1) && g.bpKind != 0 && kind != g.bpKind {
			return refused(pkt, "rr ASSERTs on a breakpoint kind other than "+strconv.Itoa(g.bpKind))
		}
	case pkt[0] == 'm':
		if _, _, ok := parseAddrLen(pkt[1:]); !ok {
			return refused(pkt, "rr exits on a malformed m packet")
		}
	case pkt[0] == 'M' || pkt[0] == 'X':
		head, data, ok := strings.Cut(pkt[1:], ":")
		if _, _, ok2 := parseAddrLen(head); !ok || !ok2 || (pkt[0] == 'M' && len(data)%2 != 0) {
			return refused(pkt, "rr exits on a malformed memory write")
		}
	case pkt[0] == 'H':
		if len(pkt) < 3 || (pkt[1] != 'g' && pkt[1] != 'c') {
			return refused(pkt, "rr exits on a malformed H packet")
		}
		if _, err := ParseThread(pkt[2:]); err != nil && pkt[2:] != "p-1.-1" {
			return refused(pkt, "rr exits on a malformed H packet")
		}
	case strings.HasPrefix(pkt, "vFile:open:"):
		f := strings.Split(strings.TrimPrefix(pkt, "vFile:open:"), ",")
		if len(f) != 3 || !isHexString(f[0]) {
			return refused(pkt, "rr exits on a malformed vFile:open")
		}
		if m, err := strconv.ParseUint(f[2], 16, 32); err != nil || m > 0o777 {
			return refused(pkt, "rr exits on vFile:open with mode > 0777")
		}
	}
	return nil
}

func (g *guard) checkRRCmd(pkt string) error {
	fields := strings.Split(strings.TrimPrefix(pkt, "qRRCmd:"), ":")
	var name string
	var args []string
	if g.rrNewCmd {
		if len(fields) < 2 {
			return refused(pkt, "rr >= 5.8 exits on qRRCmd without a thread id (old format?)")
		}
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return refused(pkt, "rr >= 5.8 exits on qRRCmd with a bad thread id (old format?)")
		}
		name, args = fields[0], fields[2:]
	} else {
		b, err := hex.DecodeString(fields[0])
		if err != nil {
			return refused(pkt, "rr < 5.8 expects a hex command name")
		}
		name, args = string(b), fields[1:]
	}
	for _, a := range args {
		if !isHexString(a) {
			return refused(pkt, "qRRCmd arguments must be hex")
		}
	}
	if name == "checkpoint" && len(args) == 0 {
		return refused(pkt, "rr crashes on checkpoint without an argument")
	}
	return nil
}

func isHexString(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// parseAddrLen parses "addr,len" (hex).
func parseAddrLen(s string) (addr, n uint64, ok bool) {
	a, l, found := strings.Cut(s, ",")
	if !found {
		return 0, 0, false
	}
	addr, err1 := strconv.ParseUint(a, 16, 64)
	n, err2 := strconv.ParseUint(l, 16, 64)
	return addr, n, err1 == nil && err2 == nil
}

// parseZ parses "Z<type>,<addr>,<kind>[;cond...]" (or z).
func parseZ(pkt string) (typ int, addr uint64, kind int, ok bool) {
	if len(pkt) < 6 || (pkt[0] != 'Z' && pkt[0] != 'z') || pkt[1] < '0' || pkt[1] > '4' || pkt[2] != ',' {
		return 0, 0, 0, false
	}
	body, _, _ := strings.Cut(pkt[3:], ";")
	addr, k, ok := parseAddrLen(body)
	if !ok || k > 1<<20 {
		return 0, 0, 0, false
	}
	return int(pkt[1] - '0'), addr, int(k), true
}
