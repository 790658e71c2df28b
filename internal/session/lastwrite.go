package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// Writer is one write that changed a watched value, found going backward.
type Writer struct {
	Frame    Location  `json:"frame" jsonschema:"the writing instruction: function, file:line and the source line"`
	Thread   string    `json:"thread,omitempty"`
	Old      string    `json:"old" jsonschema:"value before the write"`
	New      string    `json:"new" jsonschema:"value the write stored"`
	Position *Position `json:"position,omitempty" jsonschema:"rr event and ticks of the write"`
	Icount   int64     `json:"icount,omitempty" jsonschema:"QEMU replay: instruction count at the writing instruction"`
	oldBytes []byte    // Old's bytes: the value after the write before this one
}

// LastWrites is the answer of LastWrite.
type LastWrites struct {
	Expression string   `json:"expression"`
	Address    string   `json:"address"`
	Size       int      `json:"size"`
	Current    string   `json:"current" jsonschema:"value at the moment the search started"`
	Writers    []Writer `json:"writers" jsonschema:"most recent first"`
	// Complete is false when fewer writers were found than asked for: the
	// value was not changed earlier in the recorded history.
	Complete bool   `json:"complete"`
	Stop     *Stop  `json:"stop" jsonschema:"where the session now is: at the oldest writer found (or the start of history)"`
	Message  string `json:"message,omitempty"`
}

// maxWatchChunks bounds how many write watchpoints one value may take
// (x86 has four debug registers).
const maxWatchChunks = 4

// LastWrite runs backward to the statement that last changed expr (an
// lvalue or *ADDRESS; size overrides its size) and, with count > 1, to the
// writes before it. Each writer is the writing instruction itself: after
// the reverse watchpoint stop (just after the write) one reverse step puts
// the thread on it, where memory still holds the old value.
func (s *Session) LastWrite(ctx context.Context, expr string, size, count int) (*LastWrites, error) {
	ctx = naming(ctx, "rr_last_write", false)
	if count <= 0 {
		count = 1
	}
	var out *LastWrites
	interrupted := false // out.Stop says where a time limit or a cancel stopped the search
	err := s.do(ctx, s.to.Reverse, func(ctx context.Context) error {
		if !s.caps.Reverse {
			if err := s.canMove(true); err != nil {
				return fmt.Errorf("rr_last_write needs the program's history, which this backend does not keep (on a live program set rr_watchpoint_set before the write and re-run); %w", err)
			}
		}
		if s.exited != nil {
			return s.exitedErr("the last writer is searched from a moment the program is alive: go back first (rr_run_to_event, rr_checkpoint_restore)")
		}
		lv, err := s.lvalueOf(ctx, expr)
		if err != nil {
			return err
		}
		if lv.inReg {
			return argErrorf("expression", "%s is not in memory (a register or computed value): no store writes it; give a variable in memory, a member or *ADDRESS", expr)
		}
		if size > 0 {
			lv.size = size
			if lv.typ != nil && int(lv.typ.Size()) != size {
				lv.typ = nil
			}
		}
		if lv.size <= 0 || lv.size > 8*maxWatchChunks {
			return argErrorf("size", "%s is %d bytes; give size between 1 and %d (or a member or element)", expr, lv.size, 8*maxWatchChunks)
		}
		out = &LastWrites{Expression: expr, Address: hexAddr(lv.addr), Size: lv.size}
		b := &breakpoint{lv: lv}
		cur := b.maskBits(s.peek(ctx, lv.addr, lv.size))
		if cur == nil {
			return fmt.Errorf("cannot read %d bytes at %s: %w", lv.size, hexAddr(lv.addr), ErrNotFound)
		}
		out.Current = s.formatWatch(ctx, b, cur)
		remove, err := s.watchRange(ctx, lv.addr, lv.size)
		if err != nil {
			return err
		}
		defer remove()
		var last rsp.Stop
		newer := cur // the value after the next write found going back
		for len(out.Writers) < count {
			st, w, err := s.previousWrite(ctx, lv.addr, lv.size, b, newer)
			last = st
			if errors.Is(err, rsp.ErrHistoryStart) {
				break
			}
			if ist, ok := s.interruptStop(ctx, err); ok {
				// A time limit or the client's cancel ended the search:
				// the writers found so far and where the program is.
				out.Stop, interrupted = ist, true
				out.Message = fmt.Sprintf("The search was %s after %d of %d writer(s); rr_last_write again from here goes on.", map[bool]string{true: "cancelled", false: "interrupted"}[ist.Cancelled != ""], len(out.Writers), count)
				return nil
			}
			if err != nil {
				return err
			}
			if w == nil { // stopped by something else (a user breakpoint, a signal)
				if st.AtHistoryStart {
					break
				}
				continue
			}
			out.Writers = append(out.Writers, *w)
			newer = w.oldBytes
		}
		out.Complete = len(out.Writers) == count
		out.Stop = s.makeStop(ctx, last)
		if out.Stop.Reason == "step" {
			out.Stop.Reason = "last-write"
		}
		switch {
		case len(out.Writers) == 0:
			out.Message = fmt.Sprintf("%s was not changed in the recorded history before this point: it held %s since the start.", expr, out.Current)
		case !out.Complete:
			out.Message = fmt.Sprintf("Only %d earlier change(s) of %s: the first one is the oldest in the recorded history.", len(out.Writers), expr)
		}
		return nil
	})
	if interrupted && out != nil {
		return out, nil // the structured stop, not do's ctx error
	}
	return out, err
}

// watchRange inserts write watchpoints covering [addr, addr+size) in
// aligned pieces of at most 8 bytes, so a value wider than one debug
// register is still watched exactly.
func (s *Session) watchRange(ctx context.Context, addr uint64, size int) (func(), error) {
	pieces := alignedPieces(watchLoc{addr, size}, maxWatchChunks)
	if len(pieces) > maxWatchChunks {
		return nil, argErrorf("size", "%d bytes at %s need more than %d watchpoints, the most that fit (watch a smaller part)", size, hexAddr(addr), maxWatchChunks)
	}
	remove := func(ps []watchLoc) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, p := range ps {
			s.c.RemoveBreakpoint(rctx, rsp.WriteWatchpoint, p.addr, p.size) //nolint:errcheck
		}
	}
	for i, p := range pieces {
		if err := s.c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, p.addr, p.size); err != nil {
			remove(pieces[:i])
			return nil, fmt.Errorf("the server refused a write watchpoint on %d bytes at %s: %w", p.size, hexAddr(p.addr), err)
		}
	}
	return func() { remove(pieces) }, nil
}

// previousWrite reverse-continues to the next stop and returns the
// writer when the stop is a write of the watched bytes; newer is their
// value after that write (known from later in time). A nil writer means
// the stop was something else (or a write of the same value), to be
// continued from.
//
// rr stops a reverse-continue at a write watchpoint before the writing
// instruction: it finds the last trigger, then reverse-steps once more, so
// the pc is the writer and memory holds the old value (ReplayTimeline.cc
// reverse_continue, "final reverse-singlestep to pass over watch"; the
// stop says watch:ADDR). QEMU stops after the write and says no watch
// field (peers.md §2.4): one reverse step puts the thread on the writer,
// and comparing the bytes across it decides.
func (s *Session) previousWrite(ctx context.Context, addr uint64, size int, b *breakpoint, newer []byte) (rsp.Stop, *Writer, error) {
	st, err := s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.ReverseContinue(ctx) })
	if err != nil {
		return st, nil, err
	}
	if st.Kind != rsp.StopSignal || st.AtHistoryStart {
		return st, nil, nil
	}
	if st.Thread != (rsp.Thread{}) {
		s.inf.Cur = st.Thread
	}
	if s.c.Dialect() == rsp.DialectRR {
		if st.Watch == rsp.WatchNone {
			return st, nil, nil
		}
		before := s.peek(ctx, addr, size)
		if before == nil || newer == nil || string(before) == string(newer) {
			return st, nil, nil
		}
		w, err := s.writerHere(ctx, b, before, newer)
		return st, w, err
	}
	after := s.peek(ctx, addr, size)
	// QEMU reports a reverse watchpoint stop without a watch field
	// (peers.md §2.4), so the step back and the comparison decide.
	t := s.inf.Cur
	bst, err := s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.ReverseStep(ctx, t) })
	if errors.Is(err, rsp.ErrHistoryStart) {
		return bst, nil, err
	}
	if err != nil {
		return bst, nil, err
	}
	before := s.peek(ctx, addr, size)
	if after == nil || before == nil || string(after) == string(before) {
		return bst, nil, nil
	}
	w, err := s.writerHere(ctx, b, before, after)
	return bst, w, err
}

// writerHere describes the writing instruction the selected thread is on:
// its place, the value before and after, and the moment (rr event and
// ticks, QEMU instruction count).
func (s *Session) writerHere(ctx context.Context, b *breakpoint, before, after []byte) (*Writer, error) {
	pc, _, err := s.inf.PCSP(ctx, s.inf.Cur)
	if err != nil {
		return nil, err
	}
	w := &Writer{Frame: s.locate(ctx, pc), Thread: s.inf.Cur.String(), Old: s.formatWatch(ctx, b, before), New: s.formatWatch(ctx, b, after), oldBytes: before}
	if s.caps.Events {
		if p, err := s.position(ctx); err == nil {
			w.Position = &p
		}
	}
	if s.c.Dialect() == rsp.DialectQEMU {
		w.Icount, _ = s.c.ReplayIcount(ctx)
	}
	return w, nil
}
