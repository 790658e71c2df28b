package session

import (
	"context"
	"regexp"
	"slices"
	"strings"
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

// TestConvenienceVariablesMatchGDB: GDB's convenience variables, set
// and read by rr_evaluate, in a breakpoint condition, and after the
// program has ended, print as GDB, the oracle, prints them on counter:
// void until set; a copy of the value given (a struct's members still
// read after the program is gone); op= combining; the end's $_exitcode
// beside the user's variables. Before, "$v = 5" went to the GDB fallback,
// and "$v + 1" then failed as an unknown register.
func TestConvenienceVariablesMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	const prog = "counter"
	// Each step is an expression to print, or a command: "break LOC if
	// COND", "continue", "delete".
	steps := []string{
		"$v", "!$v", "$v && 1", "$v ? 1 : 2", "$v = 5", "$v + 1", "$v *= 3", "$n = *list", "$n.next->name", "$p = list->next", "$p->value",
		"$stop = 2", "break hit if i == $stop", "continue", "i", "$v", "$_exitcode",
		"delete", "continue", "$v * 2", "$_exitcode == 0", "$n.value", "$stop",
	}
	var cmds []string
	for _, st := range steps {
		switch {
		case st == "continue" || st == "delete" || strings.HasPrefix(st, "break "):
			cmds = append(cmds, st)
		default:
			cmds = append(cmds, "print "+st)
		}
	}
	history := regexp.MustCompile(`(?m)^\$\d+ = (.*)$`)
	var want []string
	for _, m := range history.FindAllStringSubmatch(gdbAt(t, testenv.Prog(t, prog), "main", cmds...), -1) {
		want = append(want, m[1])
	}

	s := liveSession(t, prog, "main")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var got []string
	for _, st := range steps {
		switch {
		case st == "continue":
			if _, err := s.Continue(ctx, false); err != nil {
				t.Fatalf("continue: %v", err)
			}
		case st == "delete":
			bps, err := s.Breakpoints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, bp := range bps {
				if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
					t.Fatal(err)
				}
			}
		case strings.HasPrefix(st, "break "):
			loc, cond, _ := strings.Cut(strings.TrimPrefix(st, "break "), " if ")
			if _, err := s.SetBreakpoint(ctx, loc, cond, false); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		default:
			r, err := s.Evaluate(ctx, st)
			if err != nil {
				t.Fatalf("%s: %v", st, err)
			}
			if r.Engine != "native" {
				t.Errorf("%s: evaluated by %s, want natively", st, r.Engine)
			}
			got = append(got, r.Value)
		}
	}
	t.Logf("GDB and rrmcp: %q", want)
	if !slices.Equal(got, want) {
		t.Errorf("convenience variables: %q, GDB prints %q", got, want)
	}
	// A void value in arithmetic or a comparison is GDB's error.
	bad := []string{"$unset == 0", "$unset < 1", "$unset + 1", "-$unset", "$_exitsignal == 0"}
	var bcmds []string
	for _, e := range bad {
		bcmds = append(bcmds, "print "+e)
	}
	out := gdbAt(t, testenv.Prog(t, prog), "main", bcmds...)
	for _, e := range bad {
		_, err := s.Evaluate(ctx, e)
		if err == nil {
			t.Errorf("%s: no error", e)
			continue
		}
		msg := err.Error()[strings.LastIndex(err.Error(), ": ")+2:]
		if !strings.Contains(out, "\n"+msg+"\n") {
			t.Errorf("%s: %q, not among GDB's errors:\n%s", e, msg, out)
		}
	}
}
