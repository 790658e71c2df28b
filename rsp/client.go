package rsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Options configure a Client. The zero value is usable.
type Options struct {
	// Dialect selects server-specific rules; DialectAuto detects it from
	// the qSupported reply.
	Dialect Dialect
	// RRVersion is rr's version ("5.6.0", or the "rr version 5.9.0" line
	// of `rr --version`). It picks the qRRCmd format (>= 5.8 new style).
	// If empty the client probes once with a harmless new-style request.
	RRVersion string
	// PacketLog, if set, receives one line per packet: timestamp,
	// direction ("->" sent, "<-" received, "<%" notification) and payload.
	PacketLog io.Writer
	// PacketRing, if set, keeps the last packets, formatted only when
	// read: a log that costs little enough to keep on always.
	PacketRing *PacketRing
	// Logger, if set, receives the same packet log at debug level plus
	// warnings. Nil discards.
	Logger *slog.Logger
	// Console receives the decoded text of "O" console-output packets.
	Console io.Writer
	// KeepAckMode keeps acknowledgements on even if the server offers
	// QStartNoAckMode (useful to test the ack path).
	KeepAckMode bool
	// Features are extra qSupported features to announce, e.g. "vContSupported+".
	Features []string
	// NoStepOver disables the step-over-breakpoint dance on forward resumes
	// (remove the breakpoint at the stopped pc, single-step, re-insert).
	NoStepOver bool
	// InterruptTimeout bounds how long a cancelled resume waits for the stop
	// reply after sending 0x03 before the connection is declared dead.
	// Default 10s.
	InterruptTimeout time.Duration
}

// Client speaks the GDB Remote Serial Protocol to one server.
//
// A Client is not safe for concurrent use: calls must be serialised by the
// caller. The one exception is Interrupt, which may be called from any
// goroutine, typically while another goroutine is blocked in Continue.
type Client struct {
	conn *conn
	opts Options
	log  *slog.Logger

	features     map[string]string
	packetSize   int
	multiprocess bool
	noAck        bool
	vcont        map[string]bool // actions from vCont?; nil = no vCont
	tdesc        *TargetDesc
	pcReg        string
	spReg        string
	g            guard

	// unfinished: steps over breakpoints a signal interrupted, to finish
	// when their thread returns from the handler (stepover.go).
	unfinished []unfinishedStep

	// moribund maps the addresses of breakpoints removed recently to the
	// stop event count at their removal (moribund.go).
	moribund        map[uint64]int
	stopEvents      int // stops Continue has looked at for moribund hits
	moribundDropped int
	threadsSeen     int                 // most threads a thread list has shown
	stopThreads     map[Thread]struct{} // threads stop replies named (bounded)

	pending      int           // replies still owed to requests abandoned on cancellation
	owedSince    time.Time     // the first wait for the owed replies (boundOwed); zero when none are owed
	deferred     *deferredRead // a Prefetch whose replies are owed (its requests count in pending)
	interrupted  atomic.Bool   // 0x03 sent since the last sync
	sigintOwed   bool          // an interrupt raced a stop: a SIGINT may be pending in the program (interrupt.go)
	interrupts   atomic.Int32  // 0x03 bytes sent during the current resume
	running      atomic.Bool
	rrCmdProbed  bool
	pUnsupported bool
	xOK          int // X writes: 0 unknown, 1 works, -1 unsupported

	pid      int64
	hg       Thread // thread selected with Hg, valid if hgValid
	hgValid  bool
	lastStop Stop
	regs     map[Thread][]byte // g cache, dropped on resume and writes
	// regsWritten: a register was written (P, G) since the last stop,
	// which may have changed the flags the resume flag lives in
	// (stepover.go's resumeFlagPasses).
	regsWritten bool
	// x86: the target is i386 or x86-64 (its debug registers' resume flag).
	x86     bool
	bps     map[Breakpoint]bool
	bpOrder []Breakpoint
	// owed are breakpoints of the table that a step over took out of the
	// server and the next resume puts back, in the same write as the
	// resume (stepover.go).
	owed []Breakpoint
	// doomed are breakpoints taken out of the table (RemoveBreakpointLater)
	// that are still in the server: the next resume takes them out, in
	// the same write as the resume.
	doomed []Breakpoint
	// fresh are the owed breakpoints that InsertBreakpointLater added and
	// the server has not had yet (for the error message).
	fresh []Breakpoint
}

// Dial connects to addr and performs the handshake: "host:port" over TCP,
// or an absolute path, a Unix-domain socket (as GDB's target remote takes
// them; qemu-i386 -g SOCKET). It does not retry; callers that race a
// server's startup retry themselves.
func Dial(ctx context.Context, addr string, opts Options) (*Client, error) {
	var d net.Dialer
	network := "tcp"
	if strings.HasPrefix(addr, "/") {
		network = "unix"
	}
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("rsp: dial %s: %w", addr, err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true) //nolint:errcheck
	}
	c, err := NewClient(ctx, nc, opts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// NewClient performs the handshake over rwc and returns a Client that owns
// rwc (Close closes it). Read deadlines are used for context cancellation
// when rwc implements SetReadDeadline (net.Conn, *os.File); otherwise a
// cancelled short request closes the connection.
//
// Handshake: qSupported (features, PacketSize), QStartNoAckMode when offered,
// vCont?, ? (the initial stop, which gdbserver requires before the target
// description), then qXfer:features:read of target.xml and its includes.
func NewClient(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (*Client, error) {
	if opts.InterruptTimeout == 0 {
		opts.InterruptTimeout = 10 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		conn:       newConn(rwc, newPacketLog(opts.PacketLog, opts.PacketRing, opts.Logger)),
		opts:       opts,
		log:        logger,
		packetSize: 1024,
		regs:       map[Thread][]byte{},
		bps:        map[Breakpoint]bool{},
	}
	if err := c.handshake(ctx); err != nil {
		c.conn.close()
		return nil, fmt.Errorf("rsp: handshake: %w", err)
	}
	return c, nil
}

func (c *Client) handshake(ctx context.Context) error {
	feats := []string{"multiprocess+", "swbreak+", "hwbreak+"}
	feats = append(feats, c.opts.Features...)
	feats = append(feats, "xmlRegisters=i386")
	reply, err := c.query(ctx, "qSupported:"+strings.Join(feats, ";"))
	if err != nil {
		return err
	}
	c.features = parseFeatures(reply)
	c.packetSize = parsePacketSize(c.features["PacketSize"])
	c.multiprocess = c.features["multiprocess"] == "+"
	d := c.opts.Dialect
	if d == DialectAuto {
		d = detectDialect(c.features)
	}
	c.g = guard{dialect: d, features: c.features, annexes: map[string]bool{}, bpKind: 1}
	if d == DialectRR && c.opts.RRVersion != "" {
		v, ok := parseVersion(c.opts.RRVersion)
		if !ok {
			return fmt.Errorf("bad rr version %q", c.opts.RRVersion)
		}
		c.g.rrNewCmd = versionAtLeast(v, 5, 8)
		c.rrCmdProbed = true
	}
	if c.features["QStartNoAckMode"] == "+" && !c.opts.KeepAckMode {
		if err := c.cmd(ctx, "QStartNoAckMode"); err == nil {
			c.conn.ack = false
			c.noAck = true
		} else if !errors.Is(err, ErrUnsupported) {
			var e *Error
			if !errors.As(err, &e) {
				return err
			}
		}
	}
	if r, err := c.query(ctx, "vCont?"); err == nil {
		c.vcont = parseVContActions(r)
	} else if !isReplyErr(err) {
		return err
	}
	if _, err := c.StopReason(ctx); err != nil && !isReplyErr(err) {
		return err
	}
	if c.features["qXfer:features:read"] == "+" {
		td, err := ParseTargetDesc(func(annex string) ([]byte, error) {
			c.g.annexes[annex] = true
			return c.xferRead(ctx, "features", annex)
		})
		if err != nil {
			if !isReplyErr(err) {
				return err
			}
			c.log.Warn("rsp: no target description", "err", err)
		} else {
			c.setTarget(td)
		}
	}
	return nil
}

// isReplyErr reports whether err is a server answer (Exx or empty) rather
// than a transport problem, so the handshake can go on without that feature.
func isReplyErr(err error) bool {
	var e *Error
	return errors.As(err, &e) || errors.Is(err, ErrUnsupported)
}

func (c *Client) setTarget(td *TargetDesc) {
	c.tdesc = td
	for _, name := range []string{"rip", "eip", "pc"} {
		if _, ok := td.Lookup(name); ok {
			c.pcReg = name
			break
		}
	}
	for _, name := range []string{"rsp", "esp", "sp"} {
		if _, ok := td.Lookup(name); ok {
			c.spReg = name
			break
		}
	}
	if strings.Contains(td.Architecture, "aarch64") {
		c.g.bpKind = 4
	}
	c.x86 = strings.HasPrefix(td.Architecture, "i386")
}

func parseFeatures(reply string) map[string]string {
	f := map[string]string{}
	for _, item := range strings.Split(reply, ";") {
		if item == "" {
			continue
		}
		if k, v, ok := strings.Cut(item, "="); ok {
			f[k] = v
			continue
		}
		switch last := item[len(item)-1]; last {
		case '+', '-', '?':
			f[item[:len(item)-1]] = string(last)
		default:
			f[item] = "+"
		}
	}
	return f
}

// parsePacketSize reads PacketSize as hex (the spec; rr <= 5.9 sent a
// decimal-looking "1048576") and clamps it to [256, 1 MiB].
func parsePacketSize(s string) int {
	const lo, hi = 256, 1 << 20
	if s == "" {
		return 1024
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 1024
	}
	return int(min(max(v, lo), hi))
}

func parseVContActions(r string) map[string]bool {
	rest, ok := strings.CutPrefix(r, "vCont")
	if !ok {
		return nil
	}
	m := map[string]bool{}
	for _, a := range strings.Split(rest, ";") {
		if a != "" {
			m[a] = true
		}
	}
	return m
}

func versionAtLeast(v [3]int, major, minor int) bool {
	return v[0] > major || v[0] == major && v[1] >= minor
}

func parseVersion(s string) ([3]int, bool) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		s = s[i+1:]
	}
	var v [3]int
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 {
			return v, false
		}
		v[i], _ = strconv.Atoi(p[:end])
	}
	return v, len(parts) >= 2
}

// Features returns the qSupported reply as a map: "name" → "+", "-", "?"
// or the value of "name=value".
func (c *Client) Features() map[string]string {
	m := make(map[string]string, len(c.features))
	for k, v := range c.features {
		m[k] = v
	}
	return m
}

// Supports reports whether the server advertised feature name with "+".
func (c *Client) Supports(name string) bool { return c.features[name] == "+" }

// SupportsVCont reports whether the server's vCont? reply lists action
// ("c", "s", "r", "t", ...).
func (c *Client) SupportsVCont(action string) bool { return c.vcont[action] }

// PacketSize is the server's maximum packet size (clamped).
func (c *Client) PacketSize() int { return c.packetSize }

// Dialect is the dialect in use (after auto-detection).
func (c *Client) Dialect() Dialect { return c.g.dialect }

// NoAckMode reports whether QStartNoAckMode was negotiated.
func (c *Client) NoAckMode() bool { return c.noAck }

// Multiprocess reports whether thread ids use the p<pid>.<tid> form.
func (c *Client) Multiprocess() bool { return c.multiprocess }

// Target returns the target description, or nil if the server has none.
func (c *Client) Target() *TargetDesc { return c.tdesc }

// Pid is the debuggee's process id as last reported by the server (0 if
// unknown).
func (c *Client) Pid() int64 { return c.pid }

// LastStop returns the most recent stop reply.
func (c *Client) LastStop() Stop { return c.lastStop }

// Exited reports whether a W or X stop was seen (and not undone by Restart).
func (c *Client) Exited() bool { return c.g.exited }

// Dead returns why the connection is gone (an error matching ErrClosed),
// or nil while it works.
func (c *Client) Dead() error { return c.conn.deadErr() }

// Owed is how many replies to requests a time limit or a cancellation
// abandoned the server still owes (a Prefetch's, which the next request
// reads, are not counted): while any is, the server has not answered
// what it was asked.
func (c *Client) Owed() int {
	n := c.pending
	if c.deferred != nil {
		n -= len(c.deferred.pkts)
	}
	return max(n, 0)
}

// Close closes the connection. It does not detach or kill.
func (c *Client) Close() error {
	c.conn.fail(fmt.Errorf("%w: closed by client", ErrClosed))
	return nil
}

// ---- request machinery ----

var longAgo = time.Unix(1, 0)

type readDeadliner interface{ SetReadDeadline(time.Time) error }

// arm makes a cancelled ctx interrupt blocked reads: through a past read
// deadline when the stream supports it, else by closing the connection.
// The returned function disarms it and reports ctx's error if it fired.
func (c *Client) arm(ctx context.Context) func() {
	if ctx.Done() == nil {
		return func() {}
	}
	rd, ok := c.conn.rw.(readDeadliner)
	if !ok {
		stop := context.AfterFunc(ctx, func() {
			c.conn.fail(fmt.Errorf("%w: %v while waiting (stream has no deadlines)", ErrClosed, context.Cause(ctx)))
		})
		return func() { stop() }
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		rd.SetReadDeadline(longAgo) //nolint:errcheck
		close(done)
	})
	return func() {
		if !stop() {
			<-done
			rd.SetReadDeadline(time.Time{}) //nolint:errcheck
		}
	}
}

// wrap turns a deadline error caused by ctx into ctx's error.
func (c *Client) wrap(ctx context.Context, pkt string, err error) error {
	if isTimeout(err) || (ctx.Err() != nil && errors.Is(err, ErrClosed)) {
		if ctx.Err() != nil {
			return fmt.Errorf("rsp: %s: %w", short(pkt), context.Cause(ctx))
		}
	}
	var pe *ProtocolError
	if errors.As(err, &pe) && pe.Packet == "" {
		cp := *pe
		cp.Packet = short(pkt)
		return &cp
	}
	if errors.Is(err, ErrClosed) {
		return fmt.Errorf("rsp: %s: %w", short(pkt), err)
	}
	return err
}

// resync reads replies owed to abandoned requests and, after an interrupt,
// flushes a possible stray stop reply (rr-rsp.md §12.22) with a qC probe.
func (c *Client) resync() error {
	defer c.boundOwed()() // (a Prefetch's replies are owed too)
	if c.deferred != nil {
		if err := c.finishDeferred(); err != nil {
			return err
		}
	}
	for c.pending > 0 {
		p, err := c.conn.readPacket()
		if err != nil {
			return err
		}
		if !isConsole(p) { // output of an abandoned qRcmd precedes its reply
			c.pending--
		}
	}
	if !c.interrupted.Load() || c.running.Load() {
		return nil
	}
	c.interrupted.Store(false)
	c.pending++
	if err := c.conn.writePacket([]byte("qC")); err != nil {
		return err
	}
	for {
		p, err := c.conn.readPacket()
		if err != nil {
			return err
		}
		if isStopReply(p) || isConsole(p) {
			c.log.Debug("rsp: discarded stray reply after interrupt", "packet", printable(p))
			continue
		}
		c.pending--
		return nil
	}
}

// exchange sends pkt and returns the raw reply payload (RLE-decoded,
// escapes intact). It does not look at the reply.
func (c *Client) exchange(ctx context.Context, pkt string) ([]byte, error) {
	return c.exchangeConsole(ctx, pkt, nil)
}

// exchangeConsole is exchange for requests whose reply may be preceded by
// "O" console-output packets (qRcmd); each is passed to out.
func (c *Client) exchangeConsole(ctx context.Context, pkt string, out func([]byte)) ([]byte, error) {
	rs, err := c.exchangeBatch(ctx, []string{pkt}, out)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// exchangeBatch sends pkts, all in one write (in no-ack mode only, or one
// packet), and returns their replies in order. Console output ("O"
// packets) before a reply goes to out when out is not nil; a stop reply
// for a request that expects none is stray and dropped.
func (c *Client) exchangeBatch(ctx context.Context, pkts []string, out func([]byte)) ([][]byte, error) {
	first := pkts[0]
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rsp: %s: %w", short(first), err)
	}
	if err := c.conn.deadErr(); err != nil {
		return nil, fmt.Errorf("rsp: %s: %w", short(first), err)
	}
	for _, pkt := range pkts {
		if err := c.g.check(pkt); err != nil {
			return nil, err
		}
		if len(pkts) > 1 && expectsStop(pkt) {
			return nil, fmt.Errorf("rsp: %s: a request that resumes or stops cannot be batched", short(pkt))
		}
	}
	disarm := c.arm(ctx)
	defer disarm()
	if err := c.resync(); err != nil {
		return nil, c.wrap(ctx, first, err)
	}
	c.pending += len(pkts)
	var err error
	if len(pkts) == 1 {
		err = c.conn.writePacket([]byte(first))
	} else {
		err = c.conn.writePackets(pkts)
	}
	if err != nil {
		return nil, c.wrap(ctx, first, err)
	}
	replies, failed, err := c.readReplies(pkts, out)
	if err != nil {
		return nil, c.wrap(ctx, failed, err)
	}
	return replies, nil
}

// readReplies reads the reply to each of pkts, sent, in order. Console
// output ("O" packets) before a reply goes to out when out is not nil; a
// stop reply for a request that expects none is stray and dropped. On a
// failure it returns the request whose reply it was reading.
func (c *Client) readReplies(pkts []string, out func([]byte)) (replies [][]byte, failed string, err error) {
	replies = make([][]byte, 0, len(pkts))
	for _, pkt := range pkts {
		for {
			p, err := c.conn.readPacket()
			if err != nil {
				return nil, pkt, err
			}
			if out != nil && isConsole(p) {
				out(p)
				continue
			}
			if isStopReply(p) && !expectsStop(pkt) {
				c.log.Debug("rsp: discarded stray stop reply", "request", short(pkt), "packet", printable(p))
				continue
			}
			c.pending--
			replies = append(replies, p)
			break
		}
	}
	return replies, "", nil
}

// readReply reads the next reply, passing console output on.
func (c *Client) readReply() ([]byte, error) {
	for {
		p, err := c.conn.readPacket()
		if err != nil {
			return nil, err
		}
		if isConsole(p) {
			c.console(p)
			continue
		}
		return p, nil
	}
}

// exchangeAll sends pkts and returns their replies in order. In no-ack
// mode all are written at once, before any reply is read: the server
// answers requests in the order they came, so the batch costs one round
// trip. (gdbserver reads packets from its buffer one by one; rr keeps the
// bytes after a packet in its input buffer for the next request:
// src/GdbServerConnection.cc read_packet and process_packet's erase of
// the one packet, rr at 5c202cd8; QEMU's stub parses byte by byte.)
// With acks they go one after the other. None may resume the target.
func (c *Client) exchangeAll(ctx context.Context, pkts ...string) ([][]byte, error) {
	if !c.conn.ack {
		return c.exchangeBatch(ctx, pkts, nil)
	}
	out := make([][]byte, 0, len(pkts))
	for _, pkt := range pkts {
		r, err := c.exchange(ctx, pkt)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// replyError maps "" to ErrUnsupported and "Exx" to *Error.
func replyError(pkt string, p []byte) error {
	if len(p) == 0 {
		return unsupported(pkt)
	}
	if len(p) == 3 && p[0] == 'E' && isHex(p[1]) && isHex(p[2]) {
		return &Error{Packet: short(pkt), Code: int(unhex(p[1])<<4 | unhex(p[2]))}
	}
	if len(p) > 2 && p[0] == 'E' && p[1] == '.' {
		return &Error{Packet: short(pkt), Code: -1, Text: string(p[2:])}
	}
	return nil
}

// query sends pkt and returns a non-empty, non-error reply.
func (c *Client) query(ctx context.Context, pkt string) (string, error) {
	p, err := c.exchange(ctx, pkt)
	if err != nil {
		return "", err
	}
	if err := replyError(pkt, p); err != nil {
		return "", err
	}
	return string(p), nil
}

// cmd sends pkt and expects "OK".
func (c *Client) cmd(ctx context.Context, pkt string) error {
	p, err := c.exchange(ctx, pkt)
	if err != nil {
		return err
	}
	return okReply(pkt, p)
}

// okReply is the error of reply p to pkt, a request answered "OK": an
// *Error for an error reply, a *ProtocolError for anything else but OK.
func okReply(pkt string, p []byte) error {
	if err := replyError(pkt, p); err != nil {
		return err
	}
	if string(p) != "OK" {
		return &ProtocolError{Packet: short(pkt), Data: strconv.Quote(short(string(p))), Msg: "expected OK"}
	}
	return nil
}

func isConsole(p []byte) bool {
	return len(p) >= 1 && p[0] == 'O' && string(p) != "OK" && isHexString(string(p[1:]))
}

func (c *Client) console(p []byte) {
	if c.opts.Console != nil {
		c.opts.Console.Write(consoleText(p)) //nolint:errcheck
	}
}

// consoleText is the text of an "O" console-output packet.
func consoleText(p []byte) []byte {
	b, _ := decodeHexUnavail(string(p[1:]))
	return b
}

// Exchange sends a raw request payload and returns the raw reply (RLE
// decoded, binary escapes intact; "" and "Exx" are returned as they are,
// not as errors). It is meant for research and protocol exploration.
//
// The dialect's refusals still apply. Requests that resume or restart the
// target (vCont, c, s, C, S, bc, bs, vRun, vAttach, k) are refused unless
// allowResume is true; if allowed they go through the same path as
// Continue (cancellation interrupts, the stop is recorded). Z/z go through
// the client's breakpoint table, so the table stays consistent. Console
// output ("O" packets, a monitor command's text) before the reply goes to
// Options.Console, as during a resume; ExchangeOutput returns it.
func (c *Client) Exchange(ctx context.Context, payload string, allowResume bool) (string, error) {
	reply, out, err := c.ExchangeOutput(ctx, payload, allowResume)
	if len(out) > 0 && c.opts.Console != nil {
		c.opts.Console.Write(out) //nolint:errcheck
	}
	return reply, err
}

// ExchangeOutput is Exchange that returns the console output the server
// sent before the reply (decoded): what qRcmd's monitor command printed,
// in O packets, before its OK. Every packet of the answer is read, so the
// next request reads its own reply.
func (c *Client) ExchangeOutput(ctx context.Context, payload string, allowResume bool) (reply string, output []byte, err error) {
	reply, err = c.exchangeRaw(ctx, payload, allowResume, func(p []byte) { output = append(output, consoleText(p)...) })
	return reply, output, err
}

func (c *Client) exchangeRaw(ctx context.Context, payload string, allowResume bool, out func([]byte)) (string, error) {
	if isResume(payload) {
		if !allowResume {
			return "", refused(payload, "resume requests need allowResume")
		}
		if payload == "k" {
			return "", c.Kill(ctx)
		}
		st, raw, err := c.resume(ctx, payload, directionOf(payload), false)
		if raw == "" && err == nil {
			raw = st.Raw
		}
		return raw, err
	}
	if len(payload) > 0 && (payload[0] == 'Z' || payload[0] == 'z') {
		if typ, addr, kind, ok := parseZ(payload); ok {
			bp := Breakpoint{Type: BreakpointType(typ), Addr: addr, Kind: kind}
			if payload[0] == 'z' && !c.bps[bp] {
				return "", refused(payload, "z for a breakpoint that was never inserted")
			}
			if c.dropOwed(bp) {
				// A step over took it out of the server already: a z has
				// nothing to remove, a Z puts it back now.
				if payload[0] == 'z' {
					c.delBP(bp)
					return "OK", nil
				}
			}
			p, err := c.exchangeConsole(ctx, payload, out)
			if err == nil && string(p) == "OK" {
				if payload[0] == 'Z' {
					c.addBP(bp)
				} else {
					c.delBP(bp)
				}
			}
			return string(p), err
		}
	}
	p, err := c.exchangeConsole(ctx, payload, out)
	if err != nil {
		return "", err
	}
	switch {
	case payload == "?":
		c.noteStop(p)
	case strings.HasPrefix(payload, "Hg"):
		c.hgValid = false // the server's general thread is now unknown to us
	case strings.HasPrefix(payload, "qRRCmd:") && !rrCmdReadOnly(payload):
		c.invalidate()
	case payload != "" && (payload[0] == 'P' || payload[0] == 'G' || payload[0] == 'M' || payload[0] == 'X'):
		c.regs = map[Thread][]byte{}
		c.regsWritten = c.regsWritten || payload[0] == 'P' || payload[0] == 'G'
	}
	return string(p), nil
}

// invalidate drops what the client caches about the stopped target.
func (c *Client) invalidate() {
	c.regs = map[Thread][]byte{}
	c.hgValid = false
}

func directionOf(pkt string) Direction {
	if pkt == "bc" || pkt == "bs" {
		return Reverse
	}
	return Forward
}

// Interrupt sends the 0x03 interrupt byte. It is safe to call from any
// goroutine, and is how a running Continue is stopped from outside; the
// blocked call then returns the stop the server reports (T02 on
// gdbserver/QEMU, T00 on rr). Cancelling the resume's context does the same.
func (c *Client) Interrupt() error {
	c.interrupted.Store(true)
	c.interrupts.Add(1)
	if err := c.conn.interrupt(); err != nil {
		return fmt.Errorf("rsp: interrupt: %w", err)
	}
	return nil
}
