package session

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestWatchpointScope: a watchpoint on a local is deleted when its frame
// returns, and the program stops there saying so, as GDB does
// (testdata/watchscope.c: a recursive function, whose deeper calls
// return to the same call site in frames that are not the watched one
// and go on). Before, the watchpoint went on watching the dead stack
// slot and reported the next call's writes to it. The stops of
// continue, next and finish are compared with GDB's, on the hardware
// path (where the debug registers fire) and the software one.
func TestWatchpointScope(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "watchscope.c")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var hw hwdebug.Cache
	hwOK := hw.Get(ctx, []string{}).UseHardwareWatch()
	// A local of main: main returns to the C library, past the end of
	// the backtrace, where rrmcp inserted no scope breakpoint and noticed
	// the return only when exit's code wrote to the dead slot.
	mainLoc := markerLoc(t, filepath.Join("testdata", "watchscope.c"), "main")
	for _, c := range []struct {
		bp, cond, expr string
		moves          map[string]int
	}{
		{"depth_sum", "n == 2", "local", map[string]int{"continue": 4, "next": 7, "finish": 4}},
		{mainLoc, "", "r", map[string]int{"continue": 3}},
	} {
		for _, move := range []string{"continue", "next", "finish"} {
			n := c.moves[move]
			for _, soft := range []bool{false, true} {
				if n == 0 || !soft && !hwOK {
					continue // no debug registers that fire here: the software path is the only one
				}
				t.Run(fmt.Sprintf("%s/%s/soft=%v", c.expr, move, soft), func(t *testing.T) {
					setSW := "set can-use-hw-watchpoints 1"
					var env []string
					if soft {
						setSW, env = "set can-use-hw-watchpoints 0", []string{hwdebug.EnvVar + "=off"}
					}
					want := gdbWatchScopeStops(t, exe, setSW, watchRun{bp: c.bp, cond: c.cond, expr: c.expr, move: move, n: n})
					s, got := sessionWatchStops(t, ctx, exe, env, watchRun{bp: c.bp, cond: c.cond, expr: c.expr, move: move, n: n})
					if !slices.Equal(got, want) {
						t.Errorf("stops:\n  %q\ngdb's:\n  %q", got, want)
					}
					if bps, err := s.Breakpoints(ctx); err != nil || len(bps) != 0 {
						t.Errorf("breakpoints left: %+v %v", bps, err)
					}
				})
			}
		}
	}
}

// TestWatchFollowsExpressionMatchesGDB: a watchpoint on an expression
// whose address depends on memory follows it as GDB's does: j->a after
// j = &js[1] watches js[1].a (a stop when the value changes with j, none
// when it does not), gj->a moved by a callee, arr[idx] after idx
// changes. rrmcp watched the address the expression had when it was
// set. Hardware and software paths.
func TestWatchFollowsExpressionMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "watchfollow.c")
	src := filepath.Join("testdata", "watchfollow.c")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var hw hwdebug.Cache
	hwOK := hw.Get(ctx, []string{}).UseHardwareWatch()
	for _, c := range []struct {
		marker, expr string
		n            int
	}{
		{"local", "j->a", 5},
		{"global", "gj->a", 3},
		{"index", "arr[idx]", 2},
	} {
		for _, soft := range []bool{false, true} {
			if !soft && !hwOK {
				continue // no debug registers that fire here: the software path is the only one
			}
			t.Run(fmt.Sprintf("%s/soft=%v", c.expr, soft), func(t *testing.T) {
				bp := markerLoc(t, src, c.marker)
				setSW := "set can-use-hw-watchpoints 1"
				var env []string
				if soft {
					setSW, env = "set can-use-hw-watchpoints 0", []string{hwdebug.EnvVar + "=off"}
				}
				want := gdbWatchScopeStops(t, exe, setSW, watchRun{bp: bp, expr: c.expr, move: "continue", n: c.n})
				_, got := sessionWatchStops(t, ctx, exe, env, watchRun{bp: bp, expr: c.expr, move: "continue", n: c.n})
				if !slices.Equal(got, want) {
					t.Errorf("stops:\n  %q\ngdb's:\n  %q", got, want)
				}
			})
		}
	}
}

// TestWatchThroughRegisterMatchesGDB: a watchpoint on p->a where p is a
// variable the compiler keeps in a register (gcc and clang -O2) is a
// software watchpoint, as GDB's (a debug register cannot watch a
// register): it follows p as p changes (walk: p++ names the next
// element), stops for writes in callees (work: touch; strlen through
// the PLT changes nothing), and is deleted with GDB's "Error evaluating
// expression" where p is no longer known (its location list ends: at
// the call of other, or in the loop clang vectorized), or as out of
// scope where its frame is gone (setkey's tail jump to expand: the frame
// GDB shows for it is another). rrmcp watched the first object with a
// debug register and ran on to the caller's scope stop. With calls
// inlined into the frame (split, decode), its frame is found past them:
// a callee of an inlined call ended the watchpoint, a write inside one
// showed <unreadable>.
func TestWatchThroughRegisterMatchesGDB(t *testing.T) {
	watchMarkersLikeGDB(t, "watchreg.c", []markerWatch{
		{"gcc", "work", "p->a", 5}, {"gcc", "walk", "p->a", 5}, {"gcc", "setkey", "ctx->nr", 2},
		{"gcc", "split", "c->db->depth", 1}, {"gcc", "decode", "decoded->len", 5},
		{"clang", "work", "p->a", 5}, {"clang", "walk", "p->a", 2}, {"clang", "setkey", "ctx->nr", 2},
		{"clang", "split", "c->db->depth", 3}, {"clang", "decode", "decoded->len", 5},
	})
}

// markerWatch is a watchLikeGDB case at a marker of a testdata file built
// by cc -O2.
type markerWatch struct {
	cc, marker, expr string
	n                int
}

// watchMarkersLikeGDB runs watchLikeGDB (the hardware path where it
// fires) for each case of the testdata file src.
func watchMarkersLikeGDB(t *testing.T, src string, cases []markerWatch) {
	t.Helper()
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	for _, tc := range cases {
		t.Run(tc.cc+"/"+tc.marker, func(t *testing.T) {
			exe := buildTestdata(t, tc.cc, "-O2", src)
			bp := fmt.Sprintf("%s:%d", src, markerLine(t, filepath.Join("testdata", src), tc.marker))
			watchLikeGDB(t, ctx, exe, false, bp, watchCase{expr: tc.expr, n: tc.n})
		})
	}
}

// TestWatchInlinedFrameMatchesGDB: a watchpoint on a variable of an
// inlined call's frame ends where the pc leaves the inlined call, as
// GDB's frame id of an inlined frame says: provide's c->avail (a
// hardware watchpoint) is deleted at its next trigger, in consume; it
// lived on until main returned. A value watchpoint on write_hlp's
// length compares while the pc is in write_hlp, and in cmp_int inlined
// into it (in its frame, not the innermost one: it never fired), and
// ends where the call to memmove clobbers it (GDB's error at the
// callee's entry; gcc), or at once where clang keeps no value.
func TestWatchInlinedFrameMatchesGDB(t *testing.T) {
	watchMarkersLikeGDB(t, "watchinline.c", []markerWatch{
		{"gcc", "provide", "c->avail", 2}, {"gcc", "write_hlp", "length", 6}, {"clang", "write_hlp", "length", 1},
	})
}

// TestWatchBitFieldMatchesGDB: a watchpoint on a bit-field watches the
// bytes that hold it and reports the field's value, as GDB's; a write to
// the other bits of those bytes (f.mode beside f.kind) is no stop. It was
// refused ("not in memory"). Hardware and software paths.
func TestWatchBitFieldMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "watchbits.c")
	bp := markerLoc(t, filepath.Join("testdata", "watchbits.c"), "set")
	watchPathsLikeGDB(t, exe, bp, []watchCase{{expr: "f.kind", n: 3}, {expr: "f.mode", n: 3}, {expr: "f.wide", n: 2}, {expr: "g.wide", n: 1}})
}

// TestWatchUnreadableMatchesGDB: a watchpoint set where its expression
// cannot be read yet (r->naddr while r is NULL) is set as GDB sets it: it
// watches r, stops when r is stored (Old <unreadable>, New 0), then
// follows r->naddr. rrmcp refused it ("Cannot access memory at address
// 0x4"). Hardware and software paths.
func TestWatchUnreadableMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O0", "watchnull.c")
	bp := markerLoc(t, filepath.Join("testdata", "watchnull.c"), "set")
	watchPathsLikeGDB(t, exe, bp, []watchCase{{expr: "r->naddr", n: 3}})
}

// watchCase is a watched expression and the number of continues after
// setting it.
type watchCase struct {
	expr string
	n    int
	// gdbExpr, where set, is what GDB watches instead of expr: the
	// same object named so that GDB's quirks do not decide the answer.
	gdbExpr string
}

// watchPathsLikeGDB runs watchLikeGDB for each case at bp on the
// software path and, where this machine's debug registers fire, the
// hardware one.
func watchPathsLikeGDB(t *testing.T, exe, bp string, cases []watchCase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	var hw hwdebug.Cache
	hwOK := hw.Get(ctx, []string{}).UseHardwareWatch()
	for _, soft := range []bool{false, true} {
		if !soft && !hwOK {
			continue
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/soft=%v", c.expr, soft), func(t *testing.T) {
				watchLikeGDB(t, ctx, exe, soft, bp, c)
			})
		}
	}
}

// watchLikeGDB compares the stops of n continues after watching expr at
// bp (gdbWatchScopeStops) with GDB's, on the software path (soft, or where
// this machine's debug registers do not fire) or the hardware one; where
// the last stop deleted the watchpoint, nothing may be left in the
// session's table.
func watchLikeGDB(t *testing.T, ctx context.Context, exe string, soft bool, bp string, c watchCase) {
	t.Helper()
	watchRunLikeGDB(t, ctx, exe, soft, watchRun{bp: bp, expr: c.expr, move: "continue", n: c.n}, c.gdbExpr)
}

// watchRunLikeGDB compares the stops of r (gdbWatchScopeStops, GDB
// watching gdbExpr where it is set) with GDB's, on the software path
// (soft, or where this machine's debug registers do not fire) or the
// hardware one; where the last stop deleted the watchpoint, nothing may
// be left in the session's table.
func watchRunLikeGDB(t *testing.T, ctx context.Context, exe string, soft bool, r watchRun, gdbExpr string) {
	t.Helper()
	var hw hwdebug.Cache
	setSW, env := "set can-use-hw-watchpoints 1", []string(nil)
	if soft || !hw.Get(ctx, []string{}).UseHardwareWatch() {
		setSW, env = "set can-use-hw-watchpoints 0", []string{hwdebug.EnvVar + "=off"}
	}
	g := r
	if gdbExpr != "" {
		g.expr = gdbExpr
	}
	want := gdbWatchScopeStops(t, exe, setSW, g)
	s, got := sessionWatchStops(t, ctx, exe, env, r)
	if !slices.Equal(got, want) {
		t.Errorf("stops:\n  %q\ngdb's:\n  %q", got, want)
	}
	if len(got) > 0 && strings.HasSuffix(got[len(got)-1], " deleted") {
		if bps, _ := s.Breakpoints(ctx); len(bps) != 0 {
			t.Errorf("breakpoints left: %+v", bps)
		}
	}
}

// watchRun is what a watchpoint differential does: run to bp (if cond),
// watch expr, delete bp, set the breakpoint also (if any), then move
// (continue, next or finish) n times.
type watchRun struct {
	bp, cond, expr, move string
	n                    int
	also                 string
}

// sessionWatchStops is gdbWatchScopeStops on a live session started with
// env: it returns the session and its stops, in the same form.
func sessionWatchStops(t *testing.T, ctx context.Context, exe string, env []string, r watchRun) (*Session, []string) {
	t.Helper()
	bp, cond, expr, move, n := r.bp, r.cond, r.expr, r.move, r.n
	m := NewManager(Config{Env: env})
	t.Cleanup(m.Close)
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBreakpoint(ctx, bp, cond, false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to %s: %+v %v", bp, st, err)
	}
	w, err := s.SetWatchpoint(ctx, expr, "write")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if r.also != "" {
		if _, err := s.SetBreakpoint(ctx, r.also, "", false); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for i := range n {
		st, err := sessionMove(ctx, s, move)
		if err != nil || st.Frame == nil {
			t.Fatalf("%s %d: %+v %v (stops so far %q)", move, i+1, st, err, got)
		}
		stop := fmt.Sprint(st.Frame.Line)
		if st.Frame.Line == 0 {
			stop = st.Frame.Function // (no line: a PLT entry, say)
		}
		switch {
		case st.Watch != nil && st.Watch.Error != "":
			stop += " error=" + st.Watch.Error + " deleted"
			if !strings.Contains(st.Message, fmt.Sprintf("Error evaluating expression for watchpoint %d", w.Number)) {
				t.Errorf("%s %d: the stop does not say why watchpoint %d is gone: %q", move, i+1, w.Number, st.Message)
			}
		case st.Watch != nil:
			stop += fmt.Sprintf(" old=%s new=%s", st.Watch.Old, st.Watch.New)
		}
		if slices.Contains(st.WatchScope, w.Number) {
			stop += " deleted"
			if !strings.Contains(st.Message, fmt.Sprintf("Watchpoint %d deleted because the program has left the block", w.Number)) {
				t.Errorf("%s %d: the stop does not say why watchpoint %d is gone: %q", move, i+1, w.Number, st.Message)
			}
			if move == "continue" && st.Reason != "watchpoint-scope" {
				t.Errorf("continue %d: reason %q, want watchpoint-scope", i+1, st.Reason)
			}
		}
		got = append(got, stop)
	}
	return s, got
}

// gdbWatchScopeStops runs exe under GDB to bp (where cond holds),
// watches expr and makes n moves; it returns one line per stop: "LINE",
// "LINE old=O new=N" at a watchpoint's stop, "LINE deleted" where the
// watchpoint went out of scope, "LINE error=E deleted" where its
// expression could not be evaluated.
func gdbWatchScopeStops(t *testing.T, exe, setSW string, r watchRun) []string {
	t.Helper()
	bp, cond, expr, move, n := r.bp, r.cond, r.expr, r.move, r.n
	if cond != "" {
		bp += " if " + cond
	}
	args := []string{"-nx", "-batch", "-ex", setSW, "-ex", "break " + bp, "-ex", "run", "-ex", "watch " + expr, "-ex", "delete 1"}
	if r.also != "" {
		args = append(args, "-ex", "break "+r.also)
	}
	for range n {
		args = append(args, "-ex", move)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var stops []string
	var old, nw, evalErr string
	deleted := false
	lineRE := regexp.MustCompile(`^(\d+)\t`)
	noLineRE := regexp.MustCompile(`^0x[0-9a-f]+ in (\S+) \(\)$`) // a stop without a line
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "Error evaluating expression for watchpoint ") && i+1 < len(lines):
			evalErr = lines[i+1] // then "Watchpoint N deleted."
		case strings.HasPrefix(l, "Old value = "):
			old = strings.TrimPrefix(l, "Old value = ")
		case strings.HasPrefix(l, "New value = "):
			nw = strings.TrimPrefix(l, "New value = ")
		case strings.Contains(l, "deleted because the program has left the block"):
			deleted = true
		}
		if m := lineRE.FindStringSubmatch(l); m != nil || noLineRE.MatchString(l) {
			var stop string
			if m != nil {
				stop = m[1]
			} else {
				stop = noLineRE.FindStringSubmatch(l)[1]
			}
			if nw != "" {
				stop += fmt.Sprintf(" old=%s new=%s", old, nw)
			}
			if evalErr != "" {
				stop += " error=" + evalErr
			}
			if deleted || evalErr != "" {
				stop += " deleted"
			}
			stops = append(stops, stop)
			old, nw, evalErr, deleted = "", "", "", false
		}
	}
	if len(stops) < n {
		t.Fatalf("gdb made %d stops of %d:\n%s", len(stops), n, out)
	}
	return stops[len(stops)-n:]
}

// TestWatchInMethodMatchesGDB: a watchpoint set in a member function on
// a global its class has no member for (g_count in Box::get) watches the
// global alone, as GDB's: rrmcp's lookup read this before finding the
// global, so the watchpoint followed the method's stack slot too and
// stopped, without values, where a later call reused it (and ran one
// stop behind GDB from there). A static member named bare (instances in
// Ring<double>::push) is the class's static, which rrmcp finds without
// reading this: it stops where the static changes, as GDB's watchpoint on
// Ring<double>::instances (GDB's on the bare name reads this, watches
// its stack slot too, and is deleted with an error where a later call
// reuses the slot: a quirk not followed).
func TestWatchInMethodMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	for _, cc := range []string{"g++", "clang++"} {
		t.Run(cc, func(t *testing.T) {
			exe := buildTestdata(t, cc, "-O0", "watchmethod.cc")
			watchPathsLikeGDB(t, exe, "Box::get", []watchCase{{expr: "g_count", n: 2}})
			watchPathsLikeGDB(t, exe, "Ring<double>::push", []watchCase{{expr: "instances", n: 2, gdbExpr: "Ring<double>::instances"}})
		})
	}
}

// TestWatchTrapAtBreakpointMatchesGDB: a watchpoint's trap that leaves
// the pc at a breakpoint's address is that breakpoint's hit too, as
// GDB's stop holds every breakpoint whose location matches: the stop
// names it and counts it, and where the write did not change the value
// (no stop for the watchpoint) the breakpoint still stops. rrmcp
// reported the watchpoint alone, and ran past the breakpoint where the
// value was unchanged (testdata/watchatbp.c, gcc -O0: each write is one
// instruction before the next line's breakpoint; the same on both
// watchpoint paths).
func TestWatchTrapAtBreakpointMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	exe := buildTestdata(t, "gcc", "-O0", "watchatbp.c")
	src := filepath.Join("testdata", "watchatbp.c")
	set, after, sameAfter := markerLine(t, src, "set"), markerLine(t, src, "after"), markerLine(t, src, "sameafter")
	var hw hwdebug.Cache
	for _, soft := range []bool{false, true} {
		setSW, env := "set can-use-hw-watchpoints 1", []string(nil)
		if soft || !hw.Get(ctx, []string{}).UseHardwareWatch() {
			setSW, env = "set can-use-hw-watchpoints 0", []string{hwdebug.EnvVar + "=off"}
		}
		t.Run(setSW, func(t *testing.T) {
			out, err := exec.CommandContext(ctx, "gdb", "-nx", "-batch", "-ex", setSW, "-ex", fmt.Sprintf("break %d", set), "-ex", "run",
				"-ex", "watch g1", "-ex", fmt.Sprintf("break %d", after), "-ex", fmt.Sprintf("break %d", sameAfter),
				"-ex", "continue", "-ex", "continue", "-ex", "continue", "-ex", "info breakpoints", exe).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, out)
			}
			// GDB's stops, each "LINE[ old=O new=N][ bp=N]", and each
			// breakpoint's hits
			var want []string
			var cur string
			for _, l := range strings.Split(string(out), "\n") {
				if m := regexp.MustCompile(`^(Old|New) value = (.*)`).FindStringSubmatch(l); m != nil {
					cur += " " + strings.ToLower(m[1]) + "=" + m[2]
				}
				if m := regexp.MustCompile(`^Breakpoint (\d+), `).FindStringSubmatch(l); m != nil {
					cur += " bp=" + m[1]
				}
				if m := regexp.MustCompile(`^(\d+)\t`).FindStringSubmatch(l); m != nil {
					want = append(want, m[1]+cur)
					cur = ""
				}
			}
			want = want[1:] // (the run's stop)
			hitsRE := regexp.MustCompile(`(?m)^(\d+) .*\n\tbreakpoint already hit (\d+) time`)
			wantHits := map[int]int{}
			for _, m := range hitsRE.FindAllStringSubmatch(string(out), -1) {
				n, _ := strconv.Atoi(m[1])
				wantHits[n], _ = strconv.Atoi(m[2])
			}

			m := NewManager(Config{Env: env})
			t.Cleanup(m.Close)
			s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{exe}})
			if err != nil {
				t.Fatal(err)
			}
			for _, loc := range []string{fmt.Sprint(set), "g1", fmt.Sprint(after), fmt.Sprint(sameAfter)} {
				if loc == "g1" {
					if _, err := s.Continue(ctx, false); err != nil {
						t.Fatal(err)
					}
					_, err = s.SetWatchpoint(ctx, loc, "write")
				} else {
					_, err = s.SetBreakpoint(ctx, "watchatbp.c:"+loc, "", false)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for range want {
				st, err := s.Continue(ctx, false)
				if err != nil || st.Frame == nil {
					t.Fatalf("continue: %+v %v (stops so far %q)", st, err, got)
				}
				stop := fmt.Sprint(st.Frame.Line)
				if st.Watch != nil {
					stop += fmt.Sprintf(" old=%s new=%s", st.Watch.Old, st.Watch.New)
				}
				switch {
				case st.AlsoBreakpoint != 0:
					stop += fmt.Sprintf(" bp=%d", st.AlsoBreakpoint)
				case st.Reason == "breakpoint":
					stop += fmt.Sprintf(" bp=%d", st.Breakpoint)
				}
				got = append(got, stop)
			}
			if !slices.Equal(got, want) {
				t.Errorf("stops:\n  %q\ngdb's:\n  %q", got, want)
			}
			bps, err := s.Breakpoints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			gotHits := map[int]int{}
			for _, b := range bps {
				if b.Hits > 0 {
					gotHits[b.Number] = b.Hits
				}
			}
			if !maps.Equal(gotHits, wantHits) {
				t.Errorf("hits %v, gdb's %v", gotHits, wantHits)
			}
		})
	}
}

// TestFinishWithSoftwareWatchMatchesGDB: finish out of the frame of a
// software watchpoint (p->x, p kept in a register) stops where the frame
// is left, deleting the watchpoint, as GDB does: rrmcp took that stop for
// a write that left the value unchanged, went on, and ran past the
// finish's own breakpoint to the program's exit.
func TestFinishWithSoftwareWatchMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			exe := buildTestdata(t, cc, "-O2", "watchfinish.c")
			watchRunLikeGDB(t, ctx, exe, false, watchRun{bp: "conv", expr: "p->x", move: "finish", n: 1}, "")
		})
	}
}

// TestWatchRelocatedToRegisterMatchesGDB: a hardware watchpoint on a
// local set where its location list has it in memory is evaluated again
// at a later stop where the list puts it in a register (a breakpoint
// there), and from there is a software watchpoint on its value, which
// GDB deletes with an error where the value is no longer known: rrmcp's
// went on watching the stack slot and stopped at the next call's write.
// The register range is read from GDB's info scope, so the test follows
// the compiler's layout (testdata/watchreloc.c, clang -m32 -O2).
func TestWatchRelocatedToRegisterMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	var hw hwdebug.Cache
	if !hw.Get(ctx, []string{}).UseHardwareWatch() {
		t.Skip("hardware watchpoints do not fire on this machine: a watchpoint on s1 is a software one from the start, and no conversion happens")
	}
	src := filepath.Join("testdata", "watchreloc.c")
	exe := ccForGDB(t, "clang", true, "watchreloc", "-O2", src)
	bp := markerLoc(t, src, "watch")
	// the first range of s1 in a register after one in memory
	scope := gdbAt(t, exe, bp, "info scope "+bp)
	var regPC string
	inMem, inS1 := false, false
	for _, l := range strings.Split(scope, "\n") {
		switch {
		case strings.HasPrefix(l, "Symbol "):
			inS1, inMem = strings.HasPrefix(l, "Symbol s1 "), false
		case !inS1:
		case strings.Contains(l, "DW_OP_breg"):
			inMem = true
		case inMem && regPC == "" && strings.Contains(l, "a variable in $"):
			if m := regexp.MustCompile(`Range (0x[0-9a-f]+)-`).FindStringSubmatch(l); m != nil {
				regPC = m[1]
			}
		}
	}
	if regPC == "" {
		t.Fatalf("clang's location list for s1 has no register range after a memory one here; GDB's info scope:\n%s", scope)
	}
	watchRunLikeGDB(t, ctx, exe, false, watchRun{bp: bp, expr: "s1", move: "continue", n: 3, also: "*" + regPC}, "")
}

// TestWatchFrameFreeLocalMatchesGDB: a watchpoint on an expression whose
// locals need no frame (p, a parameter gcc -O2 gives the location
// DW_OP_addr g; DW_OP_stack_value) has no scope and lives on after the
// function returns, as GDB's (its innermost block records only symbols
// that read the frame): rrmcp deleted it where bump returned, and missed
// the writes of the later calls.
func TestWatchFrameFreeLocalMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := buildTestdata(t, "gcc", "-O2", "watchfree.c")
	watchPathsLikeGDB(t, exe, "bump", []watchCase{{expr: "p->a", n: 2}, {expr: "p->b", n: 2}})
}
