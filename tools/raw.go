package tools

import (
	"context"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type rawIn struct {
	sessionArg
	Packet      string `json:"packet" jsonschema:"packet payload without $ and checksum, e.g. qSupported, m401000,10, qRRCmd:when:-1"`
	AllowResume bool   `json:"allow_resume,omitempty" jsonschema:"allow packets that resume or restart the target (vCont, c, s, bc, bs, vRun); rrmcp's view of the target is refreshed afterwards"`
}

type rawOut struct {
	Packet string `json:"packet"`
	Reply  string `json:"reply" jsonschema:"the reply payload; empty means the server does not support the packet"`
}

func (r rawOut) Text() string {
	if r.Reply == "" {
		return "Reply: (empty: the server does not support " + r.Packet + ")"
	}
	return "Reply: " + r.Reply
}

func (r *registry) rawTools() {
	add(r, "rr_rsp_packet", "Send raw RSP packet",
		"Send one raw GDB remote-protocol packet to the session's server and return the reply (for research). Packets that would crash rr or resume the target are refused unless allow_resume is set for the latter.",
		hints{destructive: true, openWorld: true},
		func(ctx context.Context, in rawIn) (rawOut, error) {
			if strings.TrimSpace(in.Packet) == "" {
				return rawOut{}, &session.ArgError{Arg: "packet", Msg: "is empty"}
			}
			s, err := r.session(in.sessionArg)
			if err != nil {
				return rawOut{}, err
			}
			rep, err := s.RawPacket(ctx, in.Packet, in.AllowResume)
			return rawOut{Packet: in.Packet, Reply: rep}, err
		})
}
