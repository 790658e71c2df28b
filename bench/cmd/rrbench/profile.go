package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

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
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			rep.Err = err
			return rep
		}
		_, err = c.run(ctx, exe, mk, reps)
		pprof.StopCPUProfile()
		f.Close()
		if err != nil {
			rep.Err = err
			return rep
		}
	} else if _, err := c.run(ctx, exe, mk, reps); err != nil {
		rep.Err = err
		return rep
	}
	args := []string{"tool", "pprof", "-top", "-nodecount=25"}
	if heapFile != "" {
		args = append(args, "-sample_index=inuse_space")
	}
	out, err := exec.Command("go", append(args, rep.File)...).CombinedOutput()
	if err != nil {
		rep.Err = fmt.Errorf("go tool pprof: %v: %s", err, out)
		return rep
	}
	rep.Top = string(out)
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
