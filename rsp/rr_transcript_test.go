package rsp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/rsp/rsptest"
)

// TestRRTranscripts replays every testdata/rr/*.txtar against the client.
// The "-- server --" section is rr's side (see package rsptest); the
// "-- client --" section drives the client, one call per line:
//
//	dial [rr=VERSION] [dialect=auto]     handshake (dialect rr unless auto)
//	CALL ARGS... [=> RESULT]             call and compare the result
//
// RESULT is "ok", a value, a stop ("T05 thread=p10.10 swbreak reverse"),
// or "error KIND" (refused, exited, history-start, unsupported, closed,
// or the server's Exx). The transcripts are the golden input: they are
// written from rr's source, so there is no -update.
func TestRRTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rr", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	handshake, err := txtar.ParseFile(filepath.Join("testdata", "rr", "handshake.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range files {
		if filepath.Base(path) == "handshake.txtar" {
			continue
		}
		ran++
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			client, steps, err := rsptest.LoadTranscript(path, ar, handshake)
			if err != nil {
				t.Fatal(err)
			}
			runTranscript(t, path, client, steps)
		})
	}
	if ran < 10 {
		t.Fatalf("only %d transcripts in testdata/rr", ran)
	}
}

func runTranscript(t *testing.T, path, client string, steps []rsptest.Step) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cli, srv := net.Pipe()
	f := rsptest.Start(srv, steps)
	d := &driver{t: t, ctx: ctx, conn: cli, fake: f}
	defer func() {
		if d.c != nil {
			d.c.Close()
		}
		cli.Close()
		f.Finish(t)
		srv.Close()
	}()
	for i, line := range strings.Split(client, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		call, want, hasWant := strings.Cut(line, "=>")
		call, want = strings.TrimSpace(call), strings.TrimSpace(want)
		if !hasWant {
			want = "ok"
		}
		got := d.do(call)
		if got != want {
			t.Fatalf("%s: client line %d: %s\n\tgot:  %s\n\twant: %s", path, i+1, call, got, want)
		}
	}
}

type driver struct {
	t    *testing.T
	ctx  context.Context
	conn net.Conn
	fake *rsptest.Server
	c    *rsp.Client
}

// do runs one client line and renders its result.
func (d *driver) do(call string) string {
	fields := strings.Fields(call)
	op, args := fields[0], fields[1:]
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	hexArg := func(i int) uint64 {
		v, err := strconv.ParseUint(arg(i), 16, 64)
		if err != nil {
			d.t.Fatalf("%s: bad hex argument %q", call, arg(i))
		}
		return v
	}
	intArg := func(i int) int {
		v, err := strconv.Atoi(arg(i))
		if err != nil {
			d.t.Fatalf("%s: bad number %q", call, arg(i))
		}
		return v
	}
	thread := func(i int) rsp.Thread {
		if arg(i) == "" {
			return rsp.AnyThread
		}
		th, err := rsp.ParseThread(arg(i))
		if err != nil {
			d.t.Fatal(err)
		}
		return th
	}
	rest := strings.TrimSpace(strings.TrimPrefix(call, op))
	ctx := d.ctx
	switch op {
	case "dial":
		opts := rsp.Options{Dialect: rsp.DialectRR, InterruptTimeout: 5 * time.Second}
		for _, a := range args {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "rr":
				opts.RRVersion = v
			case "dialect":
				opts.Dialect = rsp.DialectAuto
			}
		}
		c, err := rsp.NewClient(ctx, d.conn, opts)
		if err != nil {
			return result(err)
		}
		d.c = c
		return "ok dialect=" + c.Dialect().String() + fmt.Sprintf(" noack=%v", c.NoAckMode())
	case "when":
		n, err := d.c.When(ctx)
		return value(n, err)
	case "when-ticks":
		n, err := d.c.WhenTicks(ctx)
		return value(n, err)
	case "rrcmd":
		s, err := d.c.RRCmd(ctx, arg(0), -1, args[1:]...)
		return value(strconv.Quote(s), err)
	case "checkpoint":
		where, err := strconv.Unquote(rest)
		if err != nil {
			d.t.Fatalf("%s: checkpoint wants a quoted label", call)
		}
		id, err := d.c.Checkpoint(ctx, where)
		return value(id, err)
	case "checkpoints":
		list, err := d.c.Checkpoints(ctx)
		if err != nil {
			return result(err)
		}
		if len(list) == 0 {
			return "none"
		}
		var out []string
		for _, c := range list {
			out = append(out, fmt.Sprintf("%d@%s:%q", c.ID, c.When, c.Where))
		}
		return strings.Join(out, " ")
	case "delete-checkpoint":
		return result(d.c.DeleteCheckpoint(ctx, intArg(0)))
	case "seek":
		return stopResult(d.c.SeekEvent(ctx, int64(intArg(0))))
	case "restore":
		return stopResult(d.c.RestoreCheckpoint(ctx, intArg(0)))
	case "restart":
		return stopResult(d.c.Restart(ctx, ""))
	case "break", "hbreak":
		typ := rsp.SoftwareBreakpoint
		if op == "hbreak" {
			typ = rsp.HardwareBreakpoint
		}
		kind := 0
		if arg(1) != "" {
			kind = intArg(1)
		}
		return result(d.c.InsertBreakpoint(ctx, typ, hexArg(0), kind))
	case "unbreak":
		return result(d.c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, hexArg(0), 0))
	case "watch", "rwatch", "awatch", "unwatch":
		typ := map[string]rsp.BreakpointType{"watch": rsp.WriteWatchpoint, "unwatch": rsp.WriteWatchpoint,
			"rwatch": rsp.ReadWatchpoint, "awatch": rsp.AccessWatchpoint}[op]
		if op == "unwatch" {
			return result(d.c.RemoveBreakpoint(ctx, typ, hexArg(0), intArg(1)))
		}
		return result(d.c.InsertBreakpoint(ctx, typ, hexArg(0), intArg(1)))
	case "continue":
		return stopResult(d.c.Continue(ctx))
	case "step":
		return stopResult(d.c.Step(ctx, thread(0)))
	case "reverse-continue":
		return stopResult(d.c.ReverseContinue(ctx))
	case "reverse-step":
		return stopResult(d.c.ReverseStep(ctx, thread(0)))
	case "continue-interrupt", "reverse-continue-interrupt":
		// Resume, and interrupt once rr has the resume request.
		type res struct {
			st  rsp.Stop
			err error
		}
		ch := make(chan res, 1)
		go func() {
			var r res
			if op == "continue-interrupt" {
				r.st, r.err = d.c.Continue(ctx)
			} else {
				r.st, r.err = d.c.ReverseContinue(ctx)
			}
			ch <- r
		}()
		if err := d.fake.WaitFor(ctx, "^C"); err != nil {
			d.t.Fatal(err)
		}
		if err := d.c.Interrupt(); err != nil {
			return result(err)
		}
		r := <-ch
		return stopResult(r.st, r.err)
	case "interrupt":
		return result(d.c.Interrupt())
	case "exchange", "exchange-resume":
		reply, err := d.c.Exchange(ctx, rest, op == "exchange-resume")
		return value(strconv.Quote(reply), err)
	case "read-reg":
		v, err := d.c.ReadRegisterUint(ctx, rsp.AnyThread, arg(0))
		return value("0x"+strconv.FormatUint(v, 16), err)
	case "read-mem":
		buf := make([]byte, intArg(1))
		n, err := d.c.ReadMemory(ctx, hexArg(0), buf)
		return value(fmt.Sprintf("%x", buf[:n]), err)
	case "threads":
		ths, err := d.c.Threads(ctx)
		var s []string
		for _, th := range ths {
			s = append(s, th.String())
		}
		return value(strings.Join(s, ","), err)
	case "exited":
		return strconv.FormatBool(d.c.Exited())
	case "kill":
		return result(d.c.Kill(ctx))
	case "detach":
		return result(d.c.Detach(ctx))
	}
	d.t.Fatalf("unknown client call %q", call)
	return ""
}

func value(v any, err error) string {
	if err != nil {
		return result(err)
	}
	return fmt.Sprint(v)
}

func stopResult(st rsp.Stop, err error) string {
	if err != nil {
		return result(err)
	}
	return describeStop(st)
}

// describeStop renders a stop compactly for comparison with transcripts.
func describeStop(st rsp.Stop) string {
	var b strings.Builder
	switch st.Kind {
	case rsp.StopExited:
		fmt.Fprintf(&b, "W%02x", st.ExitCode)
	case rsp.StopTerminated:
		fmt.Fprintf(&b, "X%02x", int(st.Signal))
	case rsp.StopNoResumed:
		b.WriteString("N")
	default:
		fmt.Fprintf(&b, "T%02x", int(st.Signal))
	}
	if st.Thread != (rsp.Thread{}) {
		b.WriteString(" thread=" + st.Thread.String())
	}
	if st.Watch != rsp.WatchNone {
		fmt.Fprintf(&b, " %v=%x", st.Watch, st.WatchAddr)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{
		{st.SWBreak, "swbreak"}, {st.HWBreak, "hwbreak"},
		{st.ReplayLog != "", "replaylog=" + st.ReplayLog},
		{st.Direction == rsp.Reverse, "reverse"},
		{st.Interrupted, "interrupted"},
		{st.AtHistoryStart, "history-start"},
		{st.AboutToExit, "about-to-exit"},
	} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	return b.String()
}

// result renders an error by kind.
func result(err error) string {
	if err == nil {
		return "ok"
	}
	var re *rsp.Error
	switch {
	case errors.Is(err, rsp.ErrRefused):
		return "error refused"
	case errors.Is(err, rsp.ErrExited):
		return "error exited"
	case errors.Is(err, rsp.ErrHistoryStart):
		return "error history-start"
	case errors.Is(err, rsp.ErrUnsupported):
		return "error unsupported"
	case errors.As(err, &re):
		return fmt.Sprintf("error E%02x", re.Code)
	case errors.Is(err, rsp.ErrClosed):
		return "error closed"
	}
	return "error other: " + err.Error()
}
