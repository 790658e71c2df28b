package rsp

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// RawAllow says which classes of raw packet (Client.SendRaw) may be sent
// beyond the read-only ones.
type RawAllow struct {
	Write  bool // memory, register and breakpoint writes (M, X, P, G, Z/z, Q…)
	Resume bool // packets that resume or restart the target (vCont, c, s, bc, vRun…)
}

// PacketClass is what a raw packet does to the target or the server.
type PacketClass int

const (
	ClassRead    PacketClass = iota // queries and reads
	ClassWrite                      // changes memory, registers, breakpoints or server settings
	ClassResume                     // resumes or restarts the target
	ClassRefused                    // never sent raw: host files, protocol mode, kill/stop the server
)

// Classify returns a raw packet's class and, for ClassRefused (and as an
// explanation for the others), why.
func Classify(pkt string) (PacketClass, string) {
	switch {
	case pkt == "":
		return ClassRefused, "the packet is empty"
	case strings.HasPrefix(pkt, "vFile:"):
		return ClassRefused, "vFile packets act on the host's files (open, read, unlink)"
	case strings.HasPrefix(pkt, "QNonStop"), strings.HasPrefix(pkt, "QStartNoAckMode"), pkt == "!",
		strings.HasPrefix(pkt, "QThreadEvents"), strings.HasPrefix(pkt, "QCatchSyscalls"),
		strings.HasPrefix(pkt, "QThreadOptions"), strings.HasPrefix(pkt, "QListThreadsInStopReply"):
		return ClassRefused, "it changes the protocol mode rrmcp's connection depends on"
	case pkt == "k", strings.HasPrefix(pkt, "vKill"):
		return ClassRefused, "it kills the program (stop the session with rr_replay_stop instead)"
	case pkt == "D" || strings.HasPrefix(pkt, "D;"):
		return ClassRefused, "it detaches from the program and ends the session (use rr_replay_stop)"
	case pkt == "R" || strings.HasPrefix(pkt, "R") && len(pkt) == 3 && isHex(pkt[1]) && isHex(pkt[2]):
		return ClassRefused, "it restarts the server's program behind rrmcp's back"
	case strings.HasPrefix(pkt, "qRcmd,"):
		if cmd, ok := monitorCommand(pkt); ok && stopsServer(cmd) {
			return ClassRefused, "the monitor command " + short(cmd) + " stops or detaches the server"
		}
		return ClassWrite, "monitor commands can change the server's state"
	case strings.HasPrefix(pkt, "qRRCmd:"):
		if rrCmdReadOnly(pkt) {
			return ClassRead, ""
		}
		return ClassWrite, "this rr command changes the replay (checkpoints, position)"
	case strings.HasPrefix(pkt, "vRun"), strings.HasPrefix(pkt, "vAttach;"), isResume(pkt):
		return ClassResume, "it resumes or restarts the target"
	case strings.HasPrefix(pkt, "vCont?"), pkt == "vMustReplyEmpty":
		return ClassRead, ""
	case pkt[0] == 'v':
		return ClassRefused, "not a known read-only v packet"
	case pkt[0] == 'q', pkt[0] == 'm', pkt[0] == 'p', pkt == "g", pkt == "?", pkt[0] == 'H', pkt[0] == 'T':
		return ClassRead, ""
	}
	return ClassWrite, "it changes memory, registers, breakpoints or server settings"
}

// monitorCommand decodes qRcmd,<hex>.
func monitorCommand(pkt string) (string, bool) {
	b, err := hex.DecodeString(strings.TrimPrefix(pkt, "qRcmd,"))
	return strings.TrimSpace(string(b)), err == nil
}

func stopsServer(cmd string) bool {
	first, _, _ := strings.Cut(strings.ToLower(cmd), " ")
	switch first {
	case "exit", "quit", "kill", "detach", "stop", "q":
		return true
	}
	return false
}

// escapeText escapes '#', '$', '}' and '*' in a raw payload so that no
// byte can end or corrupt the frame.
func escapeText(pkt string) string {
	if !strings.ContainsAny(pkt, "#$}*") {
		return pkt
	}
	return string(AppendEscaped(nil, []byte(pkt)))
}

// SendRaw sends one raw packet on behalf of a user after the class check:
// read-only packets always, writes with allow.Write, resumes with
// allow.Resume; vFile, protocol-mode changes, kill, detach, monitor commands
// that stop the server and packets over the server's PacketSize are
// refused with the reason. '#', '$', '}' and '*' in the payload are
// escaped. The reply and the console output before it are as
// ExchangeOutput returns them.
func (c *Client) SendRaw(ctx context.Context, pkt string, allow RawAllow) (reply string, output []byte, err error) {
	class, why := Classify(pkt)
	switch {
	case class == ClassRefused:
		return "", nil, refused(pkt, why)
	case class == ClassWrite && !allow.Write:
		return "", nil, refused(pkt, why+"; set allow_write to send it")
	case class == ClassResume && !allow.Resume:
		return "", nil, refused(pkt, why+"; set allow_resume to send it")
	}
	wire := escapeText(pkt)
	if c.packetSize > 0 && len(wire)+4 > c.packetSize {
		return "", nil, refused(pkt, "it is "+strconv.Itoa(len(wire))+" bytes, over the server's PacketSize of "+strconv.Itoa(c.packetSize))
	}
	if n, ok := readLength(pkt); ok && c.packetSize > 0 && n > uint64(c.packetSize-4)/2 {
		// gdbserver asserts and exits on a longer m while breakpoints
		// are inserted (mem-break.cc): the session would be lost.
		return "", nil, refused(pkt, fmt.Sprintf("it asks for %d bytes, more than a reply within the server's PacketSize of %d holds (%d bytes in hex); read less per packet, or use rr_read_memory", n, c.packetSize, (c.packetSize-4)/2))
	}
	return c.ExchangeOutput(ctx, wire, class == ClassResume)
}

// readLength is the length a memory read packet (mADDR,LEN or
// xADDR,LEN) asks for.
func readLength(pkt string) (uint64, bool) {
	if pkt == "" || pkt[0] != 'm' && pkt[0] != 'x' {
		return 0, false
	}
	_, l, ok := strings.Cut(pkt[1:], ",")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(l, 16, 64)
	return n, err == nil
}
