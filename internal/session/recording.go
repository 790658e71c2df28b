package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/rsp"
)

// RecordOptions says what to record.
type RecordOptions struct {
	Command  []string
	Dir      string
	Env      map[string]string
	TraceDir string        // "" = rr's default location
	Chaos    bool          // rr record --chaos
	Timeout  time.Duration // 0 = 300 s
}

// RecordResult is the outcome of a recording.
type RecordResult struct {
	TraceDir string `json:"trace_dir"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty" jsonschema:"signal that killed the program, if any"`
	Stdout   string `json:"stdout,omitempty" jsonschema:"last lines of the program's stdout"`
	Stderr   string `json:"stderr,omitempty" jsonschema:"last lines of the program's and rr's stderr"`
}

// Recording is one trace directory.
type Recording struct {
	Path     string `json:"path"`
	Name     string `json:"name"`
	Modified string `json:"modified"`
	Latest   bool   `json:"latest,omitempty"`
}

// TraceProcess is one process of a recording (rr ps).
type TraceProcess struct {
	PID      int    `json:"pid"`
	PPID     *int   `json:"ppid,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Command  string `json:"command"`
}

func (m *Manager) env(extra map[string]string) []string {
	env := m.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// Record runs `rr record` on o.Command and returns the trace directory.
func (m *Manager) Record(ctx context.Context, o RecordOptions) (RecordResult, error) {
	var res RecordResult
	if _, err := exec.LookPath("rr"); err != nil {
		return res, fmt.Errorf("rr is not installed (not on PATH); use rr_live_start to debug without a recording: %w", ErrUnsupported)
	}
	prog, err := resolveProgram(o.Command[0], o.Dir)
	if err != nil {
		return res, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 300 * time.Second
	}
	r, w, err := os.Pipe()
	if err != nil {
		return res, err
	}
	defer r.Close()
	args := []string{"record", "--print-trace-dir=3"}
	if o.Chaos {
		args = append(args, "--chaos")
	}
	if o.TraceDir != "" {
		abs, err := filepath.Abs(o.TraceDir)
		if err != nil {
			return res, argErrorf("trace_dir", "%v", err)
		}
		if _, err := os.Stat(abs); err == nil {
			return res, argErrorf("trace_dir", "%s already exists; rr needs a new directory", abs)
		}
		args = append(args, "-o", abs)
	}
	args = append(args, prog)
	args = append(args, o.Command[1:]...)
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	p, err := proc.Start(rctx, proc.Config{Path: "rr", Args: args, Dir: o.Dir, Env: m.env(o.Env), ExtraFiles: []*os.File{w}})
	w.Close()
	if err != nil {
		return res, fmt.Errorf("start rr record: %w", err)
	}
	dirc := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, 1<<16))
		dirc <- strings.TrimSpace(string(b))
	}()
	select {
	case <-p.Done():
	case <-rctx.Done():
		p.Stop(2 * time.Second) //nolint:errcheck
		return res, fmt.Errorf("the recording ran longer than %v and was stopped (pass a larger timeout): %w", o.Timeout, ErrTimeout)
	}
	res.TraceDir = <-dirc
	code := p.ExitCode()
	res.ExitCode = code
	var out, errs []string
	for _, l := range p.Lines(0) {
		if l.Stderr {
			errs = append(errs, l.Text)
		} else {
			out = append(out, l.Text)
		}
	}
	res.Stdout, res.Stderr = tail(out, 50), tail(errs, 50)
	if res.TraceDir == "" {
		return res, fmt.Errorf("rr record failed (exit status %d): %s", code, lastLines(errs, 5))
	}
	if code > 128 && code < 128+65 {
		res.Signal = rsp.SignalFromLinux(code - 128).String()
	}
	if code < 0 {
		res.Signal = "a signal (rr itself was killed)"
	}
	return res, nil
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func lastLines(lines []string, n int) string {
	if len(lines) == 0 {
		return "(no output)"
	}
	return tail(lines, n)
}

// traceRoot is where rr keeps traces: $_RR_TRACE_DIR, else
// $XDG_DATA_HOME/rr, else ~/.local/share/rr.
func (m *Manager) traceRoot() string {
	if d := os.Getenv("_RR_TRACE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "rr")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "rr")
}

// ListRecordings lists the trace directories under base (default: rr's).
func (m *Manager) ListRecordings(base string) (string, []Recording, error) {
	if base == "" {
		base = m.traceRoot()
	}
	out := []Recording{}
	ents, err := os.ReadDir(base)
	if os.IsNotExist(err) {
		return base, out, nil
	}
	if err != nil {
		return base, nil, argErrorf("trace_base_dir", "cannot read %s: %v", base, err)
	}
	latest, _ := filepath.EvalSymlinks(filepath.Join(base, "latest-trace"))
	for _, e := range ents {
		p := filepath.Join(base, e.Name())
		if e.Name() == "latest-trace" || !isTraceDir(p) {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		rp, _ := filepath.EvalSymlinks(p)
		out = append(out, Recording{Path: p, Name: e.Name(), Modified: fi.ModTime().UTC().Format(time.RFC3339), Latest: rp != "" && rp == latest})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified < out[j].Modified })
	return base, out, nil
}

// isTraceDir reports whether dir looks like an rr trace directory.
func isTraceDir(dir string) bool {
	for _, f := range []string{"version", "events"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

func (m *Manager) traceArg(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", argErrorf("trace_dir", "is empty (rr_list_recordings shows the recordings)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", argErrorf("trace_dir", "%v", err)
	}
	if !isTraceDir(abs) {
		if _, err := os.Stat(abs); err != nil {
			return "", argErrorf("trace_dir", "%s does not exist (rr_list_recordings shows the recordings)", abs)
		}
		return "", argErrorf("trace_dir", "%s is not an rr trace directory (no version/events files)", abs)
	}
	return abs, nil
}

func rrCmd(ctx context.Context, args ...string) ([]byte, error) {
	if _, err := exec.LookPath("rr"); err != nil {
		return nil, fmt.Errorf("rr is not installed (not on PATH): %w", ErrUnsupported)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "rr", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return out, fmt.Errorf("rr %s: %s", args[0], msg)
	}
	return out, nil
}

// PS lists the processes of a recording.
func (m *Manager) PS(ctx context.Context, trace string) ([]TraceProcess, error) {
	dir, err := m.traceArg(trace)
	if err != nil {
		return nil, err
	}
	out, err := rrCmd(ctx, "ps", dir)
	if err != nil {
		return nil, err
	}
	return parsePS(string(out)), nil
}

func parsePS(out string) []TraceProcess {
	ps := []TraceProcess{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 4)
		if len(f) < 4 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			continue // header
		}
		p := TraceProcess{PID: pid, Command: f[3]}
		if v, err := strconv.Atoi(f[1]); err == nil {
			p.PPID = &v
		}
		if v, err := strconv.Atoi(f[2]); err == nil {
			p.ExitCode = &v
		}
		ps = append(ps, p)
	}
	return ps
}

// TraceInfo returns `rr traceinfo` as JSON.
func (m *Manager) TraceInfo(ctx context.Context, trace string) (map[string]any, error) {
	dir, err := m.traceArg(trace)
	if err != nil {
		return nil, err
	}
	out, err := rrCmd(ctx, "traceinfo", dir)
	if err != nil {
		return nil, err
	}
	info := map[string]any{}
	if err := json.Unmarshal(out, &info); err != nil {
		info["text"] = strings.TrimSpace(string(out))
	}
	return info, nil
}

// RemoveRecording deletes a trace directory; anything else is refused.
func (m *Manager) RemoveRecording(ctx context.Context, trace string) (string, error) {
	dir, err := m.traceArg(trace)
	if err != nil {
		return "", err
	}
	root, _ := filepath.Abs(m.traceRoot())
	if dir == root || dir == "/" {
		return "", argErrorf("trace_dir", "%s is the trace root, not one recording", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("remove %s: %w", dir, err)
	}
	// Drop a dangling latest-trace link.
	link := filepath.Join(filepath.Dir(dir), "latest-trace")
	if t, err := filepath.EvalSymlinks(link); err != nil || t == "" {
		if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			os.Remove(link)
		}
	}
	return dir, nil
}

// Pack runs `rr pack` on a recording.
func (m *Manager) Pack(ctx context.Context, trace string) (string, error) {
	dir, err := m.traceArg(trace)
	if err != nil {
		return "", err
	}
	if _, err := rrCmd(ctx, "pack", dir); err != nil {
		return "", err
	}
	return dir, nil
}
