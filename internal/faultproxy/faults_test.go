package faultproxy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/faultproxy"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// faultFigures counts the injected faults for TestMain's report line.
var faultFigures struct {
	sync.Mutex
	injected, survived int
}

func TestMain(m *testing.M) {
	code := m.Run()
	faultFigures.Lock()
	if faultFigures.injected > 0 {
		// make test greps this line out of the verbose log.
		fmt.Printf("hostile-faults: %d %d\n", faultFigures.injected, faultFigures.survived)
	}
	faultFigures.Unlock()
	os.Exit(code)
}

// faultSession runs prog under a real gdbserver with the fault proxy in
// between, connects a session through it and stops at fn.
func faultSession(t *testing.T, prog, fn string) (*session.Session, *session.Manager, *faultproxy.Proxy) {
	return faultSessionBound(t, prog, fn, 5*time.Second)
}

// faultSessionBound is faultSession with the interrupt bound (how long a
// reply owed to an abandoned request, or the stop after an interrupt, is
// waited for before the connection is declared dead).
func faultSessionBound(t *testing.T, prog, fn string, bound time.Duration) (*session.Session, *session.Manager, *faultproxy.Proxy) {
	t.Helper()
	return faultSessionWith(t, prog, fn, func(to *session.Timeouts) { to.Interrupt = bound })
}

// faultSessionWith is faultSession with the default timeouts changed by
// set.
func faultSessionWith(t *testing.T, prog, fn string, set func(*session.Timeouts)) (*session.Session, *session.Manager, *faultproxy.Proxy) {
	t.Helper()
	path := testenv.Prog(t, prog)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, addr := testenv.GDBServer(t, ctx, path)
	px, err := faultproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	to := session.DefaultTimeouts()
	set(&to)
	m := session.NewManager(session.Config{Timeouts: to})
	t.Cleanup(m.Close)
	s, _, err := m.Connect(ctx, session.ConnectOptions{Address: px.Addr(), Program: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetBreakpoint(ctx, fn, "", false); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Continue(ctx, false); err != nil || st.Reason != "breakpoint" {
		t.Fatalf("continue to %s: %+v %v", fn, st, err)
	}
	return s, m, px
}

// survived records one injected fault and whether the session came out of
// it correct or saying precisely that it is not.
func survived(t *testing.T, px *faultproxy.Proxy, ok bool) {
	t.Helper()
	fired := px.Fired()
	if len(fired) == 0 || px.Pending() != 0 {
		t.Fatalf("the fault was not injected (%d fired, %d pending)", len(fired), px.Pending())
	}
	faultFigures.Lock()
	faultFigures.injected += len(fired)
	if ok && !t.Failed() {
		faultFigures.survived += len(fired)
	}
	faultFigures.Unlock()
}

// runToExit removes breakpoint 1 and continues: the program (counter) must
// exit 0 — not be killed by a SIGINT our interrupt left behind, and not
// stop at a breakpoint nobody knows of.
func runToExit(t *testing.T, ctx context.Context, s *session.Session) bool {
	t.Helper()
	if err := s.RemoveBreakpoint(ctx, 1); err != nil {
		t.Errorf("remove breakpoint 1: %v", err)
		return false
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "exited" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Errorf("continue to the end: %+v (signal %s) %v, want exit 0", st, stopSignal(st), err)
		return false
	}
	return true
}

// pendingSignals returns the signals pending for process pid, its own and
// its threads' (/proc/pid/status ShdPnd and every task's SigPnd).
func pendingSignals(t *testing.T, pid int) uint64 {
	t.Helper()
	if pid <= 0 {
		t.Fatal("the session knows no pid")
	}
	var mask uint64
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, f := range append(files, fmt.Sprintf("/proc/%d/status", pid)) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			if k == "ShdPnd" || k == "SigPnd" {
				m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				if err != nil {
					t.Fatalf("%s: %q: %v", f, l, err)
				}
				mask |= m
			}
		}
	}
	return mask
}

func stopSignal(st *session.Stop) string {
	if st == nil {
		return ""
	}
	return st.Signal
}

// TestFaultInterruptRacesStop: the time limit of a counted stepi ends while
// a step's stop reply is on its way; the interrupt reaches gdbserver after
// the target stopped, and gdbserver sends the program a SIGINT. The old
// code reported that SIGINT at the next continue and delivered it with the
// continue after that, killing the program.
func TestFaultInterruptRacesStop(t *testing.T) {
	s, _, px := faultSession(t, "counter", "hit")
	ctx := t.Context()
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "T", Skip: 5, Action: faultproxy.HoldForInterrupt})
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	st, err := s.StepInstruction(short, 100000, false, false)
	cancel()
	if err != nil || st == nil || st.Frame == nil || !strings.Contains(st.Message, "Interrupted") {
		t.Fatalf("timed-out stepi: %+v %v, want an interrupted stop with its place", st, err)
	}
	// The SIGINT is consumed inside the timed-out call: nothing is pending
	// for the program afterwards (a detach now would kill it). A request
	// first makes gdbserver read the 0x03 if it has not yet.
	if _, err := s.Evaluate(ctx, "i"); err != nil {
		t.Fatal(err)
	}
	if pend := pendingSignals(t, s.Info().PID); pend&(1<<(syscall.SIGINT-1)) != 0 {
		t.Errorf("after the timed-out stepi the program has a SIGINT pending (%#x): the interrupt's signal was not consumed within the call", pend)
	}
	ok := true
	for i := 0; i < 2; i++ {
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != "breakpoint" {
			t.Errorf("continue %d after the raced interrupt: %+v (signal %s) %v, want breakpoint 1", i, st, stopSignal(st), err)
			ok = false
		}
	}
	ok = ok && runToExit(t, ctx, s)
	survived(t, px, ok)
}

// TestFaultMidStepOver: the time limit ends inside the step over the
// breakpoint a continue starts from (removed, step in flight). The
// breakpoint must be back afterwards (the old code lost it: its re-insert
// ran on the expired context), and removing it must work.
func TestFaultMidStepOver(t *testing.T) {
	s, _, px := faultSession(t, "counter", "hit")
	ctx := t.Context()
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "T", Action: faultproxy.HoldForInterrupt})
	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	st, err := s.Continue(short, false)
	cancel()
	if err != nil || st == nil || st.Frame == nil {
		t.Fatalf("timed-out continue: %+v %v, want an interrupted stop with its place", st, err)
	}
	ok := true
	st, err = s.Continue(ctx, false)
	if err != nil || st.Reason != "breakpoint" || st.Breakpoint != 1 {
		t.Errorf("continue after the cut step-over: %+v (signal %s) %v, want breakpoint 1 again", st, stopSignal(st), err)
		ok = false
	}
	ok = ok && runToExit(t, ctx, s)
	survived(t, px, ok)
}

// TestFaultMidBreakpointInsert: the reply to Z0 comes after the time limit.
// The insert is rolled back: no breakpoint nobody knows of stays in the
// program (the old code left it in: the program stopped there with a bare
// SIGTRAP), and the session works on.
func TestFaultMidBreakpointInsert(t *testing.T) {
	s, _, px := faultSession(t, "counter", "hit")
	ctx := t.Context()
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToServer, Prefix: "Z0", Action: faultproxy.Delay, Delay: 2500 * time.Millisecond})
	short, cancel := context.WithTimeout(ctx, time.Second)
	_, err := s.SetBreakpoint(short, "square", "", false)
	cancel()
	if err == nil {
		t.Fatal("breakpoint insert past its time limit succeeded")
	}
	bps, err := s.Breakpoints(ctx)
	if err != nil || len(bps) != 1 {
		t.Errorf("breakpoints after the failed insert: %+v %v, want only #1", bps, err)
	}
	survived(t, px, runToExit(t, ctx, s))
}

// TestFaultDuplicateStop: a stop reply arrives twice. The extra one must
// not be taken as the answer to the next request.
func TestFaultDuplicateStop(t *testing.T) {
	s, _, px := faultSession(t, "counter", "hit")
	ctx := t.Context()
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "T", Action: faultproxy.Duplicate})
	st, err := s.StepInstruction(ctx, 1, false, false)
	ok := err == nil && st.Frame != nil
	if !ok {
		t.Errorf("stepi with a duplicated stop reply: %+v %v", st, err)
	}
	if _, _, _, _, err := s.Backtrace(ctx, 10); err != nil {
		t.Errorf("backtrace after a duplicated stop reply: %v", err)
		ok = false
	}
	ok = ok && runToExit(t, ctx, s)
	survived(t, px, ok)
}

// TestFaultDeadConnection: faults the stream cannot recover from (a cut
// connection, a garbled or truncated or dropped reply) leave a session that
// says it is dead — in every call and in the session list — instead of
// answering from stale caches or timing out forever.
func TestFaultDeadConnection(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule faultproxy.Rule
		move bool // the fault hits a continue (else a memory read)
	}{
		{"cut mid-continue", faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "T", Action: faultproxy.Cut}, true},
		{"garbled reply", faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "", Action: faultproxy.Garble}, false},
		{"truncated reply", faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "", Action: faultproxy.Truncate}, false},
		{"dropped reply", faultproxy.Rule{Dir: faultproxy.ToClient, Prefix: "", Action: faultproxy.Drop}, false},
		{"dropped request", faultproxy.Rule{Dir: faultproxy.ToServer, Prefix: "", Action: faultproxy.Drop}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, m, px := faultSessionBound(t, "counter", "hit", 1500*time.Millisecond)
			ctx := t.Context()
			px.Arm(tc.rule)
			short, cancel := context.WithTimeout(ctx, time.Second)
			var err error
			if tc.move {
				_, err = s.Continue(short, false)
			} else {
				// A read of memory the stop did not bring (the stack
				// came with the stop's registers): it must go to the
				// server, so the fault meets it.
				_, err = s.ReadMemory(short, "&bytes", 64)
			}
			cancel()
			if err == nil {
				t.Logf("the faulted call itself succeeded")
			}
			// Within the interrupt bound the session knows it is dead.
			var last error
			dead := false
			for i := 0; i < 3 && !dead; i++ {
				_, _, _, _, last = s.Backtrace(ctx, 10)
				dead = errors.Is(last, rsp.ErrClosed)
			}
			if !dead {
				t.Errorf("backtrace after %s: %v, want the connection reported gone", tc.name, last)
			}
			if _, err := s.Continue(ctx, false); !errors.Is(err, rsp.ErrClosed) {
				t.Errorf("continue after %s: %v, want the connection reported gone", tc.name, err)
			}
			state := ""
			for _, in := range m.List() {
				if in.ID == s.ID() {
					state = in.State
				}
			}
			if state != "dead" {
				t.Errorf("session list after %s: state %q, want dead", tc.name, state)
			}
			survived(t, px, dead && state == "dead")
		})
	}
}

// TestFaultServerStopsAnswering: a server that stops answering altogether
// (every reply dropped from the stop on), under call limits shorter than
// the interrupt bound: the next that meets it fails saying the server has
// not answered, the session says unresponsive, and once no reply has come
// within the bound, counted over the calls, the session is dead. The next
// gave back the last stop as "stopped there and usable", the list said
// stopped, and each later call waited out its limit again without end
// (adversarial pass F4).
func TestFaultServerStopsAnswering(t *testing.T) {
	s, m, px := faultSessionWith(t, "counter", "hit", func(to *session.Timeouts) {
		to.Interrupt, to.Forward, to.Eval = 3*time.Second, time.Second, 500*time.Millisecond
	})
	ctx := t.Context()
	state := func() string {
		for _, in := range m.List() {
			if in.ID == s.ID() {
				return in.State
			}
		}
		return ""
	}
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToClient, Action: faultproxy.Drop, Every: true})
	st, err := s.Next(ctx, 1, false)
	if err == nil || !strings.Contains(err.Error(), "has not answered") {
		t.Errorf("next with the server silent: %+v %v, want an error saying it has not answered", st, err)
	}
	if got := state(); got != "unresponsive" {
		t.Errorf("session list after the next: state %q, want unresponsive", got)
	}
	// Each call waits its limit (0.5 s); the bound (3 s) is counted over
	// them: within a few more calls the session is dead.
	dead := false
	for i := 0; i < 20 && !dead; i++ {
		_, _, _, _, err = s.Backtrace(ctx, 10)
		dead = errors.Is(err, rsp.ErrClosed)
	}
	if !dead || state() != "dead" {
		t.Errorf("after the interrupt bound: backtrace %v, state %q; want the session dead", err, state())
	}
	// One fault (the rule stays armed and fires at every reply).
	if len(px.Fired()) == 0 {
		t.Fatal("the fault was not injected")
	}
	faultFigures.Lock()
	faultFigures.injected++
	if dead && !t.Failed() {
		faultFigures.survived++
	}
	faultFigures.Unlock()
}

// TestFaultMidBreakpointRemove: the reply to z0 comes after the time limit;
// gdbserver did remove the breakpoint. Removing it again gets E01 from
// gdbserver, which means it is already out: success (the old code failed
// with "z0 … E01" for good, and every later step-over with it).
func TestFaultMidBreakpointRemove(t *testing.T) {
	s, _, px := faultSession(t, "counter", "hit")
	ctx := t.Context()
	px.Arm(faultproxy.Rule{Dir: faultproxy.ToServer, Prefix: "z0", Action: faultproxy.Delay, Delay: 2500 * time.Millisecond})
	short, cancel := context.WithTimeout(ctx, time.Second)
	err := s.RemoveBreakpoint(short, 1)
	cancel()
	if err == nil {
		t.Fatal("breakpoint removal past its time limit succeeded")
	}
	ok := true
	if err := s.RemoveBreakpoint(ctx, 1); err != nil {
		t.Errorf("removing the breakpoint again: %v", err)
		ok = false
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "exited" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Errorf("continue to the end: %+v %v, want exit 0", st, err)
		ok = false
	}
	survived(t, px, ok)
}
