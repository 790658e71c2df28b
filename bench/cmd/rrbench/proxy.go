package main

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
)

// countingProxy sits between a front end and gdbserver (profile runs only)
// and counts the RSP packets the front end sends: every '$' in the
// client-to-server stream starts one (payload '$' bytes are escaped).
type countingProxy struct {
	ln     net.Listener
	target string
	sent   atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func newProxy(target string) (*countingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

func (p *countingProxy) addr() string   { return p.ln.Addr().String() }
func (p *countingProxy) packets() int64 { return p.sent.Load() }

func (p *countingProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		for _, x := range []net.Conn{c, s} {
			if tc, ok := x.(*net.TCPConn); ok {
				tc.SetNoDelay(true)
			}
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(s, c, true)
		go p.pipe(c, s, false)
	}
}

func (p *countingProxy) pipe(dst, src net.Conn, count bool) {
	defer p.wg.Done()
	defer dst.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if count {
				p.sent.Add(int64(bytes.Count(buf[:n], []byte{'$'})))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or closed: the other direction ends with dst.Close
		}
	}
}

func (p *countingProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// packetCounter accumulates the packets of the proxies a driver used (one
// per target it started); nil counts nothing.
type packetCounter struct {
	done int64
	px   *countingProxy
}

// through starts a proxy to target and returns the address to connect to.
func (pc *packetCounter) through(target string) (string, error) {
	pc.stop()
	px, err := newProxy(target)
	if err != nil {
		return "", err
	}
	pc.px = px
	return px.addr(), nil
}

func (pc *packetCounter) stop() {
	if pc.px != nil {
		pc.done += pc.px.packets()
		pc.px.close()
		pc.px = nil
	}
}

// packets returns the total so far, or -1 when pc is nil (not counting).
func (pc *packetCounter) packets() int64 {
	if pc == nil {
		return -1
	}
	n := pc.done
	if pc.px != nil {
		n += pc.px.packets()
	}
	return n
}
