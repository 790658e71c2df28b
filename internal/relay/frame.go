package relay

// The framing is package rsp's (rsp.RequestReader reads GDB's requests,
// rsp.AppendFrame frames the replies); what is the relay's own is below.

// maxRequest bounds one request; GDB never sends more than the advertised
// packet size, so anything much longer is garbage.
const maxRequest = 4 * packetSize

// frameSafe returns payload ready for rsp.AppendFrame. Forwarded replies
// arrive with their binary escapes intact (see ForwardFunc) and local
// replies contain nothing that needs escaping; a stray '$' or '#' would
// still break the framing, so those two are escaped.
func frameSafe(payload string) []byte {
	out := make([]byte, 0, len(payload))
	for i := 0; i < len(payload); i++ {
		c := payload[i]
		if c == '$' || c == '#' {
			out = append(out, '}', c^0x20)
			continue
		}
		out = append(out, c)
	}
	return out
}
