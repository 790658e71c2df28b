package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/session"
)

type recordIn struct {
	Command          []string          `json:"command" jsonschema:"command and arguments to record, e.g. [\"./my_test\", \"--flag\"]"`
	WorkingDirectory string            `json:"working_directory,omitempty" jsonschema:"working directory for the recorded process"`
	Env              map[string]string `json:"env,omitempty" jsonschema:"extra environment variables for the recorded process"`
	TraceDir         string            `json:"trace_dir,omitempty" jsonschema:"output trace directory; default: rr's (_RR_TRACE_DIR or ~/.local/share/rr)"`
	Chaos            bool              `json:"chaos,omitempty" jsonschema:"chaos mode: randomize scheduling to expose races"`
	Timeout          float64           `json:"timeout,omitempty" jsonschema:"seconds before the recording is stopped (default 300)"`
	UntilFailure     *untilFailureIn   `json:"until_failure,omitempty" jsonschema:"record again and again in chaos mode until the program fails; keeps only the failing trace"`
}

type recordOut struct {
	Result rr.Recorded    `json:"result"`
	Loop   *rr.RecordLoop `json:"loop,omitempty" jsonschema:"until_failure: the attempts and the failing run's conditions"`
}

func (r recordOut) Text() string {
	var b strings.Builder
	if l := r.Loop; l != nil {
		if !l.Failed {
			fmt.Fprintf(&b, "No failure in %d attempts (ended: %s); no trace kept.", l.Attempts, l.Ended)
			return b.String()
		}
		fmt.Fprintf(&b, "Failed on attempt %d: %s\n", l.Attempts, l.Conditions)
	}
	b.WriteString("Recording complete.\n")
	fmt.Fprintf(&b, "Trace directory: %s\n", r.Result.TraceDir)
	if r.Result.Signal != "" {
		fmt.Fprintf(&b, "The program was killed by %s.\n", r.Result.Signal)
	} else {
		fmt.Fprintf(&b, "Exit code: %d\n", r.Result.ExitCode)
	}
	if s := strings.TrimSpace(r.Result.Output); s != "" {
		fmt.Fprintf(&b, "--- output (program and rr) ---\n%s\n", s)
	}
	b.WriteString("Next: rr_replay_start with this trace_dir.")
	return b.String()
}

type listRecIn struct {
	TraceBaseDir string `json:"trace_base_dir,omitempty" jsonschema:"directory holding traces; default: _RR_TRACE_DIR or ~/.local/share/rr"`
}

type listRecOut struct {
	BaseDir    string         `json:"base_dir"`
	Recordings []rr.Recording `json:"recordings"`
}

func (l listRecOut) Text() string {
	if len(l.Recordings) == 0 {
		return "No recordings in " + l.BaseDir + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Recordings in %s:\n", l.BaseDir)
	for _, r := range l.Recordings {
		mark := " "
		if r.Latest {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s  %s\n", mark, r.Path, r.Modified)
	}
	b.WriteString("(* = latest)")
	return b.String()
}

type traceIn struct {
	TraceDir string `json:"trace_dir" jsonschema:"rr trace directory"`
}

type psOut struct {
	Processes []rr.TraceProcess `json:"processes"`
}

func (p psOut) Text() string {
	if len(p.Processes) == 0 {
		return "No processes found in recording."
	}
	lines := []string{"PID\tPPID\tEXIT\tCMD"}
	for _, pr := range p.Processes {
		ppid := "--"
		if pr.Ppid != 0 {
			ppid = itoa(pr.Ppid)
		}
		lines = append(lines, fmt.Sprintf("%d\t%s\t%s\t%s", pr.Pid, ppid, pr.Exit, pr.Command))
	}
	return strings.Join(lines, "\n")
}

type traceInfoOut struct {
	Info map[string]any `json:"info" jsonschema:"rr traceinfo output"`
}

func (t traceInfoOut) Text() string { return jsonText(t.Info) }

type pathOut struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (p pathOut) Text() string { return p.Message }

func (r *registry) recordingTools() {
	add(r, "rr_record", "Record with rr",
		"Record a command with rr (needs a hardware PMU; on machines without one use rr_live_start). Returns the trace directory, exit code and output.",
		hints{openWorld: true},
		func(ctx context.Context, in recordIn) (recordOut, error) {
			if len(in.Command) == 0 || in.Command[0] == "" {
				return recordOut{}, &session.ArgError{Arg: "command", Msg: "give the command to record, e.g. [\"./my_test\"]"}
			}
			if in.Timeout < 0 || in.Timeout > maxRecordSeconds {
				return recordOut{}, &session.ArgError{Arg: "timeout", Msg: "must be a positive number of seconds, at most a week (604800)"}
			}
			o := rr.RecordRequest{
				Command: in.Command, Dir: in.WorkingDirectory, Env: in.Env,
				TraceDir: in.TraceDir, Chaos: in.Chaos, Timeout: seconds(in.Timeout),
			}
			if u := in.UntilFailure; u != nil {
				uf, err := u.options()
				if err != nil {
					return recordOut{}, err
				}
				uf.Progress = progressFunc(ctx)
				loop, err := r.traces.RecordUntilFailure(ctx, o, uf)
				out := recordOut{Loop: loop}
				if loop != nil && loop.Result != nil {
					out.Result = *loop.Result
				}
				return out, err
			}
			res, err := r.traces.Record(ctx, o)
			return recordOut{Result: res}, err
		})

	add(r, "rr_list_recordings", "List recordings",
		"List the rr recordings in the trace directory.",
		inspect,
		func(ctx context.Context, in listRecIn) (listRecOut, error) {
			base, recs, err := r.traces.List(in.TraceBaseDir)
			return listRecOut{BaseDir: base, Recordings: recs}, err
		})

	add(r, "rr_ps", "Processes in a recording",
		"List the processes in an rr recording (PID, parent, exit code, command); pass a PID to rr_replay_start to debug a child.",
		inspect,
		func(ctx context.Context, in traceIn) (psOut, error) {
			ps, err := r.traces.PS(ctx, in.TraceDir)
			return psOut{ps}, err
		})

	add(r, "rr_traceinfo", "Trace metadata",
		"Get the metadata of an rr recording (rr traceinfo, as JSON).",
		inspect,
		func(ctx context.Context, in traceIn) (traceInfoOut, error) {
			info, err := r.traces.TraceInfo(ctx, in.TraceDir)
			return traceInfoOut{info}, err
		})

	add(r, "rr_rm", "Remove recording",
		"Delete one rr recording. The path, with symbolic links resolved, must be a recording directly under the trace root ($_RR_TRACE_DIR or ~/.local/share/rr) that looks like an rr trace; anything else is refused. A symbolic link in the trace root (e.g. latest-trace) is removed as a link; the recording it points to is kept.",
		hints{destructive: true, idempotent: true},
		func(ctx context.Context, in traceIn) (pathOut, error) {
			rm, err := r.traces.Remove(ctx, in.TraceDir)
			if err != nil {
				return pathOut{}, err
			}
			if rm.LinkTo != "" {
				return pathOut{Path: rm.Path, Message: "Symbolic link removed: " + rm.Path + " (the recording it pointed to, " + rm.LinkTo + ", is kept)"}, nil
			}
			return pathOut{Path: rm.Path, Message: "Trace removed: " + rm.Path}, nil
		})

	add(r, "rr_pack", "Pack recording",
		"Make an rr recording self-contained (rr pack) so it can be moved to another machine or kept after the binaries change.",
		hints{idempotent: true},
		func(ctx context.Context, in traceIn) (pathOut, error) {
			p, err := r.traces.Pack(ctx, in.TraceDir)
			return pathOut{Path: p, Message: "Trace packed: " + p}, err
		})
}
