package main

import (
	"context"
	"fmt"
	"strconv"
)

// The cost curves: time per call against one dimension of the target, on
// bench/large/curves/curve.c (`curve DEPTH THREADS CALLS`), each point a
// case of its own named curve_<curve>_<x>.

// curveSpec describes one curve.
type curveSpec struct {
	name, axis, what string
	xs               []int
	logX             bool
}

var curveSpecs = []curveSpec{
	{name: "backtrace_depth", axis: "frames", what: "rr_backtrace / -stack-list-frames of the whole stack at bottom() under chain(N) (fresh stop each time)", xs: []int{10, 100, 1000}, logX: true},
	{name: "breakpoints", axis: "breakpoints", what: "rr_continue / -exec-continue to bottom() with N breakpoints set (N−1 of them on functions never called)", xs: []int{1, 100, 1000}, logX: true},
	{name: "threads", axis: "threads", what: "rr_continue / -exec-continue to bottom() in a process of N threads (N−1 blocked for good)", xs: []int{1, 16, 128}, logX: true},
	{name: "locals_depth", axis: "frames", what: "rr_locals / -stack-list-variables --all-values of frame 0 at bottom() under chain(N) (fresh stop each time): the innermost frame's cost should not grow with the stack below it", xs: []int{10, 100, 1000}, logX: true},
}

func curveCases() []benchCase {
	curve := func(e *env) string { return e.curve }
	var out []benchCase
	for _, sp := range curveSpecs {
		for _, x := range sp.xs {
			c := benchCase{name: fmt.Sprintf("curve_%s_%d", sp.name, x), unit: "ms", exe: curve,
				curve: sp.name, x: x, desc: fmt.Sprintf("cost curve %s, N = %d: %s", sp.name, x, sp.what)}
			switch sp.name {
			case "backtrace_depth":
				c.reps = 10
				c.args = []string{strconv.Itoa(x), "1", "100000"}
				c.run = atFunc("bottom", nil, func(ctx context.Context, d driver) (string, error) {
					n, err := d.backtrace(ctx, x+16)
					return fmt.Sprintf("%d frames", n), err
				}, true)
			case "locals_depth":
				c.reps = 10
				c.args = []string{strconv.Itoa(x), "1", "100000"}
				c.run = atFunc("bottom", nil, func(ctx context.Context, d driver) (string, error) {
					n, err := d.locals(ctx)
					return fmt.Sprintf("%d variables", n), err
				}, true)
			case "breakpoints":
				c.reps = 20
				c.args = []string{"10", "1", "100000"}
				c.run = atFunc("bottom", func(ctx context.Context, d driver) error {
					for i := 0; i < x-1; i++ {
						if err := d.setBreak(ctx, fmt.Sprintf("spare_%03d", i), ""); err != nil {
							return err
						}
					}
					return nil
				}, contTo, false)
			case "threads":
				c.reps = 20
				c.args = []string{"10", strconv.Itoa(x), "100000"}
				c.run = atFunc("bottom", nil, contTo, false)
			}
			out = append(out, c)
		}
	}
	return out
}

// contTo is the timed continue of the breakpoint and thread curves.
func contTo(ctx context.Context, d driver) (string, error) {
	st, err := d.cont(ctx)
	return st.function, err
}
