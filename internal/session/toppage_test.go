package session

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestTopOfAddressSpaceMatchesGDB: pointers into the last page of the
// address space and reads across its top (2^64) fail as in GDB, "Cannot
// access memory at address A" with GDB's A, in print, in info locals and
// in a memory read. The page's end wrapped to 0 in the memory cache:
// reading *p at 0xfffffffffffff000 panicked (a slice of 4096 bytes of a
// 256-byte buffer), and rr_locals failed for the whole frame.
func TestTopOfAddressSpaceMatchesGDB(t *testing.T) {
	src := filepath.Join("testdata", "toppage.cpp")
	exe := buildTestdata(t, "g++", "-O0", "toppage.cpp")
	s, ctx := printLikeGDB(t, exe, src, true, "*p", "p->line", "r", "*c", "*l", "s", "*s", "s[63]", "a[1]", "*a@4",
		"*(char (*)[16])0xfffffffffffffff8", "c[1]", "n")
	// rr_read_memory across the top: an error naming the first address
	// that cannot be read, as GDB's x says.
	if _, err := s.ReadMemory(ctx, "0xfffffffffffffffc", 8); err == nil || !strings.Contains(err.Error(), "0xfffffffffffffffc") {
		t.Errorf("read 8 bytes at 0xfffffffffffffffc: %v, want an error naming the address", err)
	}
}

// TestMemoryEdgesMatchGDB: at the edge of readable memory rrmcp says
// what GDB says. An object or string that runs into an unmapped page
// names the first byte that could not be read (the object's start was
// named), a string shows its readable characters and then the error (it
// looked complete), and a wide string that is not aligned prints (the
// reader stepped by zero bytes at a line's end and never returned:
// rr_evaluate and rr_locals hung). *-1 reads an int at 0xff…ff, as GDB's
// value_as_address (it read a long at 0xffffffff).
func TestMemoryEdgesMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "extremes.cpp")
	exe := buildTestdata(t, "g++", "-O0", "extremes.cpp")
	s, ctx := printLikeGDB(t, exe, src, true, "*scross", "*acr", "*(long *)tail", "*tail@8", "rcross", "tail", "wtail",
		"w1", "w62", "c63", "*-1", "*(char *)-2", "sizeof(*-1)", "rmax", "scross->a", "(*acr)[7]",
		"*tail@0", "*tail@-1", "*tail@4294967297")
	// A read or a disassembly that stops part-way says where, as GDB's x
	// and disassemble do after what they could read (they ended silently
	// short).
	r, err := s.Evaluate(ctx, "tail + 4")
	if err != nil {
		t.Fatal(err)
	}
	end := strings.Fields(r.Value)[0]
	m, err := s.ReadMemory(ctx, "tail", 16)
	if err != nil || m.Count != 4 || m.Stopped != "Cannot access memory at address "+end {
		t.Errorf("read 16 bytes at tail: %+v %v, want 4 bytes and where it stopped (%s)", m, err, end)
	}
	ins, stopped, err := s.Disassemble(ctx, "*tail", 10)
	if err != nil || len(ins) >= 10 || stopped != "Cannot access memory at address "+end { // (0x41, "A", is a REX prefix: no instruction is whole)
		t.Errorf("disassemble 10 at tail: %d instructions, %q, %v; want fewer and where they stopped (%s)", len(ins), stopped, err, end)
	}
}

// TestI386AddressesWrapMatchesGDB: on i386 an address an expression
// computes wraps at 2^32 as GDB computes it in the pointer's size:
// pmax[1] for pmax 0xffffffff reads at 0x0 (it read at 0x100000000),
// buf[0xffffffff] is buf[-1].
func TestI386AddressesWrapMatchesGDB(t *testing.T) {
	src := filepath.Join("testdata", "wrap32.c")
	s, ctx := printLikeGDB(t, gccForGDB(t, true, "wrap32", "-O0", src), src, true,
		"pmax[1]", "&pmax[1]", "buf[0xffffffff]", "ipm4[1]", "&ipm4[2]", "pmax[0x7fffffff] == pmax[-0x80000001]")
	// An address a tool is given is one of the program's 32 bits too (GDB's
	// x/8xb 0x1fffffffc reads at 0xfffffffc).
	if _, err := s.ReadMemory(ctx, "0x1fffffffc", 8); err == nil || !strings.Contains(err.Error(), "0xfffffffc") || strings.Contains(err.Error(), "0x1fffffffc") {
		t.Errorf("read at 0x1fffffffc: %v, want an error at 0xfffffffc", err)
	}
}

// TestConstBytesLocalsMatchGDB: info locals leaves out the locals whose
// value the compiler folded to a block of bytes (GDB's LOC_CONST_BYTES:
// a const double, struct or array at -O2; in lz4, __PRETTY_FUNCTION__),
// and lists those folded to an integer; rr_locals listed them all.
// print still shows each.
func TestConstBytesLocalsMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "constbytes.c")
	printLikeGDB(t, gccForGDB(t, false, "constbytes", "-O2", src), src, true, "tag", "scale", "origin", "k")
}

// TestSyntheticPointersMatchGDB: what an optimized-away pointer points to
// reads as GDB reads it, typed by the pointer's target even where the
// pointee has no type (gcc's DW_TAG_dwarf_procedure for a string
// literal: *msg was "has no type"), through an index or pointer
// arithmetic (msg[1] and *(msg + 2) were <optimized out>), and a
// synthetic char pointer prints without its type, as GDB's (char *) hack
// does.
func TestSyntheticPointersMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "synthptr.c")
	printLikeGDB(t, gccForGDB(t, false, "synthptr", "-O2", src), src, false,
		"msg", "*msg", "msg[1]", "msg[5]", "m2", "*m2", "m2[4]", "ip", "*ip", "ip[1]",
		"*(msg + 2)", "*(1 + m2)", "*(msg + 3 - 1)", "msg[6]", "msg + 1")
}

// TestRvalueReferencesMatchGDB: an rvalue reference to a class a
// printer shows (std::string &&, a tuple's structured binding) prints as
// GDB prints it, the reference then the printer's text; rrmcp printed
// the text alone, as for an lvalue reference.
func TestRvalueReferencesMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "rvalueref.cpp")
	exe := buildTestdata(t, "g++", "-O0", "rvalueref.cpp")
	printLikeGDB(t, exe, src, true, "rs", "rrs", "rv", "rrv", "rp", "rrp", "tag", "n", "*&rrs", "rrp.x")
}

// printLikeGDB stops exe at src's LINE:use marker in GDB and in a live
// session and compares what each prints of exprs (an error by its text)
// and, with locals, the two info locals; it returns the session. Stack
// addresses are left out of the comparison: GDB and gdbserver start the
// program with different environments.
func printLikeGDB(t *testing.T, exe, src string, locals bool, exprs ...string) (*Session, context.Context) {
	t.Helper()
	return printAtLikeGDB(t, exe, fmt.Sprintf("%s:%d", filepath.Base(src), markerLine(t, src, "use")), locals, exprs...)
}

// printAtLikeGDB is printLikeGDB at the breakpoint location loc.
func printAtLikeGDB(t *testing.T, exe, loc string, locals bool, exprs ...string) (*Session, context.Context) {
	t.Helper()
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	cmds := []string{"echo <LOCALS>\\n", "info locals", "echo </LOCALS>\\n"}
	for i, e := range exprs {
		cmds = append(cmds, fmt.Sprintf("echo <E%d>\\n", i), "print "+e, fmt.Sprintf("echo </E%d>\\n", i))
	}
	gdb := gdbAt(t, exe, loc, cmds...)
	s, ctx := liveAt(t, Config{}, []string{exe}, loc)
	if locals {
		localsLikeGDB(t, ctx, s, section(gdb, "LOCALS"))
	}
	for i, e := range exprs {
		want := norm(regexp.MustCompile(`^\$\d+ = `).ReplaceAllString(strings.TrimSpace(section(gdb, fmt.Sprintf("E%d", i))), ""))
		r, err := s.Evaluate(ctx, e)
		got := norm(r.Value)
		if err != nil {
			_, got, _ = strings.Cut(err.Error(), ": ") // our errors name the expression first
		}
		if want == "" || stackAddr.ReplaceAllString(got, "<stack>") != stackAddr.ReplaceAllString(want, "<stack>") {
			t.Errorf("print %s: ours %q, GDB %q", e, got, want)
		}
	}
	return s, ctx
}

// stackAddr matches an address in the stack of an x86-64 process.
var stackAddr = regexp.MustCompile(`0x7ff[0-9a-f]{9}\b`)

// localsLikeGDB compares the locals Locals lists in the selected frame,
// an error as GDB prints it, with GDB's info locals output.
func localsLikeGDB(t *testing.T, ctx context.Context, s *Session, gdb string) {
	t.Helper()
	vals, _, err := s.Locals(ctx)
	if err != nil {
		t.Fatalf("locals: %v", err)
	}
	var ours, theirs []string
	for _, v := range vals {
		if v.Kind != "local" {
			continue
		}
		val := v.Value
		if v.Error != "" && v.Value == "" {
			val = "<error reading variable: " + v.Error + ">"
		}
		ours = append(ours, v.Name+" = "+stackAddr.ReplaceAllString(norm(val), "<stack>"))
	}
	for _, l := range strings.Split(strings.TrimSpace(gdb), "\n") {
		if name, val, ok := strings.Cut(l, " = "); ok && !strings.HasPrefix(l, " ") {
			theirs = append(theirs, name+" = "+stackAddr.ReplaceAllString(norm(val), "<stack>"))
		}
	}
	slices.Sort(ours)
	slices.Sort(theirs)
	if len(theirs) == 0 || !slices.Equal(ours, theirs) {
		t.Errorf("locals:\n ours %q\n gdb  %q", ours, theirs)
	}
}

// TestBacktraceStoppedMatchesGDB: where the unwinder cannot go on (a
// stack or frame pointer at the top of memory, at 0, past the stack), the
// backtrace says why as GDB does ("Backtrace stopped: Cannot access
// memory at address A", with GDB's A); it ended silently.
func TestBacktraceStoppedMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	exe := gccForGDB(t, false, "corruptstack", "-O0", filepath.Join("testdata", "corruptstack.c"))
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			out, _ := exec.CommandContext(ctx, "gdb", "-nx", "-batch", "-ex", fmt.Sprintf("run %d", i), "-ex", "bt", exe).CombinedOutput()
			m := regexp.MustCompile(`(?m)^Backtrace stopped: (.*)$`).FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("GDB's backtrace did not stop early:\n%s", out)
			}
			s := liveStarted(t, ctx, LiveOptions{Command: []string{exe, fmt.Sprint(i)}})
			if st, err := s.Continue(ctx, false); err != nil || st.Signal != "SIGILL" {
				t.Fatalf("continue: %+v %v", st, err)
			}
			fr, _, _, stopped, err := s.Backtrace(ctx, 64)
			if err != nil || len(fr) != 1 || stopped != m[1] {
				t.Errorf("backtrace: %d frames, stopped %q, %v; GDB: 1 frame, %q", len(fr), stopped, err, m[1])
			}
		})
	}
}

// TestBreakpointAfterExitKeepsSession: once a live program has exited,
// setting a breakpoint says why it cannot be (gdbserver has ended with
// the program) and the session stays as it was: ptype and sizeof still
// answer from the debug information. Asking gdbserver lost the session
// ("the connection to the debug server is gone"), and every later query
// failed.
func TestBreakpointAfterExitKeepsSession(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := liveStarted(t, ctx, LiveOptions{Command: []string{testenv.Prog(t, "counter")}})
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "exited" {
		t.Fatalf("continue to the exit: %+v %v", st, err)
	}
	for _, loc := range []string{"hit", "main", "*0x1000"} {
		if _, err := s.SetBreakpoint(ctx, loc, "", false); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "rr_live_start") {
			t.Errorf("break %s after the exit: %v, want an exited error saying what to do", loc, err)
		}
	}
	if st := s.Info().State; st != "exited" {
		t.Errorf("session state %q after the refused breakpoints, want exited", st)
	}
	if r, err := s.Evaluate(ctx, "sizeof(int) - 9"); err != nil || r.Value != "-5" {
		t.Errorf("sizeof after the exit: %+v %v", r, err)
	}
	if pt, err := s.Ptype(ctx, "struct node", false); err != nil || !strings.Contains(pt.Type, "struct node {") {
		t.Errorf("ptype after the exit: %+v %v", pt, err)
	}
}

// TestTemplateParamsMatchGDB: in a function template's frame its template
// parameters are names, as GDB adds them to the function's block: T is a
// type (sizeof(T), (T)2.7, ptype T), N a constant; in a member function
// template also U and M, and K, its class template's. They were "No
// symbol" (and (T)2.7 a syntax error). g++ and clang++ -O0.
func TestTemplateParamsMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "templparams.cpp")
	for _, b := range [][2]string{{"g++", "-O0"}, {"clang++", "-O0"}} {
		t.Run(b[0]+b[1], func(t *testing.T) {
			testenv.NeedTool(t, b[0])
			exe := buildTestdata(t, b[0], b[1], "templparams.cpp")
			for _, at := range []struct {
				marker string
				exprs  []string
				types  []string
			}{
				{"use", []string{"sizeof(T)", "(T)2.7", "N", "N * 2", "(T)N / 2", "acc + N"}, []string{"T", "N"}},
				{"member", []string{"M", "sizeof(U)", "(U)M / 2", "k", "(K)70000", "sizeof(K) + M"}, []string{"U", "K", "M"}},
			} {
				loc := markerLoc(t, src, at.marker)
				s, ctx := printAtLikeGDB(t, exe, loc, false, at.exprs...)
				var cmds []string
				for i, e := range at.types {
					cmds = append(cmds, fmt.Sprintf("echo <T%d>\\n", i), "ptype "+e, fmt.Sprintf("echo </T%d>\\n", i))
				}
				gdb := gdbAt(t, exe, loc, cmds...)
				for i, e := range at.types {
					want := strings.TrimPrefix(strings.TrimSpace(section(gdb, fmt.Sprintf("T%d", i))), "type = ")
					r, err := s.Ptype(ctx, e, false)
					if err != nil || strings.TrimSpace(r.Type) != want {
						t.Errorf("%s: ptype %s: ours %q (%v), GDB %q", at.marker, e, r.Type, err, want)
					}
				}
			}
		})
	}
}

// TestSyntheticReferencePrinterMatchesGDB: a reference kept as a synthetic
// pointer (g++ -O2's __for_range) to a type with a pretty printer prints
// as GDB prints it: the printer's text (print), "<synthetic pointer>" and
// the text (info locals); rrmcp printed the reference's type and ": "
// before the text.
func TestSyntheticReferencePrinterMatchesGDB(t *testing.T) {
	exe := buildTestdata(t, "g++", "-O2", "synthref.cpp")
	printAtLikeGDB(t, exe, "count_words", true, "__for_range", "text", "*&__for_range")
}

// TestCallResultsMatchGDB: the operators GDB reaches by calling the
// program's function (no libstdc++ xmethod: a string's operator[], an
// iterator's and an optional's operator*) give the reference the function
// returns, as GDB prints it: (T &) @ADDR: VALUE, of the function's
// declared return type (whatis s[1] is basic_string<…>::reference); they
// printed the element alone.
func TestCallResultsMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "callresults.cpp")
	exe := buildTestdata(t, "g++", "-O0", "callresults.cpp")
	s, ctx := printLikeGDB(t, exe, src, false, "s[1]", "*o", "s[1] + 1", "sizeof(s[1])", "&s[1]", "*it", "cs[1]", "*&s[1]", "*it * 10")
	whatisLikeGDB(t, ctx, s, exe, markerLoc(t, src, "use"), "s[1]", "*it", "cs[1]", "*o")
}

// TestReferenceMembersMatchGDB: a reference member whose referent cannot
// be read prints as GDB prints it, by its address ({i = @0x8, …}: a
// member's referent is not read); rrmcp said <error reading variable:
// …> in its place. At the top the reference says it cannot be read.
func TestReferenceMembersMatchGDB(t *testing.T) {
	src := filepath.Join("testdata", "refmember.cpp")
	exe := buildTestdata(t, "g++", "-O0", "refmember.cpp")
	printLikeGDB(t, exe, src, true, "*y", "l", "y->i", "y->d", "l.k")
}
