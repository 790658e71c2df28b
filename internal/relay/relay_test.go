package relay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// fakeBackend records forwarded packets and answers from a table.
type fakeBackend struct {
	mu      sync.Mutex
	got     []string
	replies map[string]string
}

func (b *fakeBackend) forward(ctx context.Context, pkt string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, pkt)
	if r, ok := b.replies[pkt]; ok {
		return r, nil
	}
	return "", fmt.Errorf("fake backend: no reply for %q", pkt)
}

func (b *fakeBackend) packets() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.got...)
}

// client is the test's GDB side: it frames requests and reads replies.
type client struct {
	t  *testing.T
	c  net.Conn
	rd *rsp.RequestReader // replies are read with the same framing as requests
}

func dial(t *testing.T, r *Relay) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", r.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return &client{t: t, c: c, rd: rsp.NewRequestReader(c, maxRequest)}
}

func (c *client) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatal(err)
	}
}

// expect reads one acknowledgement, want being "+" or "-".
func (c *client) expect(want string) {
	c.t.Helper()
	req, err := c.rd.Next()
	if err != nil {
		c.t.Fatalf("reading %q: %v", want, err)
	}
	if got := string(rune(req.Kind)); got != want {
		c.t.Fatalf("read %q (payload %q), want %q", got, req.Payload, want)
	}
}

// reply reads one "$…#cs" frame, checks its checksum and unescapes it.
func (c *client) reply() string {
	c.t.Helper()
	req, err := c.rd.Next()
	if err != nil {
		c.t.Fatal(err)
	}
	if req.Kind != rsp.RequestPacket || !req.ChecksumOK {
		c.t.Fatalf("got %q (checksum ok %v), want a packet", rune(req.Kind), req.ChecksumOK)
	}
	return string(req.Payload)
}

func frame(p string) string { return string(rsp.AppendFrame(nil, frameSafe(p))) }

func TestRelayHandshakeAndRefusals(t *testing.T) {
	be := &fakeBackend{replies: map[string]string{
		"m401000,4": "90909090",
		"g":         strings.Repeat("00", 8) + "1000400000000000",
		"Hgp1.1":    "OK",
		// Binary replies come from the backend escaped ("$#}*").
		"qXfer:features:read:target.xml:0,ffb": "l<target>}\x04}\x03}]}\x0a</target>",
	}}
	r := newRelay(t, Config{Forward: be.forward, Stop: func() string { return "T05thread:p1.1;" }, Multiprocess: true})
	c := dial(t, r)

	// Ack mode: every packet is acknowledged before its reply.
	c.write("+" + frame("qSupported:multiprocess+;swbreak+"))
	c.expect("+")
	if got := c.reply(); !strings.Contains(got, "multiprocess+") || !strings.HasPrefix(got, "PacketSize=") {
		t.Fatalf("qSupported reply %q", got)
	}
	c.write("+")
	// A corrupted checksum gets a nak and no reply; GDB resends.
	c.write("$vMustReplyEmpty#00")
	c.expect("-")
	c.write(frame("vMustReplyEmpty"))
	c.expect("+")
	if got := c.reply(); got != "" {
		t.Fatalf("vMustReplyEmpty = %q", got)
	}
	// A nak of our reply makes us resend it.
	c.write("-")
	if got := c.reply(); got != "" {
		t.Fatalf("resent reply = %q", got)
	}
	c.write("+" + frame("QStartNoAckMode"))
	c.expect("+")
	if got := c.reply(); got != "OK" {
		t.Fatalf("QStartNoAckMode = %q", got)
	}
	c.write("+") // GDB's last ack; from here on, no acks either way.

	steps := []struct{ req, want string }{
		{"?", "T05thread:p1.1;"},
		{"Hgp0.0", "OK"},
		{"qAttached:1", "1"},
		{"m401000,4", "90909090"},
		{"g", strings.Repeat("00", 8) + "1000400000000000"},
		{"qXfer:features:read:target.xml:0,ffb", "l<target>$#}*</target>"}, // passed on escaped
		{"vCont?", ""},
		{"c", refusedResume},
		{"vCont;c:p1.-1", refusedResume},
		{"s", refusedResume},
		{"Z0,401000,1", "E01"},
		{"M601000,4:01000000", "E01"},
		{"X601000,1:}]", "E01"},
		{"P10=0000000000000000", "E01"},
		{"D;1", "E01"},
		{"qRcmd,68656c70", "E01"},
		{"m401000,zz", "E01"},
		{"m1234,8", "E01"}, // the backend fails: GDB sees an error
		{"qTStatus", ""},
	}
	for _, s := range steps {
		c.write(frame(s.req))
		if got := c.reply(); got != s.want {
			t.Errorf("%s -> %q, want %q", s.req, got, s.want)
		}
	}
	// No-ack mode: nothing but replies came back (a stray '+' would have
	// broken the exact reads above). k closes the connection.
	c.write(frame("k"))
	if _, err := c.rd.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after k: read err = %v, want EOF", err)
	}

	// GDB's Hg is asserted again before each register read; its "any
	// thread" (Hgp0.0, before it knows the threads) is the stop's
	// thread, under which GDB files the registers it reads.
	want := []string{"Hgp1.1", "m401000,4", "Hgp1.1", "g", "qXfer:features:read:target.xml:0,ffb", "m1234,8"}
	if got := be.packets(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("forwarded %q, want %q", got, want)
	}
	st := r.Stats()
	if st.Forwarded != int64(len(want)) || st.Refused != 9 || st.LastRefused != "qRcmd,68656c70" {
		t.Errorf("stats = %+v", st)
	}

	// The relay serves the next connection after k.
	c2 := dial(t, r)
	c2.write(frame("qAttached"))
	c2.expect("+")
	if got := c2.reply(); got != "1" {
		t.Fatalf("second connection: qAttached = %q", got)
	}
}

func TestRelayCloseCancelsForward(t *testing.T) {
	entered := make(chan struct{})
	fwd := func(ctx context.Context, pkt string) (string, error) {
		close(entered)
		<-ctx.Done()
		return "", ctx.Err()
	}
	r := newRelay(t, Config{Forward: fwd})
	c := dial(t, r)
	c.write(frame("g"))
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("forward not called")
	}
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return while a forward was in flight")
	}
	if _, err := net.DialTimeout("tcp", r.Addr(), time.Second); err == nil {
		t.Fatal("relay still accepts connections after Close")
	}
}

func TestRelayForwardTimeout(t *testing.T) {
	fwd := func(ctx context.Context, pkt string) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	r := newRelay(t, Config{Forward: fwd, Timeout: 50 * time.Millisecond})
	c := dial(t, r)
	c.write(frame("g"))
	c.expect("+")
	if got := c.reply(); got != "E01" {
		t.Fatalf("timed-out forward answered %q, want E01", got)
	}
}

// newRelay starts a relay with cfg, closed when the test ends.
func newRelay(t testing.TB, cfg Config) *Relay {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestNewNeedsForward(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New without Forward succeeded")
	}
}

type rw struct {
	io.Reader
	io.Writer
}

// FuzzRelayPacket feeds arbitrary bytes to a relay connection and checks
// that only safe reads reach the backend and every reply is well framed.
func FuzzRelayPacket(f *testing.F) {
	for _, s := range []string{
		frame("qSupported:multiprocess+") + "+" + frame("QStartNoAckMode") + frame("m1000,10"),
		frame("g") + frame("c") + frame("Z0,1000,1") + frame("k"),
		"$m1}]00,4#00", "-" + frame("?") + "-", "\x03$vCont;c#a8",
		frame("qXfer:features:read:target.xml:0,ffb") + frame("Hgp1.1") + frame("M0,1:00"),
		"$$$###}}}", "$m10,4#zz",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		fwd := func(ctx context.Context, pkt string) (string, error) {
			got = append(got, pkt)
			return "OK$#", nil
		}
		r := &Relay{cfg: Config{Forward: fwd, Timeout: time.Second}, ctx: context.Background()}
		var out bytes.Buffer
		r.serve(rw{bytes.NewReader(data), &out})
		for _, p := range got {
			if !safeForward.MatchString(p) {
				t.Fatalf("forwarded unsafe packet %q", p)
			}
			// The fake backend's replies include nothing.
			if strings.HasPrefix(p, "qXfer:features:read:") && !strings.HasPrefix(p, "qXfer:features:read:target.xml:") {
				t.Fatalf("forwarded an annex target.xml does not include: %q", p)
			}
		}
		rd := rsp.NewRequestReader(&out, maxRequest)
		for {
			req, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("relay output is not framed: %v (%q)", err, out.String())
			}
			if req.Kind == rsp.RequestPacket && !req.ChecksumOK {
				t.Fatalf("relay wrote a bad checksum (%q)", out.String())
			}
			if req.Kind == rsp.RequestInterrupt {
				t.Fatalf("relay wrote an interrupt byte (%q)", out.String())
			}
		}
	})
}

// TestRelayTdescAnnexes: only target.xml and the files it (transitively)
// includes are forwarded; rr exits on any other annex.
func TestRelayTdescAnnexes(t *testing.T) {
	be := &fakeBackend{replies: map[string]string{
		"qXfer:features:read:target.xml:0,ffb":     `m<target><xi:include href="64bit-co`,
		"qXfer:features:read:target.xml:24,ffb":    `lre.xml"/><xi:include href='64bit-sse.xml'/></target>`,
		"qXfer:features:read:64bit-core.xml:0,ffb": `l<feature><xi:include href="nested.xml"/></feature>`,
		"qXfer:features:read:64bit-sse.xml:0,ffb":  `l<feature/>`,
		"qXfer:features:read:nested.xml:0,ffb":     `l<feature/>`,
	}}
	r := newRelay(t, Config{Forward: be.forward})
	c := dial(t, r)
	steps := []struct{ annex, off, want string }{
		{"64bit-core.xml", "0", "E01"}, // not referenced yet
		{"target.xml", "0", `m<target><xi:include href="64bit-co`},
		{"target.xml", "24", `lre.xml"/><xi:include href='64bit-sse.xml'/></target>`},
		{"64bit-core.xml", "0", `l<feature><xi:include href="nested.xml"/></feature>`}, // href split across chunks
		{"64bit-sse.xml", "0", `l<feature/>`},
		{"nested.xml", "0", `l<feature/>`},
		{"other.xml", "0", "E01"},
	}
	for _, s := range steps {
		c.write(frame("qXfer:features:read:" + s.annex + ":" + s.off + ",ffb"))
		c.expect("+")
		if got := c.reply(); got != s.want {
			t.Errorf("%s at %s: %q, want %q", s.annex, s.off, got, s.want)
		}
	}
	want := []string{"target.xml:0", "target.xml:24", "64bit-core.xml:0", "64bit-sse.xml:0", "nested.xml:0"}
	for i := range want {
		want[i] = "qXfer:features:read:" + want[i] + ",ffb"
	}
	if got := be.packets(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("forwarded %q, want %q", got, want)
	}
}
