package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		in   []float64
		want stats
	}{
		{nil, stats{}},
		{[]float64{5}, stats{Median: 5, Min: 5, Max: 5, P25: 5, P75: 5, N: 1}},
		{[]float64{4, 1, 3, 2}, stats{Median: 2.5, Min: 1, Max: 4, P25: 1.75, P75: 3.25, N: 4}},
		{[]float64{9, 1, 5, 3, 7}, stats{Median: 5, Min: 1, Max: 9, P25: 3, P75: 7, N: 5}},
	}
	for _, tt := range tests {
		if got := summarize(tt.in); got != tt.want {
			t.Errorf("summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func ms(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func TestRowsFor(t *testing.T) {
	c := benchCase{name: "hits", hits: 10000}
	rows := rowsFor(c, measurement{durs: ms(2000, 1000, 3000)}, measurement{durs: ms(4000, 4000)}, nil, nil)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	if *r.RRMCPms != 2000 || *r.GDBms != 4000 || r.Ratio != 0.5 || r.Reps != 3 {
		t.Errorf("row = %+v", r)
	}
	if *r.RRMCPHitsPerS != 5000 || *r.GDBHitsPerS != 2500 {
		t.Errorf("hits/s = %v, %v", *r.RRMCPHitsPerS, *r.GDBHitsPerS)
	}
	if r.loses() {
		t.Error("rrmcp twice as fast reported as losing")
	}

	c = benchCase{name: "cold", rss: "peak"}
	rows = rowsFor(c, measurement{durs: ms(300), rss: []float64{30}}, measurement{rss: []float64{20}}, nil, errors.New("boom"))
	if len(rows) != 2 || rows[1].Name != "peak" || rows[1].Unit != "MiB" {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[0].Ratio != 0 || rows[0].GDBms != nil || !strings.Contains(rows[0].Error, "gdb: boom") {
		t.Errorf("time row with a failed side = %+v", rows[0])
	}
	if rows[1].Ratio != 1.5 || !rows[1].loses() {
		t.Errorf("rss row = %+v", rows[1])
	}
}

// TestOutputs checks the results.json field names scripts rely on and the
// RESULTS.md sections.
func TestOutputs(t *testing.T) {
	rows := rowsFor(benchCase{name: "step", desc: "one line"}, measurement{durs: ms(2), check: "hit:39"}, measurement{durs: ms(1), check: "hit:39"}, nil, nil)
	var js bytes.Buffer
	if err := writeJSON(&js, rows); err != nil {
		t.Fatal(err)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "rrmcp_ms", "gdb_ms", "ratio"} {
		if _, ok := decoded[0][k]; !ok {
			t.Errorf("results.json object lacks %q: %s", k, js.String())
		}
	}
	var md bytes.Buffer
	writeMarkdown(&md, "make bench", []string{"CPU: test"}, rows, []profileReport{{Case: "step", Kind: "CPU", File: "/x/step.pprof", Top: "flat flat%"}}, time.Second)
	for _, want := range []string{"## Machine", "- CPU: test", "| step | ms | 2.000", "| 2.00 |", "## Where rrmcp loses", "**step**", "bench/profiles/step.pprof", "flat flat%"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md.String())
		}
	}
	var tbl bytes.Buffer
	writeTable(&tbl, rows)
	if !strings.Contains(tbl.String(), "step") || !strings.Contains(tbl.String(), "2.00") {
		t.Errorf("table:\n%s", tbl.String())
	}
}

// TestDriversSmoke runs two cases with both drivers for two repetitions:
// GDB/MI against gdbserver and rrmcp's tools in-process (the stdio path
// differs only in transport), so the harness cannot rot unnoticed.
func TestDriversSmoke(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	counter := testenv.Prog(t, "counter")
	makers := map[string]maker{
		"gdb":   func(ctx context.Context, exe string) (driver, error) { return newGDB(ctx, exe) },
		"rrmcp": func(ctx context.Context, exe string) (driver, error) { return newMCPInProcess(ctx) },
	}
	want := map[string]string{"continue_to_breakpoint": "hit", "evaluate_member_chain": `"beta"`}
	for _, c := range cases() {
		w, ok := want[c.name]
		if !ok {
			continue
		}
		for side, mk := range makers {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			m, err := c.run(ctx, counter, mk, 2)
			cancel()
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, side, err)
				continue
			}
			if len(m.durs) != 2 || !strings.Contains(m.check, w) {
				t.Errorf("%s/%s: %d samples, returned %q; want 2 samples and %q", c.name, side, len(m.durs), m.check, w)
			}
		}
	}
}
