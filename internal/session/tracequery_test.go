package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// traceCollects are the collect expressions of tracecalls' record(int
// i, long v, struct rec *r, struct rec s): parameters (int, long,
// pointer, struct by value on the stack), members through a pointer to a
// global array, a string literal, and globals.
var traceCollects = []string{"i", "v", "r", "r->id", "r->val", "r->name", "s", "s.id", "s.name", "total", "calls", "recs[1].val"}

func traceQuery(t *testing.T, s *Session, o QueryOptions) *QueryResult {
	t.Helper()
	res, err := queryOrEINTR(t, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// queryOrEINTR runs query o on s: its result, or errServerResumeEINTR where
// gdbserver said a resume failed; any other error fails t with
// gdbserver's last words.
func queryOrEINTR(t *testing.T, s *Session, o QueryOptions) (*QueryResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	res, err := s.Query(ctx, o)
	if err == nil {
		return res, nil
	}
	if errors.Is(err, errServerResumeEINTR) {
		return nil, fmt.Errorf("Query(%+v): %w", o, err)
	}
	tail := ""
	if s.srv != nil {
		tail = s.srv.Tail(10)
	}
	t.Fatalf("Query(%+v): %v; gdbserver said: %s", o, err, tail)
	return nil, nil
}

// TestTraceQueryMatchesBreakpoints: on gdbserver the rows a tracepoint
// collects are the rows the breakpoint path gives, values, frames and
// numbering alike, over 2,001 calls, with the true final stop.
func TestTraceQueryMatchesBreakpoints(t *testing.T) {
	var got [2]*QueryResult
	for i, mech := range []string{"", "breakpoint"} {
		s := liveSession(t, "tracecalls", "")
		got[i] = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: traceCollects, Limit: 5000, Mechanism: mech})
	}
	tp, bp := got[0], got[1]
	if tp.Mechanism != "tracepoint" || bp.Mechanism != "breakpoint" {
		t.Fatalf("mechanisms %q (%s), %q; want tracepoint, breakpoint", tp.Mechanism, tp.MechanismNote, bp.Mechanism)
	}
	if len(tp.Rows) != 2001 || len(bp.Rows) != 2001 {
		t.Fatalf("%d and %d rows, want 2001", len(tp.Rows), len(bp.Rows))
	}
	for i := range 2000 {
		if !reflect.DeepEqual(tp.Rows[i], bp.Rows[i]) {
			t.Fatalf("row %d differs:\ntracepoint %+v %+v\nbreakpoint %+v %+v", i+1, tp.Rows[i], tp.Rows[i].Frame, bp.Rows[i], bp.Rows[i].Frame)
		}
	}
	if r := tp.Rows[1].Values; r["i"] != "1" || r["v"] != "1000003" || r["r->name"] != `0x`+strings.TrimPrefix(r["r->name"], "0x") || !strings.Contains(r["r->name"], `"two"`) {
		t.Errorf("row 2 values %v", r)
	}
	// The last call passes a heap pointer: what it points to was not
	// collected, and says so; the rest of the row is right.
	last, want := tp.Rows[2000].Values, bp.Rows[2000].Values
	for _, e := range []string{"r->id", "r->val", "r->name"} {
		if !strings.HasPrefix(last[e], "<not collected: ") {
			t.Errorf("last row %s = %q, want <not collected: …>", e, last[e])
		}
	}
	for _, e := range []string{"i", "v", "r", "s.id", "s.name", "total", "calls"} {
		if last[e] != want[e] {
			t.Errorf("last row %s = %q, want %q", e, last[e], want[e])
		}
	}
	if tp.Ended != "exited" || bp.Ended != "exited" || tp.More || tp.Stop == nil || tp.Stop.Reason != "exited" {
		t.Errorf("ended %q / %q, more %v, stop %+v", tp.Ended, bp.Ended, tp.More, tp.Stop)
	}
}

// TestTraceQueryLimitCursor: pages of a query continue where the last
// left off, the program stopped at each page's last row, as on the
// breakpoint path; a breakpoint on another function ends a page.
func TestTraceQueryLimitCursor(t *testing.T) {
	s := liveSession(t, "tracecalls", "")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	if _, err := s.SetBreakpoint(ctx, "other", "", false); err != nil {
		t.Fatal(err)
	}
	collect := []string{"i", "r->val"}
	cursor, seen := 1, 0
	for page := 0; ; page++ {
		res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: collect, Limit: 700, Cursor: cursor})
		if res.Mechanism != "tracepoint" {
			t.Fatalf("page %d: mechanism %q (%s)", page, res.Mechanism, res.MechanismNote)
		}
		for _, r := range res.Rows {
			wantI := fmt.Sprint(seen)
			if seen == 2000 {
				wantI = "-1" // the last call
			}
			if r.N != seen+1 || r.Values["i"] != wantI {
				t.Fatalf("page %d: row %+v after %d rows", page, r, seen)
			}
			seen++
		}
		// Every row is at record's first line: the page says so once.
		for i, r := range res.Rows {
			if (i == 0) != (r.Frame != nil) || i == 0 && r.Frame.Function != "record" {
				t.Fatalf("page %d: row %d frame %+v; want record's in the first row only", page, i+1, r.Frame)
			}
		}
		switch page {
		case 0, 1:
			// Stopped at the last row: frame 0 is record with that i.
			if !res.More || res.Ended != "limit" || res.NextCursor != seen+1 || res.Stop == nil || res.Stop.Frame == nil || res.Stop.Frame.Function != "record" {
				t.Fatalf("page %d: %+v", page, res)
			}
			if v, err := s.Evaluate(ctx, "i"); err != nil || v.Value != fmt.Sprint(seen-1) {
				t.Fatalf("page %d: stopped at i = %+v %v, want %d", page, v, err, seen-1)
			}
		case 2:
			// other(1500) comes first.
			if res.More || res.Ended != "breakpoint" || seen != 1501 || res.Stop.Frame.Function != "other" {
				t.Fatalf("page %d: ended %q after %d rows, stop %+v", page, res.Ended, seen, res.Stop)
			}
		default:
			if res.Ended != "exited" || seen != 2001 {
				t.Fatalf("page %d: ended %q after %d rows", page, res.Ended, seen)
			}
			return
		}
		cursor = res.NextCursor
		if res.NextCursor == 0 {
			cursor = seen + 1
		}
	}
}

// TestTraceQueryAfterwards: after a tracepoint query the session behaves
// as before: a breakpoint and continue stop at the next call (no stray
// tracepoint, nothing left collecting), and a breakpoint-path query
// numbers on.
func TestTraceQueryAfterwards(t *testing.T) {
	s := liveSession(t, "tracecalls", "")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: []string{"i"}, Limit: 100})
	if res.Mechanism != "tracepoint" || len(res.Rows) != 100 {
		t.Fatalf("%s (%s), %d rows", res.Mechanism, res.MechanismNote, len(res.Rows))
	}
	bps, err := s.Breakpoints(ctx)
	if err != nil || len(bps) != 0 {
		t.Fatalf("breakpoints left: %+v %v", bps, err)
	}
	ts, err := s.c.TraceStatus(ctx)
	if err != nil || ts.Running || ts.Frames > 0 {
		t.Fatalf("trace state after the query: %+v %v", ts, err)
	}
	if _, err := s.SetBreakpoint(ctx, "record", "i == 150", false); err != nil {
		t.Fatal(err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue: %+v %v", st, err)
	}
	if v, err := s.Evaluate(ctx, "i"); err != nil || v.Value != "150" {
		t.Fatalf("i = %+v %v", v, err)
	}
	if ts, err := s.c.TraceStatus(ctx); err != nil || ts.Frames > 0 || ts.Created > 0 {
		t.Fatalf("something collected after the query: %+v %v", ts, err)
	}
}

// TestTraceQueryFallback: expressions a tracepoint cannot collect (a
// heap object) and conditions that do not compile keep the breakpoint
// path, and say why; a simple condition is compiled into the tracepoint.
func TestTraceQueryFallback(t *testing.T) {
	for _, tc := range []struct {
		name, fn, cond string
		collect        []string
		mech           string
		rows           int
		first          string
	}{
		{"heap through a pointer", "byheap", "", []string{"p->val", "p->id", "p->name"}, "tracepoint", 10, "90"},
		{"heap out of reach", "byheap", "", []string{"*(long *)((char *)p + 8192)"}, "breakpoint", 10, "0"},
		{"condition compiled", "record", "i >= 1990", []string{"i"}, "tracepoint", 10, "1990"},
		{"condition with arithmetic compiled", "record", "i % 500 == 1 && r->val >= 10", []string{"i"}, "tracepoint", 4, "1"},
		{"condition not compiled", "record", "i % 500 == 1 && (double)i >= 0", []string{"i"}, "breakpoint", 4, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The breakpoint path resumes at every call: where gdbserver
			// fails a resume (errServerResumeEINTR), the run is made again.
			res := retryResumeEINTR(t, func() (*QueryResult, error) {
				return queryOrEINTR(t, liveSession(t, "tracecalls", ""), QueryOptions{Kind: "calls", Function: tc.fn, Condition: tc.cond, Collect: tc.collect, Limit: 100})
			})
			if res.Mechanism != tc.mech || len(res.Rows) != tc.rows || res.Rows[0].Values[tc.collect[0]] != tc.first {
				t.Fatalf("mechanism %q (%s), %d rows, first %v", res.Mechanism, res.MechanismNote, len(res.Rows), res.Rows[0].Values)
			}
			if tc.mech == "breakpoint" && res.MechanismNote == "" {
				t.Error("no note says why the breakpoint path was used")
			}
			if tc.cond != "" && tc.mech == "breakpoint" && !strings.Contains(res.MechanismNote, "condition") {
				t.Errorf("the note %q does not say that the condition kept the breakpoint path", res.MechanismNote)
			}
			t.Logf("note: %s", res.MechanismNote)
		})
	}
}

// TestTraceQueryThroughput measures rows per second of both paths on
// the query benchmark program (bench/large/query/query.c, update(int i,
// long v) called 100,000 times; built here if missing), collecting i and
// v up to the break at done(): the tracepoint path in one query and in
// pages of 1,000 rows (rr_query's largest limit), the breakpoint path in
// one query over the first 20,000 calls. Not in -short.
func TestTraceQueryThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("a throughput measurement (about a minute)")
	}
	testenv.NeedTool(t, "gdbserver")
	root := testenv.Root(t)
	exe := filepath.Join(root, "bench", "large", "build", "query", "query")
	if _, err := os.Stat(exe); err != nil {
		if out, err := exec.Command("make", "-C", filepath.Join(root, "bench", "large"), "query").CombinedOutput(); err != nil {
			t.Fatalf("make query: %v\n%s", err, out)
		}
	}
	const calls = 100000
	start := func(t *testing.T) *Session {
		m := NewManager(Config{})
		t.Cleanup(m.Close)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe, fmt.Sprint(calls)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetBreakpoint(ctx, "done", "", false); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		mech  string
		limit int
		rows  int // rows to collect
	}{
		{"tracepoint, one query", "", calls, calls},
		{"tracepoint, pages of 1000", "", 1000, calls},
		{"breakpoint, one query", "breakpoint", 20000, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type run struct {
				rows int
				last QueryRow
				mech string
				d    time.Duration
			}
			// The breakpoint path resumes at every call: where gdbserver
			// fails a resume (errServerResumeEINTR), the run is made again.
			r := retryResumeEINTR(t, func() (run, error) {
				s := start(t)
				rows, last, cursor := 0, QueryRow{}, 1
				mech := ""
				t0 := time.Now()
				for rows < tc.rows {
					res, err := queryOrEINTR(t, s, QueryOptions{Kind: "calls", Function: "update", Collect: []string{"i", "v"}, Limit: min(tc.limit, tc.rows-rows), Cursor: cursor, Mechanism: tc.mech})
					if err != nil {
						return run{}, err
					}
					mech = res.Mechanism
					rows += len(res.Rows)
					if len(res.Rows) > 0 {
						last = res.Rows[len(res.Rows)-1]
					}
					if !res.More {
						break
					}
					cursor = res.NextCursor
				}
				return run{rows, last, mech, time.Since(t0)}, nil
			})
			rows, last, mech := r.rows, r.last, r.mech
			d := r.d
			want := tc.rows - 1
			if rows != tc.rows || last.N != tc.rows || last.Values["i"] != fmt.Sprint(want) || last.Values["v"] != fmt.Sprint(int64(want)*7+3) {
				t.Fatalf("%d rows, the last %+v", rows, last)
			}
			t.Logf("%s: %d rows in %v by %s: %.0f rows/s", tc.name, rows, d.Round(time.Millisecond), mech, float64(rows)/d.Seconds())
		})
	}
	// GDB's dprintf (GDB-side formatting) over 20,000 calls, for scale:
	// GDB debugging natively, and GDB driving gdbserver (the setting of
	// bench/RESULTS.md's 876 hits/s, there through MI). The times include
	// GDB's start (well under a second).
	for _, remote := range []bool{false, true} {
		name := "gdb dprintf, native"
		if remote {
			name = "gdb dprintf, gdbserver"
		}
		t.Run(name, func(t *testing.T) {
			testenv.NeedTool(t, "gdb")
			const n = 20000
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			cmd := []string{"-batch", "-nx", "-ex", `dprintf update,"%d %ld\n",i,v`, "-ex", "break done", "-ex", "run", "--args", exe, fmt.Sprint(n)}
			if remote {
				cmd = []string{"-batch", "-nx", "-ex", fmt.Sprintf("target remote | gdbserver - %s %d", exe, n), "-ex", `dprintf update,"%d %ld\n",i,v`, "-ex", "break done", "-ex", "continue", exe}
			}
			t0 := time.Now()
			out, err := exec.CommandContext(ctx, "gdb", cmd...).CombinedOutput()
			d := time.Since(t0)
			if err != nil || !strings.Contains(string(out), fmt.Sprintf("%d %d\n", n-1, int64(n-1)*7+3)) {
				// GDB's own run, for scale only: it has stalled driving
				// gdbserver (174 calls in 300 s in one CI run, a hang of
				// GDB and gdbserver without rrmcp in between), which says
				// nothing of rrmcp's rows above.
				t.Skipf("SKIP(GDB baseline did not finish): gdb: %v after %v\n%.2000s", err, time.Since(t0).Round(time.Second), out)
			}
			t.Logf("%s: %d calls in %v: %.0f calls/s", name, n, d.Round(time.Millisecond), float64(n)/d.Seconds())
		})
	}
}

// TestTraceQueryCancel: a client's cancel while the tracepoint run goes
// on (deadlock's threads never call transfer_ab again) interrupts it:
// the rows so far come back with the cancelled stop, no trace is left
// running, and the session goes on normally.
func TestTraceQueryCancel(t *testing.T) {
	s := liveSession(t, "deadlock", "")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rowed := make(chan struct{}, 1)
	type result struct {
		res *QueryResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.Query(ctx, QueryOptions{Kind: "calls", Function: "transfer_ab", Collect: []string{"balance_a"}, Limit: 5,
			Progress: func(int, string) {
				select {
				case rowed <- struct{}{}:
				default:
				}
			}})
		done <- result{res, err}
	}()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	select {
	case <-rowed: // row 1: the tracepoint run comes next
	case r := <-done:
		t.Fatalf("the query ended before its first row: %+v %v", r.res, r.err)
	case <-deadline.C:
		t.Fatal("no first row")
	}
	for started := s.resumeStarted(); !s.running.Load(); started = s.resumeStarted() {
		select {
		case <-started:
		case r := <-done:
			t.Fatalf("the query ended before the cancel: %+v %v", r.res, r.err)
		case <-deadline.C:
			t.Fatal("the tracepoint run did not start")
		}
	}
	cancel()
	var r result
	select {
	case r = <-done:
	case <-deadline.C:
		t.Fatal("the cancelled query never returned")
	}
	if r.err != nil || r.res == nil {
		t.Fatalf("cancelled query: %+v %v", r.res, r.err)
	}
	if r.res.Mechanism != "tracepoint" || len(r.res.Rows) != 1 || r.res.Ended != "cancelled" || r.res.Stop == nil || r.res.Stop.Reason != "cancelled" || r.res.Stop.Cancelled != "rr_query" {
		t.Fatalf("cancelled query: mechanism %q (%s), %d rows, ended %q, stop %+v", r.res.Mechanism, r.res.MechanismNote, len(r.res.Rows), r.res.Ended, r.res.Stop)
	}
	tctx, tcancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer tcancel()
	if ts, err := s.c.TraceStatus(tctx); err != nil || ts.Running {
		t.Fatalf("trace state after the cancel: %+v %v", ts, err)
	}
	if bps, err := s.Breakpoints(tctx); err != nil || len(bps) != 0 {
		t.Fatalf("breakpoints left: %+v %v", bps, err)
	}
	if _, err := s.Threads(tctx); err != nil {
		t.Fatalf("session unusable after the cancel: %v", err)
	}
}

// gdbDprintfRows runs prog natively under GDB with a dprintf at fn
// printing args in format, and returns the printed rows (GDB is the
// oracle of the query tests).
func gdbDprintfRows(t *testing.T, prog, fn, format, args string) []string {
	t.Helper()
	testenv.NeedTool(t, "gdb")
	exe := testenv.Prog(t, prog)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", "-batch", "-nx",
		"-ex", fmt.Sprintf(`dprintf %s,"ROW %s\n",%s`, fn, format, args), "-ex", "run", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var rows []string
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "ROW "); ok {
			rows = append(rows, rest)
		}
	}
	return rows
}

// TestTraceQueryMatchesGDBDprintf: the tracepoint path's rows hold the
// values GDB's own dprintf prints at each call (GDB is the oracle).
func TestTraceQueryMatchesGDBDprintf(t *testing.T) {
	gdbRows := gdbDprintfRows(t, "tracecalls", "record", "%d %ld %d %ld %d", "i,v,r->id,s.val,calls")
	s := liveSession(t, "tracecalls", "")
	collect := []string{"i", "v", "r->id", "s.val", "calls"}
	res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: collect, Limit: 5000})
	if res.Mechanism != "tracepoint" || len(res.Rows) != len(gdbRows) || len(gdbRows) != 2001 {
		t.Fatalf("%s (%s): %d rows; GDB printed %d", res.Mechanism, res.MechanismNote, len(res.Rows), len(gdbRows))
	}
	for i, r := range res.Rows {
		var vs []string
		for _, e := range collect {
			vs = append(vs, r.Values[e])
		}
		got, want := strings.Join(vs, " "), gdbRows[i]
		if i == 2000 { // a heap pointer: r->id was not collected
			got = strings.Replace(got, r.Values["r->id"], "9", 1)
		}
		if got != want {
			t.Fatalf("row %d: %q, GDB's dprintf %q", i+1, got, want)
		}
	}
}

// TestTraceQueryPointerChase: memory reached only through pointers (a
// heap struct, a heap list two deep) is collected by agent bytecode
// that follows the pointers at each hit, and the rows equal the
// breakpoint path's.
func TestTraceQueryPointerChase(t *testing.T) {
	for _, tc := range []struct {
		fn      string
		collect []string
		rows    int
	}{
		{"byheap", []string{"p->val", "p->id", "p->name", "*p"}, 10},
		{"walk", []string{"n->v", "n->next->v", "n->next->next", "*n->next"}, 20},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			var got [2]*QueryResult
			for i, mech := range []string{"", "breakpoint"} {
				s := liveSession(t, "tracecalls", "")
				got[i] = traceQuery(t, s, QueryOptions{Kind: "calls", Function: tc.fn, Collect: tc.collect, Limit: 100, Mechanism: mech})
			}
			if got[0].Mechanism != "tracepoint" || len(got[0].Rows) != tc.rows {
				t.Fatalf("%s (%s), %d rows", got[0].Mechanism, got[0].MechanismNote, len(got[0].Rows))
			}
			for i := range got[0].Rows {
				if !reflect.DeepEqual(got[0].Rows[i].Values, got[1].Rows[i].Values) {
					t.Fatalf("row %d: tracepoint %v, breakpoint %v", i+1, got[0].Rows[i].Values, got[1].Rows[i].Values)
				}
			}
			t.Logf("last row %v", got[0].Rows[tc.rows-1].Values)
		})
	}
}

// TestTraceQueryOptimizedAndI386: at -O2 (a parameter in a register,
// and entry values) and on i386 the tracepoint rows equal the
// breakpoint path's over 300 calls of counter's hit(i).
func TestTraceQueryOptimizedAndI386(t *testing.T) {
	collect := []string{"i", "total", "hits", "list->name", "list->next->value", "bytes[3]", "greeting"}
	for _, prog := range []string{"counter-O2", "counter-m32"} {
		t.Run(prog, func(t *testing.T) {
			var got [2]*QueryResult
			for i, mech := range []string{"", "breakpoint"} {
				got[i] = retryResumeEINTR(t, func() (*QueryResult, error) {
					s := liveSession(t, prog, "")
					if i == 0 && s.c.Dialect() != rsp.DialectGDBServer {
						t.Skipf("%s runs under %v here, which has no tracepoints", prog, s.c.Dialect())
					}
					o := QueryOptions{Kind: "calls", Function: "hit", Collect: collect, Limit: 300, Mechanism: mech}
					res, err := s.Query(t.Context(), o)
					if errors.Is(err, errServerResumeEINTR) {
						return nil, err
					}
					if err != nil {
						t.Fatalf("Query(%+v): %v", o, err)
					}
					return res, nil
				})
			}
			if got[0].Mechanism != "tracepoint" || len(got[0].Rows) != 300 || len(got[1].Rows) != 300 {
				t.Fatalf("%s (%s), %d and %d rows", got[0].Mechanism, got[0].MechanismNote, len(got[0].Rows), len(got[1].Rows))
			}
			for i := range got[0].Rows {
				if !reflect.DeepEqual(got[0].Rows[i], got[1].Rows[i]) {
					t.Fatalf("row %d: tracepoint %+v, breakpoint %+v", i+1, got[0].Rows[i], got[1].Rows[i])
				}
			}
		})
	}
}

// TestTraceQueryChunks: a query longer than one tracepoint run (the
// trace buffer's capacity, here forced to 30 rows) runs in several,
// stopping between them, and its rows are the breakpoint path's.
func TestTraceQueryChunks(t *testing.T) {
	var got [2]*QueryResult
	for i, mech := range []string{"", "breakpoint"} {
		s := liveSession(t, "tracecalls", "")
		got[i] = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "record", Collect: []string{"i", "r->val", "s.name"}, Limit: 100, Mechanism: mech, traceChunk: 30})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		if v, err := s.Evaluate(ctx, "i"); err != nil || v.Value != "99" {
			t.Errorf("%s: stopped at i = %+v %v, want the last row's 99", got[i].Mechanism, v, err)
		}
		cancel()
	}
	if got[0].Mechanism != "tracepoint" || !reflect.DeepEqual(got[0].Rows, got[1].Rows) {
		t.Fatalf("%s (%s): rows differ", got[0].Mechanism, got[0].MechanismNote)
	}
	if got[0].NextCursor != 101 || !got[0].More || got[0].Ended != "limit" || got[0].Note != got[1].Note {
		t.Errorf("tracepoint %+v, breakpoint %+v", got[0], got[1])
	}
}

// TestTraceQueryQEMUUsesBreakpoints: QEMU's gdbstub has no tracepoints:
// kind calls stops at each call there, and says so.
func TestTraceQueryQEMUUsesBreakpoints(t *testing.T) {
	qemu := testenv.NeedTool(t, "qemu-i386") // the i386 peer the tests already use
	exe := testenv.Prog(t, "counter-m32")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	srv, addr, err := proc.StartQEMUUser(ctx, qemu, exe, nil, filepath.Dir(exe), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop(time.Second) }) //nolint:errcheck
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	s, _, err := m.Connect(ctx, ConnectOptions{Address: addr, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	if s.c.Dialect() != rsp.DialectQEMU {
		t.Fatalf("dialect %v", s.c.Dialect())
	}
	res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "hit", Collect: []string{"i", "list->name"}, Limit: 3})
	if res.Mechanism != "breakpoint" || res.MechanismNote != "" || len(res.Rows) != 3 || res.Rows[2].Values["i"] != "2" {
		t.Fatalf("mechanism %q (%q), rows %+v", res.Mechanism, res.MechanismNote, res.Rows)
	}
}

// TestTraceQueryThreads: eight threads call tick(id) 50 times each at
// once; the tracepoint collects every call (400 rows, 50 per id), with
// or without a limit that stops the run in the middle.
func TestTraceQueryThreads(t *testing.T) {
	for _, limit := range []int{1000, 120} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := liveSession(t, "threads_bp", "")
			res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"id", "round"}, Limit: limit})
			if res.Mechanism != "tracepoint" {
				t.Fatalf("%s (%s)", res.Mechanism, res.MechanismNote)
			}
			per := map[string]int{}
			seen := map[string]int{} // "id/round": rows
			for i, r := range res.Rows {
				if r.N != i+1 {
					t.Fatalf("row %d numbered %d", i+1, r.N)
				}
				per[r.Values["id"]]++
				seen[r.Values["id"]+"/"+r.Values["round"]]++
			}
			want := min(limit, 400)
			if len(res.Rows) != want || len(per) != 8 && limit > 400 {
				// Which calls, to tell a hit lost at the run's start
				// from one at its end.
				var odd []string
				for id := range 8 {
					for round := range 50 {
						if k := fmt.Sprintf("%d/%d", id, round); seen[k] != 1 {
							odd = append(odd, fmt.Sprintf("%s: %d rows", k, seen[k]))
						}
					}
				}
				t.Fatalf("%d rows (want %d), per id %v; calls not seen once (thread/round): %v; ended %q, note %q, first row %v, last row %v",
					len(res.Rows), want, per, odd, res.Ended, res.Note, res.Rows[0].Values, res.Rows[len(res.Rows)-1].Values)
			}
			for id, n := range per {
				if limit > 400 && n != 50 {
					t.Errorf("id %s: %d rows, want 50", id, n)
				}
			}
			if limit < 400 {
				if !res.More || res.Stop == nil || res.Stop.Frame == nil || res.Stop.Frame.Function != "tick" {
					t.Fatalf("more %v, stop %+v", res.More, res.Stop)
				}
				// The rest, from where it stopped.
				rest := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"id"}, Limit: 1000, Cursor: res.NextCursor})
				if got := len(res.Rows) + len(rest.Rows); got != 400 || rest.Ended != "exited" {
					t.Fatalf("%d + %d rows, ended %q", len(res.Rows), len(rest.Rows), rest.Ended)
				}
			}
		})
	}
}

// TestTraceQueryThreadsPages: eight threads call tick() together, and
// a query pages through all 400 calls 7 rows at a time. At a page's end
// several threads are often at the tracepoint at once, and gdbserver may
// report another thread's hit than the one that ended the run
// (settleRunEnd): every call is still one row, no call is lost or seen
// twice, and the rows are numbered without a gap.
func TestTraceQueryThreadsPages(t *testing.T) {
	s := liveSession(t, "threads_bp", "")
	seen := map[string]int{} // "id/round": rows
	rows, cursor := 0, 1
	for page := 0; ; page++ {
		if page > 400 {
			t.Fatalf("no end after %d pages", page)
		}
		res := traceQuery(t, s, QueryOptions{Kind: "calls", Function: "tick", Collect: []string{"id", "round"}, Limit: 7, Cursor: cursor})
		if page == 0 && res.Mechanism != "tracepoint" {
			t.Fatalf("%s (%s)", res.Mechanism, res.MechanismNote)
		}
		for _, r := range res.Rows {
			if rows++; r.N != rows {
				t.Fatalf("page %d: row numbered %d, want %d", page, r.N, rows)
			}
			seen[r.Values["id"]+"/"+r.Values["round"]]++
		}
		if !res.More {
			if res.Ended != "exited" {
				t.Fatalf("ended %q after %d rows", res.Ended, rows)
			}
			break
		}
		cursor = res.NextCursor
	}
	for id := range 8 {
		for round := range 50 {
			if n := seen[fmt.Sprintf("%d/%d", id, round)]; n != 1 {
				t.Errorf("call of thread %d, round %d: %d rows, want 1", id, round, n)
			}
		}
	}
	if rows != 400 {
		t.Errorf("%d rows, want 400", rows)
	}
}

// TestTraceQueryWildPointer: where a pointer the tracepoint follows
// points nowhere, gdbserver records a block anyway; the row says the
// memory was not collected instead of showing those bytes.
func TestTraceQueryWildPointer(t *testing.T) {
	var got [2]*QueryResult
	for i, mech := range []string{"", "breakpoint"} {
		s := liveSession(t, "tracecalls", "")
		got[i] = traceQuery(t, s, QueryOptions{Kind: "calls", Function: "wild", Collect: []string{"p", "p->val"}, Limit: 10, Mechanism: mech})
	}
	tp, bp := got[0], got[1]
	if tp.Mechanism != "tracepoint" || len(tp.Rows) != 4 || len(bp.Rows) != 4 {
		t.Fatalf("%s (%s): %d and %d rows", tp.Mechanism, tp.MechanismNote, len(tp.Rows), len(bp.Rows))
	}
	for i := range 4 {
		tv, bv := tp.Rows[i].Values, bp.Rows[i].Values
		if i == 2 {
			if tv["p"] != bv["p"] || !strings.HasPrefix(tv["p->val"], "<not collected: ") || !strings.HasPrefix(bv["p->val"], "<error: ") {
				t.Errorf("row 3 (a pointer to nowhere): tracepoint %v, breakpoint %v", tv, bv)
			}
			continue
		}
		if !reflect.DeepEqual(tv, bv) {
			t.Errorf("row %d: tracepoint %v, breakpoint %v", i+1, tv, bv)
		}
	}
	t.Logf("row 3: %v / %v", tp.Rows[2].Values, bp.Rows[2].Values)
}
