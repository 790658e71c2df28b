package rsp

import (
	"errors"
	"io"
	"strconv"
)

// The stub side of the framing: what a debugger sends to a server. It runs
// the same scanner as the client (scanFrame), so both directions frame
// bytes one way.

// RequestKind is what a debugger sent: a packet, an acknowledgement or the
// interrupt byte.
type RequestKind byte

const (
	RequestPacket    RequestKind = '$'
	RequestAck       RequestKind = '+'
	RequestNak       RequestKind = '-'
	RequestInterrupt RequestKind = interruptCh
)

// A Request is one item read by a [RequestReader].
type Request struct {
	Kind RequestKind
	// Payload is a packet's payload with its "}" escapes undone ("}c"
	// stands for c^0x20); it is valid until the next call of Next.
	Payload []byte
	// ChecksumOK is false for a packet whose checksum did not match (or
	// was not two hex digits): the stub should answer '-' and drop it.
	ChecksumOK bool
}

// A RequestReader reads a debugger's requests from a byte stream, for
// code that plays the server (a relay, a stub, a test fake). Bytes that
// belong to no frame are skipped, as GDB's own stubs do; a packet that
// starts again with '$' before its '#' drops the first start.
type RequestReader struct {
	r   io.Reader
	max int
	buf []byte // received, not yet consumed
	tmp []byte
}

// NewRequestReader reads requests from r; a packet longer than max bytes
// is an error that ends the stream.
func NewRequestReader(r io.Reader, max int) *RequestReader {
	return &RequestReader{r: r, max: max, tmp: make([]byte, 4096)}
}

// Next returns the next request. Its errors are the reader's (io.EOF at
// the end of the stream, io.ErrUnexpectedEOF inside a frame) or a
// *[ProtocolError] for a frame longer than the limit.
func (rr *RequestReader) Next() (Request, error) {
	for {
		kind, raw, ok, n, _, err := scanFrame(rr.buf, rr.max)
		rest := rr.buf[n:]
		switch {
		case errors.Is(err, errChecksumDigits):
			rr.buf = rest
			return Request{Kind: RequestPacket}, nil
		case err != nil:
			rr.buf = rest
			return Request{}, &ProtocolError{Data: strconv.Quote(short(string(raw))), Msg: err.Error()}
		}
		switch kind {
		case frameAck:
			rr.buf = rest
			return Request{Kind: RequestAck}, nil
		case frameNak:
			rr.buf = rest
			return Request{Kind: RequestNak}, nil
		case frameInterrupt:
			rr.buf = rest
			return Request{Kind: RequestInterrupt}, nil
		case framePacket:
			rr.buf = rest
			if !ok {
				return Request{Kind: RequestPacket}, nil
			}
			p, err := unescapeBinary(raw)
			if err != nil {
				p = raw // left for the caller to refuse: it cannot be a valid request
			}
			return Request{Kind: RequestPacket, Payload: p, ChecksumOK: true}, nil
		case frameNotify: // debuggers send no notifications: noise
			rr.buf = rest
			continue
		}
		// frameNone: keep the incomplete frame, drop what came before it.
		rr.buf = append(rr.buf[:0], rest...)
		m, err := rr.r.Read(rr.tmp)
		rr.buf = append(rr.buf, rr.tmp[:m]...)
		if err != nil && m == 0 {
			if err == io.EOF && len(rr.buf) > 0 {
				return Request{}, io.ErrUnexpectedEOF
			}
			return Request{}, err
		}
	}
}
