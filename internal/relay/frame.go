package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Server-side framing: read "$payload#cs" requests (acknowledging them
// while in ack mode), write replies with binary escapes.

// maxRequest bounds one request; GDB never sends more than the advertised
// packet size, so anything much longer is garbage.
const maxRequest = 4 * packetSize

// errFrame reports a request stream that is not RSP.
var errFrame = errors.New("malformed rsp frame")

// item is one thing read from GDB: a packet, an ack, a nak or an interrupt.
type item struct {
	kind byte   // '$', '+', '-', 0x03
	raw  string // the payload as framed: still "}"-escaped
	csOK bool
}

// readItem reads the next item, skipping bytes that belong to none.
func readItem(r *bufio.Reader) (item, error) {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return item{}, err
		}
		switch c {
		case '+', '-', 0x03:
			return item{kind: c}, nil
		case '$':
			return readPacket(r)
		}
	}
}

// readPacket reads the rest of a packet after its '$'.
func readPacket(r *bufio.Reader) (item, error) {
	var body []byte
	var sum byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return item{}, unexpectedEOF(err)
		}
		if c == '#' {
			break
		}
		if c == '$' { // a new start inside a packet: the old one was noise
			body, sum = body[:0], 0
			continue
		}
		if len(body) >= maxRequest {
			return item{}, fmt.Errorf("%w: request longer than %d bytes", errFrame, maxRequest)
		}
		body = append(body, c)
		sum += c
	}
	var cs [2]byte
	if _, err := io.ReadFull(r, cs[:]); err != nil {
		return item{}, unexpectedEOF(err)
	}
	if !isHexDigit(cs[0]) || !isHexDigit(cs[1]) {
		return item{kind: '$', csOK: false}, nil
	}
	ok := unhex(cs[0])<<4|unhex(cs[1]) == sum
	return item{kind: '$', raw: string(body), csOK: ok}, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// unescape undoes "}"-escaping (GDB escapes binary request data). A
// trailing lone "}" is kept as is; validation rejects such packets later.
func unescape(b string) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '}' && i+1 < len(b) {
			i++
			out = append(out, b[i]^0x20)
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

// appendFrame appends "$payload#cs" to dst. The payload is framed as it is:
// forwarded replies arrive with their binary escapes intact (see
// ForwardFunc), and local replies contain nothing that needs escaping. A
// stray '$' or '#' would break the framing, so those two are escaped.
func appendFrame(dst []byte, payload string) []byte {
	dst = append(dst, '$')
	var sum byte
	for i := 0; i < len(payload); i++ {
		c := payload[i]
		if c == '$' || c == '#' {
			dst = append(dst, '}')
			sum += '}'
			c ^= 0x20
		}
		dst = append(dst, c)
		sum += c
	}
	const digits = "0123456789abcdef"
	return append(dst, '#', digits[sum>>4], digits[sum&15])
}
