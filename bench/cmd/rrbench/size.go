package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The cold-start curve against the size of the debug info: each
// cold_start_* case runs on a binary of its own, from about 4 MB of DWARF
// (sqlite3) to about 500 MB (the generated C program).

// sizePlot is the key of the curve's plot among writePlots's.
const sizePlot = "dwarf_size"

// sizePoint is one cold-start case of the curve and its peak-RSS row.
type sizePoint struct {
	cold, rss, what string
}

var sizePoints = []sizePoint{
	{"cold_start_sqlite3", "peak_rss_sqlite3", "sqlite3 (C, -O2, 1 CU)"},
	{"cold_start_stl", "peak_rss_stl", "STL-heavy C++ (-O0, 101 CUs)"},
	{"cold_start_dwarf", "peak_rss_dwarf", "generated C (-O0, 181 CUs of structs)"},
}

// dwarfMB is the size of the debug sections (.debug_*) of the ELF file
// at path, in MB (10^6 bytes).
func dwarfMB(path string) (float64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n uint64
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			n += s.Size
		}
	}
	return float64(n) / 1e6, nil
}

// dwarfSizes measures the binaries of the selected cold-start cases:
// case name to MB of DWARF.
func dwarfSizes(e *env, selected []benchCase) map[string]float64 {
	out := map[string]float64{}
	for _, c := range selected {
		if !strings.HasPrefix(c.name, "cold_start_") {
			continue
		}
		if mb, err := dwarfMB(c.exe(e)); err == nil {
			out[c.name] = mb
		} else {
			logf("DWARF size of %s: %v", c.name, err)
		}
	}
	return out
}

// sizeSeries are the plot's lines: cold-start time against MB of DWARF.
func sizeSeries(rows []row, sizes map[string]float64) []series {
	var pts []point
	for _, p := range sizePoints {
		if r, ok := findRow(rows, p.cold); ok && sizes[p.cold] > 0 {
			pts = append(pts, point{sizes[p.cold], r})
		}
	}
	return seriesOf(pts)
}

// writeSizePlot writes the cold-start plot into dir; its file name, or ""
// where there is nothing to plot.
func writeSizePlot(dir string, rows []row, sizes map[string]float64) string {
	var b bytes.Buffer
	if err := plotLogLog(&b, sizeSeries(rows, sizes)); err != nil {
		return ""
	}
	f := filepath.Join(dir, "curve_dwarf_size.png")
	if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
		logf("plot %s: %v", f, err)
		return ""
	}
	return filepath.Base(f)
}

// writeSizeCurve writes the cold-start and peak-RSS table against the size
// of the debug info, with its plot.
func writeSizeCurve(w io.Writer, rows []row, sizes map[string]float64, plot string) {
	var lines []string
	for _, p := range sizePoints {
		r, ok := findRow(rows, p.cold)
		mb, known := sizes[p.cold]
		if !ok || !known {
			continue
		}
		rr, gdb, ratio := r.cells()
		if r.Error != "" {
			ratio = "error"
		}
		rssRR, rssGDB, rssRatio := "—", "—", "—"
		if m, ok := findRow(rows, p.rss); ok {
			rssRR, rssGDB, rssRatio = m.cells()
		}
		lines = append(lines, fmt.Sprintf("| %.0f | %s | %s | %s | %s | %s | %s | %s |", mb, p.what, rr, gdb, ratio, rssRR, rssGDB, rssRatio))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "### cold start against the size of the debug info\n\nThe cold_start_* rows (spawn the front end, start the program under gdbserver, break at bench_stop, continue to it; ms, lean client) and the front end's peak RSS (MiB) at that stop, against the MB of .debug_* sections of the binary.\n\n| MB of DWARF | binary | rrmcp cold start | GDB/MI cold start | ratio | rrmcp peak RSS | GDB peak RSS | ratio |\n|---|---|---|---|---|---|---|---|\n%s\n", strings.Join(lines, "\n"))
	if plot != "" {
		fmt.Fprintf(w, "\n![cold start: ms against MB of DWARF](%s)\n", plot)
	}
	fmt.Fprintf(w, "\n")
}
