package rsp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestRequestReader(t *testing.T) {
	type item struct {
		kind    RequestKind
		payload string
		ok      bool
	}
	tests := []struct {
		name string
		in   string
		want []item
		err  error // after the items
	}{
		{"packet", "$m1000,4#" + sum("m1000,4"), []item{{RequestPacket, "m1000,4", true}}, io.EOF},
		{"acks and interrupt", "+-\x03", []item{{RequestAck, "", false}, {RequestNak, "", false}, {RequestInterrupt, "", false}}, io.EOF},
		{"junk skipped", "xyz$g#67", []item{{RequestPacket, "g", true}}, io.EOF},
		{"bad checksum", "$g#00$g#67", []item{{RequestPacket, "", false}, {RequestPacket, "g", true}}, io.EOF},
		{"checksum not hex", "$g#zz+", []item{{RequestPacket, "", false}, {RequestAck, "", false}}, io.EOF},
		{"restart inside a packet", "$m10$g#67", []item{{RequestPacket, "g", true}}, io.EOF},
		{"escapes undone", "$X0,1:}]#" + sum("X0,1:}]"), []item{{RequestPacket, "X0,1:}", true}}, io.EOF},
		{"notification ignored", "%Stop:T05#" + sum("Stop:T05") + "+", []item{{RequestAck, "", false}}, io.EOF},
		{"cut inside a frame", "$m1000", nil, io.ErrUnexpectedEOF},
		{"too long", "$" + strings.Repeat("a", 100) + "#00", nil, &ProtocolError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte a read: every frame arrives in pieces.
			rd := NewRequestReader(iotest.OneByteReader(strings.NewReader(tt.in)), 64)
			for i, w := range tt.want {
				req, err := rd.Next()
				if err != nil {
					t.Fatalf("item %d: %v", i, err)
				}
				got := item{req.Kind, string(req.Payload), req.ChecksumOK}
				if got != w {
					t.Fatalf("item %d = %+v, want %+v", i, got, w)
				}
			}
			_, err := rd.Next()
			var pe *ProtocolError
			switch {
			case errors.As(tt.err, &pe):
				if !errors.As(err, &pe) {
					t.Fatalf("end: %v, want a *ProtocolError", err)
				}
			case !errors.Is(err, tt.err):
				t.Fatalf("end: %v, want %v", err, tt.err)
			}
		})
	}
}

func sum(p string) string {
	f := AppendFrame(nil, []byte(p))
	return string(f[len(f)-2:])
}

// A stub reads its debugger's requests with a RequestReader and frames
// its replies with AppendFrame.
func ExampleRequestReader() {
	rd := NewRequestReader(strings.NewReader("+$qC#b4\x03"), 4096)
	for {
		req, err := rd.Next()
		if err != nil {
			fmt.Println(err)
			return
		}
		switch req.Kind {
		case RequestPacket:
			fmt.Printf("packet %q, checksum ok %v; reply %s\n", req.Payload, req.ChecksumOK, AppendFrame(nil, []byte("QCp1.1")))
		case RequestInterrupt:
			fmt.Println("interrupt")
		default:
			fmt.Printf("%c\n", req.Kind)
		}
	}
	// Output:
	// +
	// packet "qC", checksum ok true; reply $QCp1.1#94
	// interrupt
	// EOF
}
