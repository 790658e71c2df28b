package rsp

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ---- threads ----

// selectThread sends Hg/Hc unless the server already has that thread.
func (c *Client) selectThread(ctx context.Context, op byte, t Thread) error {
	if op == 'g' && c.hgValid && c.hg == t {
		return nil
	}
	if err := c.cmd(ctx, "H"+string(op)+c.encThread(t)); err != nil {
		if op == 'g' {
			c.hgValid = false
		}
		return err
	}
	if op == 'g' {
		c.hg, c.hgValid = t, true
	}
	return nil
}

// SelectThread sends Hg (op 'g', for register/memory access) or Hc (op 'c',
// for resumes) for t.
func (c *Client) SelectThread(ctx context.Context, op byte, t Thread) error {
	if op != 'g' && op != 'c' {
		return fmt.Errorf("rsp: select thread: op must be 'g' or 'c', not %q", op)
	}
	if op == 'g' {
		c.hgValid = false
	}
	return c.selectThread(ctx, op, t)
}

// Threads lists the debuggee's threads (qfThreadInfo/qsThreadInfo).
func (c *Client) Threads(ctx context.Context) ([]Thread, error) {
	var out []Thread
	pkt := "qfThreadInfo"
	for range 100000 {
		r, err := c.query(ctx, pkt)
		if err != nil {
			return nil, fmt.Errorf("threads: %w", err)
		}
		if r == "l" {
			c.threadsSeen = max(c.threadsSeen, len(out))
			return out, nil
		}
		rest, ok := strings.CutPrefix(r, "m")
		if !ok {
			return nil, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(r)), Msg: "bad thread list"}
		}
		for _, s := range strings.Split(rest, ",") {
			t, err := ParseThread(s)
			if err != nil {
				return nil, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(r)), Msg: err.Error()}
			}
			out = append(out, t)
		}
		pkt = "qsThreadInfo"
	}
	return nil, &ProtocolError{Packet: pkt, Msg: "thread list never ends"}
}

// CurrentThread asks the server for the current thread (qC).
func (c *Client) CurrentThread(ctx context.Context) (Thread, error) {
	r, err := c.query(ctx, "qC")
	if err != nil {
		return Thread{}, err
	}
	rest, ok := strings.CutPrefix(r, "QC")
	if !ok {
		return Thread{}, &ProtocolError{Packet: "qC", Data: strconv.Quote(short(r)), Msg: "expected QC"}
	}
	return ParseThread(rest)
}

// ---- registers ----

func (c *Client) defThread(t Thread) Thread {
	if t == (Thread{}) {
		return c.lastStop.Thread
	}
	return t
}

// ReadRegisters returns all registers of thread t (AnyThread: the thread
// that last stopped) as the raw g payload: registers in target-description
// order at TargetDesc offsets, little-endian; unavailable bytes are zero.
// The result is cached until the next resume or register write, so reading
// many registers costs one g.
func (c *Client) ReadRegisters(ctx context.Context, t Thread) ([]byte, error) {
	if err := c.settleDeferred(ctx); err != nil {
		return nil, fmt.Errorf("read registers: %w", err)
	}
	t = c.defThread(t)
	if g, ok := c.regs[t]; ok {
		return bytes.Clone(g), nil
	}
	if t != (Thread{}) {
		if err := c.selectThread(ctx, 'g', t); err != nil {
			return nil, fmt.Errorf("read registers: %w", err)
		}
	}
	r, err := c.exchange(ctx, "g")
	if err != nil {
		return nil, fmt.Errorf("read registers: %w", err)
	}
	return c.keepRegs(t, r)
}

// keepRegs decodes r, the reply to g for thread t, caches it and returns
// a copy.
func (c *Client) keepRegs(t Thread, r []byte) ([]byte, error) {
	if err := replyError("g", r); err != nil {
		return nil, fmt.Errorf("read registers: %w", err)
	}
	g, err := decodeHexUnavail(string(r))
	if err != nil {
		return nil, &ProtocolError{Packet: "g", Data: strconv.Quote(short(string(r))), Msg: err.Error()}
	}
	c.regs[t] = g
	return bytes.Clone(g), nil
}

// ReadRegister returns register regnum of thread t. With a target
// description it slices the (cached) g reply; without one, or for a
// register outside g, it sends p.
func (c *Client) ReadRegister(ctx context.Context, t Thread, regnum int) ([]byte, error) {
	if r, ok := c.tdesc.ByRegnum(regnum); ok {
		g, err := c.ReadRegisters(ctx, t)
		if err == nil && r.Offset+r.Size() <= len(g) {
			return g[r.Offset : r.Offset+r.Size()], nil
		}
		if err != nil && c.pUnsupported {
			return nil, err
		}
	}
	if c.pUnsupported {
		return nil, fmt.Errorf("read register %d: %w", regnum, unsupported("p"))
	}
	t = c.defThread(t)
	if t != (Thread{}) {
		if err := c.selectThread(ctx, 'g', t); err != nil {
			return nil, fmt.Errorf("read register %d: %w", regnum, err)
		}
	}
	pkt := "p" + strconv.FormatInt(int64(regnum), 16)
	r, err := c.query(ctx, pkt)
	if errors.Is(err, ErrUnsupported) {
		c.pUnsupported = true
	}
	if err != nil {
		return nil, fmt.Errorf("read register %d: %w", regnum, err)
	}
	b, err := decodeHexUnavail(r)
	if err != nil {
		return nil, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(r)), Msg: err.Error()}
	}
	return b, nil
}

// ReadRegisterByName reads a register by its target-description name.
func (c *Client) ReadRegisterByName(ctx context.Context, t Thread, name string) ([]byte, error) {
	r, ok := c.tdesc.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("read register: no register named %q", name)
	}
	return c.ReadRegister(ctx, t, r.Regnum)
}

// ReadRegisterUint reads a register of at most 8 bytes as an integer.
func (c *Client) ReadRegisterUint(ctx context.Context, t Thread, name string) (uint64, error) {
	b, err := c.ReadRegisterByName(ctx, t, name)
	if err != nil {
		return 0, err
	}
	return leUint(b, name)
}

// WriteRegister writes register regnum of thread t (P, falling back to a
// read-modify-write with g/G when P is unsupported). rr only accepts
// register writes inside diversions.
func (c *Client) WriteRegister(ctx context.Context, t Thread, regnum int, val []byte) error {
	t = c.defThread(t)
	delete(c.regs, t)
	c.regsWritten = true
	if t != (Thread{}) {
		if err := c.selectThread(ctx, 'g', t); err != nil {
			return fmt.Errorf("write register %d: %w", regnum, err)
		}
	}
	// The stop reply's value of the register is stale from here on:
	// LastStop's readers (a stop's pc and stack pointer) read it instead.
	if t == c.lastStop.Thread {
		delete(c.lastStop.Registers, regnum)
	}
	err := c.cmd(ctx, "P"+strconv.FormatInt(int64(regnum), 16)+"="+hex.EncodeToString(val))
	if !errors.Is(err, ErrUnsupported) || c.g.dialect == DialectRR {
		if err != nil {
			return fmt.Errorf("write register %d: %w", regnum, err)
		}
		return nil
	}
	r, ok := c.tdesc.ByRegnum(regnum)
	if !ok || len(val) != r.Size() {
		return fmt.Errorf("write register %d: P unsupported and no matching register in target description", regnum)
	}
	g, err := c.ReadRegisters(ctx, t)
	if err != nil {
		return fmt.Errorf("write register %d: %w", regnum, err)
	}
	delete(c.regs, t)
	if r.Offset+r.Size() > len(g) {
		return fmt.Errorf("write register %d: g reply of %d bytes has no room for it", regnum, len(g))
	}
	copy(g[r.Offset:], val)
	if err := c.cmd(ctx, "G"+hex.EncodeToString(g)); err != nil {
		return fmt.Errorf("write register %d: %w", regnum, err)
	}
	return nil
}

// ---- memory ----

// readChunk is the largest m request whose hex reply fits a packet.
func (c *Client) readChunk() int { return max((c.packetSize-32)/2, 16) }

// ReadMemory reads len(p) bytes at addr with m requests (x, binary, when
// the server advertises binary-upload+), split by packet size. Like
// io.ReaderAt it returns n < len(p) only with an error: *Error if the first
// byte is unreadable, io.ErrUnexpectedEOF (wrapped) for a short read.
func (c *Client) ReadMemory(ctx context.Context, addr uint64, p []byte) (int, error) {
	if c.features["binary-upload"] == "+" {
		n, err := c.readMemoryX(ctx, addr, p)
		if !errors.Is(err, ErrUnsupported) {
			return n, err
		}
		c.features["binary-upload"] = "-"
	}
	n := 0
	for n < len(p) {
		want := min(len(p)-n, c.readChunk())
		a := addr + uint64(n)
		pkt := memRequest(a, want)
		r, err := c.exchange(ctx, pkt)
		if err != nil {
			return n, fmt.Errorf("read memory %#x: %w", a, err)
		}
		m, err := decodeMemReply(pkt, r, a, p[n:n+want])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// memRequest is the m request for n bytes at addr.
func memRequest(addr uint64, n int) string {
	return "m" + strconv.FormatUint(addr, 16) + "," + strconv.FormatInt(int64(n), 16)
}

// decodeMemReply decodes the reply r to the m request pkt for len(p)
// bytes at addr into p: an error reply, bad hex or a short read is an
// error (with the bytes that came counted in n).
func decodeMemReply(pkt string, r []byte, addr uint64, p []byte) (n int, err error) {
	if err := replyError(pkt, r); err != nil {
		return 0, fmt.Errorf("read memory %#x: %w", addr, err)
	}
	if len(r)%2 != 0 || len(r)/2 > len(p) {
		return 0, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(string(r))), Msg: "bad memory reply"}
	}
	n, err = hex.Decode(p, r)
	if err != nil {
		return 0, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(string(r))), Msg: "bad memory reply"}
	}
	if n < len(p) {
		return n, fmt.Errorf("read memory %#x: short read of %d/%d bytes: %w", addr, n, len(p), io.ErrUnexpectedEOF)
	}
	return n, nil
}

// MemRead is one read of a ReadRegistersMemory batch: len(P) bytes at
// Addr into P. N and Err are its outcome: the bytes read, and the read's
// own failure (as ReadMemory returns them).
type MemRead struct {
	Addr uint64
	P    []byte
	N    int
	Err  error
}

// ReadRegistersMemory returns the registers of thread t (as ReadRegisters)
// and does the reads (as ReadMemory, each filling its N and Err) in one
// round trip where the connection allows it (no-ack mode: the requests go
// out together): what a debugger wants at a stop, the registers, the top
// of the stack and what it read there the last time. err is the
// registers' failure; a read's own failure leaves the registers good.
func (c *Client) ReadRegistersMemory(ctx context.Context, t Thread, reads []MemRead) (g []byte, err error) {
	if err := c.settleDeferred(ctx); err != nil {
		return nil, fmt.Errorf("read registers: %w", err)
	}
	t = c.defThread(t)
	if !c.batchable(t, reads) {
		if g, err = c.ReadRegisters(ctx, t); err != nil {
			return nil, err
		}
		for i := range reads {
			reads[i].N, reads[i].Err = c.ReadMemory(ctx, reads[i].Addr, reads[i].P)
		}
		return g, nil
	}
	var pkts []string
	if t != (Thread{}) && !(c.hgValid && c.hg == t) {
		pkts = append(pkts, "Hg"+c.encThread(t))
	}
	pkts = append(pkts, regsMemRequests(reads)...)
	rs, err := c.exchangeAll(ctx, pkts...)
	if err != nil {
		c.hgValid = false
		return nil, fmt.Errorf("read registers: %w", err)
	}
	if pkts[0] != "g" {
		if err := okReply(pkts[0], rs[0]); err != nil {
			c.hgValid = false
			return nil, fmt.Errorf("read registers: %w", err)
		}
		c.hg, c.hgValid = t, true
		pkts, rs = pkts[1:], rs[1:]
	}
	return c.keepRegsMem(t, pkts, rs, reads)
}

// batchable reports whether thread t's registers and reads can go out as
// one batch: no acks, no binary reads, no read longer than a packet, and
// the registers not read already.
func (c *Client) batchable(t Thread, reads []MemRead) bool {
	if _, cached := c.regs[t]; cached || c.conn.ack || c.features["binary-upload"] == "+" {
		return false
	}
	for _, r := range reads {
		if len(r.P) > c.readChunk() {
			return false
		}
	}
	return true
}

// regsMemRequests are g, then one m per read.
func regsMemRequests(reads []MemRead) []string {
	pkts := make([]string, 0, 1+len(reads))
	pkts = append(pkts, "g")
	for _, r := range reads {
		pkts = append(pkts, memRequest(r.Addr, len(r.P)))
	}
	return pkts
}

// keepRegsMem decodes rs, the replies to regsMemRequests(reads) pkts:
// thread t's registers (cached, and returned) and each read's N and Err.
func (c *Client) keepRegsMem(t Thread, pkts []string, rs [][]byte, reads []MemRead) ([]byte, error) {
	g, err := c.keepRegs(t, rs[0])
	if err != nil {
		return nil, err
	}
	for i := range reads {
		reads[i].N, reads[i].Err = decodeMemReply(pkts[1+i], rs[1+i], reads[i].Addr, reads[i].P)
	}
	return g, nil
}

// Prefetch is ReadRegistersMemory without the wait: the requests go out
// now, and the replies are read by the next request on the connection,
// or by Settle, which then keep the registers (as ReadRegisters does) and
// call done with the reads filled in (N, Err), or with the error that
// kept them from being read. A debugger answers its client as soon as a
// stop is known, with what it will want next already on its way (the
// registers and the top of the stack, at every stop).
//
// It reports false, and sends nothing, where the requests cannot go out
// together without a wait: acks, binary reads, reads longer than a
// packet, registers already read, another thread to select first, or
// replies still owed.
func (c *Client) Prefetch(ctx context.Context, t Thread, reads []MemRead, done func(g []byte, reads []MemRead, err error)) bool {
	t = c.defThread(t)
	if !c.batchable(t, reads) || c.deferred != nil || c.pending > 0 || c.interrupted.Load() ||
		c.conn.deadErr() != nil || ctx.Err() != nil || t != (Thread{}) && !(c.hgValid && c.hg == t) {
		return false
	}
	pkts := regsMemRequests(reads)
	for _, pkt := range pkts {
		if c.g.check(pkt) != nil {
			return false
		}
	}
	disarm := c.arm(ctx)
	defer disarm()
	c.pending += len(pkts)
	if err := c.conn.writePackets(pkts); err != nil {
		// What reached the server is owed: the next request's resync
		// reads it, or finds the connection gone.
		return false
	}
	c.deferred = &deferredRead{t: t, pkts: pkts, reads: reads, done: done}
	return true
}

// deferredRead is a Prefetch whose replies are owed.
type deferredRead struct {
	t     Thread
	pkts  []string // g, then one m per read
	reads []MemRead
	done  func(g []byte, reads []MemRead, err error)
}

// Prefetched reports whether the replies of a Prefetch are still owed
// (the next request, or Settle, reads them).
func (c *Client) Prefetched() bool { return c.deferred != nil }

// settleDeferred reads the replies of a Prefetch, if one is owed.
func (c *Client) settleDeferred(ctx context.Context) error {
	if c.deferred == nil {
		return nil
	}
	return c.Settle(ctx)
}

// finishDeferred reads the replies of the Prefetch (under the caller's
// deadline) and hands them to its done.
func (c *Client) finishDeferred() error {
	d := c.deferred
	c.deferred = nil
	replies, _, err := c.readReplies(d.pkts, c.console)
	if err != nil {
		d.done(nil, d.reads, err)
		return err
	}
	g, err := c.keepRegsMem(d.t, d.pkts, replies, d.reads)
	d.done(g, d.reads, err)
	return nil
}

// readMemoryX reads with "x addr,len", whose reply is "b" + escaped binary
// (GDB 16's binary-upload).
func (c *Client) readMemoryX(ctx context.Context, addr uint64, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		want := min(len(p)-n, max(c.packetSize-32, 16))
		a := addr + uint64(n)
		pkt := "x" + strconv.FormatUint(a, 16) + "," + strconv.FormatInt(int64(want), 16)
		r, err := c.exchange(ctx, pkt)
		if err != nil {
			return n, fmt.Errorf("read memory %#x: %w", a, err)
		}
		if err := replyError(pkt, r); err != nil {
			return n, fmt.Errorf("read memory %#x: %w", a, err)
		}
		if r[0] != 'b' {
			return n, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(string(r))), Msg: "x reply without 'b'"}
		}
		b, err := unescapeBinary(r[1:])
		if err != nil || len(b) > want {
			return n, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(string(r))), Msg: "bad x reply"}
		}
		copy(p[n:], b)
		n += len(b)
		if len(b) < want {
			return n, fmt.Errorf("read memory %#x: short read of %d/%d bytes: %w", a, len(b), want, io.ErrUnexpectedEOF)
		}
	}
	return n, nil
}

// WriteMemory writes data at addr, with X (binary; always used for rr,
// whose M is missing before 5.8) or M, split by packet size. rr accepts
// writes only inside diversions (E01 otherwise).
func (c *Client) WriteMemory(ctx context.Context, addr uint64, data []byte) error {
	chunk := max((c.packetSize-64)/2, 16)
	for off := 0; off < len(data); {
		part := data[off:min(len(data), off+chunk)]
		if err := c.writeChunk(ctx, addr+uint64(off), part); err != nil {
			return fmt.Errorf("write memory %#x: %w", addr+uint64(off), err)
		}
		off += len(part)
	}
	c.regs = map[Thread][]byte{}
	return nil
}

func (c *Client) writeChunk(ctx context.Context, addr uint64, part []byte) error {
	head := strconv.FormatUint(addr, 16) + "," + strconv.FormatInt(int64(len(part)), 16) + ":"
	if c.xOK >= 0 && (c.g.dialect == DialectRR || c.xOK == 1) {
		pkt := AppendEscaped([]byte("X"+head), part)
		err := c.cmd(ctx, string(pkt))
		if err == nil {
			c.xOK = 1
			return nil
		}
		if !errors.Is(err, ErrUnsupported) {
			return err
		}
		c.xOK = -1
	}
	return c.cmd(ctx, "M"+head+hex.EncodeToString(part))
}

// ---- monitor, signals ----

// Monitor runs a monitor command (qRcmd, what gdb's "monitor" sends) and
// returns its console output; gdbserver and QEMU answer with "O" packets
// and then OK. rr has no monitor (use RRCmd) and answers ErrUnsupported.
func (c *Client) Monitor(ctx context.Context, cmd string) (string, error) {
	var out strings.Builder
	p, err := c.exchangeConsole(ctx, "qRcmd,"+hex.EncodeToString([]byte(cmd)), func(o []byte) { out.Write(consoleText(o)) })
	if err != nil {
		return out.String(), err
	}
	if err := replyError("qRcmd", p); err != nil {
		return out.String(), fmt.Errorf("monitor %s: %w", cmd, err)
	}
	if string(p) != "OK" {
		// Some stubs answer with the hex output directly.
		b, err := hex.DecodeString(string(p))
		if err != nil {
			return out.String(), &ProtocolError{Packet: "qRcmd", Data: strconv.Quote(short(string(p))), Msg: "bad monitor reply"}
		}
		out.Write(b)
	}
	return out.String(), nil
}

// PassSignals tells the server to deliver these signals to the debuggee
// without stopping (QPassSignals). On rr, stops for them are skipped in
// both directions. An empty list clears the set.
func (c *Client) PassSignals(ctx context.Context, sigs ...Signal) error {
	var b strings.Builder
	b.WriteString("QPassSignals:")
	for i, s := range sigs {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%02x", int(s))
	}
	return c.cmd(ctx, b.String())
}

// ---- qXfer ----

// xferRead reads a whole qXfer object, in m/l chunks sized by PacketSize.
func (c *Client) xferRead(ctx context.Context, object, annex string) ([]byte, error) {
	const limit = 64 << 20
	var out []byte
	chunk := max(c.packetSize-16, 64)
	for {
		pkt := "qXfer:" + object + ":read:" + annex + ":" + strconv.FormatInt(int64(len(out)), 16) + "," + strconv.FormatInt(int64(chunk), 16)
		p, err := c.exchange(ctx, pkt)
		if err != nil {
			return nil, err
		}
		if err := replyError(pkt, p); err != nil {
			return nil, err
		}
		data, err := unescapeBinary(p[1:])
		if err != nil || (p[0] != 'm' && p[0] != 'l') {
			return nil, &ProtocolError{Packet: short(pkt), Data: strconv.Quote(short(string(p))), Msg: "bad qXfer reply"}
		}
		out = append(out, data...)
		if p[0] == 'l' {
			return out, nil
		}
		if len(data) == 0 || len(out) > limit {
			return nil, &ProtocolError{Packet: short(pkt), Msg: "qXfer reply makes no progress or is too large"}
		}
	}
}

// ReadXfer reads a qXfer object (e.g. "features", "target.xml"). For rr,
// feature annexes are limited to those target.xml included.
func (c *Client) ReadXfer(ctx context.Context, object, annex string) ([]byte, error) {
	b, err := c.xferRead(ctx, object, annex)
	if err != nil {
		return nil, fmt.Errorf("qXfer:%s:read:%s: %w", object, annex, err)
	}
	return b, nil
}

// Auxv returns the debuggee's auxiliary vector (qXfer:auxv:read).
func (c *Client) Auxv(ctx context.Context) ([]byte, error) {
	return c.ReadXfer(ctx, "auxv", "")
}

// ExecFile returns the path of the executable of process pid (0: the
// current process) via qXfer:exec-file:read.
func (c *Client) ExecFile(ctx context.Context, pid int64) (string, error) {
	annex := ""
	if pid > 0 {
		annex = strconv.FormatInt(pid, 16)
	}
	b, err := c.ReadXfer(ctx, "exec-file", annex)
	return string(b), err
}

// ---- vFile ----

// parseFReply parses "F<result>[,<errno>][;<attachment>]".
func parseFReply(op string, p []byte) (int64, []byte, error) {
	if len(p) == 0 {
		return 0, nil, unsupported("vFile:" + op)
	}
	if p[0] != 'F' {
		if err := replyError("vFile:"+op, p); err != nil {
			return 0, nil, err
		}
		return 0, nil, &ProtocolError{Packet: "vFile:" + op, Data: strconv.Quote(short(string(p))), Msg: "expected F reply"}
	}
	head, attach, _ := bytes.Cut(p[1:], []byte{';'})
	res, errno, hasErrno := strings.Cut(string(head), ",")
	v, err := strconv.ParseInt(res, 16, 64)
	if err != nil {
		return 0, nil, &ProtocolError{Packet: "vFile:" + op, Data: strconv.Quote(short(string(p))), Msg: "bad F result"}
	}
	if v < 0 {
		e := -1
		if hasErrno {
			if n, err := strconv.ParseInt(errno, 16, 32); err == nil {
				e = int(n)
			}
		}
		return v, nil, &FileError{Op: op, Errno: e}
	}
	return v, attach, nil
}

// VFileSetFS selects the filesystem (mount namespace) of process pid for
// later vFile requests (0: the server's own).
func (c *Client) VFileSetFS(ctx context.Context, pid int64) error {
	p, err := c.exchange(ctx, "vFile:setfs:"+strconv.FormatInt(pid, 16))
	if err != nil {
		return err
	}
	_, _, err = parseFReply("setfs", p)
	return err
}

// VFileOpen opens a file on the server's side and returns its descriptor.
// flags and mode use GDB File-I/O values (O_RDONLY = 0); rr accepts only
// read-only opens.
func (c *Client) VFileOpen(ctx context.Context, name string, flags, mode int) (int, error) {
	pkt := "vFile:open:" + hex.EncodeToString([]byte(name)) + "," + strconv.FormatInt(int64(flags), 16) + "," + strconv.FormatInt(int64(mode), 16)
	p, err := c.exchange(ctx, pkt)
	if err != nil {
		return -1, err
	}
	fd, _, err := parseFReply("open", p)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	return int(fd), nil
}

// VFilePread reads up to count bytes at offset from fd. An empty result
// means end of file.
func (c *Client) VFilePread(ctx context.Context, fd, count int, offset int64) ([]byte, error) {
	count = min(count, max(c.packetSize-64, 64))
	pkt := "vFile:pread:" + strconv.FormatInt(int64(fd), 16) + "," + strconv.FormatInt(int64(count), 16) + "," + strconv.FormatInt(offset, 16)
	p, err := c.exchange(ctx, pkt)
	if err != nil {
		return nil, err
	}
	n, attach, err := parseFReply("pread", p)
	if err != nil {
		return nil, err
	}
	data, err := unescapeBinary(attach)
	if err != nil || int64(len(data)) != n {
		return nil, &ProtocolError{Packet: pkt, Data: strconv.Quote(short(string(p))), Msg: "pread length does not match data"}
	}
	return data, nil
}

// VFileClose closes fd.
func (c *Client) VFileClose(ctx context.Context, fd int) error {
	p, err := c.exchange(ctx, "vFile:close:"+strconv.FormatInt(int64(fd), 16))
	if err != nil {
		return err
	}
	_, _, err = parseFReply("close", p)
	return err
}

// ReadFile reads a whole file through vFile open/pread/close (at most limit
// bytes; limit <= 0 means 64 MiB).
func (c *Client) ReadFile(ctx context.Context, name string, limit int) ([]byte, error) {
	if limit <= 0 {
		limit = 64 << 20
	}
	fd, err := c.VFileOpen(ctx, name, 0, 0)
	if err != nil {
		return nil, err
	}
	var out []byte
	for len(out) < limit {
		b, err := c.VFilePread(ctx, fd, limit-len(out), int64(len(out)))
		if err != nil {
			c.VFileClose(ctx, fd) //nolint:errcheck
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if len(b) == 0 {
			break
		}
		out = append(out, b...)
	}
	return out, c.VFileClose(ctx, fd)
}
