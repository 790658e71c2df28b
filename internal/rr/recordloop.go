package rr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// UntilFailure says what counts as the failure to catch and how long to
// try. With no predicate set, any non-zero exit or fatal signal counts.
type UntilFailure struct {
	ExitCode       *int          // exactly this exit code
	Signal         string        // death by this signal, e.g. SIGSEGV
	OutputContains string        // the program's (last) output contains this
	MaxAttempts    int           // default 20
	Budget         time.Duration // total time; default 10 min
	// Progress, if set, hears of each attempt as it starts.
	Progress func(attempt int, msg string)
}

// Attempt summarizes one recording that did not fail.
type Attempt struct {
	N        int    `json:"n"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
}

// RecordLoop is the outcome of RecordUntilFailure.
type RecordLoop struct {
	Failed     bool      `json:"failed" jsonschema:"a recording matched the failure predicate; result is that trace"`
	Attempts   int       `json:"attempts"`
	Passed     []Attempt `json:"passed,omitempty" jsonschema:"attempts that did not fail (their traces were deleted); the last 20"`
	Conditions string    `json:"conditions" jsonschema:"how the failing run was recorded (chaos mode, attempt number)"`
	Result     *Recorded `json:"result,omitempty" jsonschema:"the failing recording"`
	Ended      string    `json:"ended" jsonschema:"failed, max_attempts, budget or cancelled"`
}

// matches reports whether a recording is the failure asked for.
func (u UntilFailure) matches(r Recorded) bool {
	set := false
	if u.ExitCode != nil {
		set = true
		if r.Signal != "" || r.ExitCode != *u.ExitCode {
			return false
		}
	}
	if u.Signal != "" {
		set = true
		if !strings.EqualFold(r.Signal, u.Signal) {
			return false
		}
	}
	if u.OutputContains != "" {
		set = true
		if !strings.Contains(r.Output, u.OutputContains) {
			return false
		}
	}
	return set || r.Signal != "" || r.ExitCode != 0
}

// RecordUntilFailure records o.Command again and again in chaos mode until
// a recording fails as u says, keeping only that trace (each passing
// trace is deleted before the next attempt). rr's chaos mode picks its
// randomness itself and prints no seed, so the conditions are chaos mode
// and the attempt number.
func (t Traces) RecordUntilFailure(ctx context.Context, o RecordRequest, u UntilFailure) (*RecordLoop, error) {
	if u.MaxAttempts <= 0 {
		u.MaxAttempts = 20
	}
	if u.Budget <= 0 {
		u.Budget = 10 * time.Minute
	}
	o.Chaos = true
	bctx, cancel := context.WithTimeout(ctx, u.Budget)
	defer cancel()
	out := &RecordLoop{}
	for n := 1; n <= u.MaxAttempts; n++ {
		if bctx.Err() != nil {
			out.Ended = "budget"
			return out, nil
		}
		out.Attempts = n
		if u.Progress != nil {
			u.Progress(n, fmt.Sprintf("recording attempt %d of at most %d", n, u.MaxAttempts))
		}
		res, err := t.Record(bctx, o)
		if err != nil && errors.Is(ctx.Err(), context.Canceled) {
			out.Ended = "cancelled" // the client cancelled: the attempts so far
			return out, nil
		}
		if err != nil {
			if bctx.Err() != nil && ctx.Err() == nil {
				out.Ended = "budget"
				return out, nil
			}
			return out, fmt.Errorf("attempt %d: %w", n, err)
		}
		if u.matches(res) {
			out.Failed, out.Ended, out.Result = true, "failed", &res
			out.Conditions = fmt.Sprintf("rr record --chaos, attempt %d of at most %d (rr's chaos mode prints no seed; re-recording may need as many attempts)", n, u.MaxAttempts)
			return out, nil
		}
		if IsTraceDir(res.TraceDir) {
			os.RemoveAll(res.TraceDir) //nolint:errcheck // a passing run's trace is not kept
		}
		out.Passed = append(out.Passed, Attempt{N: n, ExitCode: res.ExitCode, Signal: res.Signal})
		if len(out.Passed) > 20 {
			out.Passed = out.Passed[1:]
		}
	}
	out.Ended = "max_attempts"
	return out, nil
}
