package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/session"
)

// softWatchCases are the software-watchpoint rows: rrmcp's software
// watchpoint (forced with RRMCP_HW_WATCHPOINTS=off, as on a machine whose
// debug registers do not fire) against GDB's (`set can-use-hw-watchpoints
// 0`) over the same loop.
func softWatchCases() []benchCase {
	return []benchCase{
		{name: "software_watchpoint_loop", unit: "ms", reps: 10, exe: func(e *env) string { return e.counter },
			desc: "continue over main's 64-iteration bytes[] loop (counter.c:72 to a breakpoint at :74; 580 instructions, 129 stores at gcc -O0) " +
				"with a software watchpoint on ratio, which the loop never writes: rrmcp with RRMCP_HW_WATCHPOINTS=off, GDB with set can-use-hw-watchpoints 0",
			run: softWatchLoop},
	}
}

// softWatchLoop times the continue from counter.c:72 to :74 with a
// software watchpoint set.
func softWatchLoop(ctx context.Context, exe string, mk maker, reps int) (measurement, error) {
	var m measurement
	// The rrmcp server reads the switch from its environment when a
	// session starts (a spawned server inherits it at spawn).
	old, had := os.LookupEnv(hwdebug.EnvVar)
	os.Setenv(hwdebug.EnvVar, "off")
	defer func() {
		if had {
			os.Setenv(hwdebug.EnvVar, old)
		} else {
			os.Unsetenv(hwdebug.EnvVar)
		}
	}()
	d, err := mk(ctx, exe)
	if err != nil {
		return m, err
	}
	defer d.close()
	for i := 0; i < warmup+reps; i++ {
		if err := d.start(ctx, exe); err != nil {
			return m, err
		}
		for _, loc := range []string{"counter.c:72", "counter.c:74"} {
			if err := d.setBreak(ctx, loc, ""); err != nil {
				return m, err
			}
		}
		if _, err := d.cont(ctx); err != nil {
			return m, err
		}
		if err := softWatch(ctx, d, "ratio"); err != nil {
			return m, err
		}
		var st stopInfo
		if err := m.timed(d, i >= warmup, func() (err error) {
			st, err = d.cont(ctx)
			return err
		}); err != nil {
			return m, err
		}
		if st.line != 74 {
			return m, fmt.Errorf("the continue stopped at %v, want the breakpoint at counter.c:74", st)
		}
		m.check = st.String()
		if g, ok := d.(*gdbDriver); ok {
			// GDB keeps breakpoints and watchpoints across runs: a
			// software watchpoint left set would single-step the next
			// run from its first instruction.
			if _, err := g.g.Run(ctx, "-break-delete"); err != nil {
				return m, err
			}
		}
		if err := d.endSession(ctx); err != nil {
			return m, err
		}
	}
	return m, nil
}

// softWatch sets a software write watchpoint on expr and checks that it
// is one.
func softWatch(ctx context.Context, d driver, expr string) error {
	switch d := d.(type) {
	case *gdbDriver:
		if _, err := d.g.Run(ctx, "-gdb-set can-use-hw-watchpoints 0"); err != nil {
			return err
		}
		rec, err := d.g.Run(ctx, "-break-watch "+expr)
		if err != nil {
			return err
		}
		if _, ok := rec.Field("wpt"); !ok {
			return fmt.Errorf("gdb set no software watchpoint: %v", rec)
		}
		return nil
	case *mcpDriver:
		var out struct {
			Breakpoint session.Breakpoint `json:"breakpoint"`
		}
		if err := d.call(ctx, "rr_watchpoint_set", map[string]any{"expression": expr}, &out); err != nil {
			return err
		}
		if out.Breakpoint.Mechanism != "software watchpoint" {
			return fmt.Errorf("rrmcp set a %q, want a software watchpoint", out.Breakpoint.Mechanism)
		}
		return nil
	}
	return fmt.Errorf("no watchpoints in driver %s", d.name())
}
