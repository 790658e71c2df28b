package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// ForwardFunc sends one request packet (payload only) to the backend over
// the session's RSP connection and returns the reply payload as the backend
// framed it, run-length decoded but with its binary "}" escapes intact —
// what rsp.Client.Exchange returns. "" means unsupported, "Exx" an error;
// a Go error is answered E01.
//
// The relay calls it only with well-formed read requests: m, g, p, Hg, T,
// qfThreadInfo, qsThreadInfo, qC and qXfer:{features,auxv,exec-file,
// libraries-svr4}:read, and qXfer:siginfo:read where Config.Siginfo says
// so. Hg changes the backend's selected thread: route it
// through the client's thread selection (see ClientForward) so the
// client's own idea of the selected thread stays true.
//
// It runs on the relay's connection goroutine, one request at a time, and
// only while GDB is serving a command (its start-up, an Evaluate). It must
// never run concurrently with the session's own use of the client: either
// the session holds its lock across the whole GDB call (GDB's requests then
// happen inside it, ordered by the pipe and socket hand-offs), or forward
// takes a lock the session does not hold while it waits for GDB.
type ForwardFunc func(ctx context.Context, packet string) (string, error)

// Config configures a relay.
type Config struct {
	// Forward is required.
	Forward ForwardFunc
	// Stop returns the current stop reply (for "?"), e.g.
	// "T05thread:p1234.1234;". nil or "" answers "S05". Fields GDB would
	// need a negotiated feature for (swbreak:, watch:, replaylog:…) are
	// dropped.
	Stop func() string
	// Multiprocess says the backend connection negotiated multiprocess+
	// (thread ids p<pid>.<tid>); GDB is then offered it too, so the ids in
	// forwarded replies and requests agree.
	Multiprocess bool
	// Siginfo offers GDB qXfer:siginfo:read ($_siginfo), forwarded: for a
	// gdbserver backend only, as rr starts a diversion on it.
	Siginfo bool
	// Timeout bounds each forwarded request; 0 means 30 s.
	Timeout time.Duration
}

// Stats counts what the relay did.
type Stats struct {
	Forwarded   int64  // requests sent to the backend
	Refused     int64  // resumes, writes, breakpoints, detach, kill, monitor
	LastRefused string // the last refused packet (truncated to 64 bytes)
}

// Relay is a loopback RSP server. Its methods are safe for concurrent use.
type Relay struct {
	cfg    Config
	ln     net.Listener
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	forwarded atomic.Int64
	refused   atomic.Int64

	mu          sync.Mutex
	conn        net.Conn // the connection being served, if any
	lastRefused string
	closed      bool
}

// New listens on 127.0.0.1:0 and serves one GDB connection at a time until
// Close.
func New(cfg Config) (*Relay, error) {
	if cfg.Forward == nil {
		return nil, errors.New("relay: Config.Forward is nil")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relay: listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Relay{cfg: cfg, ln: ln, ctx: ctx, cancel: cancel}
	r.wg.Add(1)
	go r.acceptLoop()
	return r, nil
}

// Addr returns the "127.0.0.1:PORT" GDB should connect to.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Stats returns the counters so far.
func (r *Relay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Forwarded: r.forwarded.Load(), Refused: r.refused.Load(), LastRefused: r.lastRefused}
}

// Close stops listening, closes the connection being served (an in-flight
// forward sees its context cancelled) and waits for the goroutines.
func (r *Relay) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	c := r.conn
	r.mu.Unlock()
	r.cancel()
	err := r.ln.Close()
	if c != nil {
		c.Close()
	}
	r.wg.Wait()
	return err
}

func (r *Relay) acceptLoop() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			c.Close()
			return
		}
		r.conn = c
		r.mu.Unlock()
		r.serve(c)
		r.mu.Lock()
		r.conn = nil
		r.mu.Unlock()
		c.Close()
	}
}

// serve handles one connection until EOF, k, or an error.
func (r *Relay) serve(c io.ReadWriter) error {
	s := session{r: r, w: c, ack: true}
	rd := rsp.NewRequestReader(c, maxRequest)
	for {
		req, err := rd.Next()
		if err != nil {
			return err
		}
		switch req.Kind {
		case rsp.RequestNak:
			if s.ack && s.last != nil {
				if _, err := s.w.Write(s.last); err != nil {
					return err
				}
			}
			continue
		case rsp.RequestAck, rsp.RequestInterrupt: // acks need no answer; the target never runs
			continue
		}
		if s.ack {
			ack := []byte{'+'}
			if !req.ChecksumOK {
				ack[0] = '-'
			}
			if _, err := s.w.Write(ack); err != nil {
				return err
			}
		}
		if !req.ChecksumOK {
			continue
		}
		done, err := s.handle(string(req.Payload))
		if err != nil || done {
			return err
		}
	}
}

// session is the state of one GDB connection.
type session struct {
	r    *Relay
	w    io.Writer
	ack  bool
	last []byte // the last reply frame, resent on '-'
	hg   string // the thread GDB last selected with Hg
	// tdesc holds the target-description files read so far, by annex;
	// only target.xml and files they include may be requested (rr dies
	// on an annex target.xml does not reference).
	tdesc map[string][]byte
}

// forward sends a read to the backend. GDB skips Hg when it believes the
// server still has the thread it selected last, but the session moves the
// server's selection in between; so every register read is preceded by
// GDB's own Hg again.
func (s *session) forward(pkt string) string {
	if anyThread(pkt) && s.r.cfg.Stop != nil {
		// "Hg0", any thread: GDB asks it before it knows the threads
		// and files the registers it then reads under the stop's
		// thread, so the server must pick that one (gdbserver would
		// pick the first thread: another thread's registers, and a
		// frame that has none of the stop's variables, until the
		// cache was refilled).
		if t := stopThread(s.r.cfg.Stop()); t != "" {
			pkt = "Hg" + t
		}
	}
	if s.hg != "" && (pkt == "g" || pkt[0] == 'p') {
		if r := s.r.forward("Hg" + s.hg); r != "OK" {
			return errReply
		}
	}
	annex, isTdesc := featureAnnex(pkt)
	if isTdesc && !s.tdescKnown(annex) {
		return errReply
	}
	reply := s.r.forward(pkt)
	if tid, ok := strings.CutPrefix(pkt, "Hg"); ok && reply == "OK" {
		s.hg = tid
	}
	if isTdesc && reply != "" && (reply[0] == 'm' || reply[0] == 'l') {
		s.tdesc[annex] = append(s.tdesc[annex], reply[1:]...)
	}
	return reply
}

// tdescKnown reports whether annex is target.xml or included by a
// target-description file read before.
func (s *session) tdescKnown(annex string) bool {
	if s.tdesc == nil {
		s.tdesc = map[string][]byte{}
	}
	if annex == "target.xml" {
		return true
	}
	for _, doc := range s.tdesc {
		if includes(doc, annex) {
			return true
		}
	}
	return false
}

// featureAnnex returns the annex of a qXfer:features:read request.
func featureAnnex(pkt string) (string, bool) {
	rest, ok := strings.CutPrefix(pkt, "qXfer:features:read:")
	if !ok {
		return "", false
	}
	annex, _, _ := strings.Cut(rest, ":")
	return annex, true
}

// includes reports whether an XML document has <xi:include href="annex"/>.
func includes(doc []byte, annex string) bool {
	d := string(doc)
	for {
		i := strings.Index(d, "href=")
		if i < 0 {
			return false
		}
		d = d[i+len("href="):]
		if len(d) == 0 || (d[0] != '"' && d[0] != '\'') {
			continue
		}
		q := d[0]
		end := strings.IndexByte(d[1:], q)
		if end < 0 {
			return false
		}
		if d[1:1+end] == annex {
			return true
		}
		d = d[1+end:]
	}
}

// handle answers one request; done means close the connection.
func (s *session) handle(pkt string) (done bool, err error) {
	act, reply := classify(pkt, offer{multiprocess: s.r.cfg.Multiprocess, siginfo: s.r.cfg.Siginfo})
	switch act {
	case actClose:
		return true, nil
	case actStop:
		reply = "S05"
		if s.r.cfg.Stop != nil {
			reply = sanitizeStop(s.r.cfg.Stop())
		}
	case actRefuse:
		s.r.refuse(pkt)
	case actForward:
		reply = s.forward(pkt)
	}
	err = s.reply(reply)
	if act == actNoAck {
		s.ack = false
	}
	return false, err
}

func (s *session) reply(payload string) error {
	s.last = rsp.AppendFrame(s.last[:0], frameSafe(payload))
	_, err := s.w.Write(s.last)
	return err
}

func (r *Relay) refuse(pkt string) {
	r.refused.Add(1)
	if len(pkt) > 64 {
		pkt = pkt[:64]
	}
	r.mu.Lock()
	r.lastRefused = pkt
	r.mu.Unlock()
}

// forward sends pkt to the backend; a failure becomes E01 for GDB.
func (r *Relay) forward(pkt string) string {
	r.forwarded.Add(1)
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.Timeout)
	defer cancel()
	reply, err := r.cfg.Forward(ctx, pkt)
	if err != nil {
		return errReply
	}
	return reply
}
