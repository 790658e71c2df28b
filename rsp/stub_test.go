package rsp_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// pipeStub is a scripted RSP server on one end of a net.Pipe, written
// independently of the client's framing code. Replies are payloads; a
// reply starting with stubRaw is written verbatim (for garbage, bad
// checksums, RLE, notifications).
type pipeStub struct {
	conn    net.Conn
	handle  func(req string) []string
	ack     bool // ack mode (acks sent and expected)
	mu      sync.Mutex
	reqs    []string // requests in order ("\x03" for interrupts)
	acksIn  int      // '+' received from the client
	naksIn  int      // '-' received from the client
	missing int      // requests that arrived while the previous reply was unacknowledged
	waiting bool
	last    []byte
	out     chan []byte // written in order by a writer goroutine, like a socket buffer
	done    chan struct{}
}

const (
	stubRaw = "RAW:"
	stubNAK = "NAK" // answer the request with '-' instead of '+'
)

func stubFrame(payload string) string {
	var sum byte
	for i := 0; i < len(payload); i++ {
		sum += payload[i]
	}
	return fmt.Sprintf("$%s#%02x", payload, sum)
}

// newPipeStub starts a stub and returns the client's end of the pipe.
func newPipeStub(tb testing.TB, handle func(req string) []string) (net.Conn, *pipeStub) {
	cli, srv := net.Pipe()
	s := startStub(srv, handle)
	if tb != nil {
		tb.Cleanup(func() {
			cli.Close()
			srv.Close()
			<-s.done
		})
	}
	return cli, s
}

// serveStubOnce serves the stub protocol to the first connection ln
// accepts; stop closes ln and waits for that connection's end.
func serveStubOnce(ln net.Listener, handle func(req string) []string) (stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		<-startStub(conn, handle).done
	}()
	return func() { ln.Close(); <-done }
}

// startStub serves the stub protocol on srv until it is closed.
func startStub(srv net.Conn, handle func(req string) []string) *pipeStub {
	s := &pipeStub{conn: srv, handle: handle, ack: true, done: make(chan struct{}), out: make(chan []byte, 1024)}
	go s.serve()
	go func() {
		for b := range s.out {
			if _, err := srv.Write(b); err != nil {
				for range s.out {
				}
				return
			}
		}
	}()
	return s
}

func (s *pipeStub) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

func (s *pipeStub) send(replies []string) {
	for _, r := range replies {
		var b []byte
		if raw, ok := strings.CutPrefix(r, stubRaw); ok {
			b = []byte(raw)
		} else {
			b = []byte(stubFrame(r))
			s.mu.Lock()
			s.last, s.waiting = b, s.ack
			s.mu.Unlock()
		}
		s.out <- b
	}
}

// resendOnNAK sets the stubFrame the stub sends when the client answers '-'.
func (s *pipeStub) resendOnNAK(payload string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = []byte(stubFrame(payload))
}

func (s *pipeStub) serve() {
	defer close(s.done)
	defer close(s.out)
	r := bufio.NewReader(s.conn)
	for {
		c, err := r.ReadByte()
		if err != nil {
			return
		}
		switch c {
		case '+':
			s.mu.Lock()
			s.acksIn++
			s.waiting = false
			s.mu.Unlock()
		case '-':
			s.mu.Lock()
			s.naksIn++
			last := s.last
			s.mu.Unlock()
			s.out <- last
		case 0x03:
			s.mu.Lock()
			s.reqs = append(s.reqs, "\x03")
			s.mu.Unlock()
			s.send(s.handle("\x03"))
		case '$':
			body, err := r.ReadString('#')
			if err != nil {
				return
			}
			var cs [2]byte
			if _, err := r.Read(cs[:1]); err != nil {
				return
			}
			if _, err := r.Read(cs[1:]); err != nil {
				return
			}
			payload := body[:len(body)-1]
			if want := stubFrame(payload); want[len(want)-2:] != string(cs[:]) {
				s.out <- []byte("-")
				continue
			}
			s.mu.Lock()
			if s.waiting {
				s.missing++
			}
			s.reqs = append(s.reqs, payload)
			ack := s.ack
			s.mu.Unlock()
			replies := s.handle(payload)
			if ack && len(replies) == 1 && replies[0] == stubNAK {
				s.out <- []byte("-") // pretend the request was corrupted
				continue
			}
			if ack {
				s.out <- []byte("+")
			}
			s.send(replies)
			if payload == "QStartNoAckMode" && len(replies) == 1 && replies[0] == "OK" {
				// The client still acks this OK; accept it, then stop acking.
				s.mu.Lock()
				s.ack = false
				s.mu.Unlock()
			}
		}
	}
}

// Canned handshake replies for the dialects.
const (
	stubRRFeatures = "PacketSize=100000;QStartNoAckMode+;qXfer:features:read+;qXfer:auxv:read+;qXfer:exec-file:read+;" +
		"qXfer:siginfo:read+;qXfer:siginfo:write+;multiprocess+;hwbreak+;swbreak+;ConditionalBreakpoints+;" +
		"vContSupported+;QPassSignals+;ReverseContinue+;ReverseStep+"
	stubQEMUFeatures = "PacketSize=1000;qXfer:features:read+;ReverseStep+;ReverseContinue+;vContSupported+;multiprocess+"
	stubGDBSFeatures = "PacketSize=47ff;QPassSignals+;QStartupWithShell+;qXfer:libraries-svr4:read+;qXfer:auxv:read+;" +
		"qXfer:features:read+;QStartNoAckMode+;multiprocess+;QDisableRandomization+;swbreak+;hwbreak+;qXfer:exec-file:read+;vContSupported+"
)

// An rr-style target description: includes, a regnum reset, 80-bit regs.
var stubXML = map[string]string{
	"target.xml": `<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target>
<architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi>
<xi:include href="64bit-core.xml"/>
<xi:include href="64bit-linux.xml"/>
</target>`,
	"64bit-core.xml": `<?xml version="1.0"?>
<!DOCTYPE feature SYSTEM "gdb-target.dtd">
<feature name="org.gnu.gdb.i386.core">
  <flags id="i386_eflags" size="4"><field name="CF" start="0" end="0"/></flags>
  <reg name="rax" bitsize="64" type="int64"/>
  <reg name="rbx" bitsize="64" type="int64"/>
  <reg name="rcx" bitsize="64" type="int64"/>
  <reg name="rdx" bitsize="64" type="int64"/>
  <reg name="rsi" bitsize="64" type="int64"/>
  <reg name="rdi" bitsize="64" type="int64"/>
  <reg name="rbp" bitsize="64" type="data_ptr"/>
  <reg name="rsp" bitsize="64" type="data_ptr"/>
  <reg name="r8" bitsize="64" type="int64"/>
  <reg name="r9" bitsize="64" type="int64"/>
  <reg name="r10" bitsize="64" type="int64"/>
  <reg name="r11" bitsize="64" type="int64"/>
  <reg name="r12" bitsize="64" type="int64"/>
  <reg name="r13" bitsize="64" type="int64"/>
  <reg name="r14" bitsize="64" type="int64"/>
  <reg name="r15" bitsize="64" type="int64"/>
  <reg name="rip" bitsize="64" type="code_ptr"/>
  <reg name="eflags" bitsize="32" type="i386_eflags"/>
  <reg name="st0" bitsize="80" type="i387_ext" group="float"/>
</feature>`,
	"64bit-linux.xml": `<?xml version="1.0"?>
<feature name="org.gnu.gdb.i386.linux">
  <reg name="orig_rax" bitsize="64" type="int" regnum="57"/>
  <reg name="fs_base" bitsize="64" type="int"/>
</feature>`,
}

// stubRegs is a g reply for stubXML: rax=1, rsp=0x7ffe0000, rip=0x401000,
// unavailable st0.
func stubRegs() string {
	var b strings.Builder
	le := func(v uint64, n int) {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%02x", byte(v>>(8*i)))
		}
	}
	for i := 0; i < 16; i++ {
		switch i {
		case 0:
			le(1, 8)
		case 7:
			le(0x7ffe0000, 8)
		default:
			le(0, 8)
		}
	}
	le(0x401000, 8)
	le(0x246, 4)
	b.WriteString(strings.Repeat("xx", 10))
	le(0x3c, 8)
	le(0x7ffff7d8a740, 8)
	return b.String()
}

// stubXfer serves qXfer:features:read from stubXML in chunks.
func stubXfer(req string) ([]string, bool) {
	rest, ok := strings.CutPrefix(req, "qXfer:features:read:")
	if !ok {
		return nil, false
	}
	annex, offlen, _ := strings.Cut(rest, ":")
	var off, n int
	fmt.Sscanf(offlen, "%x,%x", &off, &n)
	doc, ok := stubXML[annex]
	if !ok {
		return []string{"E00"}, true
	}
	if off >= len(doc) {
		return []string{"l"}, true
	}
	end := min(off+n, len(doc))
	kind := "m"
	if end == len(doc) {
		kind = "l"
	}
	return []string{kind + doc[off:end]}, true
}

// stubHandler answers the handshake for a dialect ("rr", "qemu",
// "gdbserver") and delegates everything else to more (nil → "").
func stubHandler(dialect string, more func(req string) []string) func(string) []string {
	return func(req string) []string {
		if more != nil {
			if r := more(req); r != nil {
				return r
			}
		}
		if r, ok := stubXfer(req); ok {
			return r
		}
		switch {
		case strings.HasPrefix(req, "qSupported:"):
			return []string{map[string]string{"rr": stubRRFeatures, "qemu": stubQEMUFeatures, "gdbserver": stubGDBSFeatures}[dialect]}
		case req == "QStartNoAckMode":
			if dialect == "qemu" {
				return []string{""}
			}
			return []string{"OK"}
		case req == "vCont?":
			return []string{map[string]string{"rr": "vCont;c;C;s;S;", "qemu": "vCont;c;C;s;S", "gdbserver": "vCont;c;C;t;s;S;r"}[dialect]}
		case req == "?":
			if dialect == "rr" {
				return []string{"T00thread:p3e8.3e8;"}
			}
			return []string{"T05thread:p3e8.3e8;"}
		case req == "g":
			return []string{stubRegs()}
		case strings.HasPrefix(req, "Hg"), strings.HasPrefix(req, "Hc"),
			strings.HasPrefix(req, "Z"), strings.HasPrefix(req, "z"):
			return []string{"OK"}
		case req == "qC":
			return []string{"QCp3e8.3e8"}
		case req == "\x03":
			return nil
		}
		return []string{""}
	}
}

// dialStub returns a client connected to a stub.
func dialStub(t *testing.T, dialect string, opts rsp.Options, more func(req string) []string) (*rsp.Client, *pipeStub) {
	t.Helper()
	cli, s := newPipeStub(t, stubHandler(dialect, more))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c, err := rsp.NewClient(ctx, cli, opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, s
}

func stubHex(s string) string { return hex.EncodeToString([]byte(s)) }
