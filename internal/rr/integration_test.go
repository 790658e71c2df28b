package rr_test

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
	syms "github.com/rrmcp/rrmcp/symbols"
)

// TestRRReverseWatchpoint is the end-to-end rr test: record testprogs'
// counter, serve the trace with `rr replay -s 0`, drive it with rsp (rr
// dialect), run to the end, set a hardware write watchpoint on the global
// `hits` and reverse-continue to its last write. It needs a machine where
// rr can record (testenv.RR skips elsewhere, with the probe's reason; with
// RRMCP_REQUIRE_RR=1 it fails instead).
//
// Expected rr behaviour (docs/rr-rsp.md): forward to the end gives T09 (the
// last thread is about to exit; reverse still possible, §5.2); a reverse
// watchpoint stop is T05 with watch:<address as set>, before the writing
// instruction, so memory still holds the old value (§6.4): 9999, since
// hit() runs hits++ 10,000 times; and the event number (qRRCmd when, §9)
// is smaller there than at the exit, because printf's writes and the exit
// are events.
func TestRRReverseWatchpoint(t *testing.T) {
	testenv.RR(t, rr.Probe)
	prog := testenv.Prog(t, "counter")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	trace := filepath.Join(t.TempDir(), "counter-trace")
	res, err := rr.Record(ctx, rr.RecordOptions{Argv: []string{prog}, TraceDir: trace})
	if err != nil {
		t.Fatal(err)
	}
	dir := res.TraceDir
	if res.ExitStatus != 0 || dir != trace || !rr.IsTraceDir(dir) {
		t.Fatalf("rr record: dir %q status %d", dir, res.ExitStatus)
	}
	ps, err := rr.PS(ctx, "", dir)
	if err != nil || len(ps) == 0 {
		t.Fatalf("rr ps: %v %v", ps, err)
	}

	rep, err := rr.StartReplay(ctx, rr.ReplayOptions{TraceDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rep.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if filepath.Base(rep.ExePath()) != "counter" {
		t.Errorf("rr printed exe %q", rep.ExePath())
	}
	c, err := rsp.Dial(ctx, rep.Addr(), rsp.Options{Dialect: rsp.DialectRR, RRVersion: rep.Version()})
	if err != nil {
		t.Fatalf("dial %s: %v\nrr output:\n%s", rep.Addr(), err, rep.Output(20))
	}
	defer c.Detach(ctx) //nolint:errcheck // rr exits after D; Stop reaps it
	if !c.NoAckMode() || !c.Supports("ReverseContinue") {
		t.Fatalf("rr handshake: noack %v features %v", c.NoAckMode(), c.Features())
	}

	hitsAddr := testenv.Symbol(t, prog, "hits").Value
	hit := testenv.Symbol(t, prog, "hit")
	hitLo, hitHi := hit.Value, hit.Value+hit.Size
	base := loadBias(ctx, t, c, prog)
	hitsAddr, hitLo, hitHi = hitsAddr+base, hitLo+base, hitHi+base

	st, err := c.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.AboutToExit {
		t.Fatalf("continue to the end: %v (%q), want T09", st, st.Raw)
	}
	endEvent, err := c.When(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if err := c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, hitsAddr, 4); err != nil {
		t.Fatal(err)
	}
	st, err = c.ReverseContinue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Watch != rsp.WatchWrite || st.WatchAddr != hitsAddr || st.Direction != rsp.Reverse || st.AtHistoryStart {
		t.Fatalf("reverse-continue: %v (%q), want watch:%x", st, st.Raw, hitsAddr)
	}
	if st.Thread.Tid == 0 || st.Thread.Pid != c.Pid() {
		t.Errorf("stop thread %v, want a thread of process %x", st.Thread, c.Pid())
	}
	pc, err := c.ReadRegisterUint(ctx, st.Thread, "rip")
	if err != nil {
		t.Fatal(err)
	}
	if pc < hitLo || pc >= hitHi {
		t.Errorf("reverse watchpoint stop at pc %#x, outside hit() [%#x,%#x)", pc, hitLo, hitHi)
	}
	var b [4]byte
	if _, err := c.ReadMemory(ctx, hitsAddr, b[:]); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(b[:]); v != 9999 {
		t.Errorf("hits = %d at the reverse stop, want 9999 (rr stops before the write)", v)
	}
	ev, err := c.When(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev >= endEvent {
		t.Errorf("when: %d at the last write of hits, %d at the exit; want it smaller", ev, endEvent)
	}
	if err := c.RemoveBreakpoint(ctx, rsp.WriteWatchpoint, hitsAddr, 4); err != nil {
		t.Error(err)
	}
}

// loadBias is where the (PIE) program was loaded: AT_ENTRY minus the ELF entry.
func loadBias(ctx context.Context, t *testing.T, c *rsp.Client, prog string) uint64 {
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, err := c.Auxv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	av, err := syms.ParseAuxv(raw, 8, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := av[syms.AT_ENTRY]
	if !ok {
		t.Fatal("no AT_ENTRY in auxv")
	}
	return e - f.Entry
}
