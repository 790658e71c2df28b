package rsp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestDecodePacket(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		want     string
		consumed int
		err      string // substring; "" = no error; "EOF" = incomplete
	}{
		{"plain", "$OK#9a", "OK", 6, ""},
		{"ack before", "+$OK#9a", "OK", 7, ""},
		{"junk before", "xx$OK#9a", "OK", 8, ""},
		{"empty", "$#00", "", 4, ""},
		{"uppercase checksum", "$OK#9A", "OK", 6, ""},
		{"rle 16 zeros", "$0*,#" + cs("0*,"), "0000000000000000", 7, ""},
		{"rle gdbserver stop", "$T0506:0*,;07:20e6f*\"7f0* ;#" + cs("T0506:0*,;07:20e6f*\"7f0* ;"),
			"T0506:0000000000000000;07:20e6ffffff7f0000;", 0, ""},
		{"notification", "%Stop:T05#" + cs("Stop:T05"), "Stop:T05", 0, ""},
		{"restart on $", "$junk$OK#9a", "OK", 11, ""},
		{"bad checksum", "$OK#00", "", 6, "checksum"},
		{"bad checksum digits", "$OK#zz", "", 6, "checksum digits"},
		{"incomplete", "$OK#9", "", 0, "EOF"},
		{"incomplete payload", "$OK", "", 0, "EOF"},
		{"rle at start", "$*#" + cs("*"), "", 0, "start"},
		{"rle without count", "$0*#" + cs("0*"), "", 0, "without count"},
		{"rle bad count", "$0*\x01#" + cs("0*\x01"), "", 0, "count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkt, err := decodePacket([]byte(tc.in))
			got, n := pkt.payload, pkt.consumed
			switch {
			case tc.err == "EOF":
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("err = %v, want incomplete", err)
				}
				return
			case tc.err != "":
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.err)) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("payload = %q, want %q", got, tc.want)
			}
			if tc.consumed != 0 && n != tc.consumed {
				t.Errorf("consumed %d, want %d", n, tc.consumed)
			}
		})
	}
}

func cs(p string) string {
	var s byte
	for i := 0; i < len(p); i++ {
		s += p[i]
	}
	return string([]byte{hexDigits[s>>4], hexDigits[s&15]})
}

func TestEscapeRoundTrip(t *testing.T) {
	in := []byte{'}', '#', '$', '*', 0, 0xff, 'a', 0x03}
	esc := AppendEscaped(nil, in)
	if bytes.ContainsAny(esc, "#$*") {
		t.Fatalf("escaped data still has specials: %q", esc)
	}
	out, err := unescapeBinary(esc)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip = %q, %v", out, err)
	}
	if _, err := unescapeBinary([]byte("ab}")); err == nil {
		t.Error("trailing escape accepted")
	}
}

func FuzzDecodePacket(f *testing.F) {
	for _, s := range []string{
		"$OK#9a", "+$OK#9a", "$0*,#" + cs("0*,"),
		// Real gdbserver 13.1 replies (peers.md §1.3/§1.4), RLE included.
		"$T0506:0*,;07:20e6f*\"7f0* ;thread:p1cd6.1cd6;core:0;#" + cs("T0506:0*,;07:20e6f*\"7f0* ;thread:p1cd6.1cd6;core:0;"),
		"$T05watch:0*&4a62d0;06:a0e6ffffff7f0000;thread:p1cd6.1cd6;core:0;#" + cs("T05watch:0*&4a62d0;06:a0e6ffffff7f0000;thread:p1cd6.1cd6;core:0;"),
		"$W7;process:1cd6#" + cs("W7;process:1cd6"),
		"$PacketSize=47ff;QPassSignals+;qXfer:features:read+;QStartNoAckMode+#" + cs("PacketSize=47ff;QPassSignals+;qXfer:features:read+;QStartNoAckMode+"),
		// rr: binary qXfer with escapes; QEMU: ack then reply.
		"$l}]}\x03}\x04}\x0a#" + cs("l}]}\x03}\x04}\x0a"),
		"+$T05thread:p01.01;#" + cs("T05thread:p01.01;"),
		"%Stop:T05#" + cs("Stop:T05"), "$a$b#62", "$*#2a", "$x*\x7f#00", "$#",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pkt, err := decodePacket(b)
		p, n := pkt.payload, pkt.consumed
		if n < 0 || n > len(b) {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		if err == nil {
			// A run of k bytes expands to at most k*98 bytes.
			if len(p) > 98*len(b) {
				t.Fatalf("payload %d bytes from %d input bytes", len(p), len(b))
			}
			if _, err := unescapeBinary(p); err != nil && !bytes.HasSuffix(p, []byte("}")) {
				t.Fatalf("unescape: %v", err)
			}
		}
		// Whatever the payload, framing it and decoding gives it back
		// (payloads never contain raw '#', '$' or '*' once escaped).
		esc := AppendEscaped(nil, b)
		pkt, err = decodePacket(AppendFrame(nil, esc))
		out, n2 := pkt.payload, pkt.consumed
		if err != nil || n2 != len(esc)+4 {
			t.Fatalf("round trip of %q: %v (consumed %d)", b, err, n2)
		}
		back, err := unescapeBinary(out)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("round trip of %q gave %q, %v", b, back, err)
		}
	})
}

func TestDecodeMemReply(t *testing.T) {
	var rspErr *Error
	for _, tc := range []struct {
		reply   string
		want    int
		n       int
		wantErr func(error) bool
	}{
		{"01020304", 4, 4, nil},
		{"0102", 4, 2, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"E01", 4, 0, func(err error) bool { return errors.As(err, &rspErr) }},
		{"", 4, 0, func(err error) bool { return errors.Is(err, ErrUnsupported) }},
		{"0102030405", 4, 0, func(err error) bool { var pe *ProtocolError; return errors.As(err, &pe) }},
		{"010", 4, 0, func(err error) bool { var pe *ProtocolError; return errors.As(err, &pe) }},
		{"zz", 4, 0, func(err error) bool { var pe *ProtocolError; return errors.As(err, &pe) }},
	} {
		p := make([]byte, tc.want)
		n, err := decodeMemReply("m1000,4", []byte(tc.reply), 0x1000, p)
		if n != tc.n || (tc.wantErr == nil) != (err == nil) || (err != nil && !tc.wantErr(err)) {
			t.Errorf("reply %q: %d bytes, %v; want %d bytes", tc.reply, n, err, tc.n)
		}
	}
}

func TestAppendPrintable(t *testing.T) {
	long := strings.Repeat("a", maxLogPayload+5)
	for _, tc := range []struct{ in, want string }{
		{"m1000,4", "m1000,4"},
		{"", ""},
		{"T05\x00x", `"T05\x00x"`},
		{long, long[:maxLogPayload] + "…(" + strconv.Itoa(len(long)) + " bytes)"},
		{"\xff" + long, strconv.QuoteToASCII(("\xff" + long)[:maxLogPayload]) + "…(" + strconv.Itoa(len(long)+1) + " bytes)"},
	} {
		if got := string(appendPrintable([]byte("> "), []byte(tc.in), len(tc.in))); got != "> "+tc.want {
			t.Errorf("appendPrintable(%.20q) = %.60q, want %.60q", tc.in, got, "> "+tc.want)
		}
		if got := printable([]byte(tc.in)); got != tc.want {
			t.Errorf("printable(%.20q) = %.60q", tc.in, got)
		}
	}
}

// FuzzDecodeRLE checks decodeRLE against the rule written out a byte at a
// time (gdb's read_frame): "*" and a count c repeat the previous decoded
// byte c-29 more times; a marker first, last or with a count outside
// ' '..'~' is an error.
func FuzzDecodeRLE(f *testing.F) {
	for _, s := range []string{"0*,", "0*,;07:20e6f*\"7f0* ;", "a**", "*a", "a*", "a*\x1c", "ab*!c*\"d", "x*~"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var want []byte
		ok := true
		for i := 0; i < len(p); i++ {
			if p[i] != '*' {
				want = append(want, p[i])
				continue
			}
			if len(want) == 0 || i+1 >= len(p) || p[i+1] < 29 || p[i+1] > 126 {
				ok = false
				break
			}
			want = append(want, bytes.Repeat(want[len(want)-1:], int(p[i+1])-29)...)
			i++
		}
		got, err := decodeRLE(bytes.Clone(p))
		if (err == nil) != ok {
			t.Fatalf("decodeRLE(%q): err %v, reference ok %v", p, err, ok)
		}
		if ok && !bytes.Equal(got, want) {
			t.Fatalf("decodeRLE(%q) = %q, want %q", p, got, want)
		}
	})
}

// FuzzScanFrame checks scanFrame against the rule written out a byte at a
// time (scanFrameRule): the same kind, payload, checksum verdict,
// consumed and junk counts and error for any input, with a frame limit
// small enough to be reached.
func FuzzScanFrame(f *testing.F) {
	for _, s := range []string{"$OK#9a", "+$OK#9a", "junk$a$b#62", "%Stop:T05#" + cs("Stop:T05"), "$0123456789abcdef0123#00", "$#", "$ab#z1", "$abc", "\x03$a#61"} {
		f.Add([]byte(s), uint8(8))
		f.Add([]byte(s), uint8(200))
	}
	f.Fuzz(func(t *testing.T, b []byte, max uint8) {
		k, p, ok, n, junk, err := scanFrame(b, int(max))
		wk, wp, wok, wn, wjunk, werr := scanFrameRule(b, int(max))
		if k != wk || !bytes.Equal(p, wp) || ok != wok || n != wn || junk != wjunk || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("scanFrame(%q, %d) = %v %q %v %d %d %v; the rule: %v %q %v %d %d %v", b, max, k, p, ok, n, junk, err, wk, wp, wok, wn, wjunk, werr)
		}
	})
}

// scanFrameRule is scanFrame written as a state machine over one byte at
// a time: outside a frame, or inside the frame that starts at start.
func scanFrameRule(b []byte, max int) (kind frameKind, payload []byte, csOK bool, consumed, junk int, err error) {
	start := -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		if start < 0 {
			if k, single := map[byte]frameKind{'+': frameAck, '-': frameNak, interruptCh: frameInterrupt}[c]; single {
				return k, nil, false, i + 1, junk, nil
			}
			if c == '$' || c == '%' {
				start = i
			} else {
				junk++
			}
			continue
		}
		switch {
		case c == '$': // a new frame: the one before was junk
			junk += i - start
			start = i
		case c == '#' && i+2 >= len(b):
			return frameNone, nil, false, start, junk, nil
		case c == '#':
			digits := b[i+1 : i+3]
			want, derr := strconv.ParseUint(string(digits), 16, 8)
			if derr != nil || digits[0] == '+' || digits[0] == '-' {
				return frameNone, nil, false, i + 3, junk, fmt.Errorf("%w %q", errChecksumDigits, digits)
			}
			sum := 0
			for _, d := range b[start+1 : i] {
				sum = (sum + int(d)) % 256
			}
			k := framePacket
			if b[start] == '%' {
				k = frameNotify
			}
			return k, b[start+1 : i], sum == int(want), i + 3, junk, nil
		case i-start > max:
			return frameNone, nil, false, i, junk, fmt.Errorf("frame longer than %d bytes", max)
		}
	}
	if start >= 0 {
		return frameNone, nil, false, start, junk, nil
	}
	return frameNone, nil, false, len(b), junk, nil
}

// BenchmarkDecodePacket frames what the first look after a stop reads (a
// 800-byte g reply and a 2 KiB m reply from the top of the stack, about
// 6 KB of hex) and decodes it as readPacket does.
func BenchmarkDecodePacket(b *testing.B) {
	g, stack := make([]byte, 800), make([]byte, 2048)
	for i := range stack {
		stack[i] = byte(i * 7)
	}
	copy(g, stack)
	buf := AppendFrame(nil, []byte(hex.EncodeToString(g)))
	buf = AppendFrame(buf, []byte(hex.EncodeToString(stack)))
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		p, err := decodePacket(buf)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := decodePacket(buf[p.consumed:]); err != nil {
			b.Fatal(err)
		}
	}
}
