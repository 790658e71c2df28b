package rr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// RecordOptions describe one `rr record` run.
type RecordOptions struct {
	Argv     []string // the program and its arguments; Argv[0] is looked up by rr
	Dir      string   // working directory; "" = ours
	Env      []string // extra KEY=VALUE entries added to our environment
	TraceDir string   // trace directory to create (rr -o); "" = rr's default under TraceRoot
	Chaos    bool     // rr --chaos: randomise scheduling to shake out races
	RR       string   // rr executable; "" = rr on PATH
	// Microarch forces rr's CPU microarchitecture (rr -A NAME); "" = rr
	// detects it, and Record retries with the family rr's Failure
	// names when rr does not know the CPU.
	Microarch string
	// Output, if set, sees every line the recorded program and rr print.
	Output func(proc.Line)
}

// RecordResult is what Record learned besides the trace directory.
type RecordResult struct {
	TraceDir   string
	ExitStatus int    // rr's exit status, which is the recorded program's
	Output     string // the last lines the program and rr printed
	Microarch  string // the microarchitecture forced with rr -A after rr did not know the CPU
}

// Record runs `rr record --print-trace-dir=3 [-o DIR] [--chaos] ARGV...`
// and returns the trace directory rr wrote (read from fd 3, never guessed)
// and rr's exit status, which is the recorded program's exit status. A
// program that fails is not an error: err is set only if rr did not
// produce a trace (it could not start, or ctx ended first, in which case
// the process group is stopped and the error wraps ctx's error).
// When rr fails with a message Diagnose knows, the error wraps its
// *Failure; when that Failure says rr can be told the CPU's family
// (unknown CPU), Record retries once with rr -A, and the result says so
// (Microarch).
func Record(ctx context.Context, o RecordOptions) (RecordResult, error) {
	res, err := recordOnce(ctx, o)
	if f, ok := AsFailure(err); ok && f.Microarch != "" && o.Microarch == "" && ctx.Err() == nil {
		o.Microarch = f.Microarch
		res, err = recordOnce(ctx, o)
		res.Microarch = o.Microarch
		if f2, ok := AsFailure(err); ok {
			f2.Cause = fmt.Sprintf("%s; with rr -A '%s' (%s): %s", f.Cause, o.Microarch, f.Said, f2.Cause)
		}
	}
	return res, err
}

func recordOnce(ctx context.Context, o RecordOptions) (RecordResult, error) {
	if len(o.Argv) == 0 {
		return RecordResult{}, errors.New("rr record: empty command")
	}
	rrPath := o.RR
	if rrPath == "" {
		rrPath = "rr"
	}
	var args []string
	if o.Microarch != "" {
		args = append(args, "-A", o.Microarch)
	}
	args = append(args, "record", "--print-trace-dir=3")
	if o.TraceDir != "" {
		args = append(args, "-o", o.TraceDir)
	}
	if o.Chaos {
		args = append(args, "--chaos")
	}
	args = append(args, o.Argv...)
	r, w, err := os.Pipe()
	if err != nil {
		return RecordResult{}, fmt.Errorf("rr record: %w", err)
	}
	defer r.Close()
	var env []string
	if len(o.Env) > 0 {
		env = append(os.Environ(), o.Env...)
	}
	p, err := proc.Start(ctx, proc.Config{Path: rrPath, Args: args, Dir: o.Dir, Env: env,
		ExtraFiles: []*os.File{w}, OnLine: o.Output})
	w.Close() // the child has its copy; EOF on r once rr (and its children) close theirs
	if err != nil {
		return RecordResult{}, fmt.Errorf("rr record: %w", err)
	}
	dirc := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		dirc <- strings.TrimSpace(string(b))
	}()
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Stop(0) //nolint:errcheck // Stop always waits; ctx's error is the story
		return RecordResult{Output: p.Tail(20)}, fmt.Errorf("rr record %s: %w", o.Argv[0], ctx.Err())
	}
	res := RecordResult{ExitStatus: p.ExitCode(), Output: p.Tail(20)}
	diag := Diagnose(p.Tail(200)) // rr's fatal line comes before its backtrace
	// rr has exited; a recorded daemon that inherited fd 3 could keep the
	// pipe open, so the read is bounded.
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case res.TraceDir = <-dirc:
	case <-t.C:
	case <-ctx.Done():
	}
	if diag != nil && (res.TraceDir == "" || res.ExitStatus != 0) {
		return res, fmt.Errorf("rr record %s: %w", o.Argv[0], diag)
	}
	if res.TraceDir == "" {
		return res, fmt.Errorf("rr record %s: no trace directory reported (exit status %d):\n%s",
			o.Argv[0], res.ExitStatus, res.Output)
	}
	return res, nil
}
