package tools

import (
	"context"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/rsp"
)

type rawIn struct {
	sessionArg
	Packet      string `json:"packet" jsonschema:"packet payload without $ and checksum, e.g. qSupported, m401000,10, qRRCmd:when:-1"`
	AllowWrite  bool   `json:"allow_write,omitempty" jsonschema:"allow packets that write memory, registers, breakpoints or server settings (M, X, P, G, Z/z, Q…, qRcmd)"`
	AllowResume bool   `json:"allow_resume,omitempty" jsonschema:"allow packets that resume or restart the target (vCont, c, s, bc, bs, vRun); rrmcp's view of the target is refreshed afterwards"`
}

type rawOut struct {
	Packet string `json:"packet"`
	Reply  string `json:"reply" jsonschema:"the reply payload; empty means the server does not support the packet"`
	Output string `json:"output,omitempty" jsonschema:"console output the server sent before the reply (O packets, decoded): what a monitor command (qRcmd) printed"`
}

func (r rawOut) Text() string {
	var b strings.Builder
	if r.Output != "" {
		b.WriteString("Output:\n" + strings.TrimRight(r.Output, "\n") + "\n")
	}
	if r.Reply == "" {
		b.WriteString("Reply: (empty: the server does not support " + r.Packet + ")")
	} else {
		b.WriteString("Reply: " + r.Reply)
	}
	return b.String()
}

func (in *rawIn) check() error { return notEmpty("packet", in.Packet, "") }

func (r *registry) rawTools() {
	addOn(r, "rr_rsp_packet", "Send raw RSP packet",
		"Send one raw GDB remote-protocol packet to the session's server and return the reply (for research). Read-only packets (q…, m, p, g, ?, H) are sent as they are; memory/register/breakpoint writes and settings (M, X, P, G, Z/z, Q…, qRcmd) need allow_write; resume packets (vCont, c, s, bc, bs, vRun) need allow_resume. Always refused, with the reason: vFile:* (host files), QNonStop, QStartNoAckMode and other protocol-mode changes, k, vKill, D, monitor commands that stop the server (exit), packets that would crash rr, and packets over the server's PacketSize. '#', '$', '}' and '*' in the payload are escaped by rrmcp.",
		hints{destructive: true, openWorld: true},
		func(ctx context.Context, s *session.Session, in rawIn) (rawOut, error) {
			rep, text, err := s.RawPacket(ctx, in.Packet, rsp.RawAllow{Write: in.AllowWrite, Resume: in.AllowResume})
			return rawOut{Packet: in.Packet, Reply: rep, Output: text}, err
		})
}
