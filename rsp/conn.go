package rsp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// Framing only: "$payload#cs" packets, "%payload#cs" notifications, "+"/"-"
// acknowledgements, run-length decoding, "}" escapes for binary payloads and
// the 0x03 interrupt byte. Nothing here knows what a payload means.

const (
	maxFrame    = 32 << 20 // largest frame we accept before calling the stream garbage
	maxJunk     = 1024     // bytes outside any frame tolerated between packets
	maxResend   = 5        // retransmissions of one packet on '-' before giving up
	interruptCh = 0x03
)

// frameKind classifies what scanFrame found at the start of a buffer.
type frameKind int

const (
	frameNone      frameKind = iota // need more bytes
	frameAck                        // '+'
	frameNak                        // '-'
	framePacket                     // "$...#cs"
	frameNotify                     // "%...#cs"
	frameInterrupt                  // 0x03, the one byte a debugger sends outside a frame
)

// errChecksumDigits is scanFrame's error for a frame whose two checksum
// characters are not hex digits (the frame is consumed).
var errChecksumDigits = errors.New("bad checksum digits")

// scanFrame looks at the start of b. It returns the kind of the first
// complete item, the raw (still run-length encoded) payload of a packet,
// whether its checksum matched, and how many bytes were consumed (junk and
// incomplete frames included where they can be dropped). junk counts the
// bytes that were skipped as not belonging to any frame. A frame longer
// than max bytes is an error. Both sides of the protocol use it: the
// client's decodePacket and a stub's [RequestReader].
func scanFrame(b []byte, max int) (kind frameKind, payload []byte, csOK bool, consumed, junk int, err error) {
	i := 0
	for i < len(b) {
		switch b[i] {
		case '+':
			return frameAck, nil, false, i + 1, junk, nil
		case '-':
			return frameNak, nil, false, i + 1, junk, nil
		case interruptCh:
			return frameInterrupt, nil, false, i + 1, junk, nil
		case '$', '%':
			start := i
			for {
				// The first '$' or '#' after start, looked for with
				// IndexByte (a register or memory reply is thousands of
				// bytes) among the max bytes a frame may have; j is
				// len(b) when neither is there yet.
				end := min(len(b), start+1+max)
				j := end
				if h := bytes.IndexByte(b[start+1:end], '#'); h >= 0 {
					j = start + 1 + h
				}
				if d := bytes.IndexByte(b[start+1:j], '$'); d >= 0 {
					j = start + 1 + d
				}
				if j == len(b) {
					return frameNone, nil, false, start, junk, nil
				}
				switch b[j] {
				case '$':
					// A new packet start inside a packet: the old one was
					// garbage (gdb's read_frame does the same).
					junk += j - start
					start = j
					continue
				case '#':
					if j+2 >= len(b) {
						return frameNone, nil, false, start, junk, nil
					}
					hi, lo := b[j+1], b[j+2]
					if !isHex(hi) || !isHex(lo) {
						return frameNone, nil, false, j + 3, junk, fmt.Errorf("%w %q", errChecksumDigits, b[j+1:j+3])
					}
					k := framePacket
					if b[start] == '%' {
						k = frameNotify
					}
					return k, b[start+1 : j], checksum(b[start+1:j]) == unhex(hi)<<4|unhex(lo), j + 3, junk, nil
				}
				return frameNone, nil, false, j, junk, fmt.Errorf("frame longer than %d bytes", max)
			}
		default:
			junk++
			i++
		}
	}
	return frameNone, nil, false, i, junk, nil
}

// checksum is the sum of p's bytes modulo 256, a frame's checksum. It adds
// eight bytes at a time, in 16-bit lanes that cannot overflow within a
// block of 128 words.
func checksum(p []byte) byte {
	var sum uint64
	for len(p) >= 8 {
		var lanes uint64
		for n := 0; n < 128 && len(p) >= 8; n++ {
			x := binary.LittleEndian.Uint64(p)
			lanes += x&0x00ff00ff00ff00ff + x>>8&0x00ff00ff00ff00ff
			p = p[8:]
		}
		sum += lanes&0xffff + lanes>>16&0xffff + lanes>>32&0xffff + lanes>>48
	}
	for _, c := range p {
		sum += uint64(c)
	}
	return byte(sum)
}

// decodeRLE expands run-length encoding: "X*n" means X repeated n-29 more
// times. Per gdb's read_frame the count applies to the previous decoded
// byte, and escapes are undone later (unescapeBinary), so "}" is not special
// here.
func decodeRLE(p []byte) ([]byte, error) {
	if bytes.IndexByte(p, '*') < 0 {
		return p, nil
	}
	// Size the output first: a register packet expands many times over
	// (runs of zeros), and growing as it goes cost more than decoding.
	size := len(p)
	for i := bytes.IndexByte(p, '*'); i >= 0; {
		if i == 0 {
			return nil, errors.New("run-length marker at start of packet")
		}
		if i+1 >= len(p) {
			return nil, errors.New("run-length marker without count")
		}
		n := int(p[i+1]) - 29
		if n < 0 || p[i+1] > 126 {
			return nil, fmt.Errorf("bad run-length count %q", p[i+1])
		}
		size += n - 2
		// The count is never a marker itself.
		next := bytes.IndexByte(p[i+2:], '*')
		if next < 0 {
			break
		}
		i += 2 + next
	}
	out := make([]byte, 0, size)
	for i := 0; i < len(p); i++ {
		j := bytes.IndexByte(p[i:], '*')
		if j < 0 {
			return append(out, p[i:]...), nil
		}
		// The literal run up to the marker, then the repeats of its
		// last byte.
		out = append(out, p[i:i+j]...)
		i += j
		prev, n := out[len(out)-1], int(p[i+1])-29
		if n > 0 {
			// Fill the run by doubling copies: a g reply is mostly runs
			// of zeros, and a byte at a time was most of its decoding.
			start := len(out)
			out = out[:start+n]
			run := out[start:]
			run[0] = prev
			for k := 1; k < n; k *= 2 {
				copy(run[k:], run[:k])
			}
		}
		i++
	}
	return out, nil
}

// unescapeBinary undoes the "}" escaping of binary payloads (qXfer, vFile,
// x): "}" followed by c means c^0x20.
func unescapeBinary(p []byte) ([]byte, error) {
	if bytes.IndexByte(p, '}') < 0 {
		return p, nil
	}
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '}' {
			if i+1 >= len(p) {
				return nil, errors.New("escape character at end of packet")
			}
			i++
			out = append(out, p[i]^0x20)
			continue
		}
		out = append(out, p[i])
	}
	return out, nil
}

// AppendEscaped appends p to dst with '#', '$', '}' and '*' escaped ("}"
// then the byte xor 0x20): binary data in a request (X) or in a reply
// (qXfer, x).
func AppendEscaped(dst, p []byte) []byte {
	for _, c := range p {
		switch c {
		case '#', '$', '}', '*':
			dst = append(dst, '}', c^0x20)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// AppendFrame appends "$payload#cs" to dst; payload is sent as it is
// (binary data escaped already).
func AppendFrame(dst []byte, payload []byte) []byte {
	var sum byte
	for _, c := range payload {
		sum += c
	}
	dst = append(dst, '$')
	dst = append(dst, payload...)
	return append(dst, '#', hexDigits[sum>>4], hexDigits[sum&15])
}

const hexDigits = "0123456789abcdef"

// errChecksum is decodePacket's error for a frame whose checksum does not
// match; the frame is consumed and its raw payload returned, so that the
// reader can NAK it and go on.
var errChecksum = errors.New("checksum mismatch")

// packet is one frame decoded from the start of a receive buffer.
type packet struct {
	payload  []byte // RLE-expanded, escapes intact; the raw bytes when the checksum or RLE failed
	notify   bool   // a "%" notification rather than a "$" packet
	consumed int    // bytes used: acknowledgements, junk and the frame itself
	junk     int    // bytes skipped as not belonging to any frame
}

// decodePacket decodes the first complete frame at the start of b, skipping
// '+'/'-' acknowledgements and junk before it. It is the one decoder that
// conn.readPacket runs (and the one FuzzDecodePacket fuzzes). Errors:
// io.ErrUnexpectedEOF when no complete frame is there yet (consumed says
// how much junk can be dropped), errChecksum for a bad checksum, anything
// else for a frame that cannot be decoded.
func decodePacket(b []byte) (pkt packet, err error) {
	for pkt.consumed < len(b) {
		kind, raw, ok, n, junk, err := scanFrame(b[pkt.consumed:], maxFrame)
		pkt.consumed += n
		pkt.junk += junk
		if err != nil {
			return pkt, err
		}
		switch kind {
		case frameNone:
			return pkt, io.ErrUnexpectedEOF
		case frameAck, frameNak:
			continue
		case frameInterrupt: // a server never sends it: junk
			pkt.junk++
			continue
		}
		pkt.notify = kind == frameNotify
		if !ok {
			pkt.payload = raw
			return pkt, errChecksum
		}
		p, err := decodeRLE(raw)
		if err != nil {
			pkt.payload = raw
			return pkt, err
		}
		pkt.payload = p
		return pkt, nil
	}
	return pkt, io.ErrUnexpectedEOF
}

// deadliner is implemented by net.Conn and *os.File.
type deadliner interface {
	SetDeadline(time.Time) error
}

// conn is one RSP byte stream. Reads are done by the owning goroutine only;
// writes are serialised by wmu so that interrupt can be called from another
// goroutine while the owner is blocked in a read.
type conn struct {
	rw     io.ReadWriter
	closer io.Closer
	dl     deadliner // nil if the stream has no deadlines

	rbuf  []byte // received, not yet consumed bytes
	rtmp  []byte
	junk  int
	badCS int // consecutive packets with a bad checksum

	wmu  sync.Mutex
	wbuf []byte

	ack bool // ack mode (true until QStartNoAckMode succeeds)
	log *packetLog

	closeOnce sync.Once
	mu        sync.Mutex
	dead      error // sticky fatal error
}

func newConn(rwc io.ReadWriteCloser, log *packetLog) *conn {
	c := &conn{rw: rwc, closer: rwc, ack: true, log: log, rtmp: make([]byte, 64<<10)}
	if d, ok := rwc.(deadliner); ok {
		c.dl = d
	}
	return c
}

// fail kills the connection. The first caller gets err; every later use
// gets an error that matches ErrClosed and carries the first cause.
func (c *conn) fail(err error) error {
	c.mu.Lock()
	if c.dead == nil {
		if errors.Is(err, ErrClosed) {
			c.dead = err
		} else {
			c.dead = fmt.Errorf("%w after %w", ErrClosed, err)
		}
	} else if !errors.Is(err, ErrClosed) {
		err = c.dead
	}
	c.mu.Unlock()
	c.close()
	return err
}

func (c *conn) deadErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *conn) close() error {
	var err error
	c.closeOnce.Do(func() { err = c.closer.Close() })
	return err
}

// isTimeout reports whether err came from a deadline set by a context.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// fill reads more bytes into rbuf. Deadline errors are returned as they are
// (the stream stays usable, partial frames stay buffered); any other error
// kills the connection.
func (c *conn) fill() error {
	if err := c.deadErr(); err != nil {
		return err
	}
	n, err := c.rw.Read(c.rtmp)
	if n > 0 {
		c.rbuf = append(c.rbuf, c.rtmp[:n]...)
	}
	if err != nil {
		if isTimeout(err) {
			return err
		}
		if n > 0 && err != io.EOF {
			return nil
		}
		if n > 0 {
			return nil // deliver the bytes; EOF comes again on the next read
		}
		return c.fail(fmt.Errorf("%w: %v", ErrClosed, err))
	}
	return nil
}

func (c *conn) consume(n int) {
	c.rbuf = c.rbuf[n:]
	if len(c.rbuf) == 0 {
		c.rbuf = c.rbuf[:0:0]
	}
}

// readPacket returns the next packet's payload, RLE-decoded, with escapes
// still in place. '+'/'-' bytes and notifications are skipped; in ack mode
// each packet is acknowledged (or NAKed on a bad checksum).
func (c *conn) readPacket() ([]byte, error) {
	for {
		pkt, err := decodePacket(c.rbuf)
		c.junk += pkt.junk
		if c.junk > maxJunk {
			data := strconv.Quote(short(string(c.rbuf)))
			return nil, c.fail(&ProtocolError{Data: data, Msg: "garbage between packets"})
		}
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			c.consume(pkt.consumed)
			if err := c.fill(); err != nil {
				return nil, err
			}
			continue
		case errors.Is(err, errChecksum):
			c.consume(pkt.consumed)
			c.junk = 0
			c.badCS++
			if c.ack && c.badCS <= maxResend {
				c.log.packet("<-", pkt.payload, "bad checksum, NAK")
				if err := c.writeRaw([]byte{'-'}); err != nil {
					return nil, err
				}
				continue
			}
			return nil, c.fail(&ProtocolError{Data: strconv.Quote(short(string(pkt.payload))), Msg: err.Error()})
		case err != nil:
			data := pkt.payload
			if data == nil {
				data = c.rbuf
			}
			return nil, c.fail(&ProtocolError{Data: strconv.Quote(short(string(data))), Msg: err.Error()})
		}
		c.consume(pkt.consumed)
		c.junk = 0
		c.badCS = 0
		if pkt.notify {
			c.log.packet("<%", pkt.payload, "notification skipped")
			continue // notifications are never acknowledged
		}
		c.log.packet("<-", pkt.payload, "")
		if c.ack {
			if err := c.writeRaw([]byte{'+'}); err != nil {
				return nil, err
			}
		}
		return pkt.payload, nil
	}
}

// writeRaw writes bytes under the write lock.
func (c *conn) writeRaw(p []byte) error {
	if err := c.deadErr(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.rw.Write(p)
	if err != nil {
		if isTimeout(err) {
			// A partial write leaves the server mid-packet: unrecoverable.
			return c.fail(fmt.Errorf("%w: write interrupted: %v", ErrClosed, err))
		}
		return c.fail(fmt.Errorf("%w: %v", ErrClosed, err))
	}
	return nil
}

// writePacket frames and sends payload; in ack mode it then waits for '+'
// and retransmits on '-'.
func (c *conn) writePacket(payload []byte) error {
	c.wbuf = AppendFrame(c.wbuf[:0], payload)
	c.log.packet("->", payload, "")
	if err := c.writeRaw(c.wbuf); err != nil {
		return err
	}
	if !c.ack {
		return nil
	}
	for tries := 0; ; {
		got, err := c.readAck()
		if err != nil {
			return err
		}
		if got {
			return nil
		}
		tries++
		if tries > maxResend {
			return c.fail(&ProtocolError{Packet: short(string(payload)), Msg: "server rejected packet repeatedly"})
		}
		c.log.packet("->", payload, "retransmit after '-'")
		if err := c.writeRaw(c.wbuf); err != nil {
			return err
		}
	}
}

// pipelinedNote marks, in the packet log, a request sent with the one
// before it, before its reply: the two cost one round trip.
const pipelinedNote = "pipelined"

// writePackets frames payloads and writes them with one write, without
// waiting for acks: for no-ack mode only.
func (c *conn) writePackets(payloads []string) error {
	c.wbuf = c.wbuf[:0]
	for i, p := range payloads {
		c.wbuf = AppendFrame(c.wbuf, []byte(p))
		note := ""
		if i > 0 {
			note = pipelinedNote
		}
		c.log.packet("->", []byte(p), note)
	}
	return c.writeRaw(c.wbuf)
}

// readAck waits for '+' (true) or '-' (false). A packet start counts as an
// implicit ack (some stubs omit it) and is left in the buffer.
func (c *conn) readAck() (bool, error) {
	for {
		for i, b := range c.rbuf {
			switch b {
			case '+':
				c.consume(i + 1)
				return true, nil
			case '-':
				c.consume(i + 1)
				return false, nil
			case '$', '%':
				c.consume(i)
				return true, nil
			}
		}
		c.junk += len(c.rbuf)
		c.consume(len(c.rbuf))
		if c.junk > maxJunk {
			return false, c.fail(&ProtocolError{Msg: "garbage instead of acknowledgement"})
		}
		if err := c.fill(); err != nil {
			return false, err
		}
	}
}

// interrupt sends the 0x03 byte. Safe to call from any goroutine.
func (c *conn) interrupt() error {
	c.log.packet("->", []byte{interruptCh}, "interrupt")
	return c.writeRaw([]byte{interruptCh})
}
