package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/symbols"
)

// These tests check, one program each, the session behaviours that the
// GDB-differential test (internal/gdbdiff) compares with GDB.

// TestBreakInlinedOnlyFunction: in null_deref-O2, lookup and use exist
// only as inlined copies. break NAME gets a location at every copy, the
// stop shows the inlined function as frame 0 (GDB's
// stopped_by_user_bp_inline_frame), and its callers follow.
func TestBreakInlinedOnlyFunction(t *testing.T) {
	s := liveSession(t, "null_deref-O2", "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if fs := s.inf.Img.FuncsByName("use"); len(fs) != 0 {
		t.Skipf("use has %d concrete copies in this build; the test needs a build where it is only inlined", len(fs))
	}
	bp, err := s.SetBreakpoint(ctx, "use", "", false)
	if err != nil {
		t.Fatalf("break use: %v", err)
	}
	if len(bp.Addresses) == 0 || bp.Function != "use" || bp.Line == 0 {
		t.Fatalf("break use: %+v, want a location in use with a line", bp)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" || st.Breakpoint != bp.Number {
		t.Fatalf("continue: %+v %v, want breakpoint %d", st, err, bp.Number)
	}
	if st.Frame == nil || st.Frame.Function != "use" {
		t.Errorf("stop location %+v, want function use", st.Frame)
	}
	frames, _, _, _, err := s.Backtrace(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range frames {
		names = append(names, f.Function)
	}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "use lookup process main") {
		t.Errorf("backtrace %q, want use lookup process main (as GDB)", got)
	}
	if !frames[0].Inlined || !frames[1].Inlined {
		t.Errorf("frames 0 and 1 should be inlined: %+v", frames[:2])
	}
}

// TestLibcFramesUseDebugFile: at abort() in assert_fail the libc frames
// come from glibc's separate debug file (libc6-dbg): file:line and GDB's
// names, not SYMBOL+OFFSET; the raising frame lists its
// arguments, with NAME@entry where call-site information gives it.
func TestLibcFramesUseDebugFile(t *testing.T) {
	needLibcDebug(t)
	s := liveSession(t, "assert_fail", "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st, err := s.Continue(ctx, false)
	if err != nil || st.Signal != "SIGABRT" {
		t.Fatalf("continue: %+v %v, want SIGABRT", st, err)
	}
	frames, _, _, _, err := s.Backtrace(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	var libcLines int
	sawAbort := false
	for _, f := range frames {
		if f.Module == "" {
			continue
		}
		if strings.Contains(f.Function, "+") {
			t.Errorf("libc frame named like a symbol+offset: %+v", f)
		}
		if f.File != "" && f.Line > 0 {
			libcLines++
		}
		if f.Function == "__GI_abort" || f.Function == "abort" {
			sawAbort = true
			if filepath.Base(f.File) != "abort.c" {
				t.Errorf("abort frame file %q, want abort.c", f.File)
			}
		}
	}
	if libcLines < 3 || !sawAbort {
		t.Errorf("libc frames: %d with file:line, abort seen %v; want abort and file:line in libc:\n%+v", libcLines, sawAbort, frames)
	}
	// Frame 0 is in pthread_kill's implementation with its arguments.
	vals, fr, err := s.Locals(ctx)
	if err != nil {
		t.Fatalf("locals of %s: %v", fr.Function, err)
	}
	kinds := map[string]string{}
	for _, v := range vals {
		kinds[v.Name] = v.Kind
	}
	if kinds["signo"] != "argument" {
		t.Errorf("locals of %s: %+v, want argument signo", fr.Function, vals)
	}
	if kinds["signo@entry"] != "entry" { // GDB 13 lists signo@entry=6 here
		t.Errorf("locals of %s: %+v, want signo@entry (kind entry)", fr.Function, vals)
	}
}

// needLibcDebug skips (fails in CI) without glibc's separate debug file.
func needLibcDebug(t *testing.T) {
	t.Helper()
	libc, err := symbols.Open("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		t.Skipf("no libc to check for a debug file: %v", err)
	}
	_, derr := libc.DWARFFile()
	libc.Close()
	if derr != nil {
		msg := "glibc's separate debug file is not installed (Debian: libc6-dbg): " + derr.Error()
		if testenv.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// TestBreakLibcAlias: break malloc, as GDB with libc6-dbg: malloc is an
// ELF alias of __libc_malloc (whose DWARF gives the line past its
// prologue) while ld.so's DWARF has inlined copies of its own malloc; the
// program's first allocation (printf's buffer) stops in libc's.
func TestBreakLibcAlias(t *testing.T) {
	needLibcDebug(t)
	s := liveSession(t, "counter", "main")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	bp, err := s.SetBreakpoint(ctx, "malloc", "", false)
	if err != nil {
		t.Fatalf("break malloc: %v", err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" || st.Breakpoint != bp.Number {
		t.Fatalf("continue: %+v %v, want breakpoint %d (locations %v)", st, err, bp.Number, bp.Addresses)
	}
	if st.Frame == nil || !strings.Contains(st.Frame.Function, "malloc") || st.Frame.Module != "libc.so.6" {
		t.Fatalf("stop at %+v, want libc's malloc", st.Frame)
	}
	if filepath.Base(st.Frame.File) != "malloc.c" || st.Frame.Line == 0 {
		t.Errorf("stop at %s:%d, want malloc.c past the prologue", st.Frame.File, st.Frame.Line)
	}
	t.Logf("break malloc: %d locations; stop at %s in %s at %s:%d", len(bp.Addresses), st.Frame.PC, st.Frame.Function, st.Frame.File, st.Frame.Line)
}
