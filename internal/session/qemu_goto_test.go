package session

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestQEMUReverseGoto: Goto by instruction count on the kernel's QEMU
// replay. LastWrite finds the planted write in corrupt and kmain's
// "slot = 7" with their icounts; going to each (forward to the newer,
// backward to the older, forward again) lands on the writing instruction
// itself — the writer's pc, the replay's icount, slot still holding the
// old value — and one stepi there stores the new value. A count past
// the replay's end is an argument error, and the session knows the
// replay ended.
func TestQEMUReverseGoto(t *testing.T) {
	runQEMUSession(t, func(ctx context.Context, s *Session, _ *qemu.Replay) error {
		after := testenv.KernelLine(t, "sum += slot - 0xdead")
		bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("kernel.c:%d", after), "", false)
		if err != nil {
			return err
		}
		if st, err := qemuOp(ctx, "continue", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, false) }); err != nil || st.Reason != "breakpoint" {
			return fmt.Errorf("continue to kernel.c:%d: %+v %v", after, st, err)
		}
		if err := s.RemoveBreakpoint(ctx, bp.Number); err != nil {
			return err
		}
		lw, err := qemuOp(ctx, "last write", func(ctx context.Context) (*LastWrites, error) { return s.LastWrite(ctx, "slot", 0, 2) })
		if err != nil {
			return err
		}
		if len(lw.Writers) != 2 || lw.Writers[0].Icount <= lw.Writers[1].Icount || lw.Writers[1].Icount <= 0 {
			return fmt.Errorf("last writes of slot: %+v", lw)
		}
		planted, seven := lw.Writers[0], lw.Writers[1]
		for _, tc := range []struct {
			what string
			w    Writer
			fn   string
			line int
			old  string
			new  string
		}{
			{"forward to the planted write", planted, "corrupt", testenv.KernelLine(t, "slot = v; /* PLANTED-WRITE */"), "7", "57005"},
			{"backward to slot = 7", seven, "kmain", testenv.KernelLine(t, "slot = 7;"), "0", "7"},
			{"forward again to the planted write", planted, "corrupt", testenv.KernelLine(t, "slot = v; /* PLANTED-WRITE */"), "7", "57005"},
		} {
			st, err := qemuOp(ctx, "goto "+tc.what, func(ctx context.Context) (*Stop, error) { return s.Goto(ctx, Moment{Icount: tc.w.Icount}) })
			if err != nil {
				return err
			}
			if st.Reason != "goto" || st.Frame == nil || st.Frame.PC != tc.w.Frame.PC || st.Frame.Function != tc.fn || st.Frame.Line != tc.line || st.Icount != tc.w.Icount {
				return fmt.Errorf("goto %s (icount %d, pc %s): %+v frame %+v", tc.what, tc.w.Icount, tc.w.Frame.PC, st, st.Frame)
			}
			if at, err := s.c.ReplayIcount(ctx); err != nil || at != tc.w.Icount {
				return fmt.Errorf("goto %s: info replay says %d (%v), want %d", tc.what, at, err, tc.w.Icount)
			}
			if v, err := s.Evaluate(ctx, "slot"); err != nil || v.Value != tc.old {
				return fmt.Errorf("goto %s: slot = %+v %v before the write, want %s", tc.what, v, err, tc.old)
			}
			if st, err := qemuOp(ctx, "stepi", func(ctx context.Context) (*Stop, error) { return s.StepInstruction(ctx, 1, false, false) }); err != nil || st.Reason != "step" {
				return fmt.Errorf("stepi over the write: %+v %v", st, err)
			}
			if v, err := s.Evaluate(ctx, "slot"); err != nil || v.Value != tc.new {
				return fmt.Errorf("goto %s: slot = %+v %v after the write, want %s", tc.what, v, err, tc.new)
			}
		}
		_, err = s.Goto(ctx, Moment{Icount: 1 << 40})
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != "icount" {
			return fmt.Errorf("goto past the end of the replay: %v, want an icount argument error", err)
		}
		if got := s.Info().State; got != "exited" {
			return fmt.Errorf("after a goto past the end: state %q, want exited", got)
		}
		return nil
	})
}

// TestQEMUReverseQueryGoto: rr_query rows on the kernel's QEMU replay carry
// the instruction count of their stop; going back to the first row from the
// second lands where the row was (its pc, its value of slot).
func TestQEMUReverseQueryGoto(t *testing.T) {
	runQEMUSession(t, func(ctx context.Context, s *Session, _ *qemu.Replay) error {
		q, err := qemuOp(ctx, "query", func(ctx context.Context) (*QueryResult, error) {
			return s.Query(ctx, QueryOptions{Kind: "writes", Expression: "slot", Limit: 2})
		})
		if err != nil {
			return err
		}
		if len(q.Rows) != 2 || q.Rows[0].Icount <= 0 || q.Rows[1].Icount <= q.Rows[0].Icount || q.Rows[0].Frame == nil {
			return fmt.Errorf("query rows: %+v", q.Rows)
		}
		r := q.Rows[0]
		st, err := qemuOp(ctx, "goto row 1", func(ctx context.Context) (*Stop, error) { return s.Goto(ctx, Moment{Icount: r.Icount}) })
		if err != nil {
			return err
		}
		if st.Reason != "goto" || st.Frame == nil || st.Frame.PC != r.Frame.PC || st.Icount != r.Icount {
			return fmt.Errorf("goto row 1 (icount %d, pc %s): %+v frame %+v", r.Icount, r.Frame.PC, st, st.Frame)
		}
		if v, err := s.Evaluate(ctx, "slot"); err != nil || v.Value != r.New {
			return fmt.Errorf("at row 1 slot = %+v %v, want the row's new value %s", v, err, r.New)
		}
		return nil
	})
}
