package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"
)

// profileHz is the CPU profiling rate of profile runs.
const profileHz = 1000

// profileCase reruns rrmcp's side of c in-process under the CPU profiler
// (time rows) or takes a heap profile at the stop (RSS rows), and
// summarizes it with `go tool pprof -top`.
func profileCase(c benchCase, r row, exe string, reps int, dir string, timeout time.Duration) profileReport {
	rep := profileReport{Case: r.Name, Kind: "CPU"}
	if r.Unit == "MiB" {
		rep.Kind = "heap (inuse_space at the stop)"
		reps = 1
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		rep.Err = err
		return rep
	}
	rep.File = filepath.Join(dir, r.Name+".pprof")
	heapFile := ""
	if r.Unit == "MiB" {
		heapFile = rep.File
	}
	mk := func(ctx context.Context, exe string) (driver, error) {
		d, err := newMCPInProcess(ctx)
		if err != nil {
			return nil, err
		}
		d.heapProfile = heapFile
		d.pc = &packetCounter{}
		d.args = c.args
		return d, nil
	}
	mkGDB := func(ctx context.Context, exe string) (driver, error) {
		d, err := newGDB(ctx, exe)
		if err != nil {
			return nil, err
		}
		d.pc = &packetCounter{}
		d.condEval = c.gdbCondEval
		d.args = c.args
		return d, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	logf("profiling rrmcp in-process: %s (%s)", r.Name, rep.Kind)
	if heapFile == "" {
		f, err := os.Create(rep.File)
		if err != nil {
			rep.Err = err
			return rep
		}
		// Sub-millisecond operations need more than the default 100 Hz;
		// StartCPUProfile then warns on stderr that the rate was set.
		runtime.SetCPUProfileRate(profileHz)
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			rep.Err = err
			return rep
		}
		var m measurement
		m, err = c.run(ctx, exe, mk, reps)
		pprof.StopCPUProfile()
		f.Close()
		if err != nil {
			rep.Err = err
			return rep
		}
		rep.RRPackets = summarize(m.pkts)
	} else {
		m, err := c.run(ctx, exe, mk, reps)
		if err != nil {
			rep.Err = err
			return rep
		}
		rep.RRPackets = summarize(m.pkts)
	}
	if m, err := c.run(ctx, exe, mkGDB, reps); err == nil {
		rep.GDBPackets = summarize(m.pkts)
	}
	// Two views: the hottest functions anywhere, then rrmcp's own
	// functions by cumulative time (what our code causes).
	var views []string
	for _, v := range [][]string{
		{"-top", "-nodecount=20"},
		{"-top", "-cum", "-nodecount=30", "-show=github.com/rrmcp/"},
	} {
		if heapFile != "" {
			v = append(v, "-sample_index=inuse_space")
		} else {
			v = append(v, "-tagfocus=rrbench=timed") // only the timed operations
		}
		args := append([]string{"tool", "pprof"}, v...)
		out, err := exec.Command("go", append(args, rep.File)...).CombinedOutput()
		if err != nil {
			rep.Err = fmt.Errorf("go tool pprof: %v: %s", err, out)
			return rep
		}
		views = append(views, "$ go tool pprof "+strings.Join(v, " ")+"\n"+trimHeader(string(out)))
	}
	rep.Top = strings.Join(views, "\n")
	return rep
}

// writeHeapProfile records the live heap (after a GC) into path.
func writeHeapProfile(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// trimHeader drops pprof's File/Build ID/Time lines, keeping the totals.
func trimHeader(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "File:") || strings.HasPrefix(l, "Build ID:") || strings.HasPrefix(l, "Time:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}
