package session

import (
	"bytes"
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

// goLine is the line of a "LINE:name" marker in the Go test program.
func goLine(t *testing.T, name string) int {
	t.Helper()
	return markerLine(t, filepath.Join(testenv.Root(t), "testprogs", "go", "main.go"), name)
}

// markerLoc is FILE:LINE of markerLine, the file by its base name.
func markerLoc(t *testing.T, path, name string) string {
	t.Helper()
	return fmt.Sprintf("%s:%d", filepath.Base(path), markerLine(t, path, name))
}

// markerLine is the line of a "// LINE:name" marker in the file at path.
func markerLine(t *testing.T, path, name string) int {
	t.Helper()
	return lineWhere(t, path, "LINE:"+name, func(l string) bool { return strings.HasSuffix(l, "// LINE:"+name) })
}

// lineHolding is the number of the first line of path holding text.
func lineHolding(t *testing.T, path, text string) int {
	t.Helper()
	return lineWhere(t, path, fmt.Sprintf("%q", text), func(l string) bool { return strings.Contains(l, text) })
}

// lineWhere is the number of the first line of path that match accepts;
// what names the line in the failure.
func lineWhere(t *testing.T, path, what string, match func(string) bool) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if match(l) {
			return i + 1
		}
	}
	t.Fatalf("no %s in %s", what, path)
	return 0
}

// TestGoProgram debugs the Go test program live (gdbserver), built with
// and without -gcflags=all=-N -l: breakpoints at main.main and at
// main.go:LINE, the backtrace against GDB's, locals and arguments with Go
// types, strings as GDB reads them (quoted contents) and slices with their
// elements, slices, strings and maps indexed as Go indexes them; SIGURG (the runtime's preemption signal) never stops it.
func TestGoProgram(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	for _, build := range []string{"goprog-N", "goprog"} {
		t.Run(build, func(t *testing.T) {
			prog := testenv.Prog(t, build)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			// The runtime's preemption signal (SIGURG, passed silently)
			// may arrive while a continue steps over a breakpoint: the
			// client finishes the step over when the handler returns
			// (rsp/stepover.go), so no breakpoint is reported twice.
			s := liveSession(t, build, "main.main")
			frames, _, _, _, err := s.Backtrace(ctx, 10)
			if err != nil || len(frames) == 0 || frames[0].Function != "main.main" || filepath.Base(frames[0].File) != "main.go" {
				t.Fatalf("at main.main: %+v %v", frames, err)
			}

			// Three source-line steps from main.main go through main's
			// first three statements (-N -l build; the optimized build
			// moves them). GDB is no oracle here: its first next re-hits
			// the breakpoint at main.main's entry when the stack check
			// calls runtime.morestack, which re-enters the function.
			if build == "goprog-N" {
				for i, name := range []string{"xs", "greeting", "p"} {
					want := goLine(t, "next"+fmt.Sprint(i+1))
					st, err := s.Next(ctx, 1, false)
					if err != nil || st.Frame == nil || st.Frame.Line != want {
						t.Errorf("next %d: %+v %v, want line %d (%s := ...)", i+1, st, err, want, name)
					}
				}
			}

			sumLine := goLine(t, "sum")
			bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("main.go:%d", sumLine), "", false)
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Continue(ctx, false)
			if err != nil || st.Reason != "breakpoint" || st.Breakpoint != bp.Number {
				t.Fatalf("continue to main.go:%d: %+v %v (a SIGURG stop means the preemption signal was not passed)", sumLine, st, err)
			}
			frames, _, _, _, err = s.Backtrace(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			gdb := gdbAtLine(t, prog, sumLine, "echo <BT>\\n", "bt", "echo </BT>\\n", "echo <ARGS>\\n", "info args", "echo </ARGS>\\n",
				"up", "echo <G>\\n", "output greeting", "echo \\n</G>\\n", "echo <MT>\\n", "ptype m", "echo </MT>\\n",
				"set language c", "echo <XS>\\n", "output *xs.array@xs.len", "echo \\n</XS>\\n")
			// Where the breakpoint stopped and the frames above: as GDB
			// (optimized, sum is inlined and both stop in describe).
			gbt := gdbFrameRe.FindAllStringSubmatch(section(gdb, "BT"), -1)
			if len(gbt) < 2 {
				t.Fatalf("gdb:\n%s", gdb)
			}
			for i, g := range gbt {
				if i >= len(frames) || frames[i].Function != g[2] || fmt.Sprint(frames[i].Line) != g[4] {
					t.Errorf("frame %d: %+v, gdb %s", i, frames[min(i, len(frames)-1)].Location, g[0])
				}
			}
			// A map's ptype, in main: GDB spells the runtime's map and
			// table types' arguments "<string, int>".
			if _, err := s.SelectFrame(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(section(gdb, "MT"), "No symbol") {
				t.Log("m is optimized away in this build: no ptype to compare")
			} else if pt, err := s.Ptype(ctx, "m", false); err != nil || norm(pt.Type) != norm(strings.TrimPrefix(strings.TrimSpace(section(gdb, "MT")), "type = ")) {
				t.Errorf("ptype m: %q %v, gdb %q", pt.Type, err, section(gdb, "MT"))
			}
			if _, err := s.SelectFrame(ctx, 0); err != nil {
				t.Fatal(err)
			}
			vals, _, err := s.Locals(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Value{}
			for _, v := range vals {
				got[v.Name] = v
			}
			// Arguments: GDB's values, its "0x… " before a Go string
			// dropped (we print the contents only, as Go does).
			addr := regexp.MustCompile(`0x[0-9a-f]+ (")`)
			for _, l := range strings.Split(strings.TrimSpace(section(gdb, "ARGS")), "\n") {
				name, val, ok := strings.Cut(l, " = ")
				// Skipped: results, values GDB cannot read, pointers (the Go
				// heap moves between runs) and slices (checked below).
				if !ok || strings.HasPrefix(name, "~") || strings.Contains(val, "optimized out") || strings.Contains(val, "<error") ||
					strings.HasPrefix(val, "0x") || strings.HasPrefix(val, "{array = ") || strings.Contains(val, "data = 0x") {
					continue
				}
				if v, ok := got[name]; !ok || v.Kind != "argument" || norm(v.Value) != norm(addr.ReplaceAllString(val, "$1")) {
					t.Errorf("argument %s = %+v, gdb %s", name, v, val)
				}
			}
			// An interface: its dynamic type from the itab's symbol and
			// the value it points to (GDB prints the raw {tab, data}).
			descLine := goLine(t, "describe")
			if _, err := s.SetBreakpoint(ctx, fmt.Sprintf("main.go:%d", descLine), "", false); err != nil {
				t.Fatal(err)
			}
			if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
				t.Fatalf("continue to main.go:%d: %+v %v", descLine, st, err)
			}
			if r, err := s.Evaluate(ctx, "err"); err != nil || r.Value != `error(*errors.errorString) *{s = "file does not exist"}` {
				t.Errorf("err = %+v %v, want error(*errors.errorString) *{s = \"file does not exist\"}", r, err)
			}
			// A Go conversion: not native, so ptype asks GDB, as the
			// expression's value does (it had no fallback: unsupported).
			for e, want := range map[string]string{"int64(p.X)": "int64", "float64(p.Y)": "float64"} {
				if pt, err := s.Ptype(ctx, e, false); err != nil || pt.Type != want || pt.Engine != "gdb" {
					t.Errorf("ptype %s: %+v %v, want %s from GDB", e, pt, err, want)
				}
			}
			// An empty interface: its dynamic type from the descriptor's
			// name (a nameOff into runtime.types; the linker packs the
			// descriptors without symbols of their own), and the boxed
			// value. The optimized build has no location for it.
			if build == "goprog-N" {
				if r, err := s.Evaluate(ctx, "any"); err != nil || r.Value != "interface {}(int) 3" {
					t.Errorf("any = %+v %v, want interface {}(int) 3", r, err)
				}
			}
			if build == "goprog-N" {
				if v := got["total"]; v.Value != "10" || v.Type != "int" {
					t.Errorf("total = %+v, want 10 (int)", v)
				}
				// GDB prints a slice as its struct; its elements, read with
				// *xs.array@xs.len, follow our header.
				elems := strings.TrimSpace(section(gdb, "XS"))
				if v := got["xs"]; v.Type != "[]int" || v.Value != "[]int len: 4, cap: 4 = "+elems || elems != "{1, 2, 3, 4}" {
					t.Errorf("xs = %+v, want []int len: 4, cap: 4 = %s", v, elems)
				}
				if _, err := s.SelectFrame(ctx, 1); err != nil {
					t.Fatal(err)
				}
				// Maps: GDB prints only the pointer; the entries are the
				// program's (m's two, and big's 100 squares across tables).
				if r, err := s.Evaluate(ctx, "m"); err != nil || !strings.HasPrefix(r.Value, "map[string]int len: 2 = {") ||
					!strings.Contains(r.Value, `["a"] = 1`) || !strings.Contains(r.Value, `["b"] = 2`) {
					t.Errorf("m = %+v %v", r, err)
				}
				r, err := s.Evaluate(ctx, "big")
				pairs := regexp.MustCompile(`\[(\d+)\] = (\d+)`).FindAllStringSubmatch(r.Value, -1)
				seen := map[string]bool{}
				for _, kv := range pairs {
					var k, v int
					fmt.Sscan(kv[1], &k)
					fmt.Sscan(kv[2], &v)
					if v != k*k || seen[kv[1]] {
						t.Errorf("big: entry [%d] = %d (want %d, once)", k, v, k*k)
					}
					seen[kv[1]] = true
				}
				if err != nil || !strings.HasPrefix(r.Value, "map[int]int len: 100 = {") || len(seen) != 100 {
					t.Errorf("big: %v, %d distinct entries, want 100: %.300s", err, len(seen), r.Value)
				}
				// Indexing slices, strings and maps, as Go (and delve)
				// index them; GDB 13's Go support cannot subscript a
				// slice or a map, so the values are the program's.
				for e, want := range map[string]string{
					"xs[2]":              "3",
					"xs[1] + xs[3]":      "6",
					"greeting[1]":        "101", // 'e', a uint8 as Go has it
					"p.Name[1]":          "116",
					`m["b"]`:             "2",
					"big[9]":             "81",
					"big[xs[3]]":         "16",
					"&xs[0] == xs.array": "true", // a Go comparison is a bool, as GDB prints it
					"xs[2] < xs[1]":      "false",
					"it.Name":            `"kiwi"`, // promoted from the embedded Base
					"it.ID":              "7",
					"it.Base.Name":       `"kiwi"`,
					"Limit":              "42", // package main's, unqualified
					"main.Limit":         "42",
				} {
					if r, err := s.Evaluate(ctx, e); err != nil || r.Value != want {
						t.Errorf("%s = %+v %v, want %s", e, r, err, want)
					}
				}
				for e, want := range map[string]string{
					"xs[4]":        "index out of range [4] with length 4",
					"greeting[-1]": "index out of range [-1] with length 9",
					`m["zz"]`:      "key not in the map map[string]int",
					"m[1]":         "the map's keys are strings: int is not a string",
				} {
					if r, err := s.Evaluate(ctx, e); err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("%s = %+v %v, want the error %q", e, r, err, want)
					}
				}
				want := addr.ReplaceAllString(strings.TrimSpace(section(gdb, "G")), "$1") // GDB: 0x4e7495 "hello, go"
				if r, err := s.Evaluate(ctx, "greeting"); err != nil || r.Value != want || want != `"hello, go"` || r.Type != "string" {
					t.Errorf("greeting = %+v %v, gdb %s", r, err, want)
				}
			}
		})
	}
}

// gdbAtLine runs prog under GDB to main.go:line and runs cmds there.
// TestGoNextAfterPauseFollowsGoroutine makes main's first three nexts
// (goprog-N) after a pause each, as a user's think time: a program that
// sat stopped has the runtime's sysmon ask for a preemption at the first
// resume, so SIGURG (passed silently) interrupts the step, and the
// preempted goroutine resumes on whichever thread the scheduler gives it.
// The step goes on there: it follows the goroutine, not the thread it
// began on (a step made again on the old thread let the goroutine run to
// the program's exit). GDB is no oracle here (its first next re-hits the
// breakpoint at main.main, see TestGoProgram); the lines are main's.
func TestGoNextAfterPauseFollowsGoroutine(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	var delivered, moved int
	for iter := range 10 {
		var log bytes.Buffer
		s := liveSessionWith(t, Config{PacketLog: &log}, "goprog-N", "main.main")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		t0 := s.inf.Cur
		for i, name := range []string{"xs", "greeting", "p"} {
			time.Sleep(15 * time.Millisecond)
			want := goLine(t, "next"+fmt.Sprint(i+1))
			st, err := s.Next(ctx, 1, false)
			if err != nil || st.Frame == nil || st.Frame.Line != want {
				cancel()
				t.Fatalf("session %d, next %d: %+v %v, want line %d (%s := ...)", iter+1, i+1, st, err, want, name)
			}
		}
		if s.inf.Cur != t0 {
			moved++
		}
		cancel()
		// vCont;C10: SIGURG (GDB's signal 16) delivered by a step.
		delivered += strings.Count(log.String(), ";C10:")
	}
	t.Logf("SIGURG delivered during a step %d times; the goroutine ended its steps on another thread in %d of 10 sessions", delivered, moved)
	if delivered == 0 {
		t.Fatal("the runtime sent no SIGURG during any step: the test proved nothing (did sysmon's preemption change?)")
	}
}

func gdbAtLine(t *testing.T, prog string, line int, cmds ...string) string {
	t.Helper()
	return gdbAt(t, prog, fmt.Sprintf("main.go:%d", line), cmds...)
}

// gdbAt runs prog under GDB to the breakpoint location loc and runs cmds
// there.
func gdbAt(t *testing.T, prog, loc string, cmds ...string) string {
	t.Helper()
	args := []string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "set width 0", "-ex", "set pagination off",
		"-ex", "break " + loc, "-ex", "run"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gdb", append(args, "-ex", "kill", prog)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8") // text outside ASCII as rrmcp prints it
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestGoFinishValues: finish from a Go function reports the values it
// returned, read from the registers Go's internal ABI puts results in
// (rax, rbx, … for integers and pointers, a string in two of them, an
// interface in two), in the optimized build and the -N -l one alike; it
// reported none. GDB 13 does not know that ABI, so the program's own
// values are the reference: sum(1, 2, 3, 4) and describe's text.
func TestGoFinishValues(t *testing.T) {
	for _, build := range []string{"goprog-N", "goprog"} {
		t.Run(build, func(t *testing.T) {
			want := map[string]string{
				"main.describe": `"pt(3,4) 2file does not exist"`,
				"main.mk":       `{S = "q", T = []string len: 2, cap: 2 = {"q", "q"}}`, // ~r0 listed twice in goprog
			}
			if build == "goprog-N" {
				want["main.sum"] = "10" // inlined into main in the optimized build: no value, as GDB's finish out of an inlined call
			}
			for fn, want := range want {
				s := liveSession(t, build, fn)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				st, err := s.Finish(ctx, false)
				cancel()
				if err != nil || st.ReturnValue != want {
					t.Errorf("finish from %s: %+v %v, want the value %s", fn, st, err, want)
				}
			}
		})
	}
}

// TestGoNoEntryValues: a Go function's arguments have no NAME@entry: Go
// emits no call-site information, and its internal ABI has no
// callee-saved registers, so the register an argument came in (b in rbx)
// says nothing of its value at the entry (rrmcp listed b@entry from rbx's
// current contents, 0 after a call). GDB lists none either.
func TestGoNoEntryValues(t *testing.T) {
	for _, build := range []string{"goprog-N", "goprog"} {
		t.Run(build, func(t *testing.T) {
			s := liveSession(t, build, "main.main")
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if _, err := s.SetBreakpoint(ctx, fmt.Sprintf("main.go:%d", goLine(t, "scale")), "", false); err != nil {
				t.Fatal(err)
			}
			if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
				t.Fatalf("continue to scale: %+v %v", st, err)
			}
			vals, _, err := s.Locals(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if v.Kind == "entry" {
					t.Errorf("%s = %s listed (a Go entry value)", v.Name, v.Value)
				}
			}
		})
	}
}

// TestGoFuncValue: a Go func value prints as the code it calls, read
// through the closure it points to, in a register at the function's
// entry (f in rbx) as well as in memory: it was "<not in memory>" in a
// register, and the variable's own address in memory. GDB 13 prints
// {void (int, int)} 0x0 here, so the closure's symbol is the reference.
func TestGoFuncValue(t *testing.T) {
	want := regexp.MustCompile(`^\{func\(int\) int\} 0x[0-9a-f]+ <main\.main\.func1>$`)
	for _, build := range []string{"goprog-N", "goprog"} {
		t.Run(build, func(t *testing.T) {
			s := liveSession(t, build, "main.apply")
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if r, err := s.Evaluate(ctx, "f"); err != nil || !want.MatchString(r.Value) {
				t.Errorf("f = %+v %v, want %s", r, err, want)
			}
		})
	}
}
