package testprogs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// symptom is what a program must do when run with no arguments.
type symptom struct {
	prog   string
	signal syscall.Signal // the signal that kills it; 0 if it exits
	exit   int            // exit status when signal is 0
	output string         // substring of stdout+stderr
	hang   bool           // it must still be running at hangDeadline
}

const (
	runDeadline  = 10 * time.Second
	hangDeadline = 2 * time.Second
)

var symptoms = []symptom{
	{prog: "null_deref", signal: syscall.SIGSEGV},
	{prog: "null_deref-O2", signal: syscall.SIGSEGV},
	{prog: "use_after_free", signal: syscall.SIGSEGV, output: "audit: account closed"},
	{prog: "list_corrupt", signal: syscall.SIGSEGV, output: "log: removed carol"},
	{prog: "list_corrupt-O2", signal: syscall.SIGSEGV, output: "log: removed carol"},
	{prog: "stack_overflow", signal: syscall.SIGSEGV},
	{prog: "off_by_one", exit: 1, output: "checksum mismatch: sum 46, checksum 14"},
	{prog: "uninit", exit: 1, output: "wrong total"},
	{prog: "bad_arg", exit: 1, output: "wrong total 330 (want 1470)"},
	{prog: "race", exit: 1, output: "lost updates"},
	{prog: "race-O2", exit: 1, output: "lost updates"},
	{prog: "deadlock", hang: true},
	{prog: "fork_exec", exit: 1, output: "child killed by signal 11"},
	{prog: "crash_child", signal: syscall.SIGSEGV},
	{prog: "fork_abort", exit: 1, output: "child killed by signal 6"},
	{prog: "assert_fail", signal: syscall.SIGABRT, output: "Assertion `n > 0' failed"},
	{prog: "shlib_crash", signal: syscall.SIGSEGV},
	{prog: "thread_crash", signal: syscall.SIGSEGV},
	{prog: "cpp_shapes", signal: syscall.SIGABRT, output: "instance of 'std::out_of_range'"},
	{prog: "cpp_shapes-O2", signal: syscall.SIGABRT, output: "instance of 'std::out_of_range'"},
	{prog: "cpp_shapes-clang", signal: syscall.SIGABRT, output: "instance of 'std::out_of_range'"},
	{prog: "cpp_broken", exit: 0, output: "broken 4\n"},
	{prog: "cpp_containers", exit: 0, output: "containers 2410\n"},
	{prog: "cpp_containers-m32", exit: 0, output: "containers 2410\n"},
	{prog: "cpp_lookup", exit: 0, output: "lookup 295\n"},
	{prog: "json_people-O2", exit: 0, output: "11 2 96.25 160\nage=2\nname=2\nnone=1\nok=1\npeople=1\npi=1\ntags=2\nversion=1\n"},
	{prog: "cpp_text", exit: 0, output: "text 1367\n"},
	{prog: "c_lookup", exit: 0, output: "c_lookup 7\n"},
	{prog: "inline_static", exit: 0, output: "inline_static 9 22\n"},
	{prog: "inline_static-O2", exit: 0, output: "inline_static 9 22\n"},
	{prog: "cpp_statics", exit: 0, output: "statics 44\n"},
	{prog: "cpp_statics-clang", exit: 0, output: "statics 44\n"},
	{prog: "recursion", signal: syscall.SIGSEGV},
	{prog: "recursion-O2", signal: syscall.SIGSEGV},
	{prog: "signal_handler", signal: syscall.SIGSEGV},
	{prog: "counter", exit: 0, output: "hits 10000 total 49995000 depth 21 sum 6 sq 30 hello\ndone\n"},
	{prog: "counter-O2", exit: 0, output: "hits 10000 total 49995000 depth 21 sum 6 sq 30 hello\ndone\n"},
	{prog: "tracecalls", exit: 0, output: "total 1999340139866 calls 2001\n"},
	{prog: "condprobe", exit: 0, output: "655008215677\n"},
	{prog: "bigframe", exit: 1, output: "bad record 3\n"},
	{prog: "condprobe-O2", exit: 0, output: "655008215677\n"},
	{prog: "condprobe-m32", exit: 0, output: "25703037\n"},
	{prog: "ftrace", exit: 0, output: "ticks 3000 sum 41636175000\n"},
	{prog: "ftrace-pie", exit: 0, output: "ticks 3000 sum 41636175000\n"},
	{prog: "recursion-m32", signal: syscall.SIGSEGV},
	{prog: "signal_handler-m32", signal: syscall.SIGSEGV},
	{prog: "cpp_shapes-m32", signal: syscall.SIGABRT, output: "instance of 'std::out_of_range'"},
	{prog: "counter-m32", exit: 0, output: "hits 10000 total 49995000 depth 21 sum 6 sq 30 hello\ndone\n"},
	{prog: "counter-clang-m32", exit: 0, output: "hits 10000 total 49995000 depth 21 sum 6 sq 30 hello\ndone\n"},
	{prog: "threads_bp", exit: 0, output: "ticks 400\n"},
	{prog: "signal_storm", exit: 0, output: "ticks 300\n"},
	{prog: "goprog", exit: 0, output: "hello, go 91 pt(3,4) 2file does not exist\n"},
	{prog: "goprog-N", exit: 0, output: "hello, go 91 pt(3,4) 2file does not exist\n"},
}

func TestSymptoms(t *testing.T) {
	for _, s := range symptoms {
		t.Run(s.prog, func(t *testing.T) {
			t.Parallel()
			path := testenv.Prog(t, s.prog)
			deadline := runDeadline
			if s.hang {
				deadline = hangDeadline
			}
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, path)
			if testenv.IsI386(path) && testenv.I386Peer(t) == "qemu-i386" {
				// The kernel cannot execute i386 programs (or
				// RRMCP_I386_PEER says to act so): QEMU user mode runs
				// them, and dies of the program's fatal signal itself.
				cmd = exec.CommandContext(ctx, "qemu-i386", path)
			}
			cmd.WaitDelay = time.Second
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if s.hang {
				if ctx.Err() != context.DeadlineExceeded {
					t.Fatalf("%s ended before the %v deadline (%v); want a hang\n%s", s.prog, deadline, err, out.String())
				}
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("%s still running after %v\n%s", s.prog, deadline, out.String())
			}
			var exitErr *exec.ExitError
			if err != nil && !errors.As(err, &exitErr) {
				t.Fatalf("run %s: %v", s.prog, err)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case s.signal != 0 && (!ws.Signaled() || ws.Signal() != s.signal):
				t.Errorf("%s: %v; want killed by %v", s.prog, cmd.ProcessState, s.signal)
			case s.signal == 0 && (!ws.Exited() || ws.ExitStatus() != s.exit):
				t.Errorf("%s: %v; want exit status %d", s.prog, cmd.ProcessState, s.exit)
			}
			if !strings.Contains(out.String(), s.output) {
				t.Errorf("%s output %q does not contain %q", s.prog, out.String(), s.output)
			}
		})
	}
}

// TestEveryProgramHasSymptom fails when the Makefile builds a program that
// TestSymptoms does not run, or README.md does not list.
func TestEveryProgramHasSymptom(t *testing.T) {
	testenv.Prog(t, "counter") // builds everything
	entries, err := os.ReadDir("build")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range symptoms {
		known[s.prog] = true
	}
	built := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".so") || strings.HasPrefix(name, ".") {
			continue
		}
		built++
		if !known[name] {
			t.Errorf("build/%s has no entry in symptoms", name)
		}
		if !bytes.Contains(readme, []byte("`"+strings.TrimSuffix(strings.TrimSuffix(name, "-O2"), "-m32")+"`")) {
			t.Errorf("README.md does not list %s", name)
		}
	}
	if built < len(symptoms) {
		t.Errorf("build/ has %d programs, symptoms lists %d", built, len(symptoms))
	}
}

// header is the leading comment of a source file in src/.
type header struct {
	file   string
	refs   []ref    // "Root cause:" and "Crash:" references
	builds []string // compile commands under "Build (in testprogs/src):"
}

type ref struct {
	kind   string // "Root cause" or "Crash"
	file   string
	line   int
	marker string // BUG or CRASH
}

var refRE = regexp.MustCompile(`^ \* (Root cause|Crash): +(?:none\b|([\w.]+):(\d+)\b)`)

func parseHeader(t *testing.T, file string) header {
	t.Helper()
	f, err := os.Open(filepath.Join("src", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := header{file: file}
	sc := bufio.NewScanner(f)
	inBuild := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 && line != "/*" {
			t.Fatalf("%s: does not start with a header comment", file)
		}
		if line == " */" {
			break
		}
		if m := refRE.FindStringSubmatch(line); m != nil {
			if m[2] != "" {
				num, _ := strconv.Atoi(m[3])
				marker := "BUG"
				if m[1] == "Crash" {
					marker = "CRASH"
				}
				h.refs = append(h.refs, ref{kind: m[1], file: m[2], line: num, marker: marker})
			} else {
				h.refs = append(h.refs, ref{kind: m[1]})
			}
		}
		switch {
		case line == " * Build (in testprogs/src):":
			inBuild = true
		case inBuild && strings.HasPrefix(line, " *             gcc ") || inBuild && strings.HasPrefix(line, " *             g++ "):
			h.builds = append(h.builds, strings.TrimPrefix(line, " *             "))
		default:
			inBuild = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return h
}

func sources(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"src/*.c", "src/*.cpp"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			files = append(files, filepath.Base(p))
		}
	}
	if len(files) == 0 {
		t.Fatal("no sources in src/")
	}
	return files
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("src", file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

var readmeRefRE = regexp.MustCompile(`\b\w+\.(?:c|cpp):\d+\b`)

var markerRE = regexp.MustCompile(`(?:/\*|//) (BUG|CRASH)\b`)

// TestHeaderReferences checks that every "Root cause: file:line" points at a
// line carrying a /* BUG */ marker and every "Crash: file:line" at a line
// carrying /* CRASH */, and that every marker is referenced by some header.
func TestHeaderReferences(t *testing.T) {
	referenced := map[string]bool{} // "file:line"
	for _, file := range sources(t) {
		h := parseHeader(t, file)
		hasRoot := false
		for _, r := range h.refs {
			if r.kind == "Root cause" {
				hasRoot = true
			}
			if r.file == "" {
				continue
			}
			lines := readLines(t, r.file)
			if r.line < 1 || r.line > len(lines) {
				t.Errorf("%s: %s %s:%d is past the end of the file", file, r.kind, r.file, r.line)
				continue
			}
			m := markerRE.FindStringSubmatch(lines[r.line-1])
			if m == nil || m[1] != r.marker {
				t.Errorf("%s: %s %s:%d is %q, which has no /* %s */ marker", file, r.kind, r.file, r.line, lines[r.line-1], r.marker)
			}
			referenced[fmt.Sprintf("%s:%d", r.file, r.line)] = true
		}
		if !hasRoot {
			t.Errorf("%s: header has no \"Root cause:\" line", file)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range readmeRefRE.FindAllString(string(readme), -1) {
		if !referenced[m] {
			t.Errorf("README.md cites %s, which no source header names", m)
		}
	}
	for _, file := range sources(t) {
		for i, line := range readLines(t, file) {
			if markerRE.MatchString(line) && !referenced[fmt.Sprintf("%s:%d", file, i+1)] {
				t.Errorf("%s:%d has a marker that no header references: %q", file, i+1, line)
			}
		}
	}
}

// TestHeaderBuildCommands runs each header's compile commands, as written,
// in a copy of src/, so the documented commands stay exact.
func TestHeaderBuildCommands(t *testing.T) {
	testenv.NeedTool(t, "gcc")
	testenv.NeedTool(t, "g++")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(src, os.DirFS("src")); err != nil {
		t.Fatal(err)
	}
	// libbuggy.so first: shlib_crash links against it.
	files := sources(t)
	for i, f := range files {
		if f == "libbuggy.c" {
			files[0], files[i] = files[i], files[0]
		}
	}
	for _, file := range files {
		h := parseHeader(t, file)
		if len(h.builds) == 0 {
			t.Errorf("%s: header has no compile command under \"Build (in testprogs/src):\"", file)
		}
		for _, c := range h.builds {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			cmd := exec.CommandContext(ctx, "sh", "-c", c)
			cmd.Dir = src
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %s: %v\n%s", file, c, err, out)
				continue
			}
			f := strings.Fields(c)
			for i := range f[:len(f)-1] {
				if f[i] == "-o" {
					if _, err := os.Stat(filepath.Join(src, f[i+1])); err != nil {
						t.Errorf("%s: %s did not produce %s", file, c, f[i+1])
					}
				}
			}
		}
	}
}
