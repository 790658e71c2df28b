package rr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// ErrNotTrace: a path is not an rr trace directory.
var ErrNotTrace = errors.New("not an rr trace directory")

// TraceRoot returns where rr keeps recordings: $_RR_TRACE_DIR if set, else
// ~/.rr if that exists (old rr), else $XDG_DATA_HOME/rr, else
// ~/.local/share/rr — the order rr itself uses.
func TraceRoot() string {
	if d := os.Getenv("_RR_TRACE_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		if fi, err := os.Stat(filepath.Join(home, ".rr")); err == nil && fi.IsDir() {
			return filepath.Join(home, ".rr")
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "rr")
	}
	return filepath.Join(home, ".local", "share", "rr")
}

// IsTraceDir reports whether dir looks like an rr trace directory: a
// directory holding a regular "version" file plus rr's "events" and "data"
// (or "mmaps"/"tasks") streams. rr_rm uses it so that it never deletes
// anything else.
func IsTraceDir(dir string) bool { return notTrace(dir) == "" }

// notTrace says why dir is no rr trace directory (IsTraceDir), "" where
// it is one.
func notTrace(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "it is not a directory"
	}
	v, err := os.Lstat(filepath.Join(dir, "version"))
	if err != nil || !v.Mode().IsRegular() {
		return "it has no version file"
	}
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil
	}
	if !exists("events") {
		return "it has no events file"
	}
	if !exists("data") && !exists("mmaps") && !exists("tasks") {
		return "it has none of rr's data, mmaps and tasks files"
	}
	return ""
}

// Trace is one recording in a trace root.
type Trace struct {
	Name    string
	Path    string
	ModTime time.Time
	Size    int64 // bytes, files directly in the directory
	Latest  bool  // latest-trace points here
}

// ListTraces returns the recordings directly under root, newest first.
// A missing root is an empty list.
func ListTraces(root string) ([]Trace, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	latest, _ := filepath.EvalSymlinks(filepath.Join(root, "latest-trace"))
	var out []Trace
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if e.Type()&os.ModeSymlink != 0 || !IsTraceDir(p) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		t := Trace{Name: e.Name(), Path: p, ModTime: fi.ModTime()}
		if files, err := os.ReadDir(p); err == nil {
			for _, f := range files {
				if i, err := f.Info(); err == nil && i.Mode().IsRegular() {
					t.Size += i.Size()
				}
			}
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && real == latest {
			t.Latest = true
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModTime.After(out[j].ModTime) })
	return out, nil
}

// TraceProcess is one line of `rr ps`.
type TraceProcess struct {
	Pid     int    `json:"pid"`
	Ppid    int    `json:"ppid,omitempty"` // 0 when rr prints "--"
	Exit    string `json:"exit" jsonschema:"exit status, or -N for death by signal N, or none"`
	Command string `json:"command"`
}

// ParsePS parses `rr ps` output: a "PID\tPPID\tEXIT\tCMD" header, then one
// tab-separated line per process.
func ParsePS(out string) ([]TraceProcess, error) {
	var ps []TraceProcess
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if i == 0 && strings.HasPrefix(line, "PID") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) < 4 {
			return nil, fmt.Errorf("rr ps: unexpected line %q", line)
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("rr ps: bad pid in %q", line)
		}
		ppid, _ := strconv.Atoi(f[1])
		ps = append(ps, TraceProcess{Pid: pid, Ppid: ppid, Exit: f[2], Command: f[3]})
	}
	return ps, nil
}

// PS runs `rr ps TRACE` (rr from PATH when rrPath is "").
func PS(ctx context.Context, rrPath, trace string) ([]TraceProcess, error) {
	out, err := run(ctx, rrPath, "ps", trace)
	if err != nil {
		return nil, err
	}
	return ParsePS(string(out))
}

// TraceInfo runs `rr traceinfo TRACE` and decodes its JSON.
func TraceInfo(ctx context.Context, rrPath, trace string) (map[string]any, error) {
	out, err := run(ctx, rrPath, "traceinfo", trace)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("rr traceinfo: %w", err)
	}
	return v, nil
}

// run runs rr (rrPath; "" = rr on PATH) on a trace directory, the last
// of args, with at most a minute to finish, in its own process group. A
// failure says what rr printed, cleaned (see stderrMessage).
func run(ctx context.Context, rrPath string, args ...string) ([]byte, error) {
	if rrPath == "" {
		rrPath = "rr"
	}
	if _, err := exec.LookPath(rrPath); err != nil {
		return nil, fmt.Errorf("rr is not installed (not on PATH): %w", errkind.Unsupported)
	}
	if trace := args[len(args)-1]; !IsTraceDir(trace) {
		return nil, fmt.Errorf("rr %s: %s: %w", args[0], trace, ErrNotTrace)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, rrPath, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = stderrMessage(string(ee.Stderr))
		}
		return nil, fmt.Errorf("rr %s: %s", args[0], msg)
	}
	return out, nil
}

// stderrMessage turns what rr printed on failure into one clean message:
// an uncaught C++ exception (rr pack on a damaged trace: "terminate called
// after throwing…", "what(): …", "stack: …") becomes its what() text; the
// stack addresses are dropped.
func stderrMessage(stderr string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", strings.HasPrefix(l, "stack:"), strings.HasPrefix(l, "terminate called"):
		case strings.HasPrefix(l, "what():"):
			keep = append(keep, "rr failed on an unreadable or damaged trace: "+strings.TrimSpace(strings.TrimPrefix(l, "what():")))
		default:
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return "rr failed without saying why"
	}
	return errkind.Shorten(strings.Join(keep, "; "), 1000)
}
