package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// ftraceCollects are the collect expressions of ftrace's tick(int i,
// long v, struct pt *p): parameters, a global array's element through
// a pointer, and globals.
var ftraceCollects = []string{"i", "v", "p", "p->x", "*p", "ticks", "sum", "pts[2]"}

// ipaSession starts ftrace under gdbserver, with the in-process agent
// when ipa; it skips where gdbserver or the agent is missing.
func ipaSession(t *testing.T, ipa bool) *Session { return ipaProg(t, "ftrace", ipa) }

// ipaProg is ipaSession running prog.
func ipaProg(t *testing.T, prog string, ipa bool) *Session {
	t.Helper()
	testenv.NeedTool(t, "gdbserver")
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{testenv.Prog(t, prog)}, InProcessAgent: ipa})
	var ae *ArgError
	if errors.As(err, &ae) && ae.Arg == "in_process_agent" {
		t.Skip("SKIP(no in-process agent): " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFastTraceQueryMatchesBreakpoints: with the in-process agent, the
// rows of tick's 3,000 calls come from a fast tracepoint and equal the
// breakpoint path's, and each query ends as the breakpoint path does,
// stopped at its last row; a cut query (limit, cursor) continues where
// it stopped.
func TestFastTraceQueryMatchesBreakpoints(t *testing.T) {
	fs, bs := ipaSession(t, true), ipaSession(t, false)
	var fast, bp []QueryRow
	for _, page := range []struct{ cursor, limit int }{{1, 1000}, {1001, 1999}} {
		start := time.Now()
		f := traceQuery(t, fs, QueryOptions{Kind: "calls", Function: "tick", Collect: ftraceCollects, Limit: page.limit, Cursor: page.cursor, traceChunk: 700})
		ft := time.Since(start)
		start = time.Now()
		b := traceQuery(t, bs, QueryOptions{Kind: "calls", Function: "tick", Collect: ftraceCollects, Limit: page.limit, Cursor: page.cursor, Mechanism: "breakpoint"})
		t.Logf("page at %d: fast tracepoint %d rows in %v, breakpoints %d rows in %v (loaded machine)", page.cursor, len(f.Rows), ft, len(b.Rows), time.Since(start))
		if f.Mechanism != "fast tracepoint" {
			t.Fatalf("mechanism %q (%s), want fast tracepoint", f.Mechanism, f.MechanismNote)
		}
		if f.Ended != b.Ended || f.More != b.More || f.NextCursor != b.NextCursor || f.Note != b.Note {
			t.Errorf("fast ended %q more %v next %d note %q; breakpoints %q %v %d %q", f.Ended, f.More, f.NextCursor, f.Note, b.Ended, b.More, b.NextCursor, b.Note)
		}
		if f.Stop == nil || b.Stop == nil || !reflect.DeepEqual(f.Stop.Frame, b.Stop.Frame) || f.Stop.Reason != b.Stop.Reason {
			t.Errorf("final stops differ: fast %+v, breakpoints %+v", f.Stop, b.Stop)
		}
		fast, bp = append(fast, f.Rows...), append(bp, b.Rows...)
	}
	if len(fast) != 2999 || len(bp) != 2999 {
		t.Fatalf("%d and %d rows, want 2999", len(fast), len(bp))
	}
	for i := range fast {
		if !reflect.DeepEqual(fast[i], bp[i]) {
			t.Fatalf("row %d differs:\nfast tracepoint %+v %+v\nbreakpoint      %+v %+v", i+1, fast[i], fast[i].Frame, bp[i], bp[i].Frame)
		}
	}
	if r := fast[2].Values; r["i"] != "2" || r["v"] != "15838" || r["ticks"] != "2" {
		t.Errorf("row 3 values %v", r)
	}
	if fs.ipaAsked == 0 {
		t.Errorf("gdbserver asked for no symbol")
	}
}

// TestFastTraceQueryMultiInstruction: tock's first instruction (3
// bytes) is too short for the jump alone, and the next one moves into the
// jump pad with it (where GDB gives up): its 30 calls come from a fast
// tracepoint, in chunks (each run starts with the thread stopped at the
// tracepoint, which is stepped out of the moved instructions first), and
// equal the breakpoint path's rows; the program runs to its end as
// without it.
func TestFastTraceQueryMultiInstruction(t *testing.T) {
	fs, bs := ipaSession(t, true), ipaSession(t, false)
	collect := []string{"i", "sum", "ticks"}
	f := traceQuery(t, fs, QueryOptions{Kind: "calls", Function: "tock", Collect: collect, Limit: 40, traceChunk: 7})
	b := traceQuery(t, bs, QueryOptions{Kind: "calls", Function: "tock", Collect: collect, Limit: 40, Mechanism: "breakpoint"})
	if f.Mechanism != "fast tracepoint" {
		t.Fatalf("mechanism %q (%s), want fast tracepoint", f.Mechanism, f.MechanismNote)
	}
	if len(f.Rows) != 30 || len(b.Rows) != 30 || f.Ended != b.Ended {
		t.Fatalf("fast %d rows (%s, %s), breakpoints %d (%s)", len(f.Rows), f.Ended, f.Note, len(b.Rows), b.Ended)
	}
	for i := range f.Rows {
		if !reflect.DeepEqual(f.Rows[i], b.Rows[i]) {
			t.Fatalf("row %d differs:\nfast tracepoint %+v\nbreakpoint      %+v", i+1, f.Rows[i], b.Rows[i])
		}
	}
	if r := f.Rows[29].Values; r["i"] != "2900" || r["ticks"] != "2901" {
		t.Errorf("row 30 values %v", r)
	}
	if f.Ended != "exited" {
		t.Fatalf("the query ended %q, want at the program's exit (no 31st call)", f.Ended)
	}
	out, err := fs.Output(t.Context(), "stdout", 0, 0)
	if err != nil || !strings.Contains(out.Text, "ticks 3000 sum 41636175000") {
		t.Errorf("the program's output after the query: %+v %v", out, err)
	}
}

// TestFastTraceQueryFallbacks: spin's first instruction is its loop's
// 2-byte jump, and the loop comes back 2 bytes in: nothing there can
// move into a jump pad, and a trap tracepoint collects, with the note
// saying why; a leaf function is refused for its red zone; without the
// agent nothing says anything about fast tracepoints.
func TestFastTraceQueryFallbacks(t *testing.T) {
	s := ipaSession(t, true)
	res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "spin", Collect: []string{"n"}, Limit: 10})
	if res.Mechanism != "tracepoint" || !strings.Contains(res.MechanismNote, "is 2 bytes, shorter than a fast tracepoint's 5-byte jump") ||
		!strings.Contains(res.MechanismNote, "cannot move: instruction 1 (JMP) transfers control") || len(res.Rows) != 10 || res.Rows[9].Values["n"] != "2" {
		t.Errorf("spin: %s (%s), %d rows %v", res.Mechanism, res.MechanismNote, len(res.Rows), res.Rows)
	}
	// tracecalls' record is a leaf whose first instruction (calls++)
	// is 6 bytes: the red zone keeps it off the jump pad.
	s = ipaProg(t, "tracecalls", true)
	res = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: []string{"i"}, Limit: 10})
	if res.Mechanism != "tracepoint" || !strings.Contains(res.MechanismNote, "record calls no function, so it may keep data in the red zone") || len(res.Rows) != 10 || res.Rows[9].Values["i"] != "9" {
		t.Errorf("leaf: %s (%s), %d rows", res.Mechanism, res.MechanismNote, len(res.Rows))
	}
	// A PIE lies too far from the agent's jump pads (below 2 GiB):
	// gdbserver refuses at QTStart, the trap tracepoint takes over.
	s = ipaProg(t, "ftrace-pie", true)
	res = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"i"}, Limit: 10})
	if res.Mechanism != "tracepoint" || !strings.Contains(res.MechanismNote, "the server refused the fast tracepoint") || !strings.Contains(res.MechanismNote, "too far") || len(res.Rows) != 10 || res.Rows[9].Values["i"] != "9" {
		t.Errorf("PIE: %s (%s), %d rows", res.Mechanism, res.MechanismNote, len(res.Rows))
	}
	s = ipaSession(t, false)
	res = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"i"}, Limit: 10})
	if res.Mechanism != "tracepoint" || res.MechanismNote != "" {
		t.Errorf("without the agent: %s (%s)", res.Mechanism, res.MechanismNote)
	}
}

// TestFastTraceQueryExit: a query past the program's last call ends at
// its exit with every call as a row, as the breakpoint path does: the run
// stops at libc's _exit while the agent's buffer still holds the rows
// (gdbserver 13 drops the connection when the buffer is read after the
// exit). With a condition, too.
func TestFastTraceQueryExit(t *testing.T) {
	for _, cond := range []string{"", "(i & 7) == 3 && p->x >= 0"} {
		t.Run(cond, func(t *testing.T) {
			fs, bs := ipaSession(t, true), ipaSession(t, false)
			f := traceQuery(t, fs, QueryOptions{Kind: "calls", Function: "tick", Condition: cond, Collect: []string{"i", "ticks"}, Limit: 5000})
			b := traceQuery(t, bs, QueryOptions{Kind: "calls", Function: "tick", Condition: cond, Collect: []string{"i", "ticks"}, Limit: 5000, Mechanism: "breakpoint"})
			if f.Mechanism != "fast tracepoint" || f.Ended != "exited" || b.Ended != "exited" {
				t.Fatalf("fast %s (%s) ended %q, breakpoints ended %q", f.Mechanism, f.MechanismNote, f.Ended, b.Ended)
			}
			if !reflect.DeepEqual(f.Rows, b.Rows) || f.Note != b.Note {
				t.Fatalf("fast %d rows (note %q), breakpoints %d (note %q), or they differ", len(f.Rows), f.Note, len(b.Rows), b.Note)
			}
			if f.Stop == nil || f.Stop.ExitCode == nil || *f.Stop.ExitCode != 0 {
				t.Errorf("final stop %+v", f.Stop)
			}
		})
	}
}

// TestFastTraceQueryMatchesGDBDprintf: the fast tracepoint's rows hold
// the values GDB's own dprintf prints at each call of tick (GDB is the
// oracle, debugging the program natively).
func TestFastTraceQueryMatchesGDBDprintf(t *testing.T) {
	gdbRows := gdbDprintfRows(t, "ftrace", "tick", "%d %ld %d %d %d %ld", "i,v,p->x,p->y,ticks,sum")
	if len(gdbRows) != 3000 {
		t.Fatalf("GDB printed %d rows, want 3000", len(gdbRows))
	}
	s := ipaSession(t, true)
	collect := []string{"i", "v", "p->x", "p->y", "ticks", "sum"}
	// 2,999 rows: the query stops at its last row, before the program
	// exits (a run the exit cuts loses its rows, TestFastTraceQueryExit).
	res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: collect, Limit: 2999, traceChunk: 1000})
	if res.Mechanism != "fast tracepoint" || len(res.Rows) != 2999 {
		t.Fatalf("%s (%s): %d rows", res.Mechanism, res.MechanismNote, len(res.Rows))
	}
	for i, r := range res.Rows {
		var vs []string
		for _, e := range collect {
			vs = append(vs, r.Values[e])
		}
		if got, want := strings.Join(vs, " "), gdbRows[i]; got != want {
			t.Fatalf("row %d: %q, GDB's dprintf %q", i+1, got, want)
		}
	}
}

// TestFastTraceQueryCondition: a condition compiled to agent bytecode
// rides on the fast tracepoint (gdbserver's agent compiles it to native
// code where it has every opcode, and interprets it otherwise: the
// division and remainder), and the rows equal the breakpoint path's,
// where rrmcp evaluates the condition at each stop.
func TestFastTraceQueryCondition(t *testing.T) {
	for _, cond := range []string{
		"i > 5",
		"(i & 7) == 3 && p->x >= 0 && v > 10",
		"(i % 7 == 3 || v / 1000 == 11) && p->x >= 0",
	} {
		t.Run(cond, func(t *testing.T) {
			fs, bs := ipaSession(t, true), ipaSession(t, false)
			f := traceQuery(t, fs, QueryOptions{Kind: "calls", Function: "tick", Condition: cond, Collect: []string{"i", "v", "p->x"}, Limit: 200})
			b := traceQuery(t, bs, QueryOptions{Kind: "calls", Function: "tick", Condition: cond, Collect: []string{"i", "v", "p->x"}, Limit: 200, Mechanism: "breakpoint"})
			if f.Mechanism != "fast tracepoint" {
				t.Fatalf("mechanism %q (%s), want fast tracepoint", f.Mechanism, f.MechanismNote)
			}
			if len(f.Rows) != len(b.Rows) || len(b.Rows) != 200 {
				t.Fatalf("%d rows by fast tracepoint (%s, %s), %d by breakpoints", len(f.Rows), f.Ended, f.Note, len(b.Rows))
			}
			for i := range f.Rows {
				if !reflect.DeepEqual(f.Rows[i].Values, b.Rows[i].Values) {
					t.Fatalf("row %d: fast tracepoint %v, breakpoint %v", i+1, f.Rows[i].Values, b.Rows[i].Values)
				}
			}
		})
	}
}

// TestFastTraceQueryUserExitBreakpoint: with a breakpoint of the user's
// where the fast tracepoint run stops at the exit (libc's _exit), the run
// stops there as the user's breakpoint (every row collected), and the
// query leaves it in the server.
func TestFastTraceQueryUserExitBreakpoint(t *testing.T) {
	retryResumeEINTR(t, func() (struct{}, error) { return struct{}{}, fastTraceUserExit(t) })
}

// fastTraceUserExit is TestFastTraceQueryUserExitBreakpoint's run;
// errServerResumeEINTR where gdbserver's resume failed.
func fastTraceUserExit(t *testing.T) error {
	ctx := t.Context()
	fs, bs := ipaSession(t, true), ipaSession(t, false)
	var ubps [2]Breakpoint
	var addrs [2]uint64
	for i, s := range []*Session{fs, bs} {
		// From main on, libc is loaded: the address the run stops at.
		b, err := s.SetBreakpoint(ctx, "main", "", true)
		if err != nil {
			t.Fatal(err)
		}
		st, err := continueOrEINTR(t, s, nil)
		if err != nil {
			return err
		}
		if st.Breakpoint != b.Number {
			t.Fatalf("to main: %+v", st)
		}
		var ok bool
		if err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
			s.inf.ReloadAddressSpace(ctx)
			addrs[i], ok = s.inf.SymbolAddr(ctx, "_exit")
			return nil
		}); err != nil || !ok {
			t.Fatalf("no _exit: %v", err)
		}
		if ubps[i], err = s.SetBreakpoint(ctx, fmt.Sprintf("*%#x", addrs[i]), "", false); err != nil {
			t.Fatal(err)
		}
	}
	f, err := queryOrEINTR(t, fs, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"i"}, Limit: 5000})
	if err != nil {
		return err
	}
	b, err := queryOrEINTR(t, bs, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"i"}, Limit: 5000, Mechanism: "breakpoint"})
	if err != nil {
		return err
	}
	if f.Mechanism != "fast tracepoint" || f.Ended != "breakpoint" || f.Stop == nil || f.Stop.Breakpoint != ubps[0].Number {
		t.Fatalf("fast %s (%s) ended %q at %+v, %d rows, note %q", f.Mechanism, f.MechanismNote, f.Ended, f.Stop, len(f.Rows), f.Note)
	}
	if !reflect.DeepEqual(f.Rows, b.Rows) || b.Ended != "breakpoint" {
		t.Fatalf("fast %d rows, breakpoints %d (ended %q), or they differ", len(f.Rows), len(b.Rows), b.Ended)
	}
	if !fs.breakAt(addrs[0]) {
		t.Errorf("the user's breakpoint at _exit (%#x) is no longer in the server: %+v", addrs[0], fs.c.Breakpoints())
	}
	return nil
}

// TestStepOutOfSpan: before a run, the threads stopped in the
// instructions a fast tracepoint's jump displaces are stepped out, each
// by itself, and the others are left where they are (threads_bp: eight
// workers, one stopped at tick's breakpoint, the rest elsewhere).
func TestStepOutOfSpan(t *testing.T) {
	s := liveSession(t, "threads_bp", "tick")
	ctx := t.Context()
	// As a query does before a run: its breakpoint out (a worker's
	// pending hit of it goes with it).
	bps, err := s.Breakpoints(ctx)
	if err != nil || len(bps) != 1 {
		t.Fatalf("breakpoints %v %v", bps, err)
	}
	if err := s.RemoveBreakpoint(ctx, bps[0].Number); err != nil {
		t.Fatal(err)
	}
	if st, ok := s.procStat(); !ok || st.Threads < 2 {
		t.Fatalf("procStat: %+v %v, want several threads", st, ok)
	}
	ts, err := s.c.Threads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := map[rsp.Thread]uint64{}
	for _, th := range ts {
		if before[th], err = s.inf.PC(ctx, th); err != nil {
			t.Fatal(err)
		}
	}
	cur := s.inf.Cur
	lo := before[cur]
	if err := s.stepOutOfSpan(ctx, lo, 1); err != nil {
		t.Fatal(err)
	}
	for _, th := range ts {
		pc, err := s.inf.PC(ctx, th)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case before[th] == lo && pc == lo:
			t.Errorf("thread %v still at %#x", th, lo)
		case before[th] != lo && pc != before[th]:
			t.Errorf("thread %v moved from %#x to %#x: it was not in the span", th, before[th], pc)
		}
	}
}
