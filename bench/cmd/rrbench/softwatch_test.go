package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSoftWatchSmoke runs the software-watchpoint case once on each side:
// both stop at the breakpoint after the loop, each with a software
// watchpoint (softWatch checks GDB's wpt and rrmcp's mechanism).
func TestSoftWatchSmoke(t *testing.T) {
	counter, makers := smokeMakers(t)
	for _, c := range softWatchCases() {
		for side, mk := range makers {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			m, err := c.run(ctx, counter, mk, 1)
			cancel()
			if err != nil {
				t.Errorf("%s/%s: %v", c.name, side, err)
				continue
			}
			if len(m.durs) != 1 || !strings.Contains(m.check, "main:74") {
				t.Errorf("%s/%s: %d samples, returned %q; want 1 sample and a stop in main:74", c.name, side, len(m.durs), m.check)
			}
		}
	}
}
