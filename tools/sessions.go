package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

// sessionArg is embedded in the input of every tool that works on a session.
type sessionArg struct {
	Session string `json:"session,omitempty" jsonschema:"session id from rr_replay_start/rr_live_start/rr_connect; default: the most recent session"`
}

func (a sessionArg) sessionID() string { return a.Session }

// started is the result of the tools that start a session.
type started struct {
	Session session.Info  `json:"session"`
	Stop    *session.Stop `json:"stop,omitempty" jsonschema:"where the program is paused"`
}

func (s started) Text() string {
	t := infoText(s.Session)
	if s.Stop != nil {
		t += "\n" + stopText(s.Stop)
	}
	return t
}

type replayStartIn struct {
	TraceDir  string `json:"trace_dir,omitempty" jsonschema:"rr trace directory; default: the latest recording"`
	PID       int    `json:"pid,omitempty" jsonschema:"debug this recorded process (see rr_ps) once it has exec()ed; default: the first process"`
	Fork      bool   `json:"fork,omitempty" jsonschema:"with pid: attach as soon as the process is forked (rr -f) instead of after exec (rr -p)"`
	GotoEvent int64  `json:"goto_event,omitempty" jsonschema:"start at this rr event number instead of the beginning"`
}

type liveStartIn struct {
	Command          []string          `json:"command,omitempty" jsonschema:"program and arguments to run under gdbserver, e.g. [\"./a.out\", \"arg\"]"`
	WorkingDirectory string            `json:"working_directory,omitempty" jsonschema:"working directory of the program"`
	Env              map[string]string `json:"env,omitempty" jsonschema:"extra environment variables for the program"`
	AttachPID        int               `json:"attach_pid,omitempty" jsonschema:"instead of command: attach gdbserver to this running process"`
	InProcessAgent   bool              `json:"in_process_agent,omitempty" jsonschema:"with command: preload gdbserver's in-process agent (libinproctrace.so) so rr_query kind calls can use fast tracepoints; adds a helper thread and LD_PRELOAD (inherited by children) to the program"`
}

type connectIn struct {
	Address string `json:"address" jsonschema:"host:port of a GDB remote-protocol server (gdbserver, QEMU -gdb, rr replay -s), or the absolute path of its Unix-domain socket (qemu-i386 -g /path)"`
	Program string `json:"program,omitempty" jsonschema:"the debuggee's executable on this machine, for symbols; default: asked from the server"`
}

type stoppedOut struct {
	Session session.Info `json:"session"`
}

func (s stoppedOut) Text() string {
	switch {
	case s.Session.Attached:
		return fmt.Sprintf("Session %s (%s) stopped; gdbserver detached and process %d, which it had attached to, keeps running.", s.Session.ID, s.Session.Backend, s.Session.PID)
	case s.Session.Backend == session.KindConnect:
		// rrmcp started neither the server nor the program: it asked the
		// server to detach (where it still answered) and left both.
		return fmt.Sprintf("Session %s (%s) stopped; rrmcp disconnected from the server at %s, which it did not start: the server and its program are left as they are.", s.Session.ID, s.Session.Backend, s.Session.Address)
	}
	return fmt.Sprintf("Session %s (%s) stopped; its processes are gone.", s.Session.ID, s.Session.Backend)
}

type listSessionsIn struct{}

type sessionsOut struct {
	Sessions []session.Info `json:"sessions"`
}

func (s sessionsOut) Text() string {
	if len(s.Sessions) == 0 {
		return "No sessions. Start one with rr_replay_start, rr_live_start or rr_connect."
	}
	var lines []string
	for i, in := range s.Sessions {
		mark := " "
		if i == len(s.Sessions)-1 {
			mark = "*"
		}
		lines = append(lines, fmt.Sprintf("%s %s  %-7s %-8s %s", mark, in.ID, in.Backend, in.State, in.Program))
	}
	return strings.Join(lines, "\n") + "\n(* = default session)"
}

func (r *registry) sessionTools() {
	add(r, "rr_replay_start", "Start replay",
		"Start replaying an rr recording (rr replay -s, with rrmcp's own debugger on top). Returns the session id and where the program is paused. Several sessions may be open at once.",
		hints{openWorld: true},
		func(ctx context.Context, in replayStartIn) (started, error) {
			if in.PID < 0 || in.PID > maxPID {
				return started{}, &session.ArgError{Arg: "pid", Msg: "must be a positive process id (see rr_ps)"}
			}
			if in.Fork && in.PID == 0 {
				return started{}, &session.ArgError{Arg: "fork", Msg: "needs pid"}
			}
			if in.GotoEvent < 0 {
				return started{}, &session.ArgError{Arg: "goto_event", Msg: "must be >= 0"}
			}
			s, st, err := r.m.StartRR(ctx, session.RROptions{TraceDir: in.TraceDir, PID: in.PID, Fork: in.Fork, GotoEvent: in.GotoEvent})
			if err != nil {
				return started{}, err
			}
			return started{Session: s.Info(), Stop: st}, nil
		})

	add(r, "rr_live_start", "Start live session",
		"Run a program under gdbserver (or attach to a running process) and debug it live. For machines where rr cannot record (no hardware PMU): forward execution, breakpoints, watchpoints and inspection work; reverse execution does not. The program stops before its first instruction; set breakpoints, then rr_continue. The program's stdout and stderr are kept for rr_output, never mixed into the MCP stream. in_process_agent: true preloads gdbserver's in-process agent (libinproctrace.so, an extra thread in the program) so rr_query kind calls collects rows with fast tracepoints (a jump, no trap per call) where the function qualifies.",
		hints{openWorld: true},
		func(ctx context.Context, in liveStartIn) (started, error) {
			switch {
			case len(in.Command) == 0 && in.AttachPID == 0:
				return started{}, &session.ArgError{Arg: "command", Msg: "give the program to run (e.g. [\"./prog\", \"arg\"]) or attach_pid"}
			case len(in.Command) > 0 && in.AttachPID != 0:
				return started{}, &session.ArgError{Arg: "attach_pid", Msg: "give either command or attach_pid, not both"}
			case in.AttachPID < 0 || in.AttachPID > maxPID:
				return started{}, &session.ArgError{Arg: "attach_pid", Msg: "must be a positive process id"}
			case len(in.Command) > 0 && in.Command[0] == "":
				return started{}, &session.ArgError{Arg: "command", Msg: "the program name is empty"}
			case in.InProcessAgent && in.AttachPID != 0:
				return started{}, &session.ArgError{Arg: "in_process_agent", Msg: "needs command: the agent is preloaded when the program starts, not into a running process"}
			}
			s, st, err := r.m.StartLive(ctx, session.LiveOptions{Command: in.Command, Dir: in.WorkingDirectory, Env: in.Env, AttachPID: in.AttachPID, InProcessAgent: in.InProcessAgent})
			if err != nil {
				return started{}, err
			}
			return started{Session: s.Info(), Stop: st}, nil
		})

	add(r, "rr_connect", "Connect to a debug server",
		"Connect to any GDB remote-protocol server (QEMU -gdb, gdbserver, rr replay -s started elsewhere). Capabilities such as reverse execution are taken from what the server advertises.",
		hints{openWorld: true},
		func(ctx context.Context, in connectIn) (started, error) {
			if !strings.Contains(in.Address, ":") && !strings.HasPrefix(in.Address, "/") {
				return started{}, &session.ArgError{Arg: "address", Msg: fmt.Sprintf("%q is neither host:port nor the absolute path of a Unix-domain socket", in.Address)}
			}
			s, st, err := r.m.Connect(ctx, session.ConnectOptions{Address: in.Address, Program: in.Program})
			if err != nil {
				return started{}, err
			}
			return started{Session: s.Info(), Stop: st}, nil
		})

	add(r, "rr_replay_stop", "Stop session",
		"Stop a session (replay, live or connect) and clean up: the debug server and everything it started are ended. Default: the most recent session.",
		hints{destructive: true, idempotent: false},
		func(ctx context.Context, in noArgs) (stoppedOut, error) {
			info, err := r.m.Stop(ctx, in.Session)
			return stoppedOut{Session: info}, err
		})

	add(r, "rr_session_list", "List sessions",
		"List the open debugging sessions; the last one is the default for tools called without session.",
		inspect,
		func(ctx context.Context, in listSessionsIn) (sessionsOut, error) {
			r.m.Settle(ctx)
			return sessionsOut{Sessions: r.m.List()}, nil
		})
}
