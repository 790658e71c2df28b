package rsp_test

import (
	"encoding/binary"
	"testing"

	"github.com/rrmcp/rrmcp/rsp"
)

// TestGDBServerTracepoint runs a tracepoint on counter's hit(i) against
// the real gdbserver: pass count 5, registers, a stack window through an
// X action and a global through an M action; the frames decode and
// carry what the program had.
func TestGDBServerTracepoint(t *testing.T) {
	tg := gsStart(t, "counter")
	ctx := gsCtx(t)
	c := tg.c
	if !c.SupportsTracepoints() {
		t.Skipf("gdbserver does not advertise Tracepoints+: %v", c.Features())
	}
	hit, hits := tg.sym("hit"), tg.sym("hits")
	rsp7, _ := c.Target().Lookup("rsp")
	x := []byte{0x26, 0, byte(rsp7.Regnum), 0x22, 0, 0x02, 0x22, 32, 0x0c, 0x27}
	tp := rsp.Tracepoint{Number: 1, Addr: hit, Enabled: true, Pass: 5, Registers: true,
		Memory: []rsp.TraceMemory{{Addr: hits, Len: 4}}, Exprs: [][]byte{x}}
	if err := c.DefineTraceRun(ctx, rsp.TraceRun{Tracepoints: []rsp.Tracepoint{tp}}); err != nil {
		t.Fatal(err)
	}
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, tg.sym("chain"), 1); err != nil {
		t.Fatal(err)
	}
	if err := c.TraceStart(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stop %+v", st.Raw)
	ts, err := c.TraceStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %+v", ts)
	if ts.Running || ts.StopReason != "tpasscount" || ts.StopTracepoint != 1 || ts.Frames != 5 {
		t.Errorf("status = %+v, want stopped by the pass count of #1 with 5 frames", ts)
	}
	buf, err := c.TraceBuffer(ctx, ts.Used())
	if err != nil {
		t.Fatal(err)
	}
	regSize := c.Target().Size
	t.Logf("buffer %d bytes, g size %d", len(buf), regSize)
	frames, err := rsp.ParseTraceFrames(buf, regSize, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 5 {
		t.Fatalf("%d frames, want 5", len(frames))
	}
	rip, _ := c.Target().Lookup("rip")
	for i, f := range frames {
		pc := binary.LittleEndian.Uint64(f.Registers[rip.Offset:])
		sp := binary.LittleEndian.Uint64(f.Registers[rsp7.Offset:])
		var b [4]byte
		if !f.ReadMemory(hits, b[:]) || binary.LittleEndian.Uint32(b[:]) != uint32(i) {
			t.Errorf("frame %d: hits = %v, want %d", i, b, i)
		}
		var w [32]byte
		if pc != hit || !f.ReadMemory(sp, w[:]) || f.ReadMemory(sp-1, w[:1]) {
			t.Errorf("frame %d: pc %#x (want %#x), stack window at %#x: %+v", i, pc, hit, sp, f.Memory)
		}
	}
	if err := c.TraceStop(ctx); err != nil {
		t.Fatal(err)
	}
}
