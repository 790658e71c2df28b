package gdbdiff

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/session"
)

// sessionSide is the product: an internal/session connected (rr_connect
// style) to a gdbserver started exactly as GDB's is.
type sessionSide struct {
	reaper
	prog string
	args []string
	env  []string

	srv *proc.Process
	m   *session.Manager
	s   *session.Session
	num map[int]int // spec index -> session breakpoint number
	idx map[int]int // session breakpoint number -> spec index
}

func newSessionSide(prog string, args, env []string) *sessionSide {
	return &sessionSide{prog: prog, args: args, env: env, num: map[int]int{}, idx: map[int]int{}}
}

func (d *sessionSide) start(ctx context.Context) error {
	srv, addr, err := startServer(ctx, d.prog, d.args, filepath.Dir(d.prog), d.env)
	if err != nil {
		return err
	}
	d.srv = srv
	d.add(srv)
	d.m = session.NewManager(session.Config{Env: d.env})
	s, _, err := d.m.Connect(ctx, session.ConnectOptions{Address: addr, Program: d.prog})
	if err != nil {
		return err
	}
	d.s = s
	d.addPID(s.Info().PID)
	if _, err := s.SetBreakpoint(ctx, "main", "", true); err != nil {
		return fmt.Errorf("break main: %w", err)
	}
	st, err := s.Continue(ctx, false)
	if err != nil {
		return err
	}
	if st.Reason != "breakpoint" {
		return fmt.Errorf("run to main: stopped with reason %q (%s %s)", st.Reason, st.Signal, st.Message)
	}
	return nil
}

func (d *sessionSide) arm(ctx context.Context, i int, sp *stopSpec) ([]uint64, error) {
	var (
		b   session.Breakpoint
		err error
	)
	if sp.Kind == stopWatch {
		b, err = d.s.SetWatchpoint(ctx, sp.Where, "write")
	} else {
		b, err = d.s.SetBreakpoint(ctx, sp.Where, "", false)
	}
	if err != nil {
		return nil, err
	}
	d.num[i], d.idx[b.Number] = b.Number, i
	if sp.Kind == stopWatch {
		return nil, nil
	}
	var addrs []uint64
	for _, a := range b.Addresses {
		addrs = appendHex(addrs, a)
	}
	return addrs, nil
}

func (d *sessionSide) disarm(ctx context.Context, i int) error {
	n, ok := d.num[i]
	if !ok {
		return nil
	}
	delete(d.num, i)
	delete(d.idx, n)
	return d.s.RemoveBreakpoint(ctx, n)
}

func (d *sessionSide) resume(ctx context.Context) (event, error) {
	st, err := d.s.Continue(ctx, false)
	if err != nil {
		return event{}, err
	}
	switch st.Reason {
	case "breakpoint":
		if i, ok := d.idx[st.Breakpoint]; ok {
			return event{hits: []int{i}}, nil
		}
		return event{}, fmt.Errorf("stopped at unknown breakpoint %d", st.Breakpoint)
	case "watchpoint":
		if st.Watch != nil {
			if i, ok := d.idx[st.Watch.Number]; ok {
				return event{hits: []int{i}}, nil
			}
		}
		return event{}, fmt.Errorf("stopped at unknown watchpoint %+v", st.Watch)
	case "signal":
		return event{signal: st.Signal}, nil
	case "exited":
		code := -1
		if st.ExitCode != nil {
			code = *st.ExitCode
		}
		return event{exited: "exited with status " + strconv.Itoa(code)}, nil
	case "killed":
		return event{exited: "was killed by " + st.Signal}, nil
	default:
		return event{}, fmt.Errorf("unexpected stop %q (%s)", st.Reason, st.Message)
	}
}

func (d *sessionSide) observe(ctx context.Context, sp *stopSpec) *observation {
	frames, _, _, _, err := d.s.Backtrace(ctx, 1000)
	if err != nil {
		return &observation{Err: "backtrace: " + err.Error()}
	}
	o := &observation{Vars: map[string]string{}}
	for _, f := range frames {
		fo := frameObs{Func: f.Function}
		if fo.Func == "" {
			fo.Func = "??"
		}
		if f.File != "" && f.Line > 0 {
			fo.File, fo.Line = filepath.Base(f.File), f.Line
		}
		o.Frames = append(o.Frames, fo)
	}
	for level := range frames {
		var parts []string
		m := map[string]string{}
		if _, err := d.s.SelectFrame(ctx, level); err == nil {
			vals, _, err := d.s.Locals(ctx)
			if err != nil {
				m["(error)"] = err.Error()
			}
			for _, v := range vals {
				if !miListed(v) {
					continue
				}
				if v.Kind == "argument" {
					parts = append(parts, v.Name+"="+sessionValue(v))
				}
				addVar(m, v.Name, sessionValue(v))
			}
		}
		o.Args = append(o.Args, strings.Join(parts, ", "))
		if level >= 1 && level <= maxCallerFrames {
			o.Callers = append(o.Callers, m)
		}
	}
	if _, err := d.s.SelectFrame(ctx, 0); err != nil {
		return &observation{Err: "select frame 0: " + err.Error()}
	}
	vals, _, err := d.s.Locals(ctx)
	if err != nil {
		o.Vars["(error)"] = err.Error()
	}
	for _, v := range vals {
		if !miListed(v) {
			continue
		}
		addVar(o.Vars, v.Name, sessionValue(v))
	}
	for _, e := range sp.Exprs {
		if c, x, ok := cliExprOf(e); ok {
			line, err := c.session(ctx, d.s, x)
			o.Exprs = append(o.Exprs, cliResult(line, err))
			continue
		}
		r, err := d.s.Evaluate(ctx, e)
		switch {
		case err != nil:
			o.Exprs = append(o.Exprs, "error: "+err.Error())
		case r.Engine != "native":
			// Keep the fallback visible: this test is about our engine.
			o.Exprs = append(o.Exprs, "unsupported natively; "+r.Engine+" says: "+r.Value)
		default:
			o.Exprs = append(o.Exprs, miText(r.Value))
		}
	}
	return o
}

// miListed reports whether GDB/MI's -stack-list-* list v: they leave out
// the variables that have no location at all (LOC_OPTIMIZED_OUT in
// list_args_or_locals), which GDB's info args and info locals list as
// <optimized out>, as rrmcp does (TestInheritedVariables,
// TestInheritedBlockVariables).
func miListed(v session.Value) bool { return !v.NoLocation }

// sessionValue is a session Value's text, or its error as GDB shows one.
// sessionValue is a variable's value as MI gives it: rr_locals prints it
// as GDB's info locals does (common_val_print), and a variable that
// cannot be read is an error.
func sessionValue(v session.Value) string {
	if v.Value == "" && v.Error != "" {
		return "error: " + v.Error
	}
	s, _ := miError(v.Value)
	return s
}

func (d *sessionSide) close() {
	if d.s != nil {
		// A connect-kind session detaches on close; kill the debuggee
		// (gdbserver's child, so ours) first, or a program such as
		// deadlock would live on holding gdbserver's output pipes.
		if pid := d.s.Info().PID; pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if d.m != nil {
		d.m.Close()
	}
	if d.srv != nil {
		d.srv.Stop(2 * time.Second)
	}
}
