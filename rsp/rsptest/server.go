// Package rsptest is a transcript-driven fake RSP server for tests: it
// plays a script of rr's side of a GDB Remote Serial Protocol exchange,
// hand-written from rr's source, and fails on any packet the script does
// not expect. Tests of the rsp client and of sessions on the rr dialect use
// it (the transcripts live in rsp/testdata/rr).
package rsptest

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// A transcript-driven fake RSP server. A "-- server --" script is a list of
// lines, one per packet, hand-written from rr's source:
//
//	# comment (each exchange cites the rr source it mirrors, e.g. GSC:997-1012)
//	-> PAYLOAD      the client must send exactly this packet
//	-> ~REGEXP      ... a packet matching this (anchored) regular expression
//	-> ^C           ... the 0x03 interrupt byte
//	<- PAYLOAD      the server sends this packet
//	<- EOF          the server closes the connection (rr exits)
//	include NAME    the lines of section NAME of testdata/rr/handshake.txtar
//
// In payloads {hex:"go string"} is replaced by the hex encoding of the
// string (qRRCmd arguments and replies), {regs:RIP} by a g reply for
// the trimmed x86-64 register layout of handshake.txtar with rip = RIP, and
// {mem:LEN,OFF:BYTES} by an m reply of LEN (hex) zero bytes with the hex
// BYTES at offset OFF (hex): a block read of which the test cares about a
// few bytes.
//
// Framing follows rr (rr-rsp.md §2): before the reply OK to QStartNoAckMode
// the server writes '+' for every packet it receives; it ignores '+' and
// '-' from the client; it never RLE-encodes. Any mismatch fails the test
// with the script line and what the client sent instead. Once the script
// is over, every further packet from the client is a failure: that is how
// the tests prove that requests the rr dialect must refuse never reach rr.

type Step struct {
	file string
	line int
	send bool           // '<' server sends
	text string         // payload, "^C" or "EOF"
	re   *regexp.Regexp // for "-> ~REGEXP"
}

func (s Step) String() string {
	dir := "->"
	if s.send {
		dir = "<-"
	}
	return fmt.Sprintf("%s:%d: %s %s", s.file, s.line, dir, s.text)
}

var (
	hexExpandRE  = regexp.MustCompile(`\{hex:("(?:[^"\\]|\\.)*")\}`)
	regsExpandRE = regexp.MustCompile(`\{regs:([0-9a-f]+)\}`)
	memExpandRE  = regexp.MustCompile(`\{mem:([0-9a-f]+),([0-9a-f]+):([0-9a-f]*)\}`)
	citationRE   = regexp.MustCompile(`\b(GSC|GS|DEC|DECH|RC|LD|RT|TargetDescription\.cc|GdbConnection\.cc@5\.6\.0|GdbCommand\.cc@5\.6\.0|GdbCommandHandler\.cc@5\.6\.0|GdbServer\.cc@5\.[6-9]\.0):\d+`)
)

// expand replaces {hex:"..."}, {regs:RIP} and {mem:LEN,OFF:BYTES}.
func expand(s string) (string, error) {
	var err error
	s = hexExpandRE.ReplaceAllStringFunc(s, func(m string) string {
		q := hexExpandRE.FindStringSubmatch(m)[1]
		u, e := strconv.Unquote(q)
		if e != nil {
			err = fmt.Errorf("bad {hex:%s}: %v", q, e)
		}
		return hex.EncodeToString([]byte(u))
	})
	s = regsExpandRE.ReplaceAllStringFunc(s, func(m string) string {
		rip, _ := strconv.ParseUint(regsExpandRE.FindStringSubmatch(m)[1], 16, 64)
		return TrimmedRegs(rip)
	})
	s = memExpandRE.ReplaceAllStringFunc(s, func(m string) string {
		g := memExpandRE.FindStringSubmatch(m)
		n, _ := strconv.ParseUint(g[1], 16, 32)
		off, _ := strconv.ParseUint(g[2], 16, 32)
		b, e := hex.DecodeString(g[3])
		if e != nil || off+uint64(len(b)) > n {
			err = fmt.Errorf("bad %s: the bytes must be hex and fit in the block", m)
			return m
		}
		block := make([]byte, n)
		copy(block[off:], b)
		return hex.EncodeToString(block)
	})
	return s, err
}

// TrimmedRegs is a g reply for handshake.txtar's 64bit-core subset:
// rax..r15 (16×8 bytes), rip (8), eflags (4), cs ss ds es fs gs (6×4).
func TrimmedRegs(rip uint64) string {
	b := make([]byte, 0, 164)
	b = append(b, make([]byte, 16*8)...)
	b = binary.LittleEndian.AppendUint64(b, rip)
	for _, v := range []uint32{0x246, 0x33, 0x2b, 0, 0, 0, 0} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return hex.EncodeToString(b)
}

// ParseScript reads a server script. Every group of lines (separated by
// blank lines) that expects a client packet must carry a comment citing
// rr's source.
func ParseScript(file, src string, include func(name string) (string, string, error)) ([]Step, error) {
	var steps []Step
	lines := strings.Split(src, "\n")
	groupCited, groupStart := false, 0
	checkGroup := func(i int) error {
		for _, st := range steps {
			if st.file == file && st.line > groupStart && st.line <= i && !st.send && !groupCited {
				return fmt.Errorf("%s:%d: exchange without a citation of rr's source (e.g. # GSC:997-1012)", file, st.line)
			}
		}
		return nil
	}
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(raw, " \t")
		switch {
		case strings.TrimSpace(line) == "":
			if err := checkGroup(n); err != nil {
				return nil, err
			}
			groupCited, groupStart = false, n
		case strings.HasPrefix(line, "#"):
			if citationRE.MatchString(line) {
				groupCited = true
			}
		case strings.HasPrefix(line, "include "):
			name := strings.TrimSpace(strings.TrimPrefix(line, "include "))
			ifile, isrc, err := include(name)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, n, err)
			}
			inc, err := ParseScript(ifile, isrc, include)
			if err != nil {
				return nil, err
			}
			steps = append(steps, inc...)
		case strings.HasPrefix(line, "-> "), strings.HasPrefix(line, "<- "):
			st := Step{file: file, line: n, send: line[0] == '<'}
			text, err := expand(line[3:])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, n, err)
			}
			st.text = text
			if !st.send && strings.HasPrefix(text, "~") {
				if st.re, err = regexp.Compile("^(?:" + text[1:] + ")$"); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", file, n, err)
				}
			}
			steps = append(steps, st)
		default:
			return nil, fmt.Errorf("%s:%d: cannot parse %q", file, n, line)
		}
	}
	if err := checkGroup(len(lines) + 1); err != nil {
		return nil, err
	}
	return steps, nil
}

// clientEvent is one thing read from the client.
type clientEvent struct {
	kind    byte // '$' packet, 3 interrupt, '+', '-'
	payload string
	err     error
}

// Server plays a script on one end of a connection.
type Server struct {
	steps []Step
	conn  net.Conn
	ack   bool
	evs   chan clientEvent

	mu       sync.Mutex
	failures []string
	extra    []string // packets after the end of the script
	received []string // every packet and ^C, in order
	waiting  string   // the client step the server is blocked on ("" = none)
	changed  chan struct{}
	done     chan struct{}
}

const fakeTimeout = 10 * time.Second

// ScriptEnd is what WaitFor sees once the whole script has been played.
const ScriptEnd = "<end of script>"

func Start(conn net.Conn, steps []Step) *Server {
	f := &Server{steps: steps, conn: conn, ack: true, evs: make(chan clientEvent, 64),
		changed: make(chan struct{}), done: make(chan struct{})}
	go f.read()
	go f.serve()
	return f
}

func (f *Server) read() {
	defer close(f.evs)
	r := bufio.NewReader(f.conn)
	for {
		b, err := r.ReadByte()
		if err != nil {
			f.evs <- clientEvent{err: err}
			return
		}
		switch b {
		case '+', '-', 3:
			f.evs <- clientEvent{kind: b}
		case '$':
			body, err := r.ReadString('#')
			if err != nil {
				f.evs <- clientEvent{err: err}
				return
			}
			var cs [2]byte
			if _, err := r.Read(cs[:1]); err == nil {
				_, err = r.Read(cs[1:])
			}
			payload := strings.TrimSuffix(body, "#")
			var sum byte
			for i := range len(payload) {
				sum += payload[i]
			}
			if fmt.Sprintf("%02x", sum) != string(cs[:]) {
				f.evs <- clientEvent{err: fmt.Errorf("bad checksum %q on %q", cs, payload)}
				return
			}
			f.evs <- clientEvent{kind: '$', payload: payload}
		default:
			f.evs <- clientEvent{err: fmt.Errorf("junk byte %q outside a packet", b)}
			return
		}
	}
}

func (f *Server) fail(format string, args ...any) {
	f.mu.Lock()
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *Server) setWaiting(s string) {
	f.mu.Lock()
	f.waiting = s
	f.mu.Unlock()
	f.notify()
}

func (f *Server) notify() {
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// WaitReceived blocks until the server has read n packets or interrupts.
func (f *Server) WaitReceived(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		got, ch := len(f.received), f.changed
		f.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-f.done:
			return fmt.Errorf("fake server finished after %d of %d packets", got, n)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitFor blocks until the server waits for the client step text.
func (f *Server) WaitFor(ctx context.Context, text string) error {
	for {
		f.mu.Lock()
		w, ch := f.waiting, f.changed
		f.mu.Unlock()
		if w == text {
			return nil
		}
		select {
		case <-ch:
		case <-f.done:
			return fmt.Errorf("fake server finished before waiting for %q", text)
		case <-ctx.Done():
			return fmt.Errorf("fake server never waited for %q (waiting for %q): %w", text, w, ctx.Err())
		}
	}
}

// next returns the next packet or interrupt from the client.
func (f *Server) next() (clientEvent, bool) {
	t := time.NewTimer(fakeTimeout)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-f.evs:
			if !ok {
				return clientEvent{}, false
			}
			if ev.kind == '+' || ev.kind == '-' {
				continue
			}
			if ev.err == nil {
				f.mu.Lock()
				f.received = append(f.received, printableEvent(ev))
				f.mu.Unlock()
				f.notify()
			}
			return ev, true
		case <-t.C:
			return clientEvent{err: fmt.Errorf("client sent nothing for %v", fakeTimeout)}, true
		}
	}
}

func printableEvent(ev clientEvent) string {
	if ev.kind == 3 {
		return "^C"
	}
	return ev.payload
}

func (f *Server) write(payload string) error {
	var sum byte
	for i := range len(payload) {
		sum += payload[i]
	}
	_, err := fmt.Fprintf(f.conn, "$%s#%02x", payload, sum)
	return err
}

func (f *Server) serve() {
	defer close(f.done)
	defer f.setWaiting("")
	lastReq := ""
	for _, st := range f.steps {
		if st.send {
			if st.text == "EOF" {
				f.conn.Close()
				f.drain()
				return
			}
			if err := f.write(st.text); err != nil {
				f.fail("%v: write: %v", st, err)
				return
			}
			if lastReq == "QStartNoAckMode" && st.text == "OK" {
				f.ack = false
			}
			continue
		}
		f.setWaiting(st.text)
		ev, ok := f.next()
		f.setWaiting("")
		switch {
		case !ok:
			f.fail("%v: the client closed the connection; the script wants this packet", st)
			return
		case ev.err != nil:
			f.fail("%v: %v", st, ev.err)
			f.conn.Close()
			return
		}
		got := printableEvent(ev)
		if !st.matches(ev) {
			f.fail("%v\n\tclient sent:   %s %q\n\tscript wants: %q", st, "->", got, st.text)
			f.conn.Close()
			f.drain()
			return
		}
		if ev.kind == '$' {
			lastReq = ev.payload
			if f.ack {
				f.conn.Write([]byte("+")) //nolint:errcheck // a write error shows up as the client's failure
			}
		}
	}
	// The script is over: nothing more may arrive.
	f.setWaiting(ScriptEnd)
	for {
		ev, ok := f.next()
		if !ok || (ev.err != nil && !strings.Contains(ev.err.Error(), "client sent nothing")) {
			return
		}
		if ev.err != nil {
			continue
		}
		f.mu.Lock()
		f.extra = append(f.extra, printableEvent(ev))
		f.mu.Unlock()
	}
}

func (st Step) matches(ev clientEvent) bool {
	if st.text == "^C" {
		return ev.kind == 3
	}
	if ev.kind != '$' {
		return false
	}
	if st.re != nil {
		return st.re.MatchString(ev.payload)
	}
	return ev.payload == st.text
}

// drain reads the client until it goes away, recording stray packets.
func (f *Server) drain() {
	for ev := range f.evs {
		if ev.err == nil && ev.kind != '+' && ev.kind != '-' {
			f.mu.Lock()
			f.extra = append(f.extra, printableEvent(ev))
			f.mu.Unlock()
		}
	}
}

// finish waits for the server and reports script failures, unconsumed
// script lines and packets that arrived after the script ended.
func (f *Server) Finish(t testing.TB) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(2 * fakeTimeout):
		t.Fatal("fake server did not finish")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.failures {
		t.Error(m)
	}
	if len(f.extra) > 0 {
		t.Errorf("the client sent packets after the end of the script (they would have reached rr): %q", f.extra)
	}
}

// LoadTranscript reads a txtar transcript with its includes resolved
// against handshake (the archive of shared sections).
func LoadTranscript(path string, ar, handshake *txtar.Archive) (client string, steps []Step, err error) {
	sections := map[string]string{}
	for _, f := range ar.Files {
		sections[f.Name] = string(f.Data)
	}
	include := func(name string) (string, string, error) {
		for _, f := range handshake.Files {
			if f.Name == name {
				return "handshake.txtar[" + name + "]", string(f.Data), nil
			}
		}
		return "", "", fmt.Errorf("no section %q in handshake.txtar", name)
	}
	src, ok := sections["server"]
	if !ok {
		return "", nil, fmt.Errorf("%s: no -- server -- section", path)
	}
	steps, err = ParseScript(path, src, include)
	return sections["client"], steps, err
}
