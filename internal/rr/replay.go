package rr

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/internal/proc"
)

// ErrNoProcess: the process asked for with ReplayOptions.Pid is not in the
// recording (rr says "No process ... found. Try 'rr ps'.").
var ErrNoProcess = errkind.New("no such process in the recording", errkind.NotFound)

// ReplayOptions say what `rr replay -s 0` should serve.
type ReplayOptions struct {
	TraceDir  string   // "" = the latest recording
	Pid       int      // recorded process to debug (-p PID; -f with OnFork); 0 = the first
	OnFork    bool     // attach to Pid right after its fork, before exec (-f)
	GotoEvent int64    // replay to this event before serving (-g); 0 = the start
	RR        string   // rr executable; "" = rr on PATH
	Microarch string   // force rr's CPU microarchitecture (rr -A NAME); "" = detect, and retry as Record does
	Env       []string // extra KEY=VALUE entries added to our environment
	// KeepLines bounds the retained output (0 = proc's default).
	KeepLines int
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL
	// (0 = 3 s).
	StopGrace time.Duration
	// Stdout, if set, receives rr's stdout, which is the replayed
	// program's stdout: rr echoes each write the program made as it
	// replays it forward (StdioMonitor::did_write while
	// ReplaySession::echo_stdio holds: not during reverse execution or
	// seeks, and again whenever it re-executes a write). rr prints
	// nothing else there.
	Stdout io.Writer
	// Stderr, if set, gets the lines of the program's stderr that rr
	// echoes the same way, each with its newline. rr writes its own
	// messages to the same stream; those (the debugger command line and
	// the line announcing it, rr's "[WARN …]"-style log lines and "rr: …"
	// warnings) are left out.
	Stderr func([]byte)
}

// Replay is a running `rr replay` serving the GDB protocol. Its methods
// are safe for concurrent use.
type Replay struct {
	p       *proc.Process
	addr    string
	exe     string
	version string
	args    []string
	grace   time.Duration
}

// ReplayArgs returns rr's arguments for o:
// --non-interactive replay -s 0 [-p PID|-f PID] [-g N] [TRACE].
func ReplayArgs(o ReplayOptions) []string {
	var args []string
	if o.Microarch != "" {
		args = append(args, "-A", o.Microarch)
	}
	args = append(args, "--non-interactive", "replay", "-s", "0")
	if o.Pid > 0 {
		flag := "-p"
		if o.OnFork {
			flag = "-f"
		}
		args = append(args, flag, strconv.Itoa(o.Pid))
	}
	if o.GotoEvent > 0 {
		args = append(args, "-g", strconv.FormatInt(o.GotoEvent, 10))
	}
	if o.TraceDir != "" {
		args = append(args, o.TraceDir)
	}
	return args
}

// DefaultStartTimeout bounds StartReplay when ctx has no deadline: rr
// replays to the target before it listens, which can take long.
const DefaultStartTimeout = 10 * time.Minute

// StartReplay spawns `rr --non-interactive replay -s 0 …` and waits until
// rr prints, on its stderr, the debugger command line with its port. rr
// first replays to the target, which can take long: ctx's deadline, or
// DefaultStartTimeout, bounds the wait. If rr exits first, the error wraps
// proc.ErrExited and carries the tail of rr's output (and wraps
// ErrNoProcess when the pid is not in the trace). On success nothing has
// connected yet: dial Addr.
func StartReplay(ctx context.Context, o ReplayOptions) (*Replay, error) {
	r, err := startReplay(ctx, o)
	if f, ok := AsFailure(err); ok && f.Microarch != "" && o.Microarch == "" && ctx.Err() == nil {
		o.Microarch = f.Microarch
		r, err = startReplay(ctx, o)
		if f2, ok := AsFailure(err); ok {
			f2.Cause = fmt.Sprintf("%s; with rr -A '%s' (%s): %s", f.Cause, o.Microarch, f.Said, f2.Cause)
		}
	}
	return r, err
}

func startReplay(ctx context.Context, o ReplayOptions) (*Replay, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	rrPath := o.RR
	if rrPath == "" {
		rrPath = "rr"
	}
	if o.TraceDir != "" && !IsTraceDir(o.TraceDir) {
		return nil, fmt.Errorf("rr replay: %s: %w", o.TraceDir, ErrNotTrace)
	}
	var env []string
	if len(o.Env) > 0 {
		env = append(os.Environ(), o.Env...)
	}
	version, err := versionOf(ctx, rrPath, env)
	if err != nil {
		return nil, err
	}
	r := &Replay{version: version, args: ReplayArgs(o), grace: o.StopGrace}
	if r.grace <= 0 {
		r.grace = 3 * time.Second
	}
	// Only rr's stderr counts: the replayed program's own output (on
	// stdout or stderr before rr listens) could contain anything.
	found := make(chan string, 1)
	onLine := func(l proc.Line) {
		if !l.Stderr {
			return
		}
		if _, _, ok := ParseLaunchLine(l.Text); ok {
			select {
			case found <- l.Text:
			default:
			}
			return
		}
		if o.Stderr != nil && !rrOwnLine(l.Text) {
			o.Stderr([]byte(l.Text + "\n"))
		}
	}
	r.p, err = proc.Start(ctx, proc.Config{Path: rrPath, Args: r.args, Env: env, KeepLines: o.KeepLines, OnLine: onLine, Stdout: o.Stdout})
	if err != nil {
		return nil, fmt.Errorf("rr replay: %w", err)
	}
	var line string
	select {
	case line = <-found:
	case <-r.p.Done():
		err = fmt.Errorf("%w (status %d) before listening; output:\n%s", proc.ErrExited, r.p.ExitCode(), r.p.Tail(20))
		if strings.Contains(r.p.Tail(20), "No process") {
			err = fmt.Errorf("%w: %w", ErrNoProcess, err)
		} else if f := Diagnose(r.p.Tail(200)); f != nil {
			err = fmt.Errorf("%w: %w", f, err)
		}
	case <-ctx.Done():
		err = fmt.Errorf("waiting for the debug port: %w; output:\n%s", ctx.Err(), r.p.Tail(20))
	}
	if err != nil {
		r.p.Stop(r.grace) //nolint:errcheck // Stop always waits
		return nil, fmt.Errorf("rr %s: %w", strings.Join(r.args, " "), err)
	}
	addr, exe, _ := ParseLaunchLine(line)
	r.addr, r.exe = addr, exe
	return r, nil
}

// Addr is the address rr listens on ("127.0.0.1:PORT" or "[::1]:PORT").
func (r *Replay) Addr() string { return r.addr }

// ExePath is the executable of the replayed process, as rr printed it.
func (r *Replay) ExePath() string { return r.exe }

// Version is rr's version, "X.Y.Z" (for rsp.Options.RRVersion).
func (r *Replay) Version() string { return r.version }

// Args are the arguments rr was started with.
func (r *Replay) Args() []string { return append([]string(nil), r.args...) }

// Pid is the rr process id (also its process group).
func (r *Replay) Pid() int { return r.p.Pid() }

// Done is closed once rr has exited and was waited for.
func (r *Replay) Done() <-chan struct{} { return r.p.Done() }

// Output returns the last n lines rr and the replayed program printed.
func (r *Replay) Output(n int) string { return r.p.Tail(n) }

// Changed returns a channel closed when rr prints its next line.
func (r *Replay) Changed() <-chan struct{} { return r.p.Changed() }

// Lines returns the retained output lines after sequence number after.
func (r *Replay) Lines(after int64) []proc.Line { return r.p.Lines(after) }

// LastSeq is the sequence number of the newest output line, 0 before any.
func (r *Replay) LastSeq() int64 { return r.p.LastSeq() }

// Stop ends rr. The protocol goodbye (D or k) is the caller's, before
// Stop. If rr is still running, its process group gets SIGTERM, then
// SIGKILL after the grace period; Stop always waits for it. It returns
// nil when rr ended (by itself or by SIGTERM) and an error carrying rr's
// output when rr failed or had to be killed. Stop is idempotent.
func (r *Replay) Stop() error {
	if exited, _ := r.p.Exited(); exited {
		if code := r.p.ExitCode(); code != 0 {
			return fmt.Errorf("rr replay exited with status %d; output:\n%s", code, r.p.Tail(20))
		}
		return nil
	}
	r.p.Signal(syscall.SIGTERM) //nolint:errcheck // a vanished group is what we want
	t := time.NewTimer(r.grace)
	defer t.Stop()
	select {
	case <-r.p.Done():
		return nil
	case <-t.C:
	}
	r.p.Kill()
	return fmt.Errorf("rr replay did not exit on SIGTERM within %v and was killed; output:\n%s", r.grace, r.p.Tail(20))
}

// rrLogRE matches the stderr lines rr writes itself besides the debugger
// command line: the line announcing it ("Launch gdb with" up to rr 5.7,
// "Launch debugger with" since), its log lines ("[FATAL src/…]", "[ERROR …",
// "[WARN …", "[INFO …", "[DEBUG …") and its "rr: …" warnings.
var rrLogRE = regexp.MustCompile(`^(Launch (gdb|debugger) with$|\[(FATAL|ERROR|WARN|INFO|DEBUG) |rr: )`)

// rrOwnLine reports whether a line of rr's stderr is rr's, not the
// replayed program's.
func rrOwnLine(text string) bool { return rrLogRE.MatchString(text) }
