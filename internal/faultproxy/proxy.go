package faultproxy

import (
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// Dir is the direction of a packet through the proxy.
type Dir int

const (
	ToServer Dir = iota // client → server
	ToClient            // server → client
)

// Action is what a rule does to the packet it matches.
type Action int

const (
	Delay     Action = iota // forward after Rule.Delay
	Drop                    // never forward
	Duplicate               // forward twice
	Truncate                // forward the first half of the frame only
	Garble                  // flip a payload byte; the checksum no longer matches
	Cut                     // close both connections instead of forwarding
	// HoldForInterrupt holds a server→client packet until the client's
	// 0x03 has been forwarded to the server (or Rule.Delay passed): the
	// interrupt then reaches a server whose target already stopped.
	HoldForInterrupt
	// Answer replies to a client→server packet with Rule.Reply in the
	// server's place; the server never sees the packet. With Every, a
	// server that accepts a request and never acts on it: a VM whose
	// hardware debug registers take Z1/Z2 and never fire.
	Answer
)

// Rule fires once, on the first packet in Dir whose payload starts with
// Prefix (after Skip such packets have passed). An empty Prefix matches any
// packet.
type Rule struct {
	Dir    Dir
	Prefix string
	Skip   int
	Action Action
	Delay  time.Duration
	Reply  string // Answer: the reply's payload
	Every  bool   // stays armed: fires on every matching packet
}

// Proxy forwards one client connection at a time to the server.
type Proxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	rules    []*Rule
	fired    []Rule
	intr     chan struct{} // closed when a 0x03 is forwarded to the server
	conns    []net.Conn
	closed   bool
	lastSent string // last packet the client sent
	noAck    bool   // the client asked for no-ack mode (QStartNoAckMode)
	ownAcks  int    // client acks of Answer replies, not for the server
}

// Start listens on a local port and forwards connections to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, intr: make(chan struct{})}
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Arm adds a rule; it fires on the next matching packet.
func (p *Proxy) Arm(r Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Action == HoldForInterrupt {
		p.intr = make(chan struct{})
	}
	p.rules = append(p.rules, &r)
}

// Fired returns the rules that fired so far.
func (p *Proxy) Fired() []Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Rule(nil), p.fired...)
}

// Pending is the number of armed rules that have not fired.
func (p *Proxy) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.rules)
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return p.ln.Close()
}

func (p *Proxy) accept() {
	for {
		cl, err := p.ln.Accept()
		if err != nil {
			return
		}
		sv, err := net.Dial("tcp", p.target)
		if err != nil {
			cl.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			cl.Close()
			sv.Close()
			return
		}
		p.conns = append(p.conns, cl, sv)
		p.mu.Unlock()
		cut := func() { cl.Close(); sv.Close() }
		go p.pump(cl, sv, cl, ToServer, cut)
		go p.pump(sv, cl, sv, ToClient, cut)
	}
}

// match removes and returns the first armed rule matching pkt.
func (p *Proxy) match(dir Dir, payload string) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.rules {
		if r.Dir != dir || !strings.HasPrefix(payload, r.Prefix) {
			continue
		}
		if r.Skip > 0 {
			r.Skip--
			continue
		}
		if !r.Every {
			p.rules = append(p.rules[:i], p.rules[i+1:]...)
		}
		p.fired = append(p.fired, *r)
		return r
	}
	return nil
}

// pump copies from src to dst unit by unit: single bytes (+, -, 0x03) and
// whole frames ($…#xx, %…#xx), applying the rules to frames; back writes
// to src's side (Answer replies).
func (p *Proxy) pump(src io.Reader, dst, back io.Writer, dir Dir, cut func()) {
	defer cut()
	buf := make([]byte, 0, 64<<10)
	tmp := make([]byte, 64<<10)
	for {
		n, err := src.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			unit, rest, ok := nextUnit(buf)
			if !ok {
				break
			}
			buf = append(buf[:0], rest...)
			if !p.forward(unit, dst, back, dir, cut) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// nextUnit splits the first unit off b.
func nextUnit(b []byte) (unit, rest []byte, ok bool) {
	if len(b) == 0 {
		return nil, b, false
	}
	if b[0] != '$' && b[0] != '%' {
		return []byte{b[0]}, b[1:], true
	}
	i := strings.IndexByte(string(b), '#')
	if i < 0 || i+2 >= len(b) {
		return nil, b, false
	}
	u := append([]byte(nil), b[:i+3]...)
	return u, b[i+3:], true
}

func (p *Proxy) forward(unit []byte, dst, back io.Writer, dir Dir, cut func()) bool {
	write := func(b []byte) bool { _, err := dst.Write(b); return err == nil }
	if len(unit) == 1 && unit[0] == '+' && dir == ToServer {
		p.mu.Lock()
		own := p.ownAcks > 0
		if own {
			p.ownAcks--
		}
		p.mu.Unlock()
		if own {
			return true // the ack of an Answer reply
		}
	}
	if len(unit) == 1 {
		if !write(unit) {
			return false
		}
		if unit[0] == 0x03 && dir == ToServer {
			p.mu.Lock()
			select {
			case <-p.intr:
			default:
				close(p.intr)
			}
			p.mu.Unlock()
		}
		return true
	}
	payload := string(unit[1 : len(unit)-3])
	if dir == ToServer && payload == "QStartNoAckMode" {
		p.mu.Lock()
		p.noAck = true
		p.mu.Unlock()
	}
	r := p.match(dir, payload)
	if r == nil {
		return write(unit)
	}
	switch r.Action {
	case Delay:
		time.Sleep(r.Delay)
		return write(unit)
	case Drop:
		return true
	case Duplicate:
		return write(unit) && write(unit)
	case Truncate:
		return write(unit[:len(unit)/2])
	case Garble:
		g := append([]byte(nil), unit...)
		if len(g) > 4 {
			g[1] ^= 0x01 // the checksum no longer matches
		}
		return write(g)
	case Cut:
		cut()
		return false
	case Answer:
		p.mu.Lock()
		ack := !p.noAck
		if ack {
			p.ownAcks++
		}
		p.mu.Unlock()
		reply := rsp.AppendFrame(nil, []byte(r.Reply))
		if ack {
			reply = append([]byte("+"), reply...)
		}
		_, err := back.Write(reply)
		return err == nil
	case HoldForInterrupt:
		p.mu.Lock()
		intr := p.intr
		p.mu.Unlock()
		wait := r.Delay
		if wait == 0 {
			wait = 30 * time.Second
		}
		select {
		case <-intr: // the 0x03 is ahead of anything the client sends next
		case <-time.After(wait):
		}
		return write(unit)
	}
	return write(unit)
}
