package gdbdiff

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/gdbmi"
	"github.com/rrmcp/rrmcp/internal/proc"
)

// gdbSide drives `gdb --interpreter=mi3` connected to its own gdbserver.
type gdbSide struct {
	reaper
	prog string
	args []string
	env  []string

	srv     *proc.Process
	gdb     *proc.Process
	stdin   io.WriteCloser
	recs    chan gdbmi.Record
	next    int
	num     map[int]string   // spec index -> GDB breakpoint number
	byNum   map[string]int   // GDB breakpoint number -> spec index
	log     []string         // commands and replies, for failure messages
	thread  string           // GDB's id of the thread that last stopped
	console *strings.Builder // cli: what GDB prints for the command in flight
}

func newGDBSide(prog string, args, env []string) *gdbSide {
	return &gdbSide{prog: prog, args: args, env: env, num: map[int]string{}, byNum: map[string]int{}}
}

func (g *gdbSide) start(ctx context.Context) error {
	srv, addr, err := startServer(ctx, g.prog, g.args, filepath.Dir(g.prog), g.env)
	if err != nil {
		return err
	}
	g.srv = srv
	g.add(srv)
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	g.stdin = w
	g.recs = make(chan gdbmi.Record, 1024)
	p, err := proc.Start(ctx, proc.Config{
		Path:      "gdb",
		Args:      []string{"--interpreter=mi3", "-nx", "-q", g.prog},
		Env:       g.env,
		Stdin:     r,
		KeepLines: 400,
		OnLine: func(l proc.Line) {
			if l.Stderr {
				return
			}
			rec, err := gdbmi.ParseRecord(l.Text)
			if err == nil && rec.Kind == gdbmi.KindNotify && rec.Class == "thread-group-started" {
				pid, _ := strconv.Atoi(rec.String("pid"))
				g.addPID(pid) // the debuggee, for abort
			}
			if err != nil || (rec.Kind != gdbmi.KindResult && rec.Kind != gdbmi.KindExec && rec.Kind != gdbmi.KindConsole) {
				return
			}
			g.recs <- rec
		},
	})
	r.Close()
	if err != nil {
		return err
	}
	g.gdb = p
	g.add(p)
	for _, c := range []string{
		"-gdb-set confirm off",
		"-gdb-set pagination off",
		"-gdb-set width 0",
		"-gdb-set height 0",
		"-gdb-set sysroot /",
		// x names code as print does (demangled): rr_read_memory's names.
		"-gdb-set print asm-demangle on",
		"-target-select remote " + addr,
	} {
		if _, err := g.cmd(ctx, c); err != nil {
			return err
		}
	}
	if _, err := g.cmd(ctx, "-break-insert -t main"); err != nil {
		return err
	}
	st, err := g.exec(ctx, "-exec-continue")
	if err != nil {
		return err
	}
	if r := st.String("reason"); r != "breakpoint-hit" {
		return fmt.Errorf("run to main: stopped with reason %q", r)
	}
	return nil
}

// cmd sends one MI command and returns its result record; ^error is an
// error.
func (g *gdbSide) cmd(ctx context.Context, c string) (gdbmi.Record, error) {
	g.next++
	tok := strconv.Itoa(g.next)
	g.log = append(g.log, "> "+c)
	if _, err := io.WriteString(g.stdin, tok+c+"\n"); err != nil {
		return gdbmi.Record{}, fmt.Errorf("gdb: %s: %w", c, err)
	}
	for {
		rec, err := g.wait(ctx, c)
		if err != nil {
			return rec, err
		}
		if rec.Kind == gdbmi.KindConsole && g.console != nil {
			g.console.WriteString(rec.Text)
		}
		if rec.Kind != gdbmi.KindResult || rec.Token != tok {
			continue
		}
		if rec.Class == "error" {
			return rec, fmt.Errorf("%s", rec.String("msg"))
		}
		return rec, nil
	}
}

// cli runs a CLI command and returns what it printed.
func (g *gdbSide) cli(ctx context.Context, c string) (string, error) {
	g.console = new(strings.Builder)
	defer func() { g.console = nil }()
	_, err := g.cmd(ctx, "-interpreter-exec console "+gdbmi.Quote(c))
	return g.console.String(), err
}

// exec runs an execution command and returns the *stopped record.
func (g *gdbSide) exec(ctx context.Context, c string) (gdbmi.Record, error) {
	if _, err := g.cmd(ctx, c); err != nil {
		return gdbmi.Record{}, err
	}
	for {
		rec, err := g.wait(ctx, c)
		if err != nil {
			return rec, err
		}
		if rec.Kind == gdbmi.KindExec && rec.Class == "stopped" {
			if id := rec.String("thread-id"); id != "" {
				g.thread = id
			}
			return rec, nil
		}
	}
}

func (g *gdbSide) wait(ctx context.Context, c string) (gdbmi.Record, error) {
	select {
	case rec := <-g.recs:
		return rec, nil
	case <-g.gdb.Done():
		return gdbmi.Record{}, fmt.Errorf("gdb: %s: gdb exited:\n%s", c, g.gdb.Tail(10))
	case <-ctx.Done():
		return gdbmi.Record{}, fmt.Errorf("gdb: %s: %w", c, ctx.Err())
	}
}

func (g *gdbSide) arm(ctx context.Context, i int, sp *stopSpec) ([]uint64, error) {
	if sp.Kind == stopWatch {
		rec, err := g.cmd(ctx, "-break-watch "+gdbmi.Quote(sp.Where))
		if err != nil {
			return nil, err
		}
		w, _ := rec.Field("wpt")
		n := str(w, "number")
		g.num[i], g.byNum[n] = n, i
		return nil, nil
	}
	rec, err := g.cmd(ctx, "-break-insert "+gdbmi.Quote(sp.Where))
	if err != nil {
		return nil, err
	}
	b, _ := rec.Field("bkpt")
	n := str(b, "number")
	g.num[i], g.byNum[n] = n, i
	var addrs []uint64
	if a := str(b, "addr"); a != "<MULTIPLE>" {
		addrs = appendHex(addrs, a)
	} else if locs, ok := b.Field("locations"); ok {
		for _, l := range locs.Values {
			addrs = appendHex(addrs, str(l, "addr"))
		}
	}
	return addrs, nil
}

func appendHex(a []uint64, s string) []uint64 {
	if v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64); err == nil {
		a = append(a, v)
	}
	return a
}

func str(v gdbmi.Value, name string) string {
	f, ok := v.Field(name)
	if !ok || f.Kind != gdbmi.Const {
		return ""
	}
	return f.Str
}

func (g *gdbSide) disarm(ctx context.Context, i int) error {
	n, ok := g.num[i]
	if !ok {
		return nil
	}
	delete(g.num, i)
	delete(g.byNum, n)
	_, err := g.cmd(ctx, "-break-delete "+n)
	return err
}

func (g *gdbSide) resume(ctx context.Context) (event, error) {
	st, err := g.exec(ctx, "-exec-continue")
	if err != nil {
		return event{}, err
	}
	switch r := st.String("reason"); r {
	case "breakpoint-hit":
		if i, ok := g.byNum[st.String("bkptno")]; ok {
			return event{hits: []int{i}}, nil
		}
		return event{}, fmt.Errorf("stopped at unknown breakpoint %s", st.String("bkptno"))
	case "watchpoint-trigger":
		w, _ := st.Field("wpt")
		if i, ok := g.byNum[str(w, "number")]; ok {
			return event{hits: []int{i}}, nil
		}
		return event{}, fmt.Errorf("stopped at unknown watchpoint %s", str(w, "number"))
	case "signal-received":
		return event{signal: st.String("signal-name")}, nil
	case "exited-normally":
		return event{exited: "exited with status 0"}, nil
	case "exited":
		return event{exited: "exited with status " + st.String("exit-code")}, nil
	case "exited-signalled":
		return event{exited: "was killed by " + st.String("signal-name")}, nil
	default:
		return event{}, fmt.Errorf("unexpected stop reason %q", r)
	}
}

func (g *gdbSide) observe(ctx context.Context, sp *stopSpec) *observation {
	o := &observation{Vars: map[string]string{}}
	rec, err := g.cmd(ctx, "-stack-list-frames")
	if err != nil {
		return &observation{Err: "backtrace: " + err.Error()}
	}
	stack, _ := rec.Field("stack")
	for _, fr := range stack.Results {
		f := frameObs{Func: str(fr.Value, "func")}
		if file := str(fr.Value, "file"); file != "" {
			f.File = filepath.Base(file)
			f.Line, _ = strconv.Atoi(str(fr.Value, "line"))
		}
		o.Frames = append(o.Frames, f)
	}
	rec, err = g.cmd(ctx, "-stack-list-arguments --all-values")
	if err != nil {
		return &observation{Err: "arguments: " + err.Error()}
	}
	sa, _ := rec.Field("stack-args")
	for _, fr := range sa.Results {
		args, _ := fr.Value.Field("args")
		var parts []string
		for _, a := range args.Values {
			if strings.HasSuffix(str(a, "name"), "@entry") {
				// Entry values: compared once, in frame 0's variables.
				continue
			}
			parts = append(parts, str(a, "name")+"="+printValue(str(a, "value")))
		}
		o.Args = append(o.Args, strings.Join(parts, ", "))
	}
	rec, err = g.cmd(ctx, "-stack-list-variables --all-values")
	if err == nil {
		vars, _ := rec.Field("variables")
		for _, v := range vars.Values {
			addVar(o.Vars, str(v, "name"), printValue(str(v, "value")))
		}
	} else {
		o.Vars["(error)"] = err.Error()
	}
	for level := 1; level < len(o.Frames) && level <= maxCallerFrames; level++ {
		m := map[string]string{}
		rec, err := g.cmd(ctx, fmt.Sprintf("-stack-list-variables --thread %s --frame %d --all-values", g.thread, level))
		if err != nil {
			m["(error)"] = err.Error()
		} else {
			vars, _ := rec.Field("variables")
			for _, v := range vars.Values {
				addVar(m, str(v, "name"), printValue(str(v, "value")))
			}
		}
		o.Callers = append(o.Callers, m)
	}
	for _, e := range sp.Exprs {
		if c, x, ok := cliExprOf(e); ok {
			out, err := g.cli(ctx, fmt.Sprintf(c.gdb, x))
			o.Exprs = append(o.Exprs, cliResult(c.gdbLine(out), err))
			continue
		}
		rec, err := g.cmd(ctx, "-data-evaluate-expression "+gdbmi.Quote(e))
		if err != nil {
			o.Exprs = append(o.Exprs, "error: "+err.Error())
			continue
		}
		o.Exprs = append(o.Exprs, printValue(rec.String("value")))
	}
	return o
}

// addVar records a variable, naming a second one of the same name name#2.
func addVar(m map[string]string, name, value string) {
	key := name
	for n := 2; ; n++ {
		if _, ok := m[key]; !ok {
			break
		}
		key = fmt.Sprintf("%s#%d", name, n)
	}
	m[key] = value
}

func (g *gdbSide) close() {
	if g.gdb != nil {
		// -gdb-exit kills the debuggee (GDB started it through
		// gdbserver) and exits; its answer is not awaited for long.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		g.cmd(ctx, "-gdb-exit") //nolint:errcheck // gdb may exit before answering
		cancel()
		g.stdin.Close()
		g.gdb.Stop(2 * time.Second)
	}
	if g.srv != nil {
		g.srv.Stop(2 * time.Second)
	}
}
