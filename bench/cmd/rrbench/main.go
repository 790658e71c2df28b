// Command rrbench measures rrmcp against GDB/MI on the same targets, side by
// side in one run (`make bench`). Each case runs through the built
// bin/rrmcp over stdio twice, with a minimal raw JSON-RPC client (the
// primary column) and with mcp-go's client (the calls query, one call of
// many seconds, with the lean client only), live backend, and once
// through `gdb --interpreter=mi3` driving a gdbserver on the same
// program. It prints a table and writes bench/RESULTS.md and
// bench/results.json; for every row that misses its goal it profiles
// rrmcp's side in-process and puts the pprof summary into RESULTS.md.
//
// Usage (from the module root):
//
//	go run ./bench/cmd/rrbench [-run REGEXP] [-reps FACTOR] [-build=false] [-skip-large]
//
// It is a benchmark, not a test: nothing here fails on a timing.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// env holds the paths every case needs.
type env struct {
	root    string
	rrmcp   string
	counter string
	sqlite  string
	stl     string
	dwarf   string // the generated C program with about 500 MB of DWARF
	curve   string
	query   string
	// queryFast is query built -DFAST -no-pie: a fast tracepoint fits.
	queryFast string
}

func main() {
	root := flag.String("root", "", "module root (default: the directory holding go.mod above the working directory)")
	bin := flag.String("rrmcp", "", "rrmcp binary (default ROOT/bin/rrmcp)")
	build := flag.Bool("build", true, "build bin/rrmcp, testprogs and bench/large (cached) first")
	runRE := flag.String("run", "", "only cases whose name matches this regexp")
	scale := flag.Float64("reps", 1, "multiply every case's repetitions by this factor")
	out := flag.String("out", "", "directory for RESULTS.md, results.json and profiles/ (default ROOT/bench)")
	profile := flag.Bool("profile", true, "profile rrmcp in-process for every row that misses its goal")
	skipLarge := flag.Bool("skip-large", false, "skip the cold-start cases on the large binaries")
	timeout := flag.Duration("case-timeout", 4*time.Minute, "limit for one side of one case")
	flag.Parse()
	if err := run(*root, *bin, *build, *runRE, *scale, *out, *profile, *skipLarge, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "rrbench:", err)
		os.Exit(1)
	}
}

func run(root, bin string, build bool, runRE string, scale float64, out string, profile, skipLarge bool, timeout time.Duration) error {
	start := time.Now()
	if root == "" {
		var err error
		if root, err = testenv.ModuleRoot(); err != nil {
			return fmt.Errorf("%w; use -root", err)
		}
	}
	e := &env{
		root:      root,
		rrmcp:     bin,
		counter:   filepath.Join(root, "testprogs", "build", "counter"),
		sqlite:    filepath.Join(root, "bench", "large", "build", "sqlite3"),
		stl:       filepath.Join(root, "bench", "large", "build", "stl", "stl"),
		dwarf:     filepath.Join(root, "bench", "large", "build", "dwarf", "dwarf"),
		curve:     filepath.Join(root, "bench", "large", "build", "curves", "curve"),
		query:     filepath.Join(root, "bench", "large", "build", "query", "query"),
		queryFast: filepath.Join(root, "bench", "large", "build", "query", "query-fast"),
	}
	if e.rrmcp == "" {
		e.rrmcp = filepath.Join(root, "bin", "rrmcp")
	}
	if out == "" {
		out = filepath.Join(root, "bench")
	}
	re, err := regexp.Compile(runRE)
	if err != nil {
		return err
	}
	var selected []benchCase
	all := append(cases(), softWatchCases()...)
	all = append(append(all, curveCases()...), queryCases()...)
	for _, c := range all {
		if re.MatchString(c.name) && !(skipLarge && c.large) {
			selected = append(selected, c)
		}
	}
	if build {
		if err := buildAll(root, e.rrmcp, selected); err != nil {
			return err
		}
	}
	machine := describeMachine()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	floor, err := transportFloor(ctx, e.rrmcp, 500)
	cancel()
	if err != nil {
		return fmt.Errorf("transport floor: %w", err)
	}
	machine = append(machine, fmt.Sprintf("JSON-RPC round trip through rrmcp (`ping` with the lean client, 500 times): %.3f ms (%.3f–%.3f), the floor under every lean figure", floor.Median, floor.P25, floor.P75))
	for _, m := range machine {
		logf("%s", m)
	}

	if profile {
		// Profiles of an earlier run would describe losses that may be gone.
		old, _ := filepath.Glob(filepath.Join(out, "profiles", "*.pprof"))
		for _, f := range old {
			os.Remove(f)
		}
	}
	var rows []row
	var profiles []profileReport
	for _, c := range selected {
		reps := max(1, int(math.Round(float64(c.reps)*scale)))
		exe := c.exe(e)
		logf("case %s: %d reps", c.name, reps)
		caseStart := time.Now()
		mkRR := func(ctx context.Context, exe string) (driver, error) {
			d, err := newLean(ctx, e.rrmcp)
			if err == nil {
				d.args, d.agent = c.args, c.agent
			}
			return d, err
		}
		mkGo := func(ctx context.Context, exe string) (driver, error) {
			d, err := newMCP(ctx, e.rrmcp)
			if err == nil {
				d.args, d.agent = c.args, c.agent
			}
			return d, err
		}
		rr, rrErr := runSideAgain(c, exe, mkRR, reps, timeout)
		var rrGo measurement
		var rrGoErr error
		if !c.oneCall {
			rrGo, rrGoErr = runSideAgain(c, exe, mkGo, reps, timeout)
		}
		mkGDB := func(ctx context.Context, exe string) (driver, error) {
			d, err := newGDB(ctx, exe)
			if err == nil {
				d.condEval = c.gdbCondEval
				d.args = c.args
			}
			return d, err
		}
		gdb, gdbErr := runSide(c, exe, mkGDB, reps, timeout)
		rs := rowsFor(c, rr, rrGo, gdb, rrErr, rrGoErr, gdbErr)
		writeTable(os.Stderr, rs)
		rows = append(rows, rs...)
		if profile {
			for _, r := range rs {
				if r.missesGoal() && r.Error == "" {
					preps := 5 * reps // more samples for the profiler
					if c.hits > 0 || c.large {
						preps = 1 // one whole run is plenty
					}
					profiles = append(profiles, profileCase(c, r, exe, preps, filepath.Join(out, "profiles"), timeout))
				}
			}
		}
		logf("case %s: %s", c.name, time.Since(caseStart).Round(100*time.Millisecond))
	}

	writeTable(os.Stdout, rows)
	var js bytes.Buffer
	if err := writeJSON(&js, rows); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "results.json"), js.Bytes(), 0o644); err != nil {
		return err
	}
	var md bytes.Buffer
	command := "`" + strings.TrimSpace("go run ./bench/cmd/rrbench "+strings.Join(os.Args[1:], " ")) + "`"
	if os.Getenv("MAKELEVEL") != "" {
		command = "`make bench`, which runs " + command + ","
	}
	plots := writePlots(out, rows)
	sizes := dwarfSizes(e, selected)
	if f := writeSizePlot(out, rows, sizes); f != "" {
		plots[sizePlot] = f
	}
	slug := machineSlug(cpuKind())
	writeMarkdown(&md, command, machine, otherMachines(filepath.Join(out, "machines"), slug), floor.Median, rows, sizes, profiles, plots, time.Since(start))
	if err := os.WriteFile(filepath.Join(out, "RESULTS.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	// This machine kind's figures are kept beside the other kinds'.
	if err := os.MkdirAll(filepath.Join(out, "machines"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "machines", slug+".md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	logf("wrote %s and %s in %s", filepath.Join(out, "RESULTS.md"), filepath.Join(out, "results.json"), time.Since(start).Round(time.Second))
	return nil
}

func runSide(c benchCase, exe string, mk maker, reps int, timeout time.Duration) (measurement, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return c.run(ctx, exe, mk, reps)
}

// gdbserverResumeFailed is what rrmcp's error says where gdbserver failed
// a resume on its own: its ptrace call interrupted, it answered E01 and
// cannot be trusted after (gdbserver 13 on loaded machines; rrmcp asks
// for a new session).
const gdbserverResumeFailed = "resuming thread: Interrupted system call"

// runSideAgain is runSide for rrmcp, made again (three times at most)
// where its session met gdbserver's failed resume: a failure of the
// server, not a cost of either front end, which a new session does not
// meet again; each is logged.
func runSideAgain(c benchCase, exe string, mk maker, reps int, timeout time.Duration) (measurement, error) {
	for try := 1; ; try++ {
		m, err := runSide(c, exe, mk, reps, timeout)
		if err == nil || try == 3 || !strings.Contains(err.Error(), gdbserverResumeFailed) {
			return m, err
		}
		logf("case %s: gdbserver failed a resume (%q); the measurement is made again", c.name, gdbserverResumeFailed)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rrbench: "+format+"\n", args...)
}

// buildAll builds rrmcp (always: the benchmark measures the current code),
// the test programs and, if a selected case needs them, the large binaries
// (make caches them).
func buildAll(root, bin string, selected []benchCase) error {
	steps := [][]string{
		{"go", "build", "-o", bin, "./cmd/rrmcp"},
		{"make", "-s", "-C", "testprogs"},
		{"make", "-s", "-C", "bench/large", "curves", "query"},
	}
	for _, c := range selected {
		if c.large {
			steps = append(steps, []string{"make", "-s", "-j2", "-C", "bench/large"})
			break
		}
	}
	for _, s := range steps {
		logf("building: %s", strings.Join(s, " "))
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(s, " "), err)
		}
	}
	return nil
}

// cpuKind names this machine's processor: /proc/cpuinfo's model name,
// with its vendor, family and model numbers (VMs often show a model name
// alone, "AMD EPYC", that several generations share).
func cpuKind() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	f := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			break // the first processor's block
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			f[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	cpu := f["model name"]
	if cpu == "" {
		cpu = "unknown CPU"
	}
	if f["cpu family"] != "" {
		cpu += fmt.Sprintf(" (%s family %s model %s)", f["vendor_id"], f["cpu family"], f["model"])
	}
	return cpu
}

// machineSlug is the file name, in bench/machines, of this machine kind's
// results: its processor's name in lower case and dashes.
func machineSlug(cpu string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(cpu) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// describeMachine lists what RESULTS.md says about where it ran.
func describeMachine() []string {
	var out []string
	out = append(out, fmt.Sprintf("CPU: %s, nproc %d (runtime.NumCPU)", cpuKind(), runtime.NumCPU()))
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		out = append(out, "memory: "+strings.Join(strings.Fields(firstLine(string(b)))[1:], " "))
	}
	out = append(out, "kernel: "+cmdLine("uname", "-sr"))
	rev := cmdLine("git", "rev-parse", "--short", "HEAD")
	if st := cmdLine("git", "status", "--porcelain", "--untracked-files=no"); st != "" && !strings.HasPrefix(st, "unavailable") {
		rev += " (with uncommitted changes in the working tree)"
	}
	out = append(out, "rrmcp source: commit "+rev)
	out = append(out, "go: "+runtime.Version())
	out = append(out, "gdb: "+cmdLine("gdb", "--version"))
	out = append(out, "gdbserver: "+cmdLine("gdbserver", "--version"))
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		out = append(out, "load average at start (1/5/15 min): "+strings.Join(strings.Fields(string(b))[:3], " ")+" — other work on the machine shows up as spread")
	}
	return out
}

func cmdLine(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unavailable (" + err.Error() + ")"
	}
	return strings.TrimSpace(firstLine(string(b)))
}
