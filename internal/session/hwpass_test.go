package session

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestHardwarePassEveryHitOnce: a breakpoint whose condition rrmcp
// evaluates (a double: no bytecode) moves to a debug register where they
// fire (hwpass.go), and its stops are still every hit exactly once:
// eight threads of threads_bp hitting tick() at the same moment report
// each (id, round) once, and signal_storm's tick(i), with a signal
// pending at almost every resume, reports i = 0, 1, 2, … in order, never
// one twice. Where the debug registers do not fire, the same holds of
// the software breakpoint, and the test says which path it proved.
func TestHardwarePassEveryHitOnce(t *testing.T) {
	for _, tc := range []struct {
		prog, cond string
		key        []string // expressions naming a hit
		hits       int      // all of them, or the first (the storm's are slow)
		ordered    bool     // the hits come in the order of key[0]
	}{
		{"threads_bp", "(double)round > -1.0", []string{"id", "round"}, 400, false},
		{"signal_storm", "(double)i > -1.0", []string{"i"}, 60, true},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			s := liveSession(t, tc.prog, "")
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			if _, err := s.SetBreakpoint(ctx, "tick", tc.cond, false); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for n := 0; len(seen) < tc.hits; n++ {
				st, err := s.Continue(ctx, false)
				if err != nil {
					t.Fatalf("continue %d: %v", n, err)
				}
				if st.Reason == "exited" {
					t.Fatalf("the program exited after %d hits, want %d", len(seen), tc.hits)
				}
				if st.Reason != "breakpoint" {
					if st.Reason == "signal" {
						continue // SIGURG, which the program handles
					}
					t.Fatalf("stop %d: %+v", n, st)
				}
				key := ""
				for _, e := range tc.key {
					r, err := s.Evaluate(ctx, e)
					if err != nil {
						t.Fatalf("stop %d: %s: %v", n, e, err)
					}
					key += r.Value + " "
				}
				if seen[key] {
					t.Fatalf("stop %d: the hit %s= %s was reported twice", n, fmt.Sprint(tc.key), key)
				}
				if tc.ordered && key != fmt.Sprintf("%d ", len(seen)) {
					t.Fatalf("stop %d: hit %s, want %d (a call skipped)", n, key, len(seen))
				}
				seen[key] = true
				if n == 0 {
					if bps, _ := s.Breakpoints(ctx); len(bps) == 1 {
						t.Logf("after the first hit: %s", bps[0].Mechanism)
					}
				}
			}
			if len(seen) != tc.hits {
				t.Errorf("%d hits reported, want %d", len(seen), tc.hits)
			}
			hw := s.hardware(context.Background())
			bps, _ := s.Breakpoints(ctx)
			switch {
			case len(bps) != 1:
				t.Errorf("breakpoints: %+v", bps)
			case hw.Break && !hw.Forced && bps[0].Mechanism != "hardware breakpoint":
				t.Errorf("hardware breakpoints fire here, but the breakpoint stayed in software: %+v", bps[0])
			case hw.Break && !hw.Forced:
				t.Logf("proved: the hardware path")
			default:
				t.Logf("proved: the software path (%s)", hw.Reason)
			}
		})
	}
}
