package gdbdiff

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/symbols"
)

// summary collects the result for TestMain's line on stdout.
var summary struct {
	sync.Mutex
	ran           bool
	stops, agree  int
	known, failed int
}

func TestMain(m *testing.M) {
	code := m.Run()
	summary.Lock()
	if summary.ran {
		// make test greps this line out of the verbose log.
		fmt.Printf("gdb-differential: %d stops, %d agree (%d with known differences, %d with unexplained ones)\n",
			summary.stops, summary.agree, summary.known, summary.failed)
	}
	summary.Unlock()
	realSummary.Lock()
	if realSummary.ran {
		fmt.Printf("real-world-differential: %d stops, %d agree; expressions %d/%d agree\n",
			realSummary.stops, realSummary.agree, realSummary.exprAgree, realSummary.exprTotal)
	}
	realSummary.Unlock()
	os.Exit(code)
}

// knownDiff is one entry of testdata/known_differences.txt:
//
//	prog | id | field | reason
//		ours: "<what we print, Go-quoted>"
//		gdb:  "<what GDB prints, Go-quoted>"
//
// The difference is known only while both sides print exactly these
// values; any other pair fails the test.
type knownDiff struct {
	key       string // prog|id|field
	reason    string
	ours, gdb string
	line      int // the entry's first line
	lines     int // how many lines it spans
	used      bool
}

func parseKnown(path string) (map[string]*knownDiff, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]*knownDiff{}
	var cur *knownDiff
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if side, val, ok := strings.Cut(line, ":"); ok && cur != nil && (side == "ours" || side == "gdb") && strings.HasPrefix(raw, "\t") {
			v, err := strconv.Unquote(strings.TrimSpace(val))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s value must be a Go-quoted string: %v", path, n, side, err)
			}
			if side == "ours" {
				cur.ours = v
			} else {
				cur.gdb = v
			}
			cur.lines++
			continue
		}
		p := strings.SplitN(line, " | ", 4)
		if len(p) != 4 || strings.TrimSpace(p[3]) == "" {
			return nil, fmt.Errorf("%s:%d: want 'prog | id | field | reason'", path, n)
		}
		k := strings.TrimSpace(p[0]) + "|" + strings.TrimSpace(p[1]) + "|" + strings.TrimSpace(p[2])
		if out[k] != nil {
			return nil, fmt.Errorf("%s:%d: duplicate entry %s", path, n, k)
		}
		cur = &knownDiff{key: k, reason: strings.TrimSpace(p[3]), line: n, lines: 1}
		out[k] = cur
	}
	for _, kd := range out {
		if kd.lines != 3 {
			return nil, fmt.Errorf("%s:%d: entry %s needs both expected values (tab, ours: \"…\"; tab, gdb: \"…\")", path, kd.line, kd.key)
		}
	}
	return out, sc.Err()
}

// longAddr matches an address as the stack or the heap places it.
var longAddr = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// sameModuloAddrs compares a listed value with an observed one, taking
// stack and heap addresses (0x followed by six or more hex digits) as
// equal: they move with the kernel and the environment size, and the
// entries are about everything else in the value.
func sameModuloAddrs(listed, got string) bool {
	return longAddr.ReplaceAllString(listed, "0x…") == longAddr.ReplaceAllString(got, "0x…")
}

var prune = flag.Bool("prune", false, "remove stale entries from testdata/known_differences.txt (only when nothing else fails)")

var update = flag.Bool("update", false, "take the observed values into testdata/known_differences.txt entries whose difference changed (read the diff: the entry's reason must still hold)")

var show = flag.Bool("show", false, "log every compared field, also those that agree")

var knownPath = filepath.Join("testdata", "known_differences.txt")

// removeLines deletes the given 1-based lines of a file.
func removeLines(path string, lines []int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	drop := map[int]bool{}
	for _, n := range lines {
		drop[n] = true
	}
	var out []string
	for i, l := range strings.SplitAfter(string(b), "\n") {
		if !drop[i+1] {
			out = append(out, l)
		}
	}
	return os.WriteFile(path, []byte(strings.Join(out, "")), 0o644)
}

// relist rewrites the expected values of the entries at the given
// 1-based entry lines: the tab-indented ours: and gdb: lines after each.
func relist(path string, vals map[int][2]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(b), "\n")
	for n, v := range vals {
		for i := n; i < n+2 && i < len(lines); i++ { // lines[n] is the line after entry line n
			switch {
			case strings.HasPrefix(lines[i], "\tours:"):
				lines[i] = "\tours: " + strconv.Quote(v[0]) + "\n"
			case strings.HasPrefix(lines[i], "\tgdb:"):
				lines[i] = "\tgdb:  " + strconv.Quote(v[1]) + "\n"
			}
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}

// env is the fixed environment of both runs: the stack layout depends on
// it, and both sides must see the same addresses. GDB runs in a UTF-8
// locale, as its users do (it prints text outside ASCII as characters
// there, as rrmcp does).
var env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "LC_ALL=C.UTF-8"}

func TestGDBDifferential(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	checkPeers(t)
	specs, progs, byProg := loadStops(t, filepath.Join("testdata", "stops.txt"))
	known, err := parseKnown(knownPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 50 {
		t.Errorf("stops.txt has %d stops; issue 3 asks for at least 50", len(specs))
	}
	srcs := checkEveryProgram(t, progs)
	setI386Peer(t, progs, func(p string) string { return testenv.Prog(t, p) })
	if i386Peer == "qemu-i386" {
		// QEMU user mode has no watchpoints (Z2-Z4 reply empty; GDB falls
		// back to single-stepping the whole program): those stops of i386
		// programs are not compared there, and the log says so.
		for _, p := range progs {
			if !testenv.IsI386(testenv.Prog(t, p)) {
				continue
			}
			kept := byProg[p][:0]
			for _, sp := range byProg[p] {
				if sp.Kind == stopWatch {
					t.Logf("%s (stops.txt:%d): not compared: qemu-i386 has no watchpoints", sp, sp.Line)
					continue
				}
				kept = append(kept, sp)
			}
			byProg[p] = kept
		}
	}

	var mu sync.Mutex
	type result struct {
		sp     *stopSpec
		fields []field
	}
	var results []result
	unfinished := map[string]bool{}
	t.Run("progs", func(t *testing.T) {
		for _, prog := range progs {
			t.Run(prog, func(t *testing.T) {
				t.Parallel()
				path := testenv.Prog(t, prog)
				ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
				defer cancel()
				ses := runBounded(ctx, newSessionSide(path, nil, env), byProg[prog])
				gdb := runBounded(ctx, newGDBSide(path, nil, env), byProg[prog])
				so, gb := <-ses, <-gdb
				if so == nil || gb == nil {
					mu.Lock()
					unfinished[prog] = true
					mu.Unlock()
					t.Errorf("%s: a side did not finish within %v of its deadline (session done: %v, gdb done: %v); a decoder may be looping",
						prog, hangGrace, so != nil, gb != nil)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, sp := range byProg[prog] {
					for _, o := range []*observation{so[sp.ID], gb[sp.ID]} {
						if strings.HasPrefix(o.Err, tableErr) {
							t.Errorf("%s (stops.txt:%d): %s", sp, sp.Line, o.Err)
						}
					}
					var fs []field
					for _, f := range compare(sp, so[sp.ID], gb[sp.ID], srcs) {
						f.Name = "session:" + f.Name
						fs = append(fs, f)
					}
					results = append(results, result{sp, fs})
				}
			})
		}
	})

	if n := closeHangs.Load(); n > 0 {
		t.Errorf("%d debugger sessions did not shut down within 20 s (a debuggee or server was left running)", n)
	}
	slices.SortFunc(results, func(a, b result) int { return a.sp.Line - b.sp.Line })
	ran := map[string]bool{} // programs compared (-run may select a few)
	for _, r := range results {
		ran[r.sp.Prog] = true
	}
	var agree, knownOnly, unexplained int
	var paste []string
	relisted := map[int][2]string{} // entry line -> observed values, for -update
	for _, r := range results {
		sp := r.sp
		clean, bad := true, false
		for _, f := range r.fields {
			k := sp.Prog + "|" + sp.ID + "|" + f.Name
			kd := known[k]
			if pk := peerProg(sp.Prog) + "|" + sp.ID + "|" + f.Name; pk != k && known[pk] != nil {
				kd = known[pk]
			}
			if f.Ours == f.GDB {
				if *show {
					t.Logf("%s %s: %s", sp, f.Name, f.GDB)
				}
				continue
			}
			clean = false
			if kd != nil && (!sameModuloAddrs(kd.ours, f.Ours) || !sameModuloAddrs(kd.gdb, f.GDB)) {
				kd.used = true
				bad = true
				if *update {
					relisted[kd.line] = [2]string{f.Ours, f.GDB}
					continue
				}
				t.Errorf("known_differences.txt:%d: %s %s differs otherwise than listed (if the reason still holds: go test -run GDBDifferential -update):\n\tours: %s\n\tgdb:  %s\n\tlisted ours: %s\n\tlisted gdb:  %s", kd.line, sp, f.Name, f.Ours, f.GDB, kd.ours, kd.gdb)
				continue
			}
			if kd != nil {
				kd.used = true
				t.Logf("%s %s: known difference (%s)\n\tours: %s\n\tgdb:  %s", sp, f.Name, kd.reason, f.Ours, f.GDB)
				continue
			}
			bad = true
			t.Errorf("%s (stops.txt:%d) %s differs:\n\tours: %s\n\tgdb:  %s", sp, sp.Line, f.Name, f.Ours, f.GDB)
			paste = append(paste, fmt.Sprintf("%s | %s | %s | REASON\n\tours: %s\n\tgdb:  %s", sp.Prog, sp.ID, f.Name, strconv.Quote(f.Ours), strconv.Quote(f.GDB)))
		}
		switch {
		case clean:
			agree++
		case bad:
			unexplained++
		default:
			knownOnly++
		}
	}
	var stale []int
	for _, kd := range known {
		prog, here := entryProg(kd.key)
		if !here {
			continue // recorded with another peer than this machine's
		}
		if !kd.used && ran[prog] && !unfinished[prog] {
			for i := range kd.lines {
				stale = append(stale, kd.line+i)
			}
			if !*prune {
				t.Errorf("known_differences.txt:%d: stale entry %s: the difference is gone (or the stop no longer exists); remove it (go test -run GDBDifferential -prune)", kd.line, kd.key)
			}
		}
	}
	if *prune && len(stale) > 0 && !t.Failed() {
		if err := removeLines(knownPath, stale); err != nil {
			t.Fatal(err)
		}
		t.Logf("-prune: removed %d stale entries from %s", len(stale), knownPath)
	}
	if len(relisted) > 0 {
		if err := relist(knownPath, relisted); err != nil {
			t.Fatal(err)
		}
		t.Logf("-update: new values for %d entries in %s; check that their reasons still hold", len(relisted), knownPath)
	}
	if len(paste) > 0 {
		t.Logf("unexplained differences, in known_differences.txt format (fix them, or give a reason):\n%s", strings.Join(paste, "\n"))
	}
	t.Logf("gdb-differential: %d stops, %d agree", len(results), agree)
	summary.Lock()
	summary.ran = true
	summary.stops, summary.agree, summary.known, summary.failed = len(results), agree, knownOnly, unexplained
	summary.Unlock()
}

// gdbVersionRE reads GDB's major version from `gdb --version`.
var gdbVersionRE = regexp.MustCompile(`(?m)^GNU gdb .* (\d+)\.\d+`)

// checkPeers makes sure the comparison means what known_differences.txt
// says: it was recorded with GDB 13 and with libc's separate debug file
// (Debian: libc6-dbg), which GDB and our engine both read for libc frames.
// Without them the test skips, or fails in CI.
func checkPeers(t *testing.T) {
	t.Helper()
	miss := func(format string, args ...any) {
		t.Helper()
		if testenv.InCI() {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	out, err := exec.Command("gdb", "--version").Output()
	if err != nil {
		t.Fatalf("gdb --version: %v", err)
	}
	if m := gdbVersionRE.FindSubmatch(out); m == nil || string(m[1]) != "13" {
		miss("known_differences.txt was recorded with GDB 13; this gdb says %q", strings.SplitN(string(out), "\n", 2)[0])
	}
	libc, err := symbols.Open("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		miss("no /lib/x86_64-linux-gnu/libc.so.6 (%v): the stops expect Debian/Ubuntu x86-64 glibc", err)
	}
	defer libc.Close()
	if _, err := libc.DWARFFile(); err != nil {
		miss("libc has no separate debug file (%v): install libc6-dbg (make deps does on Debian/Ubuntu)", err)
	}
}

// hangGrace is how long after the context's deadline a side may take to
// return (work that does not watch the context, such as DWARF decoding).
const hangGrace = 20 * time.Second

// runBounded runs runScript in the background. The channel yields its
// result, or nil when it did not return by ctx's deadline plus hangGrace,
// so that a looping decoder fails the test instead of hanging it.
func runBounded(ctx context.Context, d debugger, specs []*stopSpec) <-chan map[string]*observation {
	// (on a hang, d.abort kills the side's processes so none outlive the test)
	out := make(chan map[string]*observation, 1)
	go func() {
		res := make(chan map[string]*observation, 1)
		go func() { res <- runScript(ctx, d, specs) }()
		select {
		case r := <-res:
			out <- r
		case <-ctx.Done():
			t := time.NewTimer(hangGrace)
			defer t.Stop()
			select {
			case r := <-res:
				out <- r
			case <-t.C:
				d.abort()
				out <- nil
			}
		}
	}()
	return out
}

// checkEveryProgram fails when a program of testprogs/src has no stop, so
// a new test program cannot slip past the comparison.
// It returns the base names of the sources.
func checkEveryProgram(t *testing.T, progs []string) map[string]bool {
	t.Helper()
	src, err := os.ReadDir(filepath.Join(testenv.Root(t), "testprogs", "src"))
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, p := range progs {
		has[p] = true
		has[strings.TrimSuffix(p, "-O2")] = true // a program built at -O2 only (json_people)
	}
	srcs := map[string]bool{}
	for _, e := range src {
		name, ext := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), filepath.Ext(e.Name())
		srcs[e.Name()] = true
		if (ext != ".c" && ext != ".cpp") || strings.HasPrefix(name, "lib") {
			continue
		}
		if !has[name] {
			t.Errorf("testprogs/src/%s has no stop in testdata/stops.txt", e.Name())
		}
	}
	return srcs
}

func TestParseStop(t *testing.T) {
	for _, tc := range []struct {
		line string
		want stopSpec
		bad  bool
	}{
		{line: "p | a | break use | *u; u->name", want: stopSpec{Prog: "p", ID: "a", Kind: stopBreak, Where: "use", Hit: 1, Exprs: []string{"*u", "u->name"}}},
		{line: "p | b | break x.c:12 @3", want: stopSpec{Prog: "p", ID: "b", Kind: stopBreak, Where: "x.c:12", Hit: 3}},
		{line: "p | c | watch total @2 | total", want: stopSpec{Prog: "p", ID: "c", Kind: stopWatch, Where: "total", Hit: 2, Exprs: []string{"total"}}},
		{line: "p | d | signal SIGSEGV |", want: stopSpec{Prog: "p", ID: "d", Kind: stopSignal, Where: "SIGSEGV", Hit: 1}},
		{line: "p | e | signal SIGSEGV @2", bad: true},
		{line: "p | f | break", bad: true},
		{line: "p | g | step main", bad: true},
		{line: "p | h | break main @0", bad: true},
		{line: "p | break main", bad: true},
		{line: "p | i | break f | a || b; c | d", want: stopSpec{Prog: "p", ID: "i", Kind: stopBreak, Where: "f", Hit: 1, Exprs: []string{"a || b", "c | d"}}},
	} {
		got, err := parseStop(tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("parseStop(%q) = %+v, want an error", tc.line, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseStop(%q): %v", tc.line, err)
			continue
		}
		if got.Prog != tc.want.Prog || got.ID != tc.want.ID || got.Kind != tc.want.Kind || got.Where != tc.want.Where ||
			got.Hit != tc.want.Hit || !slices.Equal(got.Exprs, tc.want.Exprs) {
			t.Errorf("parseStop(%q) = %+v, want %+v", tc.line, *got, tc.want)
		}
	}
}

func TestCompareNormalisations(t *testing.T) {
	sp := &stopSpec{Kind: stopBreak, Exprs: []string{"a", "b", "c"}}
	ours := &observation{
		Addrs:  []uint64{0x20, 0x10},
		Frames: []frameObs{{Func: "f", File: "x.c", Line: 3}, {Func: "main", File: "x.c", Line: 9}},
		Vars:   map[string]string{"i": "1", "s": "{a = 1,  b = 2}"},
		Exprs:  []string{"error: no symbol", "5", "error: x"},
	}
	gdb := &observation{
		Addrs:  []uint64{0x10, 0x20},
		Frames: []frameObs{{Func: "f", File: "x.c", Line: 3}, {Func: "main", File: "x.c", Line: 10}},
		Vars:   map[string]string{"s": "{a = 1, b = 2}", "j": "2"},
		Exprs:  []string{"error: No symbol \"a\" in current context.", "6", "7"},
	}
	got := map[string]bool{}
	for _, f := range compare(sp, ours, gdb, map[string]bool{"x.c": true}) {
		got[f.Name] = f.Ours == f.GDB
	}
	want := map[string]bool{"addrs": true, "bt": false, "var:i": false, "var:j": false, "var:s": true,
		"expr:a": true, "expr:b": false, "expr:c": false}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("field %s: agree=%v (present %v), want %v", k, g, ok, v)
		}
	}
	if fs := compare(sp, &observation{Err: "not reached"}, gdb, nil); len(fs) != 1 || fs[0].Name != "reached" || fs[0].Ours == fs[0].GDB {
		t.Errorf("a stop one side did not reach: %+v", fs)
	}
}
