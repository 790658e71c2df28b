package rr

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/rsp"
)

// Traces is the recording lifecycle the rr_record, rr_list_recordings,
// rr_ps, rr_traceinfo, rr_pack and rr_rm tools drive, on the recordings of
// one trace root. Its methods check the tools' arguments (bad ones are an
// *errkind.ArgError naming the argument) and explain rr's failures
// ([Failure.Explain]). The zero value is rr's own trace root.
type Traces struct {
	// Root is the trace root: where recordings go unless a trace
	// directory is given, what List lists and the only place Remove
	// deletes from. "" = [TraceRoot] at each call, as rr itself does.
	Root string
}

// root is t.Root or rr's.
func (t Traces) root() string {
	if t.Root != "" {
		return t.Root
	}
	return TraceRoot()
}

// RecordRequest says what to record.
type RecordRequest struct {
	Command  []string
	Dir      string
	Env      map[string]string
	TraceDir string        // "" = under the trace root, named by rr
	Chaos    bool          // rr record --chaos
	Timeout  time.Duration // 0 = 300 s
}

// Recorded is the outcome of a recording.
type Recorded struct {
	TraceDir string `json:"trace_dir"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty" jsonschema:"signal that killed the program, if any"`
	Output   string `json:"output,omitempty" jsonschema:"last lines the program and rr printed"`
	Note     string `json:"note,omitempty" jsonschema:"how rr had to be run here (e.g. a forced CPU microarchitecture)"`
}

// Recording is one trace directory, as List shows it.
type Recording struct {
	Path     string `json:"path"`
	Name     string `json:"name"`
	Modified string `json:"modified"`
	Latest   bool   `json:"latest,omitempty"`
}

// Record runs `rr record` on o.Command and returns the trace directory.
// The program failing is not an error; rr failing is, explained
// ([Failure.Explain]); a recording that runs past o.Timeout is stopped
// and the error matches errkind.Timeout.
func (t Traces) Record(ctx context.Context, o RecordRequest) (Recorded, error) {
	var res Recorded
	if _, err := exec.LookPath("rr"); err != nil {
		return res, ErrNotInstalled.Explain("record")
	}
	if err := proc.CheckLaunch(o.Command, o.Dir, o.Env); err != nil {
		return res, err
	}
	prog, err := proc.ResolveProgram(o.Command[0], o.Dir)
	if err != nil {
		return res, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 300 * time.Second
	}
	trace := o.TraceDir
	if trace != "" {
		if trace, err = filepath.Abs(trace); err != nil {
			return res, errkind.Argf("trace_dir", "%v", err)
		}
		if _, err := os.Stat(trace); err == nil {
			return res, errkind.Argf("trace_dir", "%s already exists; rr needs a new directory", trace)
		}
	}
	env := extraEnv(o.Env)
	if t.Root != "" && trace == "" {
		env = append(env, "_RR_TRACE_DIR="+t.Root)
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	r, err := Record(rctx, RecordOptions{Argv: append([]string{prog}, o.Command[1:]...), Dir: o.Dir, Env: env, TraceDir: trace, Chaos: o.Chaos})
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return res, fmt.Errorf("the recording ran longer than %v and was stopped (pass a larger timeout): %w", o.Timeout, errkind.Timeout)
		}
		if f, ok := AsFailure(err); ok {
			if r.TraceDir != "" {
				if _, err := os.Stat(filepath.Join(r.TraceDir, "incomplete")); err == nil && !IsTraceDir(r.TraceDir) {
					os.RemoveAll(r.TraceDir) // rr's own unfinished trace
				}
			}
			return res, f.Explain("record")
		}
		return res, fmt.Errorf("rr record failed: %w", err)
	}
	res = Recorded{TraceDir: r.TraceDir, ExitCode: r.ExitStatus, Output: r.Output}
	if r.Microarch != "" {
		res.Note = fmt.Sprintf("rr did not know this CPU; recorded with rr -A '%s' (its family). A newer rr knows it.", r.Microarch)
	}
	if code := r.ExitStatus; code < 0 || code > 128 {
		// rr re-raises the program's fatal signal on itself, so its own
		// status says little; the recording's process table knows.
		if ps, err := PS(ctx, "", r.TraceDir); err == nil && len(ps) > 0 {
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

// List lists the trace directories under base (default: the trace root)
// and says which directory it listed.
func (t Traces) List(base string) (string, []Recording, error) {
	if base == "" {
		base = t.root()
	}
	out := []Recording{}
	if fi, err := os.Stat(base); err == nil && !fi.IsDir() {
		return base, nil, errkind.Argf("trace_base_dir", "cannot read %s: not a directory", base)
	}
	ts, err := ListTraces(base)
	if err != nil {
		return base, nil, errkind.Argf("trace_base_dir", "cannot read %s: %v", base, err)
	}
	for _, tr := range ts {
		out = append(out, Recording{Path: tr.Path, Name: tr.Name, Modified: tr.ModTime.UTC().Format(time.RFC3339), Latest: tr.Latest})
	}
	return base, out, nil
}

// CheckTraceDir checks a trace_dir argument (an *errkind.ArgError when it
// is not an rr trace directory) and makes it absolute.
func CheckTraceDir(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", errkind.Argf("trace_dir", "is empty (rr_list_recordings shows the recordings)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", errkind.Argf("trace_dir", "%v", err)
	}
	if why := notTrace(abs); why != "" {
		if _, err := os.Stat(abs); err != nil {
			return "", errkind.Argf("trace_dir", "%s does not exist (rr_list_recordings shows the recordings)", abs)
		}
		return "", errkind.Argf("trace_dir", "%s is not an rr trace directory (%s)", abs, why)
	}
	return abs, nil
}

// PS lists the processes of a recording (never nil).
func (t Traces) PS(ctx context.Context, trace string) ([]TraceProcess, error) {
	dir, err := CheckTraceDir(trace)
	if err != nil {
		return nil, err
	}
	ps, err := PS(ctx, "", dir)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []TraceProcess{}
	}
	return ps, nil
}

// TraceInfo returns `rr traceinfo` of a recording, decoded from its JSON.
func (t Traces) TraceInfo(ctx context.Context, trace string) (map[string]any, error) {
	dir, err := CheckTraceDir(trace)
	if err != nil {
		return nil, err
	}
	return TraceInfo(ctx, "", dir)
}

// Pack runs `rr pack` on a recording and returns its absolute path.
func (t Traces) Pack(ctx context.Context, trace string) (string, error) {
	dir, err := CheckTraceDir(trace)
	if err != nil {
		return "", err
	}
	if _, err := run(ctx, "", "pack", dir); err != nil {
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
