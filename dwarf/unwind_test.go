package dwarf

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnwindMatchesGDB stops the sample program under gdb at several
// breakpoints (a call from an inlined function, a recursion, a signal
// handler called through libc), writes a core at each, unwinds the core
// with our code and compares every frame with gdb's "bt": function, file
// and line for frames with debug info, the pc wherever gdb prints one,
// signal frames, and the number of frames (gdb stops at main).
func TestUnwindMatchesGDB(t *testing.T) {
	stops := []string{"sink", "stop_here", "stop_in_handler"}
	for _, flags := range [][]string{
		{"-g", "-O0"},
		{"-g", "-O2"},
		// CFI only in .debug_frame
		{"-g", "-O2", "-fno-asynchronous-unwind-tables"},
		// no CFI and no DWARF for our code: frame-pointer unwinding and
		// ELF symbol names
		{"-O0", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"},
	} {
		opt := strings.Join(flags, "")
		bin := buildTestProg(t, "gcc", "sample.c", flags...)
		unwindMatchesGDB(t, bin, opt, stops, 3)
	}
}

// unwindMatchesGDB stops bin at each of stops under GDB and checks, in a
// subtest named opt/stop, that unwinding the dumped core gives GDB's
// backtrace, which must have at least minFrames frames.
func unwindMatchesGDB(t *testing.T, bin, opt string, stops []string, minFrames int) {
	t.Helper()
	img := openImage(t, bin)
	dumps := stopAndDump(t, bin, stops)
	for i, d := range dumps {
		t.Run(opt+"/"+stops[i], func(t *testing.T) {
			want := parseBT(d.out)
			if len(want) < minFrames {
				t.Fatalf("gdb backtrace too short:\n%s", d.out)
			}
			bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareBT(t, bt, want, d.out)
		})
	}
}

func compareBT(t *testing.T, bt *Backtrace, want []gdbFrame, gdbOut string) {
	t.Helper()
	got := bt.Frames
	defer func() {
		if t.Failed() || testing.Verbose() {
			for _, f := range got {
				t.Logf("#%d %#x %s %s:%d inlined=%v signal=%v tail=%v", f.Level, f.PC, f.Name, filepath.Base(f.File), f.Line, f.Inlined, f.Signal, f.TailCall)
			}
			t.Logf("stop: %s\ngdb:\n%s", bt.Stop, gdbOut)
		}
	}()
	if len(got) != len(want) {
		t.Fatalf("%d frames, gdb has %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		switch {
		case w.fn == SignalFrameName:
			if !g.Signal {
				t.Errorf("#%d: not a signal frame", i)
			}
		case w.file != "":
			if g.Name != w.fn || filepath.Base(g.File) != filepath.Base(w.file) || g.Line != w.line {
				t.Errorf("#%d: got %s at %s:%d, gdb %s at %s:%d", i, g.Name, filepath.Base(g.File), g.Line, w.fn, filepath.Base(w.file), w.line)
			}
		case w.fn != "??" && g.Image != nil && !isSystemLib(g.Image.Path):
			// names of frames without DWARF: only in our own binaries
			// (libc's depend on whether libc6-dbg is installed, and GDB
			// then also uses symbols we do not read)
			if g.Name != w.fn {
				t.Errorf("#%d: got %s, gdb %s", i, g.Name, w.fn)
			}
		}
		if w.hasPC && g.PC != w.pc {
			t.Errorf("#%d: pc %#x, gdb %#x", i, g.PC, w.pc)
		}
		if w.hasPC != g.ShowAddr && !g.Signal {
			t.Errorf("#%d: ShowAddr %v, gdb printed pc: %v", i, g.ShowAddr, w.hasPC)
		}
	}
	if !strings.Contains(bt.Stop, "main") && bt.Stop != "outermost" {
		t.Errorf("unwinding stopped with %q, want at main or the outermost frame", bt.Stop)
	}
}

// TestUnwindCPlusPlusMatchesGDB does the same for the C++ program:
// qualified method names, templates and the anonymous namespace.
func TestUnwindCPlusPlusMatchesGDB(t *testing.T) {
	stops := []string{"geo::Circle::area", "geo::(anonymous namespace)::hidden", "twice<double>"}
	for _, opt := range []string{"-O0", "-O2"} {
		bin := buildTestProg(t, "g++", "shapes.cpp", "-g", opt)
		unwindMatchesGDB(t, bin, opt, stops, 2)
	}
}

// TestInlineEntryFrames stops (stepi) at the first instruction of each
// range of an inlined call and checks both views GDB has of it: after
// "stepi" the inlined frame is shown (ShowInlineEntries as many as
// start there); after "next" (none) it is hidden and frame 0 is the
// caller at the call line.
func TestInlineEntryFrames(t *testing.T) {
	bin := buildTestProg(t, "gcc", "sample.c", "-g", "-O2")
	img := openImage(t, bin)
	copies := img.InlinedCopies("helper")
	if len(copies) == 0 {
		t.Fatal("no inlined copies of helper")
	}
	c := copies[0]
	// run to main, then break at the copy's range starts
	var stops []string
	for _, r := range c.Ranges {
		adjacent := false
		for _, q := range c.Ranges {
			adjacent = adjacent || r[0]-1 >= q[0] && r[0]-1 < q[1]
		}
		if !adjacent { // GDB: a block starts where pc-1 is outside it
			stops = append(stops, fmt.Sprintf("*(0x%x + (long)&main - 0x%x)", r[0], img.FuncsByName("main")[0].Entry))
		}
	}
	if len(stops) < 2 {
		t.Logf("only %d range starts; the compiler did not split the copy", len(stops))
	}
	dumps := stopAndDump(t, bin, stops)
	for i, d := range dumps {
		want := parseBT(d.out)
		bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{ShowInlineEntries: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		compareBT(t, bt, want, d.out)
		hidden, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if f := hidden.Frames[0]; f.Name != "main" || f.Inlined || f.Line != c.CallLine {
			t.Errorf("range %d, hidden view: frame 0 %s at line %d, want main at %d", i, f.Name, f.Line, c.CallLine)
		}
	}
}

// TestUnwindThreadAndPastMain unwinds a thread to its start (clone3) and
// the main thread past main to _start, as gdb does.
func TestUnwindThreadAndPastMain(t *testing.T) {
	bin := buildTestProg(t, "gcc", "threads.c", "-g", "-O0", "-pthread")
	img := openImage(t, bin)
	d := stopAndDump(t, bin, []string{"in_thread"})[0]
	bt, err := img.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareBT(t, bt, parseBT(d.out), d.out)
	if bt.Stop != "outermost" {
		t.Errorf("thread unwinding stopped with %q, want outermost", bt.Stop)
	}

	bin = buildTestProg(t, "gcc", "sample.c", "-g", "-O0")
	img2 := openImage(t, bin)
	d = stopAndDump(t, bin, []string{"stop_here"}, "set backtrace past-main on", "echo <<<PM\\n", "bt", "echo PM>>>\\n")[0]
	bt, err = img2.Unwind(t.Context(), d.core.target(t), d.core.regs, 0, UnwindOptions{PastMain: true})
	if err != nil {
		t.Fatal(err)
	}
	want := parseBT(between(d.out, "<<<PM", "PM>>>"))
	compareBT(t, bt, want, d.out)
	if last := bt.Frames[len(bt.Frames)-1]; last.Name != "_start" || bt.Stop != "outermost" {
		t.Errorf("past main: last frame %s, stop %q; want _start, outermost", last.Name, bt.Stop)
	}
}

func isSystemLib(path string) bool {
	return strings.HasPrefix(path, "/lib") || strings.HasPrefix(path, "/usr/lib")
}

// TestUnwindCrashes unwinds at a fault in a frame with CFI and after a
// call through a null function pointer (pc 0), as gdb does.
func TestUnwindCrashes(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		bin := buildTestProg(t, "gcc", "crash.c", "-g", opt)
		img := openImage(t, bin)
		for _, mode := range []string{"call", "store"} {
			corePath := filepath.Join(t.TempDir(), "core")
			out := runGDB(t, bin, "run "+mode, "echo <<<BT\\n", "bt", "echo BT>>>\\n", "generate-core-file "+corePath, "kill")
			c := openCore(t, corePath)
			want := parseBT(between(out, "<<<BT", "BT>>>"))
			bt, err := img.Unwind(t.Context(), c.target(t), c.regs, 0, UnwindOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Run(opt+"/"+mode, func(t *testing.T) { compareBT(t, bt, want, out) })
		}
	}
}

// mapCtx is a context whose dynamic value is not comparable: == on two
// interfaces holding it panics.
type mapCtx struct {
	context.Context
	m map[string]int
}

// TestSameCtx: a frame's expression environment is kept for the context
// of one call only, and a context == would panic on is never "the same"
// (nothing is kept for it) instead of panicking.
func TestSameCtx(t *testing.T) {
	a, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	odd := mapCtx{Context: a, m: map[string]int{}}
	for _, tc := range []struct {
		name string
		x, y context.Context
		want bool
	}{
		{"same pointer context", a, a, true},
		{"another call's", a, b, false},
		{"a value context", context.Background(), context.Background(), false},
		{"not comparable", odd, odd, false},
		{"none kept", nil, a, false},
	} {
		if got := sameCtx(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: sameCtx = %v, want %v", tc.name, got, tc.want)
		}
	}
	f := &Frame{PC: 0x1000}
	if e1, e2 := f.exprEnv(odd), f.exprEnv(odd); e1 == e2 {
		t.Error("an environment was kept for a context that cannot be compared")
	}
	if e1, e2 := f.exprEnv(a), f.exprEnv(a); e1 != e2 {
		t.Error("the environment of one call was made twice")
	}
}
