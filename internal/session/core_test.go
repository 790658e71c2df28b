package session

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// gdbCore runs prog under GDB to its crash and has GDB write a core there
// (generate-core-file): the same core whatever the machine's core_pattern.
func gdbCore(t *testing.T, prog string) string {
	t.Helper()
	testenv.NeedTool(t, "gdb")
	path := filepath.Join(t.TempDir(), "core")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", "-nx", "-batch", "-ex", "set debuginfod enabled off",
		"-ex", "run", "-ex", "generate-core-file "+path, prog).CombinedOutput()
	if _, serr := os.Stat(path); serr != nil {
		t.Fatalf("gdb wrote no core for %s: %v %v\n%s", prog, err, serr, out)
	}
	return path
}

// gdbOnCore runs GDB's commands on a core: GDB is the oracle.
func gdbOnCore(t *testing.T, prog, corePath string, cmds ...string) string {
	t.Helper()
	args := []string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "set width 0", "-ex", "set pagination off"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "gdb", append(args, prog, corePath)...).CombinedOutput()
	return string(out)
}

var gdbFrameRe = regexp.MustCompile(`(?m)^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\)(?: at (\S+):(\d+))?`)

// TestCoreMatchesGDB opens cores of crashing test programs with OpenCore
// and compares backtrace (function, file:line per frame), the crashing
// frame's locals, an expression, registers and threads with what GDB says
// about the same core.
func TestCoreMatchesGDB(t *testing.T) {
	tests := []struct {
		prog  string
		frame int      // frame to select for locals and the expression
		exprs []string // evaluated in that frame
	}{
		{"null_deref", 0, []string{"u", "u == 0"}},
		{"list_corrupt", 0, []string{"n->name", "*n", "n->next"}},
		{"use_after_free", 0, nil},
		{"assert_fail", 0, nil},
		{"shlib_crash", 0, nil},
		{"recursion", 1, nil},
	}
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	for _, tt := range tests {
		t.Run(tt.prog, func(t *testing.T) {
			prog := testenv.Prog(t, tt.prog)
			corePath := gdbCore(t, prog)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			s, st, err := m.OpenCore(ctx, corePath, prog)
			if err != nil {
				t.Fatalf("OpenCore: %v", err)
			}
			defer m.Stop(context.Background(), s.ID()) //nolint:errcheck
			if st == nil || st.Frame == nil {
				t.Fatalf("no stop location: %+v", st)
			}

			// Backtrace: every frame GDB shows with a function and file:line.
			frames, _, _, _, err := s.Backtrace(ctx, 64)
			if err != nil {
				t.Fatalf("backtrace: %v", err)
			}
			cmds := []string{"echo <BT>\\n", "bt 64", "echo </BT>\\n", "echo <REGS>\\n", "p/x $rip", "p/x $rsp", "echo </REGS>\\n"}
			if tt.frame > 0 {
				cmds = append(cmds, fmt.Sprintf("frame %d", tt.frame))
			}
			cmds = append(cmds, "echo <LOCALS>\\n", "info locals", "echo </LOCALS>\\n")
			for i, e := range tt.exprs {
				cmds = append(cmds, fmt.Sprintf("echo <E%d>\\n", i), "output "+e, fmt.Sprintf("echo \\n</E%d>\\n", i))
			}
			cmds = append(cmds, "info threads")
			out := gdbOnCore(t, prog, corePath, cmds...)
			gbt := gdbFrameRe.FindAllStringSubmatch(section(out, "BT"), -1)
			if len(gbt) == 0 {
				t.Fatalf("gdb printed no backtrace:\n%s", out)
			}
			if len(frames) < len(gbt) {
				t.Errorf("backtrace: %d frames, gdb %d", len(frames), len(gbt))
			}
			for i, g := range gbt {
				if i >= len(frames) {
					break
				}
				f := frames[i]
				if f.Function != g[2] {
					t.Errorf("frame %d: function %q, gdb %q", i, f.Function, g[2])
				}
				if g[3] != "" && (filepath.Base(f.File) != filepath.Base(g[3]) || fmt.Sprint(f.Line) != g[4]) {
					t.Errorf("frame %d (%s): %s:%d, gdb %s:%s", i, g[2], f.File, f.Line, g[3], g[4])
				}
			}

			if tt.frame > 0 {
				if _, err := s.SelectFrame(ctx, tt.frame); err != nil {
					t.Fatalf("select frame %d: %v", tt.frame, err)
				}
			}
			vals, _, err := s.Locals(ctx)
			if err != nil {
				t.Fatalf("locals: %v", err)
			}
			// Locals as GDB lists them (a name may repeat: nested blocks).
			var ours, theirs []string
			for _, v := range vals {
				if v.Kind == "local" {
					ours = append(ours, v.Name+" = "+norm(v.Value))
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(section(out, "LOCALS")), "\n") {
				if name, val, ok := strings.Cut(l, " = "); ok && !strings.HasPrefix(l, " ") {
					theirs = append(theirs, name+" = "+norm(val))
				}
			}
			slices.Sort(ours)
			slices.Sort(theirs)
			if !slices.Equal(ours, theirs) {
				t.Errorf("locals:\n ours %q\n gdb  %q", ours, theirs)
			}
			for i, e := range tt.exprs {
				want := norm(section(out, fmt.Sprintf("E%d", i)))
				r, err := s.Evaluate(ctx, e)
				if err != nil {
					t.Errorf("evaluate %s: %v (gdb: %s)", e, err, want)
				} else if norm(r.Value) != want {
					t.Errorf("evaluate %s = %s (%s), gdb %s", e, r.Value, r.Engine, want)
				}
			}

			if tt.frame > 0 {
				if _, err := s.SelectFrame(ctx, 0); err != nil {
					t.Fatal(err)
				}
			}
			regs, err := s.Registers(ctx, []string{"rip", "rsp"})
			if err != nil {
				t.Fatalf("registers: %v", err)
			}
			gregs := regexp.MustCompile(`\$\d+ = (0x[0-9a-f]+)`).FindAllStringSubmatch(section(out, "REGS"), -1)
			for i, r := range regs {
				if i < len(gregs) && !strings.EqualFold(strings.TrimLeft(strings.TrimPrefix(r.Value, "0x"), "0"), strings.TrimLeft(strings.TrimPrefix(gregs[i][1], "0x"), "0")) {
					t.Errorf("register %s = %s, gdb %s", r.Name, r.Value, gregs[i][1])
				}
			}
			threads, err := s.Threads(ctx)
			if err != nil {
				t.Fatalf("threads: %v", err)
			}
			if n := len(regexp.MustCompile(`(?m)^[ *]\s*\d+\s+(?:Thread|LWP|process)`).FindAllString(out, -1)); n != len(threads) {
				t.Errorf("%d threads, gdb %d:\n%s", len(threads), n, out)
			}
			if ins, _, err := s.Disassemble(ctx, "", 3); err != nil || len(ins) == 0 {
				t.Errorf("disassemble: %v %v", ins, err)
			}
			if _, err := s.ReadMemory(ctx, regs[1].Value, 16); err != nil {
				t.Errorf("read the stack at rsp: %v", err)
			}

			// Nothing moves in a core.
			for name, f := range map[string]func() error{
				"continue": func() error { _, err := s.Continue(ctx, false); return err },
				"step":     func() error { _, err := s.Step(ctx, 1, false); return err },
				"finish":   func() error { _, err := s.Finish(ctx, false); return err },
			} {
				if err := f(); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "core dump") {
					t.Errorf("%s on a core: %v, want ErrUnsupported saying it is a core dump", name, err)
				}
			}
		})
	}
}

// section is GDB's output between the markers <name> and </name>.
func section(out, name string) string {
	_, rest, ok := strings.Cut(out, "<"+name+">\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "</"+name+">")
	return body
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestKernelCore opens a core the kernel wrote (not GDB), where the
// machine's core_pattern writes a file: backtrace and the crashing
// frame's variables as GDB reads them.
func TestKernelCore(t *testing.T) {
	raw, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Skipf("core_pattern unreadable: %v", err)
	}
	pattern := strings.TrimSpace(string(raw))
	if strings.HasPrefix(pattern, "|") || strings.Contains(pattern, "/") {
		t.Skipf("this machine's core_pattern %q does not write a core into the working directory; TestCoreMatchesGDB covers cores GDB writes", pattern)
	}
	prog := testenv.Prog(t, "null_deref")
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "ulimit -c unlimited; exec "+prog)
	cmd.Dir = dir
	cmd.Run() //nolint:errcheck // it crashes
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(cores) != 1 {
		t.Fatalf("the kernel wrote %d cores in %s (core_pattern %q)", len(cores), dir, pattern)
	}
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, st, err := m.OpenCore(ctx, cores[0], prog)
	if err != nil {
		t.Fatal(err)
	}
	if st.Signal != "SIGSEGV" || st.Frame == nil || st.Frame.Function != "use" {
		t.Errorf("stop %+v, want SIGSEGV in use", st)
	}
	frames, _, _, _, err := s.Backtrace(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	out := section(gdbOnCore(t, prog, cores[0], "echo <BT>\\n", "bt", "echo </BT>\\n"), "BT")
	gbt := gdbFrameRe.FindAllStringSubmatch(out, -1)
	if len(gbt) < 4 {
		t.Fatalf("gdb backtrace:\n%s", out)
	}
	for i, g := range gbt {
		if i >= len(frames) || frames[i].Function != g[2] || fmt.Sprint(frames[i].Line) != g[4] {
			t.Errorf("frame %d: ours %+v, gdb %s", i, frames[min(i, len(frames)-1)].Location, g[0])
		}
	}
}

// TestCoreFloatRegistersAndFallback: a core session has the threads' x87
// and SSE registers (NT_PRFPREG), as GDB reads them from the core, and
// an expression only GDB evaluates goes to the GDB fallback, which talks
// to the core's server like to any other (before, GDB rejected the
// server's target description and the fallback never started on a
// core).
func TestCoreFloatRegistersAndFallback(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, prog, corePath := coreOf(t, ctx, "null_deref")
	names := []string{"xmm0", "xmm1", "mxcsr", "fctrl", "ftag"}
	regs, err := s.Registers(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, n := range names {
		if strings.HasPrefix(n, "xmm") {
			cmds = append(cmds, "p/x $"+n+".uint128")
		} else {
			cmds = append(cmds, "p/x $"+n)
		}
	}
	const expr = "(char[8])*(long*)$rsp" // a cast to an array: GDB's
	out := gdbOnCore(t, prog, corePath, append(append([]string{"echo <P>\\n"}, cmds...), "p "+expr, "echo </P>\\n")...)
	vals := regexp.MustCompile(`(?m)^\$\d+ = (.*)$`).FindAllStringSubmatch(section(out, "P"), -1)
	if len(vals) != len(names)+1 {
		t.Fatalf("gdb printed %d values:\n%s", len(vals), out)
	}
	for i, r := range regs {
		if r.Name != names[i] || r.Value != vals[i][1] {
			t.Errorf("register %s = %s, GDB on the core: %s = %s", r.Name, r.Value, names[i], vals[i][1])
		}
	}
	v, err := s.Evaluate(ctx, expr)
	if err != nil || v.Engine != "gdb" || v.Value != vals[len(names)][1] {
		t.Errorf("%s = %+v (%v); GDB on the core: %s", expr, v, err, vals[len(names)][1])
	}
	// AVX: the upper halves of ymm0-15 from the core's XSAVE area
	// (NT_X86_XSTATE), joined with xmm0-15 as GDB's $ymmN.
	if _, ok := s.c.Target().Lookup("ymm0h"); !ok {
		t.Skip("SKIP(no AVX): the core has no AVX state (NT_X86_XSTATE), so the target description has no ymm0h")
	}
	ymms := []string{"ymm0", "ymm1", "ymm15"}
	regs, err = s.Registers(ctx, ymms)
	if err != nil || len(regs) != len(ymms) {
		t.Fatalf("registers %v: %+v %v", ymms, regs, err)
	}
	var ycmds []string
	for _, n := range ymms {
		ycmds = append(ycmds, "p/x $"+n+".v2_int128")
	}
	out = gdbOnCore(t, prog, corePath, append(append([]string{"echo <Y>\\n"}, ycmds...), "echo </Y>\\n")...)
	halves := regexp.MustCompile(`(?m)^\$\d+ = \{(0x[0-9a-f]+), (0x[0-9a-f]+)\}$`).FindAllStringSubmatch(section(out, "Y"), -1)
	if len(halves) != len(ymms) {
		t.Fatalf("gdb printed %d ymm values:\n%s", len(halves), out)
	}
	nonzero := 0
	for i, r := range regs {
		lo, _ := new(big.Int).SetString(halves[i][1][2:], 16)
		hi, _ := new(big.Int).SetString(halves[i][2][2:], 16)
		want := new(big.Int).Or(new(big.Int).Lsh(hi, 128), lo)
		got, ok := new(big.Int).SetString(strings.TrimPrefix(r.Value, "0x"), 16)
		if !ok || got.Cmp(want) != 0 {
			t.Errorf("%s = %s, GDB on the core: %#x", r.Name, r.Value, want)
		}
		if hi.Sign() != 0 {
			nonzero++
		}
	}
	t.Logf("%d of %d ymm registers with a nonzero upper half", nonzero, len(ymms))
}

// TestCoreI386: an i386 core is refused with what to do instead (the
// program runs under rr_live_start), not as a bad argument.
func TestCoreI386(t *testing.T) {
	h := []byte{0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 3, 0, 1, 0, 0, 0}
	h = append(h, make([]byte, 16)...)
	h = append(h, 52, 0, 32, 0, 0, 0, 40, 0, 0, 0, 0, 0)
	corePath := filepath.Join(t.TempDir(), "core.m32")
	if err := os.WriteFile(corePath, h, 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	_, _, err := m.OpenCore(t.Context(), corePath, testenv.Prog(t, "counter-m32"))
	var ae *ArgError
	if !errors.Is(err, ErrUnsupported) || errors.As(err, &ae) || !strings.Contains(err.Error(), "rr_live_start") {
		t.Errorf("OpenCore(i386 core) = %v", err)
	}
}

// TestInlinedEntryValues: in thread_crash's core the waiting threads'
// frame 0 is glibc's __futex_abstimed_wait_common64, inlined, whose
// arguments private and cancel are entry values of the function it was
// inlined into. Each thread's frame-0 arguments are GDB's (they were
// <optimized out>: an inlined frame's entry values were not looked up).
func TestInlinedEntryValues(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, prog, corePath := coreOf(t, ctx, "thread_crash")
	out := gdbOnCore(t, prog, corePath, "thread apply all bt 1")
	want := map[string]string{} // LWP -> frame 0 as GDB prints it
	lwp := regexp.MustCompile(`(?m)^Thread \d+ \(.*?LWP (\d+)\)\):?\n#0\s+(?:0x[0-9a-f]+ in )?(\S+ \(.*?\))`)
	for _, m := range lwp.FindAllStringSubmatch(out, -1) {
		want[m[1]] = m[2]
	}
	ts, err := s.Threads(ctx)
	if err != nil || len(ts) != 5 || len(want) != 5 {
		t.Fatalf("threads %d (%v), GDB's %d:\n%s", len(ts), err, len(want), out)
	}
	inlined := 0
	for _, th := range ts {
		if _, err := s.SelectThread(ctx, th.ID); err != nil {
			t.Fatal(err)
		}
		vals, f, err := s.Locals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, v := range vals {
			if v.Kind == "argument" {
				val := v.Value
				if p := strings.Index(val, ") 0x"); strings.HasPrefix(val, "(") && p > 0 {
					val = val[p+2:] // GDB's frame line omits a pointer's (type)
				}
				args = append(args, v.Name+"="+val)
			}
		}
		got := f.Function + " (" + strings.Join(args, ", ") + ")"
		if w := want[strconv.Itoa(th.TID)]; got != w {
			t.Errorf("thread %d frame 0: %s\nGDB: %s", th.TID, got, w)
		}
		if f.Inlined {
			inlined++
		}
	}
	if inlined == 0 {
		t.Skip("SKIP(no glibc debug information): no thread's frame 0 is an inlined glibc function (libc6-dbg)")
	}
}

// coreOf opens a session on the core GDB writes of test program name at
// its crash, and returns it with the program's and the core's paths.
func coreOf(t *testing.T, ctx context.Context, name string) (s *Session, prog, corePath string) {
	t.Helper()
	prog = testenv.Prog(t, name)
	corePath = gdbCore(t, prog)
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	s, _, err := m.OpenCore(ctx, corePath, prog)
	if err != nil {
		t.Fatal(err)
	}
	return s, prog, corePath
}
