package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/rr"
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
	Output   string `json:"output,omitempty" jsonschema:"last lines the program and rr printed"`
	Note     string `json:"note,omitempty" jsonschema:"how rr had to be run here (e.g. a forced CPU microarchitecture)"`
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
	PID     int    `json:"pid"`
	PPID    int    `json:"ppid,omitempty"`
	Exit    string `json:"exit" jsonschema:"exit status, or -N for death by signal N, or none"`
	Command string `json:"command"`
}

// Record runs `rr record` on o.Command and returns the trace directory.
func (m *Manager) Record(ctx context.Context, o RecordOptions) (RecordResult, error) {
	var res RecordResult
	if _, err := exec.LookPath("rr"); err != nil {
		return res, rrFailure("record", rr.ErrNotInstalled)
	}
	if err := checkLaunch(o.Command, o.Dir, o.Env); err != nil {
		return res, err
	}
	prog, err := resolveProgram(o.Command[0], o.Dir)
	if err != nil {
		return res, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 300 * time.Second
	}
	trace := o.TraceDir
	if trace != "" {
		if trace, err = filepath.Abs(trace); err != nil {
			return res, argErrorf("trace_dir", "%v", err)
		}
		if _, err := os.Stat(trace); err == nil {
			return res, argErrorf("trace_dir", "%s already exists; rr needs a new directory", trace)
		}
	}
	env := extraEnv(o.Env)
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	r, err := rr.Record(rctx, rr.RecordOptions{Argv: append([]string{prog}, o.Command[1:]...), Dir: o.Dir, Env: env, TraceDir: trace, Chaos: o.Chaos})
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return res, fmt.Errorf("the recording ran longer than %v and was stopped (pass a larger timeout): %w", o.Timeout, ErrTimeout)
		}
		if f, ok := rr.AsFailure(err); ok {
			if r.TraceDir != "" {
				if _, err := os.Stat(filepath.Join(r.TraceDir, "incomplete")); err == nil && !rr.IsTraceDir(r.TraceDir) {
					os.RemoveAll(r.TraceDir) // rr's own unfinished trace
				}
			}
			return res, rrFailure("record", f)
		}
		return res, fmt.Errorf("rr record failed: %w", err)
	}
	res = RecordResult{TraceDir: r.TraceDir, ExitCode: r.ExitStatus, Output: r.Output}
	if r.Microarch != "" {
		res.Note = fmt.Sprintf("rr did not know this CPU; recorded with rr -A '%s' (its family). A newer rr knows it.", r.Microarch)
	}
	if code := r.ExitStatus; code < 0 || code > 128 {
		// rr re-raises the program's fatal signal on itself, so its own
		// status says little; the recording's process table knows.
		if ps, err := rr.PS(ctx, "", r.TraceDir); err == nil && len(ps) > 0 {
			if n, err := strconv.Atoi(ps[0].Exit); err == nil && n < 0 {
				res.Signal = rsp.SignalFromLinux(-n).String()
			}
		}
		if res.Signal == "" && code > 128 && code < 128+65 {
			res.Signal = rsp.SignalFromLinux(code - 128).String()
		}
	}
	return res, nil
}

// ListRecordings lists the trace directories under base (default: rr's).
func (m *Manager) ListRecordings(base string) (string, []Recording, error) {
	if base == "" {
		base = rr.TraceRoot()
	}
	out := []Recording{}
	if fi, err := os.Stat(base); err == nil && !fi.IsDir() {
		return base, nil, argErrorf("trace_base_dir", "cannot read %s: not a directory", base)
	}
	ts, err := rr.ListTraces(base)
	if err != nil {
		return base, nil, argErrorf("trace_base_dir", "cannot read %s: %v", base, err)
	}
	for _, t := range ts {
		out = append(out, Recording{Path: t.Path, Name: t.Name, Modified: t.ModTime.UTC().Format(time.RFC3339), Latest: t.Latest})
	}
	return base, out, nil
}

func (m *Manager) traceArg(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", argErrorf("trace_dir", "is empty (rr_list_recordings shows the recordings)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", argErrorf("trace_dir", "%v", err)
	}
	if !rr.IsTraceDir(abs) {
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
			msg = rrMessage(string(ee.Stderr))
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
	ps, err := rr.PS(ctx, "", dir)
	if err != nil {
		return nil, err
	}
	out := []TraceProcess{}
	for _, p := range ps {
		out = append(out, TraceProcess{PID: p.Pid, PPID: p.Ppid, Exit: p.Exit, Command: p.Command})
	}
	return out, nil
}

// TraceInfo returns `rr traceinfo` as JSON.
func (m *Manager) TraceInfo(ctx context.Context, trace string) (map[string]any, error) {
	dir, err := m.traceArg(trace)
	if err != nil {
		return nil, err
	}
	return rr.TraceInfo(ctx, "", dir)
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

// extraEnv turns a variable map into sorted KEY=VALUE entries.
func extraEnv(vars map[string]string) []string {
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}
