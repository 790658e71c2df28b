package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/tools"
)

// stats summarizes samples.
type stats struct {
	Median, Min, Max, P25, P75 float64
	N                          int
}

// summarize computes order statistics of xs (linear interpolation between
// closest ranks for the quartiles).
func summarize(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		lo := int(math.Floor(pos))
		hi := int(math.Ceil(pos))
		return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
	}
	return stats{Median: q(0.5), Min: s[0], Max: s[len(s)-1], P25: q(0.25), P75: q(0.75), N: len(s)}
}

func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// row is one case in results.json. Time cases fill the _ms fields, RSS
// cases the _mib fields; ratio is always rrmcp ÷ GDB of the medians.
type row struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"` // "ms" or "MiB"
	Ratio float64 `json:"ratio"`

	RRMCPms    *float64 `json:"rrmcp_ms,omitempty"`
	GDBms      *float64 `json:"gdb_ms,omitempty"`
	RRMCPMinMs *float64 `json:"rrmcp_min_ms,omitempty"`
	RRMCPMaxMs *float64 `json:"rrmcp_max_ms,omitempty"`
	RRMCPP25ms *float64 `json:"rrmcp_p25_ms,omitempty"`
	RRMCPP75ms *float64 `json:"rrmcp_p75_ms,omitempty"`
	GDBMinMs   *float64 `json:"gdb_min_ms,omitempty"`
	GDBMaxMs   *float64 `json:"gdb_max_ms,omitempty"`
	GDBP25ms   *float64 `json:"gdb_p25_ms,omitempty"`
	GDBP75ms   *float64 `json:"gdb_p75_ms,omitempty"`

	// CPU time the front-end process itself used per timed operation
	// (median): what is left of the wall time is waiting — for gdbserver,
	// the transport, the scheduler.
	RRMCPCPUms *float64 `json:"rrmcp_cpu_ms,omitempty"`
	GDBCPUms   *float64 `json:"gdb_cpu_ms,omitempty"`

	// The same through mcp-go's stdio client (the rrmcp_ms columns use
	// the lean raw JSON-RPC client), and its ratio to GDB.
	MCPGoMs    *float64 `json:"mcpgo_ms,omitempty"`
	MCPGoP25ms *float64 `json:"mcpgo_p25_ms,omitempty"`
	MCPGoP75ms *float64 `json:"mcpgo_p75_ms,omitempty"`
	MCPGoRatio float64  `json:"mcpgo_ratio,omitempty"`
	// Median time rrmcp spent inside its tool handler (lean column), as
	// the server measured it (RRMCP_DEBUG_TIMING=1, result _meta).
	RRMCPServerMs *float64 `json:"rrmcp_server_ms,omitempty"`
	// The same inspection made again at the same stop, right after the
	// timed one (lean client and GDB, medians): the call where the
	// stop's registers and stack are read already.
	RRMCPAgainMs *float64 `json:"rrmcp_again_ms,omitempty"`
	GDBAgainMs   *float64 `json:"gdb_again_ms,omitempty"`

	// Reference marks a floor under other rows (ping_after_stop), not an
	// operation: it has no goal and is not a loss.
	Reference bool `json:"reference,omitempty"`

	RRMCPHitsPerS *float64 `json:"rrmcp_hits_per_s,omitempty"`
	GDBHitsPerS   *float64 `json:"gdb_hits_per_s,omitempty"`

	RRMCPMiB    *float64 `json:"rrmcp_mib,omitempty"`
	GDBMiB      *float64 `json:"gdb_mib,omitempty"`
	RRMCPMinMiB *float64 `json:"rrmcp_min_mib,omitempty"`
	RRMCPMaxMiB *float64 `json:"rrmcp_max_mib,omitempty"`
	GDBMinMiB   *float64 `json:"gdb_min_mib,omitempty"`
	GDBMaxMiB   *float64 `json:"gdb_max_mib,omitempty"`

	Reps       int    `json:"reps"`
	RRMCPCheck string `json:"rrmcp_returned,omitempty"`
	GDBCheck   string `json:"gdb_returned,omitempty"`
	Error      string `json:"error,omitempty"`

	desc string
}

func f64(v float64) *float64 { v = math.Round(v*1000) / 1000; return &v }

// rowsFor turns one case's two measurements into its rows.
func rowsFor(c benchCase, rr, rrGo, gdb measurement, rrErr, rrGoErr, gdbErr error) []row {
	r := row{Name: c.name, Unit: "ms", desc: c.desc, RRMCPCheck: rr.check, GDBCheck: gdb.check, Reference: c.reference}
	var errs []string
	if rrErr != nil {
		errs = append(errs, "rrmcp: "+rrErr.Error())
	}
	if rrGoErr != nil {
		errs = append(errs, "rrmcp (mcp-go client): "+rrGoErr.Error())
	}
	if gdbErr != nil {
		errs = append(errs, "gdb: "+gdbErr.Error())
	}
	r.Error = strings.Join(errs, "; ")
	a, b := summarize(millis(rr.durs)), summarize(millis(gdb.durs))
	r.Reps = max(a.N, b.N)
	if a.N > 0 {
		r.RRMCPms, r.RRMCPMinMs, r.RRMCPMaxMs, r.RRMCPP25ms, r.RRMCPP75ms = f64(a.Median), f64(a.Min), f64(a.Max), f64(a.P25), f64(a.P75)
		if c.hits > 0 {
			r.RRMCPHitsPerS = f64(math.Round(float64(c.hits) / (a.Median / 1000)))
		}
	}
	if b.N > 0 {
		r.GDBms, r.GDBMinMs, r.GDBMaxMs, r.GDBP25ms, r.GDBP75ms = f64(b.Median), f64(b.Min), f64(b.Max), f64(b.P25), f64(b.P75)
		if c.hits > 0 {
			r.GDBHitsPerS = f64(math.Round(float64(c.hits) / (b.Median / 1000)))
		}
	}
	if a.N > 0 && b.N > 0 && b.Median > 0 {
		r.Ratio = math.Round(a.Median/b.Median*1000) / 1000
	}
	if g := summarize(millis(rrGo.durs)); g.N > 0 {
		r.MCPGoMs, r.MCPGoP25ms, r.MCPGoP75ms = f64(g.Median), f64(g.P25), f64(g.P75)
		if b.N > 0 && b.Median > 0 {
			r.MCPGoRatio = math.Round(g.Median/b.Median*1000) / 1000
		}
	}
	if x := summarize(rr.srv); x.N > 0 {
		r.RRMCPServerMs = f64(x.Median)
	}
	if x, y := summarize(millis(rr.again)), summarize(millis(gdb.again)); x.N > 0 && y.N > 0 {
		r.RRMCPAgainMs, r.GDBAgainMs = f64(x.Median), f64(y.Median)
	}
	if x := summarize(rr.cpu); x.N > 0 {
		r.RRMCPCPUms = f64(x.Median)
	}
	if y := summarize(gdb.cpu); y.N > 0 {
		r.GDBCPUms = f64(y.Median)
	}
	rows := []row{r}
	if c.rss != "" {
		m := row{Name: c.rss, Unit: "MiB", Error: r.Error, desc: "peak RSS (VmHWM) of the front-end process itself at the stop in " + c.name + " (gdbserver not counted on either side)"}
		x, y := summarize(rr.rss), summarize(gdb.rss)
		m.Reps = max(x.N, y.N)
		if x.N > 0 {
			m.RRMCPMiB, m.RRMCPMinMiB, m.RRMCPMaxMiB = f64(x.Median), f64(x.Min), f64(x.Max)
		}
		if y.N > 0 {
			m.GDBMiB, m.GDBMinMiB, m.GDBMaxMiB = f64(y.Median), f64(y.Min), f64(y.Max)
		}
		if x.N > 0 && y.N > 0 && y.Median > 0 {
			m.Ratio = math.Round(x.Median/y.Median*1000) / 1000
		}
		rows = append(rows, m)
	}
	return rows
}

// loses reports whether rrmcp is slower (or bigger) than GDB in r, with
// either client.
func (r row) loses() bool { return !r.Reference && (r.Ratio > 1 || r.MCPGoRatio > 1) }

// goal is the most r's ratios (rrmcp ÷ GDB) may be, lean client and
// mcp-go's, by issue 14: per operation ≤ 0.5 lean and ≤ 1 with mcp-go;
// RSS ≤ ½; cold start on a large binary ≤ ⅓; for the calls query, ≥ 5×
// GDB's own dprintf, ≥ 0.9 of the trap limit where both sides trap (GDB's
// agent dprintf and tracepoint trap once per call and nothing more, so
// they are the limit), past it where rrmcp places a jump pad; the
// software watchpoint at least GDB's rate.
func (r row) goal() (lean, mcpGo float64) {
	switch {
	case r.Unit == "MiB":
		return 0.5, 0.5
	case strings.HasPrefix(r.Name, "cold_start"):
		return 1.0 / 3, 1.0 / 3
	case r.Name == "query_calls_gdb_dprintf":
		return 0.2, 0.2
	case r.Name == "query_calls_gdb_agent_dprintf", r.Name == "query_calls_gdb_tracepoint":
		return 1 / 0.9, 1 / 0.9
	case r.Name == "query_calls_fast_tracepoint":
		return 0.99, 0.99
	case r.Name == "software_watchpoint_loop":
		return 1, 1
	}
	return 0.5, 1
}

// missesGoal reports whether r misses its goal (goal) in either column.
func (r row) missesGoal() bool {
	if r.Ratio == 0 || r.Reference {
		return false
	}
	lean, mcpGo := r.goal()
	return r.Ratio > lean || r.MCPGoRatio > mcpGo
}

func fmtNum(p *float64) string {
	if p == nil {
		return "—"
	}
	v := *p
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func spread(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return ""
	}
	return fmt.Sprintf(" (%s–%s)", fmtNum(lo), fmtNum(hi))
}

func (r row) goCells() (ms, ratio string) {
	ms, ratio = "—", "—"
	if r.MCPGoMs != nil {
		ms = fmtNum(r.MCPGoMs) + spread(r.MCPGoP25ms, r.MCPGoP75ms)
	}
	if r.MCPGoRatio > 0 {
		ratio = fmt.Sprintf("%.2f", r.MCPGoRatio)
	}
	return
}

func (r row) cells() (rr, gdb, ratio string) {
	if r.Unit == "MiB" {
		rr = fmtNum(r.RRMCPMiB) + spread(r.RRMCPMinMiB, r.RRMCPMaxMiB)
		gdb = fmtNum(r.GDBMiB) + spread(r.GDBMinMiB, r.GDBMaxMiB)
	} else {
		rr = fmtNum(r.RRMCPms) + spread(r.RRMCPP25ms, r.RRMCPP75ms)
		gdb = fmtNum(r.GDBms) + spread(r.GDBP25ms, r.GDBP75ms)
	}
	ratio = "—"
	if r.Ratio > 0 {
		ratio = fmt.Sprintf("%.2f", r.Ratio)
	}
	return
}

// writeTable prints the plain-text table for stdout.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-38s %-5s %-26s %-26s %-26s %7s %7s\n", "case", "unit", "rrmcp lean median (IQR)", "rrmcp mcp-go", "gdb median (IQR)", "ratio", "mcp-go")
	for _, r := range rows {
		rr, gdb, ratio := r.cells()
		goMs, goRatio := r.goCells()
		fmt.Fprintf(w, "%-38s %-5s %-26s %-26s %-26s %7s %7s", r.Name, r.Unit, rr, goMs, gdb, ratio, goRatio)
		if r.RRMCPHitsPerS != nil || r.GDBHitsPerS != nil {
			fmt.Fprintf(w, "   hits/s: rrmcp %s, gdb %s", fmtNum(r.RRMCPHitsPerS), fmtNum(r.GDBHitsPerS))
		}
		if r.Error != "" {
			fmt.Fprintf(w, "   ERROR: %s", firstLine(r.Error))
		}
		fmt.Fprintln(w)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// writeJSON writes results.json: one object per case.
func writeJSON(w io.Writer, rows []row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// profileReport is a pprof summary for a case rrmcp loses.
type profileReport struct {
	Case, Kind, File, Top string
	Err                   error
	// RSP packets the front end sent per timed operation (per run for
	// whole-run cases), counted by a proxy in the profile run.
	RRPackets, GDBPackets stats
}

// otherMachine is another machine kind's kept RESULTS.md.
type otherMachine struct {
	file, cpu, source string
}

// otherMachines lists the results kept in dir (bench/machines) of
// machine kinds other than this one's (slug): each file's CPU and
// source lines.
func otherMachines(dir, slug string) []otherMachine {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []otherMachine
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || name == slug+".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		o := otherMachine{file: name, cpu: strings.TrimSuffix(name, ".md")}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "- CPU: "); ok {
				o.cpu = v
			}
			if v, ok := strings.CutPrefix(l, "- rrmcp source: "); ok {
				o.source = v
			}
		}
		out = append(out, o)
	}
	return out
}

// writeMarkdown writes RESULTS.md.
func writeMarkdown(w io.Writer, command string, machine []string, others []otherMachine, floorMs float64, rows []row, sizes map[string]float64, profiles []profileReport, plots map[string]string, elapsed time.Duration) {
	fmt.Fprintf(w, "# rrmcp vs GDB/MI benchmark results\n\n")
	fmt.Fprintf(w, "Generated by %s in %s. Do not edit by hand: rerun it.\n\n", command, elapsed.Round(time.Second))
	fmt.Fprintf(w, "## Machine\n\n")
	for _, m := range machine {
		fmt.Fprintf(w, "- %s\n", m)
	}
	fmt.Fprintf(w, "\nA VM whose cores other builds and tests may share while the benchmark runs (the load average above is taken at the start only), so every figure carries scheduler noise: the ratios of one run are indicative, not exact. Each machine kind's last run is kept in [machines/](machines/), this one's included.\n\n")
	fmt.Fprintf(w, "### Other machine kinds\n\n")
	for _, o := range others {
		fmt.Fprintf(w, "- [%s](machines/%s): %s\n", o.cpu, o.file, o.source)
	}
	if len(others) > 0 {
		fmt.Fprintf(w, "\n")
	}
	fmt.Fprintf(w, "Quoted, not from a run kept here: AMD EPYC Zen 5 VM, `make bench` at an earlier HEAD with mcp-go's client only (figures as quoted in issue 14), rrmcp ÷ GDB/MI: continue 0.70, step 0.94, next 0.96, finish 1.20, locals 3.63, evaluate 1.71, read_memory 2.85, registers 0.95, 10,000 hits 1.02 (host condition) and 1.03 (target condition), cold start sqlite3 0.59 and STL 0.27, peak RSS 0.46–0.53; 1,516 conditional hits/s. Hand-measured there (gcc -O0, update(int i, long v) in a loop): GDB-side dprintf ≈ 730 hits/s, agent dprintf ≈ 3,700 hits/s, tracepoints ≈ 3,560 frames/s.\n")
	fmt.Fprintf(w, "\n## Method\n\n")
	fmt.Fprintf(w, "Each case runs twice through rrmcp — the built `bin/rrmcp`, spawned and driven over stdio, once by a minimal raw JSON-RPC client and once by mcp-go's client (protocol 2025-11-25), live backend (`rr_live_start`, gdbserver) — and once through `gdb --interpreter=mi3` driving its own gdbserver on the same program, doing the same thing with the MI command named below. Times are wall-clock around one tool call / one MI command, as the front end's client sees it (for moves: until the stop result / `*stopped`). Per-operation cases do 3 untimed warm-ups, then each timed operation follows an untimed continue to a fresh stop in `hit()`, so no case profits from a cache filled by the previous repetition — with one exception, which is rrmcp's design: at a stop rrmcp reads, in the same round trip as the registers and the top of the stack, the memory lines (at most four, away from the stack) that were read at the previous stop at the same pc, so an operation repeated at each hit of a breakpoint (an agent's loop; a breakpoint condition) finds its data already read; that read is part of the continue's time. GDB runs with GDB's defaults plus what an unattended front end sets: `confirm off`, `pagination off`, `sysroot /` (read libraries from the local disk rather than through vFile) and `breakpoint condition-evaluation host` (GDB evaluates conditions itself; the `_target_cond` row uses GDB's default target-side mode, with a condition rrmcp also hands to gdbserver). Test program: `testprogs/build/counter` (-O0 -g). Numbers are medians with the interquartile range (p25–p75) in brackets; for the RSS rows min–max. **ratio = rrmcp ÷ GDB** of the medians: below 1 rrmcp is faster (or smaller).\n\n")
	fmt.Fprintf(w, "## Results\n\n")
	fmt.Fprintf(w, "Three views of each rrmcp call: **lean** is the wall time a minimal raw JSON-RPC client sees (one request line written to rrmcp's stdin, read lines until the reply with its id; what an automation agent without an MCP library writes), **mcp-go** the wall time through mcp-go's stdio client, and **server time** the time rrmcp itself spent in the tool handler, measured inside the server (`RRMCP_DEBUG_TIMING=1` puts it in each result's `_meta` as `%s`; median over the lean run). Lean − server is the transport and JSON; mcp-go − lean is the client library. ✗ marks a row that misses the goal (per operation: lean ≤ 0.5 × GDB and mcp-go ≤ 1 ×; cold start ≤ ⅓ ×; RSS ≤ ½ ×; the calls query: ≤ 0.2 × GDB's own dprintf (5 times its rate), ≤ 1.11 × where GDB traps once per call and does nothing more (agent dprintf, tracepoint: at least 0.9 of the trap limit), < 1 × for the fast tracepoint (past the trap limit); the software watchpoint ≤ 1 ×; each in both columns). The calls query is one call of many seconds, in which a client library's share is below a millisecond (the per-operation rows measure that share): only the lean client runs it, and its mcp-go column is —.\n\n", tools.ServerTimeMetaKey)
	fmt.Fprintf(w, "| case | unit | rrmcp, lean client | rrmcp, mcp-go client | GDB/MI | ratio lean | ratio mcp-go | rrmcp server time | reps |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if strings.HasPrefix(r.Name, "curve_") {
			continue // in the cost-curve tables below
		}
		rr, gdb, ratio := r.cells()
		goMs, goRatio := r.goCells()
		if r.Error != "" {
			ratio = "error"
		}
		if r.missesGoal() {
			ratio += " ✗"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", r.Name, r.Unit, rr, goMs, gdb, ratio, goRatio, fmtNum(r.RRMCPServerMs), r.Reps)
	}
	fmt.Fprintf(w, "\n")
	for _, r := range rows {
		if r.RRMCPHitsPerS != nil || r.GDBHitsPerS != nil {
			fmt.Fprintf(w, "Breakpoint-hit throughput (`%s`): rrmcp %s hits/s, GDB %s hits/s.\n\n", r.Name, fmtNum(r.RRMCPHitsPerS), fmtNum(r.GDBHitsPerS))
		}
	}
	writeCurves(w, rows, plots)
	writeSizeCurve(w, rows, sizes, plots[sizePlot])
	fmt.Fprintf(w, "## Where the time goes\n\nMedian wall time of one operation next to the CPU time the front-end process itself used for it (all its threads, from /proc/PID/task/*/sched); the rest is waiting: for gdbserver, for the transport (stdio pipes for rrmcp and GDB alike), for the scheduler on a busy machine.\n\n| case | rrmcp wall | rrmcp CPU | GDB wall | GDB CPU |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.Unit != "ms" || (r.RRMCPCPUms == nil && r.GDBCPUms == nil) {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.Name, fmtNum(r.RRMCPms), fmtNum(r.RRMCPCPUms), fmtNum(r.GDBms), fmtNum(r.GDBCPUms))
	}
	fmt.Fprintf(w, "\n## Cases\n\n| case | what is timed | rrmcp returned | GDB returned |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Name, r.desc, mdCell(r.RRMCPCheck), mdCell(r.GDBCheck))
	}
	var errRows []row
	for _, r := range rows {
		if r.Error != "" {
			errRows = append(errRows, r)
		}
	}
	if len(errRows) > 0 {
		fmt.Fprintf(w, "\n## Errors\n\n")
		for _, r := range errRows {
			fmt.Fprintf(w, "- `%s`: %s\n", r.Name, mdCell(r.Error))
		}
	}
	writeMisses(w, rows, floorMs)
	fmt.Fprintf(w, "\n## Where rrmcp loses\n\n")
	var losing []string
	for _, r := range rows {
		if r.loses() {
			rr, gdb, ratio := r.cells()
			losing = append(losing, fmt.Sprintf("- **%s**: rrmcp %s vs GDB %s %s (ratio %s).", r.Name, rr, gdb, r.Unit, ratio))
		}
	}
	if len(losing) == 0 {
		fmt.Fprintf(w, "Nowhere in this run.\n")
	} else {
		fmt.Fprintf(w, "%s\n", strings.Join(losing, "\n"))
	}
	if len(profiles) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Profiles of the rows that miss their goal\n\nrrmcp's side of each row marked ✗, taken in-process (same tools and session code, mcp-go in-process client, no stdio), `go tool pprof -top`:\n\n")
	for _, p := range profiles {
		fmt.Fprintf(w, "### %s (%s profile)\n\n", p.Case, p.Kind)
		if p.Err != nil {
			fmt.Fprintf(w, "Profiling failed: %s\n\n", mdCell(p.Err.Error()))
			continue
		}
		if p.RRPackets.N > 0 {
			fmt.Fprintf(w, "RSP packets sent per timed operation (median, min–max; counted by a proxy in front of gdbserver, rrmcp attached with rr_connect): **rrmcp %s**, GDB %s.\n\n", pktStats(p.RRPackets), pktStats(p.GDBPackets))
		}
		fmt.Fprintf(w, "File: `bench/profiles/%s` (`go tool pprof -top` it, or `-http=:0`)\n\n```\n%s\n```\n\n", filepath.Base(p.File), strings.TrimSpace(p.Top))
	}
}

// writeMisses says, for each per-operation row that misses the lean
// goal (≤ 0.5 × GDB), where its time goes: the tool handler (server
// time, mostly waiting for gdbserver's replies in a move), the
// transport floor, and the rest (the request's and the result's JSON,
// dispatch), and whether the goal is within reach of the handler's time
// and the floor at all. The floor is the ping_after_stop row's lean
// median where the run has it (every timed operation is the first one
// after a stop, when that is the round trip's cost), else floorMs, the
// ping of back-to-back calls.
func writeMisses(w io.Writer, rows []row, floorMs float64) {
	floorName := "transport floor"
	backToBack := floorMs
	var afterStop *row
	for i := range rows {
		if rows[i].Name == "ping_after_stop" && rows[i].RRMCPms != nil && rows[i].Error == "" {
			afterStop = &rows[i]
			floorMs = *rows[i].RRMCPms
			floorName = "floor after a stop"
		}
	}
	var lines []string
	for _, r := range rows {
		if r.Unit != "ms" || r.RRMCPms == nil || r.GDBms == nil || r.RRMCPServerMs == nil || !r.missesGoal() ||
			strings.HasPrefix(r.Name, "cold_start") {
			continue
		}
		leanGoal, goGoal := r.goal()
		goal := leanGoal * *r.GDBms
		if r.Ratio <= leanGoal && r.MCPGoMs != nil {
			lines = append(lines, fmt.Sprintf("- **%s**: the lean client meets its goal (ratio %.2f); through mcp-go's client (ratio %.2f, goal ≤ %.2f) the call takes %.3f ms more.", r.Name, r.Ratio, r.MCPGoRatio, goGoal, *r.MCPGoMs-*r.RRMCPms))
			continue
		}
		if r.RRMCPHitsPerS != nil {
			// A whole run over many hits: the time is the server's.
			cpu := "not measured"
			if r.RRMCPCPUms != nil {
				cpu = fmt.Sprintf("%.0f ms", *r.RRMCPCPUms)
			}
			lines = append(lines, fmt.Sprintf("- **%s**: %.0f ms against a goal of ≤ %.0f ms (GDB %.0f ms): one run over every hit, in which rrmcp's own CPU time was %s; the rest is waiting for the server, which traps at each hit for rrmcp and GDB alike (rrmcp %s hits/s, GDB %s hits/s).", r.Name, *r.RRMCPms, goal, *r.GDBms, cpu, fmtNum(r.RRMCPHitsPerS), fmtNum(r.GDBHitsPerS)))
			continue
		}
		server := *r.RRMCPServerMs
		rest := *r.RRMCPms - server - floorMs
		why := fmt.Sprintf("the handler and the floor alone (%.3f ms) are above the goal: out of reach unless the handler's own time or the round trip after a stop falls", server+floorMs)
		if floorMs > goal {
			why = "the floor alone is above the goal: out of reach for any handler on this machine"
		} else if server+floorMs <= goal {
			why = fmt.Sprintf("the handler and the floor (%.3f ms) are within the goal: the %.3f ms outside the handler are what misses it", server+floorMs, rest)
		}
		restText := fmt.Sprintf("the rest %.3f ms (the call's and the result's JSON, the client's decoding, scheduling)", rest)
		if rest < 0 {
			// the handler's time and the floor overlap: after a stop
			// both wait for the stop's own reads
			restText = fmt.Sprintf("nothing else (the two overlap by %.3f ms: after a stop both include the wait for the stop's own reads)", -rest)
		}
		line := fmt.Sprintf("- **%s**: lean %.3f ms against a goal of ≤ %.3f ms (GDB %.3f ms): handler %.3f ms + %s %.3f ms + %s; %s.", r.Name, *r.RRMCPms, goal, *r.GDBms, server, floorName, floorMs, restText, why)
		if r.RRMCPAgainMs != nil && r.GDBAgainMs != nil && *r.GDBAgainMs > 0 {
			line += fmt.Sprintf(" The same call made again at that stop takes %.3f ms (GDB %.3f ms, ratio %.2f).", *r.RRMCPAgainMs, *r.GDBAgainMs, *r.RRMCPAgainMs / *r.GDBAgainMs)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	about := "The transport floor is the `ping` round trip of back-to-back calls (Machine section)"
	if afterStop != nil {
		about = fmt.Sprintf("The floor after a stop is the `ping_after_stop` row: a JSON-RPC ping made where each operation row is timed, right after the continue to a fresh stop, %.3f ms through rrmcp (GDB's cheapest MI command there, -list-features, %s ms), against %s for back-to-back pings (Machine section): after a stop the threads of both processes have gone to sleep, and rrmcp's reads for the stop (registers, top of the stack) are still in flight to gdbserver", *afterStop.RRMCPms, fmtNum(afterStop.GDBms), fmtNum(&backToBack))
	}
	fmt.Fprintf(w, "\n## Rows that miss their goal, and why\n\n%s; the handler's time is the server time column; CPU time is the front-end process's own (Where the time goes). Each row's profile is in the last section.\n\n%s\n", about, strings.Join(lines, "\n"))
}

// writeCurves writes the cost-curve tables, each with its plot.
func writeCurves(w io.Writer, rows []row, plots map[string]string) {
	fmt.Fprintf(w, "## Cost curves\n\nTime per call against one dimension of the target (`bench/large/curves/curve.c`, -O0 -g), medians in ms. Plots: log-log, grid lines at each power of ten; **blue** rrmcp with the lean client, **green** rrmcp with mcp-go's client, **red** GDB/MI.\n\n")
	for _, sp := range curveSpecs {
		fmt.Fprintf(w, "### %s\n\n%s.\n\n| %s | rrmcp lean | rrmcp mcp-go | rrmcp server time | GDB/MI | ratio lean | ratio mcp-go |\n|---|---|---|---|---|---|---|\n", sp.name, sp.what, sp.axis)
		for _, x := range sp.xs {
			r, ok := findRow(rows, fmt.Sprintf("curve_%s_%d", sp.name, x))
			if !ok {
				continue
			}
			rr, gdb, ratio := r.cells()
			goMs, goRatio := r.goCells()
			if r.Error != "" {
				ratio = "error"
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s |\n", x, rr, goMs, fmtNum(r.RRMCPServerMs), gdb, ratio, goRatio)
		}
		if f, ok := plots[sp.name]; ok {
			fmt.Fprintf(w, "\n![%s: ms per call against %s](%s)\n", sp.name, sp.axis, f)
		}
		fmt.Fprintf(w, "\n")
	}
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}

func pktStats(s stats) string {
	if s.N == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", s.Median, s.Min, s.Max)
}
