package coredump_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/coredump"
	"github.com/rrmcp/rrmcp/internal/relay"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// gdbBatch runs GDB's commands on prog with extra arguments (a core file,
// or none) and returns what it printed.
func gdbBatch(t *testing.T, ctx context.Context, prog string, extra []string, cmds ...string) string {
	t.Helper()
	args := []string{"-nx", "-batch", "-ex", "set debuginfod enabled off", "-ex", "set width 0", "-ex", "set pagination off"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	out, err := exec.CommandContext(ctx, "gdb", append(append(args, prog), extra...)...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("gdb %v: %v\n%s", cmds, ctx.Err(), out)
	}
	_ = err // GDB's exit status says nothing useful in batch mode
	return string(out)
}

// TestServerMatchesGDB: GDB connected to a Server over the relay sees the
// core as GDB reading the core file itself does: the same backtrace
// (function, file:line per frame), registers, threads, a local through
// the stack and a string in the program's read-only data.
func TestServerMatchesGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	for _, name := range []string{"null_deref", "list_corrupt-O2", "cpp_shapes"} {
		t.Run(name, func(t *testing.T) {
			prog := testenv.Prog(t, name)
			corePath := filepath.Join(t.TempDir(), "core")
			gdbBatch(t, ctx, prog, nil, "run", "generate-core-file "+corePath)
			if _, err := os.Stat(corePath); err != nil {
				t.Fatalf("gdb wrote no core for %s: %v", name, err)
			}
			f, err := coredump.Open(corePath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			srv := coredump.NewServer(f, prog)
			r, err := relay.New(relay.Config{Forward: srv.Answer, Stop: srv.StopReply, Multiprocess: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// What GDB prints as it opens the target differs (a core's
			// "#0" line); the comparison starts at the marker.
			cmds := []string{"echo @@@\\n", "bt", "info registers rip rsp rbp rax eflags fs_base gs_base orig_rax",
				"info registers st0 st7 fctrl fstat ftag fiseg fioff foseg fooff fop xmm0 xmm1 xmm15 mxcsr",
				"info registers ymm0 ymm1 ymm15",
				"info threads", "frame 0", "info locals", "info sharedlibrary"}
			_, want, _ := strings.Cut(gdbBatch(t, ctx, prog, []string{corePath}, cmds...), "@@@\n")
			_, got, ok := strings.Cut(gdbBatch(t, ctx, prog, nil, append([]string{"target remote " + r.Addr()}, cmds...)...), "@@@\n")
			if !ok {
				t.Fatalf("GDB did not get through %q on the server:\n%s", cmds[0], got)
			}
			// Each part compares the regexp's last group where it has
			// one: a thread's frame (the remote target names threads by
			// id, the core target by libthread_db's handle), a library's
			// file with its links resolved (the server names the files
			// the core maps, NT_FILE; GDB on the core the link_map's
			// names: /lib64/ld-linux-x86-64.so.2 is the same file as
			// /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2).
			resolve := func(p string) string {
				if r, err := filepath.EvalSymlinks(p); err == nil {
					return r
				}
				return p
			}
			for _, part := range []struct {
				what string
				re   *regexp.Regexp
				norm func(string) string
			}{
				{"backtrace", regexp.MustCompile(`(?m)^#\d+\s+(?:0x[0-9a-f]+ in )?\S+ \(.*?\)(?: at \S+:\d+)?`), nil},
				{"registers", regexp.MustCompile(`(?m)^(?:rip|rsp|rbp|rax|eflags|[fg]s_base|orig_rax)\s+\S+.*$`), nil},
				{"x87 and SSE registers", regexp.MustCompile(`(?m)^(?:st\d|f\w+|mxcsr)\s+\S+.*$|^xmm\d+\s+\{[^\n]*\}`), nil},
				{"AVX registers", regexp.MustCompile(`(?m)^ymm\d+\s+\{[^\n]*\}`), nil},
				{"threads", regexp.MustCompile(`(?m)^[* ]\s*\d+\s+(?:Thread|LWP|process) .*? ((?:0x[0-9a-f]+ in )?\S+ \(.*?\)(?: at \S+:\d+| from \S+)?)$`), nil},
				{"libraries", regexp.MustCompile(`(?m)^0x[0-9a-f]+\s+0x[0-9a-f]+\s+Yes\s+(?:\(\*\)\s+)?(\S+)$`), resolve},
			} {
				pick := func(out string) []string {
					var l []string
					for _, m := range part.re.FindAllStringSubmatch(out, -1) {
						v := m[len(m)-1]
						if part.norm != nil {
							v = part.norm(v)
						}
						l = append(l, v)
					}
					return l
				}
				w, g := pick(want), pick(got)
				if len(w) == 0 {
					t.Fatalf("%s: GDB on the core printed none:\n%s", part.what, want)
				}
				if strings.Join(w, "\n") != strings.Join(g, "\n") {
					t.Errorf("%s through the server:\n%s\nGDB on the core:\n%s\n(whole output through the server:\n%s)", part.what, strings.Join(g, "\n"), strings.Join(w, "\n"), got)
				}
			}
			if !strings.Contains(got, "No locals.") && !strings.Contains(want, "No locals.") {
				loc := regexp.MustCompile(`(?m)^\w+ = .*$`)
				if w, g := loc.FindAllString(want, -1), loc.FindAllString(got, -1); strings.Join(w, "\n") != strings.Join(g, "\n") {
					t.Errorf("locals through the server %q, GDB on the core %q", g, w)
				}
			}
		})
	}
}
