package main

import (
	"strings"
	"testing"
	"time"
)

// TestSoftWatchSmoke runs the software-watchpoint case once on each side:
// both stop at the breakpoint after the loop, each with a software
// watchpoint (softWatch checks GDB's wpt and rrmcp's mechanism).
func TestSoftWatchSmoke(t *testing.T) {
	run := smokeSides(t)
	for _, c := range softWatchCases() {
		run(c, 120*time.Second, 1, func(where string, m measurement) {
			if len(m.durs) != 1 || !strings.Contains(m.check, "main:74") {
				t.Errorf("%s: %d samples, returned %q; want 1 sample and a stop in main:74", where, len(m.durs), m.check)
			}
		})
	}
}
