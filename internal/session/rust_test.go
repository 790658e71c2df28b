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

// TestRustValues: values of a Rust program (testdata/rustvalues.rs) are
// GDB's, in the syntax of its Rust support: an enum shows the variant its
// discriminant selects (it printed {<No data fields>}), structs and
// tuples print as Rust writes them, Vec, String, slices, HashMap and
// HashSet as rustc's printers for GDB print them, and ptype spells types as GDB's
// Rust ptype does; an enum's parts are its variant's fields. The backtrace ends at the crate's
// main, as GDB's does (it went on through std's runtime), and names its
// functions by their paths where rustc's symbols use the v0 mangling
// (_R…, which rrmcp showed). Addresses are left out of the comparison
// (GDB runs the program without gdbserver).
func TestRustValues(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	testenv.NeedTool(t, "rustc")
	for _, mangling := range []string{"default", "v0"} {
		t.Run(mangling, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "rustvalues")
			args := []string{"-g", "-C", "opt-level=0", "-o", exe, filepath.Join("testdata", "rustvalues.rs")}
			if mangling != "default" {
				args = append(args, "-C", "symbol-mangling-version="+mangling)
			}
			if out, err := exec.Command("rustc", args...).CombinedOutput(); err != nil {
				t.Fatalf("rustc: %v\n%s", err, out)
			}
			rustValuesVsGDB(t, exe)
		})
	}
}

// rustValuesVsGDB compares the values and backtrace at rustvalues::look
// with GDB's.
func rustValuesVsGDB(t *testing.T, exe string) {
	exprs := []string{"s", "*s", "*p", "p.x", "o", "on", "none", "t", "a", "st", "c", "b", "pr", "u", "local", "bx", "*bx",
		"latin", "euro", "unit", "p.x < p.y", "!b", "p.x == 1 && b",
		// Rust's own syntax: tuple fields, as, typed literals
		"t.0", "t.1", "pr.1", "pr.0 as i64 + 1", "a[1] as u32 * 2", "5u8", "1_000i32", "-pr.1 as u8",
		"sl[1]", "sl[0] + sl[1]", "*dynp", "*boxed", "(*dynp).x", "k"}
	// What rustc's printers for GDB (rust-gdb's) print; compared with GDB
	// where the toolchain has them, else with these texts.
	printed := map[string]string{
		"sl":    "&[i32](size=2) = {6, 7}",
		"v":     "Vec(size=2) = {rustvalues::Point {x: 1, y: -1}, rustvalues::Point {x: 2, y: -2}}",
		"name":  `"wörld"`,
		"hm":    `HashMap(size=1) = {["k"] = 7}`,
		"hs":    "HashSet(size=1) = {42}",
		"rc":    "Rc(strong=2, weak=0) = {value = RefCell(borrow=0) = {value = Vec(size=1) = {7}, borrow = 0}, strong = 2, weak = 0}",
		"arc":   "Arc(strong=1, weak=0) = {value = (7, 113 'q'), strong = 1, weak = 0}",
		"cell":  "Cell = {value = 5}",
		"dq":    "VecDeque(size=3) = {1, 2, 3}",
		"small": "BTreeSet(size=2) = {1, 3}",
		"tree":  "BTreeMap(size=30) = {[0] = 0, [1] = 1, [2] = 4, [3] = 9, [4] = 16, [5] = 25, [6] = 36, [7] = 49, [8] = 64, [9] = 81, [10] = 100, [11] = 121, [12] = 144, [13] = 169, [14] = 196, [15] = 225, [16] = 256, [17] = 289, [18] = 324, [19] = 361, [20] = 400, [21] = 441, [22] = 484, [23] = 529, [24] = 576, [25] = 625, [26] = 676, [27] = 729, [28] = 784, [29] = 841}",
	}
	var cmds []string
	if etc := rustPrinters(t); etc != "" {
		cmds = append(cmds, fmt.Sprintf("python import sys; sys.path.insert(0, %q)", etc), "source "+filepath.Join(etc, "gdb_load_rust_pretty_printers.py"))
		for e := range printed {
			exprs = append(exprs, e)
			delete(printed, e)
		}
	} else {
		t.Logf("no printers for GDB in rustc's sysroot: %d values compared with their texts", len(printed))
	}
	for i, e := range exprs {
		cmds = append(cmds, fmt.Sprintf("echo <E%d>\\n", i), "print "+e, fmt.Sprintf("echo </E%d>\\n", i))
	}
	types := []string{"*s", "*p", "o", "pr", "t", "sl", "a", "u", "st", "c", "k"}
	for i, e := range types {
		cmds = append(cmds, fmt.Sprintf("echo <T%d>\\n", i), "ptype "+e, fmt.Sprintf("echo </T%d>\\n", i))
	}
	cmds = append(cmds, "echo <BT>\\n", "bt", "echo </BT>\\n")
	const loc = "rustvalues.rs:45" // in look, every local set
	gdb := gdbAt(t, exe, loc, cmds...)

	s, ctx := liveAt(t, Config{}, []string{exe}, loc)
	addrs := regexp.MustCompile(`0x[0-9a-f]+`)
	value := regexp.MustCompile(`^\$\d+ = `)
	for i, e := range exprs {
		want := addrs.ReplaceAllString(value.ReplaceAllString(strings.TrimSpace(section(gdb, fmt.Sprintf("E%d", i))), ""), "0x…")
		r, err := s.Evaluate(ctx, e)
		if got := addrs.ReplaceAllString(r.Value, "0x…"); err != nil || got != want || want == "" {
			t.Errorf("print %s: %q %v, gdb %q", e, got, err, want)
		}
	}
	// Rust's own syntax and slices are evaluated here, not by the GDB
	// fallback (which would also get them right).
	for _, e := range []string{"t.0", "pr.0 as i64 + 1", "5u8", "sl[1]", "p.x < p.y", "*dynp"} {
		if r, err := s.Evaluate(ctx, e); err != nil || r.Engine != "native" {
			t.Errorf("%s: evaluated by %q (%v), want natively", e, r.Engine, err)
		}
	}
	for e, want := range printed {
		if r, err := s.Evaluate(ctx, e); err != nil || r.Value != want {
			t.Errorf("print %s: %q %v, want %q", e, r.Value, err, want)
		}
	}
	// The parts of an enum's value are its variant's fields.
	for e, want := range map[string]string{"*s": "w=2 h=3", "local": "__0=2.5", "none": ""} {
		r, err := s.EvaluateWith(ctx, e, EvalOptions{Expand: 1})
		var got []string
		for _, p := range r.Parts {
			got = append(got, p.Name+"="+p.Value)
		}
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("parts of %s: %q %v, want %q", e, got, err, want)
		}
	}
	for i, e := range types {
		want, _ := strings.CutPrefix(strings.TrimSpace(section(gdb, fmt.Sprintf("T%d", i))), "type = ")
		r, err := s.Ptype(ctx, e, false)
		if err != nil || r.Type != want || want == "" {
			t.Errorf("ptype %s: %q %v, gdb %q", e, r.Type, err, want)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	frames, _, _, _, err := s.Backtrace(ctx, 50)
	var got []string
	for _, f := range frames {
		got = append(got, f.Function)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(section(gdb, "BT")), "\n") {
		if f := regexp.MustCompile(`^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)`).FindStringSubmatch(l); f != nil {
			want = append(want, f[1])
		}
	}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") || len(want) < 2 {
		t.Errorf("backtrace %q %v, gdb %q", got, err, want)
	}
}

// TestRustExpressionsMatchGDB: Rust's own operators and type syntax as
// GDB's Rust support has them: ! of an integer is its complement in its
// own type (rrmcp took it for C's logical not: !0u8 was true), and a
// function's type is fn (params) -> return, the return left out where
// it is unit (rrmcp wrote C's u64 (u64)); round 28's RS2 and RS3.
func TestRustExpressionsMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	testenv.NeedTool(t, "rustc")
	exe := filepath.Join(t.TempDir(), "rustexpr")
	if out, err := exec.Command("rustc", "-g", "-C", "opt-level=0", "-o", exe, filepath.Join("testdata", "rustexpr.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	loc := markerLoc(t, filepath.Join("testdata", "rustexpr.rs"), "use")
	s, ctx := printAtLikeGDB(t, exe, loc, false, "!0u8", "!y", "!5i32", "!x", "!true", "!(y == 7)", "f", "&f", "g", "*&f",
		"b'a'", "b'\\n' + 1", "(x, y)", "arr[1..3]", "arr[2]", `"hi"`, `"wörld"`, "[1, 2, 3]", "[7; 3]", "[y, 2]", "[x; 2]", "[1.5, 2]")
	for _, whatis := range []bool{true, false} {
		typesLikeGDB(t, ctx, s, exe, loc, whatis, "f", "g", "&f", "rustexpr::f", `"hi"`, "[y, 2]", "[x; 2]")
	}
	// Slices by ranges (round 28's RS1: a syntax error). GDB prints them
	// with rustc's printers (rust-gdb's) where the toolchain has them;
	// else they are compared with these texts.
	slices := map[string]string{
		"&arr[2..4]":  "&[*gdb*](size=2) = {3, 4}",
		"&arr[..2]":   "&[*gdb*](size=2) = {1, 2}",
		"&arr[4..]":   "&[*gdb*](size=2) = {5, 6}",
		"&arr[1..=2]": "&[*gdb*](size=2) = {2, 3}",
		"&sl[1..]":    "&[u8](size=2) = {3, 4}",
		"&sl[..]":     "&[u8](size=3) = {2, 3, 4}",
	}
	if etc := rustPrinters(t); etc != "" {
		cmds := []string{fmt.Sprintf("python import sys; sys.path.insert(0, %q)", etc), "source " + filepath.Join(etc, "gdb_load_rust_pretty_printers.py")}
		var exprs []string
		for e := range slices {
			exprs = append(exprs, e)
		}
		for i, e := range exprs {
			cmds = append(cmds, fmt.Sprintf("echo <E%d>\\n", i), "print "+e, fmt.Sprintf("echo </E%d>\\n", i))
		}
		gdb := gdbAt(t, exe, loc, cmds...)
		for i, e := range exprs {
			slices[e] = regexp.MustCompile(`^\$\d+ = `).ReplaceAllString(strings.TrimSpace(section(gdb, fmt.Sprintf("E%d", i))), "")
		}
	} else {
		t.Logf("no printers for GDB in rustc's sysroot: %d slices compared with their texts", len(slices))
	}
	for e, want := range slices {
		if r, err := s.Evaluate(ctx, e); err != nil || r.Value != want {
			t.Errorf("print %s: %q %v, want %q", e, r.Value, err, want)
		}
	}
}

// rustPrinters returns the folder of the printers for GDB that rustc's
// toolchain ships (rust-gdb loads them), or "".
func rustPrinters(t *testing.T) string {
	out, err := exec.Command("rustc", "--print", "sysroot").Output()
	if err != nil {
		return ""
	}
	etc := filepath.Join(strings.TrimSpace(string(out)), "lib", "rustlib", "etc")
	if _, err := os.Stat(filepath.Join(etc, "gdb_load_rust_pretty_printers.py")); err != nil {
		return ""
	}
	return etc
}

// TestRustFinishValuesMatchGDB: finish out of Rust functions returning a
// niche-encoded enum (Option<&String>, Option<&u32>, Option<Box<u32>>: a
// pointer in rax, 0 for None) and a fieldless enum reports GDB's value.
// The enum's variants were left out of the ABI classification, so the
// value looked like a float and was read from xmm0: Some(0x5) whatever
// the function returned. GDB (with rustc's printers where the toolchain
// has them) is the oracle for the None returns; it aborts on a finish
// that returns Some(&T), which is checked against the variable the
// program stores.
func TestRustFinishValuesMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	testenv.NeedTool(t, "rustc")
	exe := buildTestdata(t, "rustc", "-Copt-level=0", "rustfinish.rs")
	var pre []string
	if etc := rustPrinters(t); etc != "" {
		pre = append(pre, fmt.Sprintf("python import sys; sys.path.insert(0, %q)", etc), "source "+filepath.Join(etc, "gdb_load_rust_pretty_printers.py"))
	}
	for _, c := range []struct {
		fn    string
		skip  int // hits to continue past
		value string
	}{
		{"rustfinish::find", 1, ""},       // find(&v, "zz"): None
		{"rustfinish::first_even", 1, ""}, // first_even(&nums[..2]): None
		{"rustfinish::opt_box", 0, ""},    // opt_box(1): None
		{"rustfinish::kind_of", 0, ""},    // Kind::Word
		{"rustfinish::find", 0, "core::option::Option<&alloc::string::String>::Some(0x"},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.fn, c.skip), func(t *testing.T) {
			want := c.value
			if want == "" {
				cmds := append([]string{}, pre...)
				for range c.skip {
					cmds = append(cmds, "continue")
				}
				out := gdbAt(t, exe, c.fn, append(cmds, "finish")...)
				m := regexp.MustCompile(`(?m)^Value returned is \$\d+ = (.*)$`).FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("GDB printed no value:\n%s", out)
				}
				want = m[1]
			}
			s, ctx := liveAt(t, Config{}, []string{exe}, c.fn)
			for range c.skip {
				if _, err := s.Continue(ctx, false); err != nil {
					t.Fatal(err)
				}
			}
			st, err := s.Finish(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			if st.ReturnValue != want && !(c.value != "" && strings.HasPrefix(st.ReturnValue, c.value) && !strings.HasSuffix(st.ReturnValue, "(0x5)")) {
				t.Errorf("finish: %q, want %q", st.ReturnValue, want)
			}
		})
	}
}
