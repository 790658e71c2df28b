package tools_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// gdbTypes runs GDB (the oracle) to bp in prog and returns, per command
// ("ptype n", "whatis struct node"), what it printed after "type = ".
func gdbTypes(t *testing.T, prog, bp string, cmds []string) map[string]string {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	args := []string{"-nx", "-batch", "-ex", "break " + bp, "-ex", "run"}
	for _, c := range cmds {
		args = append(args, "-ex", "echo <<<\\n", "-ex", c, "-ex", "echo >>>\\n")
	}
	out, err := exec.CommandContext(ctx, gdb, append(args, prog)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	got := map[string]string{}
	rest := string(out)
	for _, c := range cmds {
		_, after, ok := strings.Cut(rest, "<<<\n")
		body, tail, ok2 := strings.Cut(after, ">>>\n")
		if !ok || !ok2 {
			t.Fatalf("gdb output for %q:\n%s", c, out)
		}
		got[c] = strings.TrimSuffix(strings.TrimPrefix(body, "type = "), "\n")
		rest = tail
	}
	return got
}

// TestPtype: rr_ptype and rr_ptype whatis print what GDB's ptype and
// whatis print, for expressions and type names, C and C++.
func TestPtype(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	for _, tc := range []struct {
		prog, bp string
		exprs    []string
	}{
		{"counter", "walk", []string{"n", "*n", "struct node", "list", "greeting", "bytes", "ratio", "n->next->name", "hits + 1", "walk"}},
		{"cpp_shapes", "geo::Circle::area", []string{"this", "*this", "geo::Shape", "geo::Point", "radius_"}},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			prog := testenv.Prog(t, tc.prog)
			var cmds []string
			for _, e := range tc.exprs {
				cmds = append(cmds, "ptype "+e, "whatis "+e)
			}
			want := gdbTypes(t, prog, tc.bp, cmds)
			c := startServer(t)
			c.ok("rr_live_start", args{"command": []string{prog}})
			c.ok("rr_breakpoint_set", args{"location": tc.bp})
			c.ok("rr_continue", nil, "breakpoint #1")
			for _, e := range tc.exprs {
				for _, whatis := range []bool{false, true} {
					cmd := "ptype " + e
					if whatis {
						cmd = "whatis " + e
					}
					r := c.ok("rr_ptype", args{"expression": e, "whatis": whatis})
					got, _ := r.data["result"].(map[string]any)["type"].(string)
					if got != want[cmd] {
						t.Errorf("%s:\n ours: %q\n gdb:  %q", cmd, got, want[cmd])
					}
				}
			}
			c.fails("rr_ptype", args{"expression": "no_such_thing"}, "no_such_thing")
			c.fails("rr_ptype", args{"expression": " "}, "empty")
		})
	}
}

// TestVLAThroughServer: a C99 variable-length array is sized in its frame
// on the server's path (rr_evaluate, rr_ptype, rr_locals), as GDB sizes
// it: sizeof, whatis and the printed elements.
func TestVLAThroughServer(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	gcc := testenv.NeedTool(t, "gcc")
	prog := filepath.Join(t.TempDir(), "vla")
	src := filepath.Join(testenv.Root(t), "dwarf", "testdata", "values", "vla.c")
	if out, err := exec.Command(gcc, "-O0", "-g", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	exprs := []string{"vla", "m2", "m2[1]"}
	var cmds []string
	for _, e := range exprs {
		cmds = append(cmds, "whatis "+e)
	}
	want := gdbTypes(t, prog, "vla.c:10", cmds)
	c := startServer(t)
	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_breakpoint_set", args{"location": "vla.c:10"})
	c.ok("rr_continue", nil, "breakpoint #1")
	for _, e := range exprs {
		r := c.ok("rr_ptype", args{"expression": e, "whatis": true})
		got, _ := r.data["result"].(map[string]any)["type"].(string)
		if got != want["whatis "+e] {
			t.Errorf("whatis %s: ours %q, gdb %q", e, got, want["whatis "+e])
		}
	}
	for e, v := range map[string]string{"sizeof(vla)": "16", "sizeof(m2)": "32", "vla": "{0, 3, 6, 9}", "m2[1]": "{0, -1, -2, -3}", "vla[n-1]": "9"} {
		c.ok("rr_evaluate", args{"expression": e}, v)
	}
	c.ok("rr_locals", nil, "{0, 3, 6, 9}")
}
