package rsp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestTracepointPackets(t *testing.T) {
	tests := []struct {
		name string
		tp   Tracepoint
		want []string
	}{
		{"bare", Tracepoint{Number: 1, Addr: 0x401136, Enabled: true},
			[]string{"QTDP:1:401136:E:0:0"}},
		{"disabled pass cond", Tracepoint{Number: 2, Addr: 0x10, Pass: 100, Cond: []byte{0x22, 1, 0x27}},
			[]string{"QTDP:2:10:D:0:64:X3,220127"}},
		{"actions", Tracepoint{Number: 0x1f, Addr: 0x10, Enabled: true, Registers: true,
			Memory: []TraceMemory{{Addr: 0x4000, Len: 8}}, Exprs: [][]byte{{0x26, 0, 7, 0x27}}},
			[]string{"QTDP:1f:10:E:0:0-", "QTDP:-1f:10:R1-", "QTDP:-1f:10:M-1,4000,8-", "QTDP:-1f:10:X4,26000727"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tp.packets(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("packets = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseTraceStatus(t *testing.T) {
	tests := []struct {
		in      string
		want    TraceStatus
		wantErr bool
	}{
		// gdbserver 13, a run stopped by the pass count of #1 (seen live).
		{"T0;tpasscount:1;tframes:5;tcreated:5;tfree:4fcf77;tsize:500000;circular:0;disconn:0;starttime:6123a1b2c3d4e;stoptime:6123a1b2c3d99;username::notes::",
			TraceStatus{StopReason: "tpasscount", StopTracepoint: 1, Frames: 5, Created: 5, Free: 0x4fcf77, Size: 0x500000}, false},
		{"T1;tnotrun:0;tframes:2710;tcreated:2710;tfree:0;tsize:500000;circular:1;disconn:0",
			TraceStatus{Running: true, Frames: 0x2710, Created: 0x2710, Free: 0, Size: 0x500000, Circular: true}, false},
		{"T0;tnotrun:0", TraceStatus{StopReason: "tnotrun", Frames: -1, Created: -1, Free: -1, Size: -1}, false},
		{"T0;tstop::0;tframes:0", TraceStatus{StopReason: "tstop", Frames: 0, Created: -1, Free: -1, Size: -1}, false},
		{"T0;terror:6261642072656164:3;tframes:1",
			TraceStatus{StopReason: "terror", StopError: "bad read", StopTracepoint: 3, Frames: 1, Created: -1, Free: -1, Size: -1}, false},
		{"T0;tfull:0;newfield:zz", TraceStatus{StopReason: "tfull", Frames: -1, Created: -1, Free: -1, Size: -1}, false},
		{"", TraceStatus{}, true},
		{"T2", TraceStatus{}, true},
		{"T0;tframes:xyz", TraceStatus{}, true},
		{"T0;terror:zz:1", TraceStatus{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTraceStatus(tt.in)
		if tt.wantErr {
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("ParseTraceStatus(%q) error = %v, want a *ProtocolError", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseTraceStatus(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// frame builds a little-endian trace frame of tracepoint tp.
func frame(tp uint16, blocks ...[]byte) []byte {
	data := bytes.Join(blocks, nil)
	b := binary.LittleEndian.AppendUint16(nil, tp)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

func mblock(addr uint64, data ...byte) []byte {
	b := append([]byte{'M'}, binary.LittleEndian.AppendUint64(nil, addr)...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

func vblock(n int32, v int64) []byte {
	b := append([]byte{'V'}, binary.LittleEndian.AppendUint32(nil, uint32(n))...)
	return binary.LittleEndian.AppendUint64(b, uint64(v))
}

func TestParseTraceFrames(t *testing.T) {
	regs := []byte{'R', 1, 2, 3, 4}
	tests := []struct {
		name    string
		buf     []byte
		want    []TraceFrame
		wantErr bool
	}{
		{"empty", nil, nil, false},
		{"regs memory var", frame(1, regs, mblock(0x1000, 9, 8), vblock(2, -5)),
			[]TraceFrame{{Tracepoint: 1, Registers: []byte{1, 2, 3, 4}, Memory: []TraceBlock{{0x1000, []byte{9, 8}}}, Vars: map[int]int64{2: -5}}}, false},
		{"two frames then end", append(append(frame(1, vblock(1, 7)), frame(3)...), frame(0)...),
			[]TraceFrame{{Tracepoint: 1, Vars: map[int]int64{1: 7}}, {Tracepoint: 3}}, false},
		{"truncated header", []byte{1, 0, 4}, nil, true},
		{"frame past the end", frame(1, vblock(1, 7))[:10], nil, true},
		{"truncated registers", frame(1, []byte{'R', 1}), nil, true},
		{"truncated memory", frame(1, mblock(0x10, 1, 2, 3)[:12]), nil, true},
		{"truncated var", frame(1, vblock(1, 1)[:8]), nil, true},
		{"unknown block", frame(1, []byte{'Q'}), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTraceFrames(tt.buf, 4, binary.LittleEndian)
			if tt.wantErr {
				var pe *ProtocolError
				if !errors.As(err, &pe) {
					t.Errorf("error = %v, want a *ProtocolError", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTraceFrames = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestTraceFrameReadMemory(t *testing.T) {
	f := TraceFrame{Memory: []TraceBlock{{0x100, []byte{1, 2, 3, 4}}, {0x104, []byte{5, 6}}, {0x200, []byte{9}}}}
	tests := []struct {
		addr uint64
		n    int
		want []byte
		ok   bool
	}{
		{0x100, 4, []byte{1, 2, 3, 4}, true},
		{0x102, 4, []byte{3, 4, 5, 6}, true}, // across two blocks
		{0x105, 2, nil, false},               // runs past the collected bytes
		{0xff, 1, nil, false},
		{0x200, 1, []byte{9}, true},
		{0x1ff, 2, nil, false},
	}
	for _, tt := range tests {
		p := make([]byte, tt.n)
		ok := f.ReadMemory(tt.addr, p)
		if ok != tt.ok || ok && !bytes.Equal(p, tt.want) {
			t.Errorf("ReadMemory(%#x, %d) = %v, %v; want %v, %v", tt.addr, tt.n, p, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseTraceStatus(f *testing.F) {
	f.Add("T0;tpasscount:1;tframes:5;tcreated:5;tfree:4fcf77;tsize:500000;circular:0")
	f.Add("T0;terror:6261642072656164:3")
	f.Add("T1;tnotrun:0")
	f.Fuzz(func(t *testing.T, s string) {
		ParseTraceStatus(s) //nolint:errcheck
	})
}

func FuzzParseTraceFrames(f *testing.F) {
	f.Add(frame(1, []byte{'R', 1, 2, 3, 4}, mblock(0x1000, 9, 8), vblock(2, -5)), 4)
	f.Add(append(frame(2, vblock(1, 7)), frame(0)...), 0)
	f.Fuzz(func(t *testing.T, buf []byte, regSize int) {
		frames, err := ParseTraceFrames(buf, regSize%4096, binary.LittleEndian)
		if err != nil {
			return
		}
		for _, fr := range frames {
			if fr.Tracepoint == 0 {
				t.Fatal("a frame of tracepoint 0")
			}
			for _, b := range fr.Memory {
				p := make([]byte, len(b.Data))
				if !fr.ReadMemory(b.Addr, p) {
					t.Fatalf("block at %#x not readable back", b.Addr)
				}
			}
		}
	})
}
