package main

import (
	"context"
	"fmt"

	"github.com/rrmcp/rrmcp/internal/gdbmi"
)

// The query-throughput rows (issue 14): collect the two arguments of
// update(int i, long v) at each of its queryCalls calls
// (bench/large/query/query.c), one whole run to done() timed. rrmcp's side
// is the execution-wide `calls` query of rr_query (each row of the table
// says which mechanism collected it); GDB's the three ways it has: dprintf
// formatted by GDB (a trap and round trips per call), dprintf formatted by
// gdbserver (`set dprintf-style agent`: a trap per call, no round trip;
// the text goes to gdbserver's stdout) and a tracepoint collecting i and v
// (trap per call inside gdbserver; the timed run is the collection, not a
// read-back with tfind). The agent rows run GDB with its default
// `breakpoint condition-evaluation auto`: with `host` (the other rows'
// setting) GDB never gives gdbserver the dprintf's commands and the run
// hangs at the first call.

const queryCalls = 100000

func queryCases() []benchCase {
	query := func(e *env) string { return e.query }
	queryFast := func(e *env) string { return e.queryFast }
	args := []string{fmt.Sprint(queryCalls)}
	return []benchCase{
		{name: "query_calls_gdb_dprintf", unit: "ms", hits: queryCalls, reps: 1, oneCall: true, exe: query, args: args,
			desc: "collect i and v at each of the 100,000 calls of update(): rrmcp rr_query kind calls; GDB `dprintf update,\"%d %ld\\n\",i,v` with dprintf-style gdb (GDB formats; one trap and round trips per call)",
			run:  gdbQuery("gdb")},
		{name: "query_calls_gdb_agent_dprintf", unit: "ms", hits: queryCalls, reps: 1, oneCall: true, exe: query, args: args, gdbCondEval: "auto",
			desc: "the same with `set dprintf-style agent`: gdbserver formats and prints each call itself (one trap per call, no round trip to GDB)",
			run:  gdbQuery("agent")},
		{name: "query_calls_gdb_tracepoint", unit: "ms", hits: queryCalls, reps: 1, oneCall: true, exe: query, args: args, gdbCondEval: "auto",
			desc: "the same with a GDB tracepoint on update collecting i and v (`trace update`, `actions`/`collect i, v`, `tstart`, continue to done(), `tstop`; gdbserver collects, one trap per call; read-back not timed)",
			run:  gdbQuery("trace")},
		{name: "query_calls_fast_tracepoint", unit: "ms", hits: queryCalls, reps: 1, oneCall: true, exe: queryFast, args: args, gdbCondEval: "auto", agent: true,
			desc: "the same on query built -DFAST -no-pie (update not a leaf; its first instruction a 4-byte load, shorter than the 5-byte jump, so the next moves into the pad with it, where GDB refuses a fast tracepoint), rrmcp's session started with gdbserver's in-process agent (rr_live_start in_process_agent), so rr_query collects by a fast tracepoint: a jump to a collection pad, no trap; GDB: its trap tracepoint as in the row above on the same program",
			run:  gdbQuery("trace")},
	}
}

// gdbQuery times one run over all calls of update() with GDB collecting
// its arguments the given way, and rrmcp with rr_query.
func gdbQuery(style string) func(context.Context, string, maker, int) (measurement, error) {
	return func(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
		return withDriver(ctx, exe, mk, func(d driver) (measurement, error) {
			var m measurement
			if md, ok := d.(*mcpDriver); ok {
				return rrmcpQuery(ctx, md, exe, reps)
			}
			g, ok := d.(*gdbDriver)
			if !ok {
				return m, fmt.Errorf("query rows: unknown driver %T", d)
			}
			for i := 0; i < reps; i++ {
				if err := g.start(ctx, exe); err != nil {
					return m, err
				}
				if err := g.setBreak(ctx, "done", ""); err != nil {
					return m, err
				}
				var cmds []string
				if style == "trace" {
					// Tracepoints set before the libraries are loaded
					// make GDB send their definitions again at the load
					// event, which gdbserver refuses (E01, "already
					// exists") while the trace runs: start it in main.
					// GDB collects the registers with i and v (the frame
					// base), ~2.4 KB a frame here: a 400 MB buffer holds
					// them all.
					if err := g.setBreak(ctx, "main", ""); err != nil {
						return m, err
					}
					if st, err := g.cont(ctx); err != nil || st.function != "main" {
						return m, fmt.Errorf("run to main: %+v %v", st, err)
					}
					cmds = []string{
						"-gdb-set trace-buffer-size 400000000",
						"-break-insert -a update",
						"-break-commands 3 \"collect i, v\"",
						"-trace-start",
					}
				} else {
					// The CLI command: -dprintf-insert's reply carries
					// script={"..."}, a tuple holding a bare string, which
					// is not valid MI, and the parser drops it.
					cmds = []string{
						"-gdb-set dprintf-style " + style,
						"-interpreter-exec console " + gdbmi.Quote(`dprintf update,"%d %ld\n",i,v`),
					}
				}
				for _, cmd := range cmds {
					if _, err := g.g.Run(ctx, cmd); err != nil {
						return m, fmt.Errorf("%s: %w", cmd, err)
					}
				}
				var st stopInfo
				if err := m.timed(d, true, func() (err error) {
					st, err = g.cont(ctx)
					return err
				}); err != nil {
					return m, err
				}
				if st.function != "done" {
					return m, fmt.Errorf("stopped in %q, not done", st.function)
				}
				m.check = "reached done"
				if style == "trace" {
					if _, err := g.g.Run(ctx, "-trace-stop"); err != nil {
						return m, err
					}
					rec, err := g.g.Run(ctx, "-trace-status")
					if err != nil {
						return m, err
					}
					frames, _ := rec.Field("frames")
					if frames.Str != fmt.Sprint(queryCalls) {
						return m, fmt.Errorf("the tracepoint collected %s frames, want %d", frames.Str, queryCalls)
					}
					m.check = fmt.Sprintf("reached done, %s trace frames", frames.Str)
				}
				if err := g.endSession(ctx); err != nil {
					return m, err
				}
			}
			return m, nil
		})
	}
}

// rrmcpQuery times rr_query kind calls over every call of update(),
// collecting i and v, page after page until the program has run past the
// last call; it checks the row count and the last row's values.
func rrmcpQuery(ctx context.Context, d *mcpDriver, exe string, reps int) (measurement, error) {
	var m measurement
	type page struct {
		Result struct {
			Rows []struct {
				N      int               `json:"n"`
				Values map[string]string `json:"values"`
			} `json:"rows"`
			NextCursor int    `json:"next_cursor"`
			Ended      string `json:"ended"`
			Mechanism  string `json:"mechanism"`
		} `json:"result"`
	}
	for i := 0; i < reps; i++ {
		if err := d.start(ctx, exe); err != nil {
			return m, err
		}
		rows, lastI, lastV, ended := 0, "", "", ""
		mechs := map[string]int{} // rows by the mechanism that collected their page
		if err := m.timed(d, true, func() error {
			for cursor := 1; ; {
				var p page
				if err := d.call(ctx, "rr_query", map[string]any{"kind": "calls", "function": "update", "collect": []string{"i", "v"}, "limit": 1000, "cursor": cursor}, &p); err != nil {
					return err
				}
				rows += len(p.Result.Rows)
				mechs[p.Result.Mechanism] += len(p.Result.Rows)
				if n := len(p.Result.Rows); n > 0 {
					lastI, lastV = p.Result.Rows[n-1].Values["i"], p.Result.Rows[n-1].Values["v"]
				}
				ended = p.Result.Ended
				if p.Result.NextCursor == 0 {
					return nil
				}
				cursor = p.Result.NextCursor
			}
		}); err != nil {
			return m, err
		}
		last := queryCalls - 1
		if rows != queryCalls || lastI != fmt.Sprint(last) || lastV != fmt.Sprint(int64(last)*7+3) {
			return m, fmt.Errorf("rr_query: %d rows, the last i=%s v=%s (ended %s); want %d rows ending i=%d v=%d", rows, lastI, lastV, ended, queryCalls, last, int64(last)*7+3)
		}
		m.check = fmt.Sprintf("%d rows, the last i=%s v=%s; by %v", rows, lastI, lastV, mechs)
		if err := d.endSession(ctx); err != nil {
			return m, err
		}
	}
	return m, nil
}
