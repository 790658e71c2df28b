package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// stepLoopSrc has lines whose code branches back to the line's first
// instruction: within the breakpoint's own line-table row (countdown's
// asm loop, where the range step that takes the breakpoint out must not
// be used) and from a later row of the line (spin's for (;;) loop, whose
// head is where break spin puts the breakpoint at -O0); and a line with
// a call (next over it, step into it).
const stepLoopSrc = `volatile int x;

__attribute__((noinline)) int leaf(int v)
{
	return v * 2;
}

__attribute__((noinline)) void countdown(void)
{
	x = 3;
	__asm__ volatile("1: decl x(%%rip)\n\tjnz 1b" ::: "memory", "cc"); /* asm loop */
	x += 5;
}

__attribute__((noinline)) void spin(void)
{
	for (;;) { if (++x % 4 == 0) break; } /* for loop */
	x += leaf(x); /* call */
	x++;
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		countdown();
		spin();
	}
	return 0;
}
`

// lineOf returns the line of stepLoopSrc that holds marker.
func lineOf(t *testing.T, marker string) int {
	i := strings.Index(stepLoopSrc, marker)
	if i < 0 {
		t.Fatalf("no %q in the source", marker)
	}
	return strings.Count(stepLoopSrc[:i], "\n") + 1
}

// TestStepFromBreakpointMatchesGDB: rr_step and rr_next made at a
// breakpoint (the step over it is part of the first range step, unless a
// branch in the line leads back to the breakpoint) stop where GDB's step
// and next stop, pc for pc, the breakpoint's new hits included, at -O0
// and -O2, built by gcc and by clang. GDB debugging natively is the
// oracle.
func TestStepFromBreakpointMatchesGDB(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	dir := t.TempDir()
	src := filepath.Join(dir, "steploop.c")
	if err := os.WriteFile(src, []byte(stepLoopSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	const steps = 8
	for _, build := range []string{"gcc -O0", "gcc -O2", "clang -O0", "clang -O2"} {
		cc, opt, _ := strings.Cut(build, " ")
		testenv.NeedTool(t, cc)
		exe := filepath.Join(dir, "steploop-"+cc+opt)
		if out, err := exec.Command(cc, "-g", opt, "-fno-omit-frame-pointer", "-o", exe, src).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", build, err, out)
		}
		for _, loc := range []string{"spin", "countdown",
			fmt.Sprintf("steploop.c:%d", lineOf(t, "asm loop")),
			fmt.Sprintf("steploop.c:%d", lineOf(t, "for loop")),
			fmt.Sprintf("steploop.c:%d", lineOf(t, "call"))} {
			for _, op := range []string{"next", "step"} {
				t.Run(fmt.Sprintf("%s%s/%s/%s", cc, opt, loc, op), func(t *testing.T) {
					want := gdbSteps(t, gdb, exe, loc, op, steps)
					got := sessionSteps(t, exe, loc, op, steps)
					if strings.Join(got, " ") != strings.Join(want, " ") {
						t.Errorf("%s from break %s, %d times:\nrrmcp %v\nGDB   %v", op, loc, steps, got, want)
					}
				})
			}
		}
	}
}

// sessionSteps breaks at loc, continues to it and makes op steps times
// through a live session; it returns the pc of the stop and of each step.
func sessionSteps(t *testing.T, exe, loc, op string, steps int) []string {
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBreakpoint(ctx, loc, "", false); err != nil {
		t.Fatalf("break %s: %v", loc, err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to %s: %+v %v", loc, st, err)
	}
	pcs := []string{stopPC(t, st)}
	for range steps {
		if op == "next" {
			st, err = s.Next(ctx, 1, false)
		} else {
			st, err = s.Step(ctx, 1, false)
		}
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		pcs = append(pcs, stopPC(t, st))
	}
	return pcs
}

// stopPC is the pc of st, written as GDB's printf "%#lx" writes it.
func stopPC(t *testing.T, st *Stop) string {
	t.Helper()
	if st.Frame == nil {
		t.Fatalf("stop without a frame: %+v", st)
	}
	return st.Frame.PC
}

var gdbPCLine = regexp.MustCompile(`(?m)^PC (0x[0-9a-f]+)$`)

// gdbSteps is sessionSteps done by GDB on the program run natively.
func gdbSteps(t *testing.T, gdb, exe, loc, op string, steps int) []string {
	args := []string{"-batch", "-nx", "-ex", "set confirm off", "-ex", "set pagination off",
		"-ex", "break " + loc, "-ex", "run", "-ex", `printf "PC %#lx\n", $pc`}
	for range steps {
		args = append(args, "-ex", op, "-ex", `printf "PC %#lx\n", $pc`)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, gdb, append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var pcs []string
	for _, m := range gdbPCLine.FindAllStringSubmatch(string(out), -1) {
		pcs = append(pcs, m[1])
	}
	if len(pcs) != steps+1 {
		t.Fatalf("gdb printed %d pcs, want %d:\n%s", len(pcs), steps+1, out)
	}
	return pcs
}
