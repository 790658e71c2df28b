package session

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/rsp/rsptest"
)

// rrTranscriptSession opens a session on rr's side played from the
// transcript testdata/rr/NAME.txtar (package rsptest; its includes come
// from rsp/testdata/rr/handshake.txtar and testdata/rr/session.txtar, whose
// "open" and "close" sections start and end every session): the session
// StartRR would make on rr 5.9.0, without rr. Every exchange in the transcript cites the rr
// source it mirrors; a packet the script does not expect fails the test.
func rrTranscriptSession(t *testing.T, name string) (*Session, *rsptest.Server) {
	t.Helper()
	path := filepath.Join("testdata", "rr", name+".txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	handshake, err := txtar.ParseFile(filepath.Join(testenv.Root(t), "rsp", "testdata", "rr", "handshake.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := txtar.ParseFile(filepath.Join("testdata", "rr", "session.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	handshake.Files = append(handshake.Files, shared.Files...)
	_, steps, err := rsptest.LoadTranscript(path, ar, handshake)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fake := make(chan *rsptest.Server, 1)
	go func() {
		conn, err := ln.Accept()
		ln.Close()
		if err != nil {
			close(fake)
			return
		}
		fake <- rsptest.Start(conn, steps)
	}()
	m := NewManager(Config{})
	s := m.newSession(KindRR)
	s.addr = ln.Addr().String()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	st, err := m.open(ctx, s, rsp.DialectRR, "5.9.0")
	f := <-fake
	t.Cleanup(func() {
		m.Close()
		if f != nil {
			f.Finish(t)
		}
	})
	if err != nil {
		t.Fatalf("open a session on the transcript's rr: %v", err)
	}
	if st.Reason != "started" || st.Position == nil {
		t.Fatalf("first stop on the transcript's rr: %+v", st)
	}
	return s, f
}

// rrWrite is a write as the transcript's rr reports it: the writing pc,
// the values before and after, and the event and ticks of the stop.
type rrWrite struct {
	pc       string
	old, new string
	ev, tk   int64
}

// is says whether a writer or row found (pc, old and new value, position)
// is w.
func (w rrWrite) is(pc, old, new string, pos *Position) bool {
	return pc == w.pc && old == w.old && new == w.new && pos != nil && pos.Event == w.ev && pos.Ticks == w.tk
}

// TestRRLastWrite: rr_last_write on rr's dialect (testdata/rr/last_write.txtar):
// rr's reverse-continue stops at the writing instruction itself, old value
// in memory, so each writer is that stop with its event and ticks, and the
// value each write stored is the one found after it.
func TestRRLastWrite(t *testing.T) {
	s, _ := rrTranscriptSession(t, "last_write")
	lw, err := s.LastWrite(t.Context(), "*0x404028", 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []rrWrite{
		{"0x401136", "0x02000000", "0x03000000", 8, 4200},
		{"0x401150", "0x01000000", "0x02000000", 6, 3100},
	}
	// No symbols (the transcript's executable is not here): values are
	// the watched bytes in hex.
	if lw.Current != "0x03000000" || !lw.Complete || len(lw.Writers) != len(want) {
		t.Fatalf("last writes: %+v", lw)
	}
	for i, w := range want {
		got := lw.Writers[i]
		if !w.is(got.Frame.PC, got.Old, got.New, got.Position) {
			t.Errorf("writer %d: %+v (position %+v); want pc %s old %s new %s at event %d ticks %d", i, got, got.Position, w.pc, w.old, w.new, w.ev, w.tk)
		}
	}
	if lw.Stop == nil || lw.Stop.Position == nil || lw.Stop.Position.Event != 6 {
		t.Errorf("the session's stop after the search: %+v", lw.Stop)
	}
}

// TestRRQueryGoto: rr_query kind writes on rr's dialect, then rr_goto to a
// row (testdata/rr/query_goto.txtar): the rows carry the event and ticks
// rr reports at each watchpoint stop; going to a row's event is vRun with
// that event, the dummy resume rr needs after it, and the stop there.
func TestRRQueryGoto(t *testing.T) {
	s, _ := rrTranscriptSession(t, "query_goto")
	ctx := t.Context()
	q, err := s.Query(ctx, QueryOptions{Kind: "writes", Expression: "*0x404028", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []rrWrite{
		{"0x40113d", "0x0100000000000000", "0x0200000000000000", 12, 6000},
		{"0x401157", "0x0200000000000000", "0x0300000000000000", 15, 7300},
	}
	if len(q.Rows) != len(want) || q.Ended != "limit" || !q.More {
		t.Fatalf("query: %+v", q)
	}
	for i, w := range want {
		r := q.Rows[i]
		if r.Frame == nil || !w.is(r.Frame.PC, r.Old, r.New, r.Position) {
			t.Errorf("row %d: %+v (frame %+v, position %+v); want pc %s old %s new %s at event %d ticks %d", i+1, r, r.Frame, r.Position, w.pc, w.old, w.new, w.ev, w.tk)
		}
	}
	st, err := s.Goto(ctx, Moment{Event: q.Rows[0].Position.Event})
	if err != nil {
		t.Fatal(err)
	}
	if st.Reason != "event" || st.Frame == nil || st.Frame.PC != "0x40113d" || st.Position == nil || st.Position.Event != 12 {
		t.Errorf("goto row 1: %+v (frame %+v, position %+v)", st, st.Frame, st.Position)
	}
	// An instruction count is a QEMU replay's moment, not rr's.
	var ae *ArgError
	if _, err := s.Goto(ctx, Moment{Icount: 5}); !errors.As(err, &ae) || ae.Arg != "icount" {
		t.Errorf("goto icount on rr: %v, want an icount argument error", err)
	}
}

// TestRRLastWriteCancelled: the client cancels rr_last_write while rr runs
// backward (testdata/rr/last_write_cancel.txtar): the target is interrupted
// (0x03; rr answers T00 and reports where it stopped scanning), the watchpoint
// is removed, and the answer is the cancelled stop naming rr_last_write,
// which the session's state keeps.
func TestRRLastWriteCancelled(t *testing.T) {
	s, fake := rrTranscriptSession(t, "last_write_cancel")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type res struct {
		lw  *LastWrites
		err error
	}
	done := make(chan res, 1)
	go func() {
		lw, err := s.LastWrite(ctx, "*0x404028", 0, 1)
		done <- res{lw, err}
	}()
	wctx, wcancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer wcancel()
	if err := fake.WaitFor(wctx, "^C"); err != nil {
		t.Fatal(err)
	}
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatalf("cancelled rr_last_write: %v, want its cancelled stop", r.err)
	}
	st := r.lw.Stop
	if st == nil || st.Reason != "cancelled" || st.Cancelled != "rr_last_write" || st.Frame == nil || st.Position == nil || st.Position.Event != 10 {
		t.Fatalf("cancelled rr_last_write: %+v (stop %+v)", r.lw, st)
	}
	if len(r.lw.Writers) != 0 || r.lw.Complete {
		t.Errorf("writers of a search cancelled before the first: %+v", r.lw)
	}
	if c := s.Info().Cancelled; c == nil || c.Cancelled != "rr_last_write" {
		t.Errorf("session state after the cancel: %+v", c)
	}
}

// TestRRHistoryBounds: the ends of an rr recording as the session reports
// them (testdata/rr/history_bounds.txtar): the start of history each time a
// reverse-continue gets there, "about to exit" with reverse execution still
// possible, then the exit after which every move is refused saying why.
func TestRRHistoryBounds(t *testing.T) {
	s, _ := rrTranscriptSession(t, "history_bounds")
	ctx := t.Context()
	for i := 1; i <= 2; i++ {
		st, err := s.Continue(ctx, true)
		if err != nil || st.Reason != "history-start" || st.Position == nil || st.Position.Event != 0 {
			t.Fatalf("reverse-continue #%d to the start: %+v %v", i, st, err)
		}
	}
	st, err := s.Continue(ctx, false)
	if err != nil || st.Reason != "history-end" || !strings.Contains(st.Message, "reverse execution still works") || st.Position == nil || st.Position.Event != 70 {
		t.Fatalf("continue to the end of the recording: %+v %v", st, err)
	}
	st, err = s.Continue(ctx, false)
	if err != nil || st.Reason != "exited" || st.ExitCode == nil {
		t.Fatalf("continue past the end: %+v %v", st, err)
	}
	if !strings.Contains(st.Message, "cannot start from the exit") {
		t.Errorf("exit message %q does not say moves cannot start there", st.Message)
	}
	for _, rev := range []bool{false, true} {
		if _, err := s.Continue(ctx, rev); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "rr_run_to_event") {
			t.Errorf("continue (reverse %v) after the replay ended: %v, want a refusal (ErrExited) saying how to go back", rev, err)
		}
	}
}

// TestRRConnectionLost: rr's connection closes under a continue
// (testdata/rr/connection_lost.txtar): the error says the session is dead,
// not interrupted or usable, and the session list shows it dead.
func TestRRConnectionLost(t *testing.T) {
	s, _ := rrTranscriptSession(t, "connection_lost")
	st, err := s.Continue(t.Context(), false)
	if err == nil || !errors.Is(err, rsp.ErrClosed) || !strings.Contains(err.Error(), "dead") || strings.Contains(err.Error(), "usable") {
		t.Fatalf("continue when rr went away: %+v %v; want an error saying the session is dead", st, err)
	}
	if got := s.Info().State; got != "dead" {
		t.Errorf("session state %q, want dead", got)
	}
}
