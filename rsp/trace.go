package rsp

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Tracepoints (GDB manual, "Tracepoint Packets"; gdbserver's
// tracepoint.cc is the peer the formats were checked against).
//
// A tracepoint collects data where the program passes an address without
// reporting the hit: the server appends a trace frame to its trace
// buffer and resumes the thread. The client defines tracepoints between
// QTinit and QTStart, resumes, and later stops the run (QTStop, or the
// pass count) and reads the buffer in bulk (qTBuffer).
//
// What gdbserver 13 does that the manual does not say: an 'M' action's
// base register is ignored (the offset is read as an absolute address),
// so register-relative memory is collected with an 'X' action instead;
// an 'R' action collects every register whatever its mask; a trace
// frame is little-endian on x86 (the host's order, not network order);
// qTBuffer answers at most about 9 KB per request and "l" at the end.

// TraceMemory is an 'M' action: Len bytes at the absolute address Addr.
type TraceMemory struct {
	Addr uint64
	Len  uint64
}

// Tracepoint is a tracepoint definition (QTDP).
type Tracepoint struct {
	Number  int    // tracepoint number, > 0
	Addr    uint64 // where it collects
	Enabled bool
	// Pass is the pass count: the run stops itself after this many
	// hits (0: no limit).
	Pass uint64
	// Cond, if set, is agent bytecode evaluated at each hit; the hit is
	// collected only where it leaves a nonzero value.
	Cond []byte
	// Registers asks for an 'R' action (every register, in the layout of
	// the g packet).
	Registers bool
	// Memory are 'M' actions.
	Memory []TraceMemory
	// Exprs are 'X' actions: agent bytecode whose trace ops record
	// memory (and tracev trace state variables).
	Exprs [][]byte
	// Fast, if > 0, makes it a fast tracepoint (QTDP's F field): the
	// server replaces the Fast bytes of code at Addr (whole
	// instructions, at least MinFastTracepointLen) with a jump to a
	// jump pad in the in-process agent, which collects without a trap.
	// TraceStart then relocates the displaced instruction (Relocator).
	Fast int
}

// packets returns the QTDP packets that define tp: the tracepoint, then
// one packet per action; every packet but the last ends with '-'.
func (tp Tracepoint) packets() []string {
	var acts []string
	if tp.Registers {
		acts = append(acts, "R1")
	}
	for _, m := range tp.Memory {
		acts = append(acts, fmt.Sprintf("M-1,%x,%x", m.Addr, m.Len))
	}
	for _, x := range tp.Exprs {
		acts = append(acts, fmt.Sprintf("X%x,%s", len(x), hex.EncodeToString(x)))
	}
	en := "D"
	if tp.Enabled {
		en = "E"
	}
	first := fmt.Sprintf("QTDP:%x:%x:%s:0:%x", tp.Number, tp.Addr, en, tp.Pass)
	if tp.Fast > 0 {
		first += fmt.Sprintf(":F%x", tp.Fast)
	}
	if len(tp.Cond) > 0 {
		first += fmt.Sprintf(":X%x,%s", len(tp.Cond), hex.EncodeToString(tp.Cond))
	}
	pkts := []string{first}
	for _, a := range acts {
		pkts = append(pkts, fmt.Sprintf("QTDP:-%x:%x:%s", tp.Number, tp.Addr, a))
	}
	for i := 0; i < len(pkts)-1; i++ {
		pkts[i] += "-"
	}
	return pkts
}

// SupportsTracepoints reports whether the server takes tracepoints.
// gdbserver 13 does not send "Tracepoints+" in its qSupported reply;
// it sends "ConditionalTracepoints+" (and TraceStateVariables+,
// InstallInTrace+…), which only a server with tracepoints sends.
func (c *Client) SupportsTracepoints() bool {
	return c.Supports("Tracepoints") || c.Supports("ConditionalTracepoints")
}

// TraceRun is what a trace run is to collect, for DefineTraceRun.
type TraceRun struct {
	// BufferSize is the size of the server's trace buffer in bytes
	// (QTBuffer:size): 0 leaves it as it is, < 0 restores the server's
	// default.
	BufferSize  int64
	Variables   []TraceVariable
	Tracepoints []Tracepoint
}

// TraceVariable is a trace state variable (QTDV), for the getv, setv and
// tracev ops of agent bytecode.
type TraceVariable struct {
	Number  int
	Initial int64
	Name    string
}

// DefineTraceRun clears every tracepoint, trace state variable and the
// trace buffer (QTinit, which stops a run in progress) and defines run:
// its buffer size, variables (QTDV) and tracepoints (QTDP, one packet per
// action). The requests go in one write where the connection is in
// no-ack mode, one round trip in all; each must be answered OK. Start
// the run with TraceStart.
func (c *Client) DefineTraceRun(ctx context.Context, run TraceRun) error {
	pkts := []string{"QTinit"}
	switch {
	case run.BufferSize < 0:
		pkts = append(pkts, "QTBuffer:size:-1")
	case run.BufferSize > 0:
		pkts = append(pkts, fmt.Sprintf("QTBuffer:size:%x", run.BufferSize))
	}
	for _, v := range run.Variables {
		pkts = append(pkts, fmt.Sprintf("QTDV:%x:%x:0:%s", v.Number, uint64(v.Initial), hex.EncodeToString([]byte(v.Name))))
	}
	for _, tp := range run.Tracepoints {
		if tp.Number <= 0 {
			return fmt.Errorf("rsp: tracepoint number %d: must be positive", tp.Number)
		}
		pkts = append(pkts, tp.packets()...)
	}
	rs, err := c.exchangeAll(ctx, pkts...)
	if err != nil {
		return err
	}
	for i, r := range rs {
		if err := okReply(pkts[i], r); err != nil {
			return err
		}
	}
	return nil
}

// TraceStart starts a trace run (QTStart): the tracepoints are inserted
// and hits are collected from the next resume on. A run with fast
// tracepoints needs TraceStartRelocating.
func (c *Client) TraceStart(ctx context.Context) error { return c.TraceStartRelocating(ctx, nil) }

// A Relocator returns the code displaced from address from by a fast
// tracepoint (code holds it and the bytes after it), rewritten to run at
// address to: the instruction at from, or the few instructions there the
// tracepoint's jump displaces (Tracepoint.Fast bytes), relocated. An
// error refuses. x86code.Relocate relocates one instruction,
// x86code.RelocateSpan several.
type Relocator func(code []byte, from, to uint64) ([]byte, error)

// relocReadLen is how many bytes at an instruction TraceStartRelocating
// reads for the Relocator: a jump's 5 bytes less one, and the longest
// x86 instruction (15) after them.
const relocReadLen = 32

// TraceStartRelocating is TraceStart serving the server's requests to
// relocate instructions: while gdbserver builds the jump pad of a fast
// tracepoint it answers QTStart with "qRelocInsn:FROM;TO" and waits for
// the client to place the instruction that was at FROM, relocated, at
// TO (with memory writes, which it serves meanwhile) and to answer
// "qRelocInsn:LEN" (the bytes written) or "E01"; then comes the next
// request or QTStart's own reply. reloc nil answers E01 to every
// request (the server then fails the tracepoint's install).
func (c *Client) TraceStartRelocating(ctx context.Context, reloc Relocator) error {
	const pkt = "QTStart"
	r, err := c.exchange(ctx, pkt)
	for err == nil && strings.HasPrefix(string(r), "qRelocInsn:") {
		ans := "E01"
		if n, rerr := c.relocate(ctx, string(r), reloc); rerr == nil {
			ans = fmt.Sprintf("qRelocInsn:%x", n)
		} else {
			c.log.Debug("rsp: refused to relocate", "request", string(r), "err", rerr)
		}
		r, err = c.exchange(ctx, ans)
	}
	if err != nil {
		return err
	}
	return okReply(pkt, r)
}

// relocate serves one "qRelocInsn:FROM;TO" request: it reads the code
// at FROM, relocates it with reloc and writes it at TO; n is its length.
func (c *Client) relocate(ctx context.Context, req string, reloc Relocator) (n int, err error) {
	from, to, err := ParseRelocRequest(req)
	if err != nil {
		return 0, err
	}
	if reloc == nil {
		return 0, fmt.Errorf("rsp: no relocator: %w", ErrUnsupported)
	}
	code := make([]byte, relocReadLen)
	m, err := c.ReadMemory(ctx, from, code)
	if err != nil && m == 0 {
		// The instruction may end its mapping: read to the page's end.
		code = code[:min(relocReadLen, int(4096-from%4096))]
		if m, err = c.ReadMemory(ctx, from, code); err != nil {
			return 0, err
		}
	}
	out, err := reloc(code[:m], from, to)
	if err != nil {
		return 0, err
	}
	if err := c.WriteMemory(ctx, to, out); err != nil {
		return 0, err
	}
	return len(out), nil
}

// ParseRelocRequest decodes gdbserver's "qRelocInsn:FROM;TO" (hex
// addresses).
func ParseRelocRequest(r string) (from, to uint64, err error) {
	rest, ok := strings.CutPrefix(r, "qRelocInsn:")
	f, t, ok2 := strings.Cut(rest, ";")
	if ok && ok2 {
		from, err1 := strconv.ParseUint(f, 16, 64)
		to, err2 := strconv.ParseUint(t, 16, 64)
		if err1 == nil && err2 == nil {
			return from, to, nil
		}
	}
	return 0, 0, &ProtocolError{Data: strconv.Quote(short(r)), Msg: "bad qRelocInsn request"}
}

// MinFastTracepointLen is the shortest instruction at which the server
// can put a fast tracepoint (qTMinFTPILen): 5 on x86-64 (a jmp rel32).
// 0 means the server cannot say yet (no process).
func (c *Client) MinFastTracepointLen(ctx context.Context) (int, error) {
	r, err := c.query(ctx, "qTMinFTPILen")
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseUint(r, 16, 31)
	if perr != nil {
		return 0, &ProtocolError{Packet: "qTMinFTPILen", Data: strconv.Quote(short(r)), Msg: "not a hex length"}
	}
	return int(n), nil
}

// LookupSymbols serves the server's symbol lookups (qSymbol): the
// client offers ("qSymbol::"), the server asks for one symbol by name
// ("qSymbol:HEXNAME"), the client answers with its address
// ("qSymbol:HEXADDR:HEXNAME", or "qSymbol::HEXNAME" when resolve does
// not know it), until the server answers "OK". gdbserver asks for the
// in-process agent's symbols (gdb_agent_*) this way, and for
// libthread_db's; GDB offers after every library load. asked are the
// names the server asked for.
func (c *Client) LookupSymbols(ctx context.Context, resolve func(name string) (uint64, bool)) (asked []string, err error) {
	pkt := "qSymbol::"
	for {
		r, err := c.query(ctx, pkt)
		if err != nil {
			return asked, err
		}
		if r == "OK" {
			return asked, nil
		}
		hexName, ok := strings.CutPrefix(r, "qSymbol:")
		name, herr := hex.DecodeString(hexName)
		if !ok || herr != nil || len(name) == 0 {
			return asked, &ProtocolError{Packet: short(pkt), Data: strconv.Quote(short(r)), Msg: "bad qSymbol request"}
		}
		if len(asked) >= 10000 {
			return asked, &ProtocolError{Packet: short(pkt), Msg: "the server asked for more than 10000 symbols"}
		}
		asked = append(asked, string(name))
		if addr, ok := resolve(string(name)); ok {
			pkt = fmt.Sprintf("qSymbol:%x:%s", addr, hexName)
		} else {
			pkt = "qSymbol::" + hexName
		}
	}
}

// TraceStop ends the trace run (QTStop) and removes the tracepoints from
// the code; the frames stay in the buffer. Stopping a stopped run is not
// an error.
func (c *Client) TraceStop(ctx context.Context) error { return c.cmd(ctx, "QTStop") }

// TraceStatus returns the state of the trace run (qTStatus).
func (c *Client) TraceStatus(ctx context.Context) (TraceStatus, error) {
	r, err := c.query(ctx, "qTStatus")
	if err != nil {
		return TraceStatus{}, err
	}
	st, err := ParseTraceStatus(r)
	if err != nil {
		return st, fmt.Errorf("rsp: qTStatus: %w", err)
	}
	return st, nil
}

// TraceBuffer reads the whole trace buffer (qTBuffer), to the end the
// server marks "l". used is how many bytes it holds as qTStatus says
// (TraceStatus.Used), or -1 where that is not known: with it the requests
// for those bytes go out together, in one write where the connection is
// in no-ack mode (one round trip instead of one per packet's worth). The
// end is always the server's: the read goes on where used was too small.
func (c *Client) TraceBuffer(ctx context.Context, used int64) ([]byte, error) {
	var out []byte
	chunk := max(c.packetSize/2-16, 256)
	read := func(pkt, r string, want int) (end bool, err error) {
		if r == "l" {
			return true, nil
		}
		b, err := hex.DecodeString(r)
		if err != nil || len(b) == 0 || len(b) > want {
			return true, &ProtocolError{Packet: short(pkt), Data: strconv.Quote(short(r)), Msg: "bad trace buffer data"}
		}
		out = append(out, b...)
		return false, nil
	}
	if used > 0 {
		var pkts []string
		for off := int64(0); off < used; off += int64(chunk) {
			pkts = append(pkts, fmt.Sprintf("qTBuffer:%x,%x", off, min(int64(chunk), used-off)))
		}
		rs, err := c.exchangeAll(ctx, pkts...)
		if err != nil {
			return out, err
		}
		for i, p := range rs {
			if err := replyError(pkts[i], p); err != nil {
				if i == 0 {
					return out, err
				}
				break // past the end used said: the server says where it is
			}
			want := int(min(int64(chunk), used-int64(i*chunk)))
			if end, err := read(pkts[i], string(p), want); end || err != nil {
				return out, err
			}
			if len(out) != i*chunk+want {
				break // a short reply: the rest one by one, from where it ended
			}
		}
	}
	for {
		pkt := fmt.Sprintf("qTBuffer:%x,%x", len(out), chunk)
		r, err := c.query(ctx, pkt)
		if err != nil {
			return out, err
		}
		if end, err := read(pkt, r, chunk); end || err != nil {
			return out, err
		}
	}
}

// TraceStatus is a decoded qTStatus reply. Counts the server did not
// send are -1.
type TraceStatus struct {
	Running bool
	// StopReason is why the last run ended: "tnotrun", "tstop",
	// "tpasscount", "tfull", "tdisconnected", "terror", "tunknown" or
	// another server-defined name; empty while running.
	StopReason string
	// StopTracepoint is the tracepoint of a tpasscount or terror stop.
	StopTracepoint int
	// StopError is the decoded text of a terror stop.
	StopError string
	Frames    int64 // tframes: frames in the buffer
	Created   int64 // tcreated: frames created (some may be lost)
	Free      int64 // tfree: free bytes in the buffer
	Size      int64 // tsize: buffer size
	Circular  bool
}

// Used is how many bytes of the buffer hold frames (Size - Free), or -1
// where the server did not say.
func (st TraceStatus) Used() int64 {
	if st.Size < 0 || st.Free < 0 || st.Free > st.Size {
		return -1
	}
	return st.Size - st.Free
}

// ParseTraceStatus decodes a qTStatus reply: "T0" or "T1" followed by
// ";name:value" fields in any order (unknown ones are ignored).
func ParseTraceStatus(r string) (TraceStatus, error) {
	st := TraceStatus{Frames: -1, Created: -1, Free: -1, Size: -1}
	fields := strings.Split(r, ";")
	switch fields[0] {
	case "T0":
	case "T1":
		st.Running = true
	default:
		return st, &ProtocolError{Data: strconv.Quote(short(r)), Msg: "trace status is not T0 or T1"}
	}
	num := func(v string) (int64, error) {
		u, err := strconv.ParseUint(v, 16, 64)
		if err != nil {
			return 0, &ProtocolError{Data: strconv.Quote(short(r)), Msg: "bad number in trace status"}
		}
		return int64(u), nil
	}
	for _, f := range fields[1:] {
		name, val, _ := strings.Cut(f, ":")
		var err error
		switch name {
		case "tnotrun", "tstop", "tpasscount", "tfull", "tdisconnected", "tunknown":
			st.StopReason = name
			if name == "tpasscount" {
				var n int64
				n, err = num(val)
				st.StopTracepoint = int(n)
			}
		case "terror":
			st.StopReason = name
			msg, tp, _ := strings.Cut(val, ":")
			b, herr := hex.DecodeString(msg)
			if herr != nil {
				return st, &ProtocolError{Data: strconv.Quote(short(r)), Msg: "bad terror text in trace status"}
			}
			st.StopError = string(b)
			var n int64
			n, err = num(tp)
			st.StopTracepoint = int(n)
		case "tframes":
			st.Frames, err = num(val)
		case "tcreated":
			st.Created, err = num(val)
		case "tfree":
			st.Free, err = num(val)
		case "tsize":
			st.Size, err = num(val)
		case "circular":
			var n int64
			n, err = num(val)
			st.Circular = n != 0
		}
		if err != nil {
			return st, err
		}
	}
	if st.Running {
		st.StopReason = ""
	}
	return st, nil
}

// TraceFrame is one decoded trace frame.
type TraceFrame struct {
	Tracepoint int
	// Registers is the 'R' block (the g packet's layout), nil if none.
	Registers []byte
	Memory    []TraceBlock
	// Vars are the trace state variables the frame recorded (tracev).
	Vars map[int]int64
}

// TraceBlock is an 'M' block: bytes of memory at Addr.
type TraceBlock struct {
	Addr uint64
	Data []byte
}

// ReadMemory copies the collected bytes at addr into p; ok is false when
// some byte of the range was not collected.
func (f *TraceFrame) ReadMemory(addr uint64, p []byte) bool {
	end := addr + uint64(len(p))
	if end < addr {
		return false
	}
	// Blocks may overlap or abut: mark the bytes filled until all are.
	left := len(p)
	var got []bool
	for _, b := range f.Memory {
		bend := b.Addr + uint64(len(b.Data))
		lo, hi := max(addr, b.Addr), min(end, bend)
		if bend < b.Addr || lo >= hi {
			continue
		}
		if lo == addr && hi == end && got == nil { // the common case: one block has it all
			copy(p, b.Data[lo-b.Addr:hi-b.Addr])
			return true
		}
		if got == nil {
			got = make([]bool, len(p))
		}
		for a := lo; a < hi; a++ {
			if i := a - addr; !got[i] {
				p[i], got[i] = b.Data[a-b.Addr], true
				left--
			}
		}
		if left == 0 {
			return true
		}
	}
	return left == 0
}

// ParseTraceFrames decodes a trace buffer (TraceBuffer) of a target
// whose registers take regSize bytes: frames of a 2-byte tracepoint
// number and a 4-byte data length, then blocks 'R' (regSize bytes), 'M'
// (8-byte address, 2-byte length, the bytes) and 'V' (4-byte variable
// number, 8-byte value), in byte order order. A frame of tracepoint 0
// ends the buffer.
func ParseTraceFrames(buf []byte, regSize int, order binary.ByteOrder) ([]TraceFrame, error) {
	var frames []TraceFrame
	bad := func(off int, msg string) error {
		return &ProtocolError{Msg: fmt.Sprintf("trace buffer at offset %d: %s", off, msg)}
	}
	for off := 0; off < len(buf); {
		if len(buf)-off < 6 {
			return frames, bad(off, "truncated frame header")
		}
		tp := int(order.Uint16(buf[off:]))
		size := int(order.Uint32(buf[off+2:]))
		off += 6
		if tp == 0 {
			break
		}
		if size < 0 || size > len(buf)-off {
			return frames, bad(off, "frame longer than the buffer")
		}
		f := TraceFrame{Tracepoint: tp}
		data, base := buf[off:off+size], off
		off += size
		for p := 0; p < len(data); {
			kind := data[p]
			p++
			switch kind {
			case 'R':
				if regSize <= 0 || len(data)-p < regSize {
					return frames, bad(base+p, "truncated register block")
				}
				f.Registers = data[p : p+regSize]
				p += regSize
			case 'M':
				if len(data)-p < 10 {
					return frames, bad(base+p, "truncated memory block header")
				}
				addr := order.Uint64(data[p:])
				n := int(order.Uint16(data[p+8:]))
				p += 10
				if len(data)-p < n {
					return frames, bad(base+p, "truncated memory block")
				}
				f.Memory = append(f.Memory, TraceBlock{Addr: addr, Data: data[p : p+n]})
				p += n
			case 'V':
				if len(data)-p < 12 {
					return frames, bad(base+p, "truncated variable block")
				}
				if f.Vars == nil {
					f.Vars = map[int]int64{}
				}
				f.Vars[int(int32(order.Uint32(data[p:])))] = int64(order.Uint64(data[p+4:]))
				p += 12
			default:
				return frames, bad(base+p-1, fmt.Sprintf("unknown block type %#x", kind))
			}
		}
		frames = append(frames, f)
	}
	return frames, nil
}
