package session

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestExitVariablesMatchGDB: $_exitcode and $_exitsignal are void while
// the program runs and, once it has ended, its exit status or the signal
// that killed it, as GDB, the oracle, prints them for the same program:
// counter exits 0; null_deref dies of SIGSEGV after its signal stop.
func TestExitVariablesMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	history := regexp.MustCompile(`(?m)^\$\d+ = (.*)$`)
	for _, prog := range []string{"counter", "null_deref"} {
		t.Run(prog, func(t *testing.T) {
			path := testenv.Prog(t, prog)
			cmds := []string{"print $_exitcode", "print $_exitsignal", "continue"}
			if prog == "null_deref" {
				cmds = append(cmds, "continue") // past the signal stop
			}
			cmds = append(cmds, "print $_exitcode", "print $_exitsignal")
			var want []string
			for _, m := range history.FindAllStringSubmatch(gdbAt(t, path, "main", cmds...), -1) {
				want = append(want, m[1])
			}
			if len(want) != 4 {
				t.Fatalf("GDB printed %q, want four values", want)
			}

			s := liveSession(t, prog, "main")
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			var got []string
			print := func() {
				for _, v := range []string{"$_exitcode", "$_exitsignal"} {
					r, err := s.Evaluate(ctx, v)
					if err != nil {
						t.Fatalf("%s: %v", v, err)
					}
					got = append(got, r.Value)
				}
			}
			print()
			for range 2 {
				st, err := s.Continue(ctx, false)
				if err != nil {
					t.Fatal(err)
				}
				if st.Reason == "exited" || st.Reason == "signal-exit" || s.exited != nil {
					break
				}
			}
			print()
			t.Logf("GDB and rrmcp: %q", want)
			if !slices.Equal(got, want) {
				t.Errorf("$_exitcode, $_exitsignal before and after the end: %q, GDB says %q", got, want)
			}
		})
	}
}
