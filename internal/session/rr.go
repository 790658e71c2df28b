package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/rsp"
)

func (s *Session) needEvents(what string) error {
	if s.caps.Events {
		return nil
	}
	return fmt.Errorf("%s needs an rr replay; this is a %s session: %w", what, s.kind, ErrUnsupported)
}

// When returns the current rr event and tick count.
func (s *Session) When(ctx context.Context) (Position, error) {
	var p Position
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if err := s.needEvents("rr_when"); err != nil {
			return err
		}
		if s.exited != nil {
			return s.exitedErr("there is no current event")
		}
		var err error
		p, err = s.position(ctx)
		return err
	})
	return p, err
}

// RunToEvent seeks the replay to right after event ev completed.
func (s *Session) RunToEvent(ctx context.Context, ev int64) (*Stop, error) {
	ctx = naming(ctx, fmt.Sprintf("the seek to event %d", ev), false)
	var out *Stop
	err := s.do(ctx, s.to.Reverse, func(ctx context.Context) error {
		if err := s.needEvents("rr_run_to_event"); err != nil {
			return err
		}
		st, err := s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.SeekEvent(ctx, ev) })
		if err != nil {
			var re *rsp.Error
			if errors.As(err, &re) {
				return argErrorf("event_number", "rr could not seek to event %d (past the end of the recording?)", ev)
			}
			return err
		}
		out = s.makeStop(ctx, st)
		s.refreshWatches(ctx)
		out.Reason = "event"
		return nil
	})
	return s.asStop(ctx, out, err)
}

// CheckpointSave creates an rr checkpoint at the current position.
func (s *Session) CheckpointSave(ctx context.Context) (Checkpoint, error) {
	var out Checkpoint
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if !s.caps.Checkpoints {
			return fmt.Errorf("checkpoints need an rr replay; this is a %s session: %w", s.kind, ErrUnsupported)
		}
		if s.exited != nil {
			return s.exitedErr("cannot checkpoint")
		}
		where := "pc"
		if f, err := s.selectedFrame(ctx); err == nil {
			where = f.Function
			if f.File != "" {
				where += fmt.Sprintf(" at %s:%d", baseName(f.File), f.Line)
			}
		}
		id, err := s.c.Checkpoint(ctx, where)
		if err != nil {
			return err
		}
		out = Checkpoint{ID: id, Where: where}
		if p, err := s.position(ctx); err == nil {
			out.Event = p.Event
		}
		return nil
	})
	return out, err
}

// CheckpointRestore returns the replay to checkpoint id.
func (s *Session) CheckpointRestore(ctx context.Context, id int) (*Stop, error) {
	ctx = naming(ctx, fmt.Sprintf("the restore of checkpoint %d", id), false)
	var out *Stop
	err := s.do(ctx, s.to.Reverse, func(ctx context.Context) error {
		if !s.caps.Checkpoints {
			return fmt.Errorf("checkpoints need an rr replay; this is a %s session: %w", s.kind, ErrUnsupported)
		}
		cps, err := s.c.Checkpoints(ctx)
		if err != nil {
			return err
		}
		found := false
		var ids []string
		for _, c := range cps {
			found = found || c.ID == id
			ids = append(ids, strconv.Itoa(c.ID))
		}
		if !found {
			if len(ids) == 0 {
				ids = []string{"none"}
			}
			return fmt.Errorf("no checkpoint %d (existing: %s): %w", id, strings.Join(ids, ", "), ErrNotFound)
		}
		st, err := s.run(ctx, func(ctx context.Context) (rsp.Stop, error) { return s.c.RestoreCheckpoint(ctx, id) })
		if err != nil {
			return err
		}
		out = s.makeStop(ctx, st)
		s.refreshWatches(ctx)
		out.Reason = "checkpoint"
		return nil
	})
	return s.asStop(ctx, out, err)
}

// Checkpoints lists rr checkpoints.
func (s *Session) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	out := []Checkpoint{}
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if !s.caps.Checkpoints {
			return fmt.Errorf("checkpoints need an rr replay; this is a %s session: %w", s.kind, ErrUnsupported)
		}
		cps, err := s.c.Checkpoints(ctx)
		if err != nil {
			return err
		}
		for _, c := range cps {
			ev, _ := strconv.ParseInt(c.When, 10, 64)
			out = append(out, Checkpoint{ID: c.ID, Event: ev, Where: c.Where})
		}
		return nil
	})
	return out, err
}

// CheckpointDelete deletes rr checkpoint id.
func (s *Session) CheckpointDelete(ctx context.Context, id int) error {
	return s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if !s.caps.Checkpoints {
			return fmt.Errorf("checkpoints need an rr replay; this is a %s session: %w", s.kind, ErrUnsupported)
		}
		if err := s.c.DeleteCheckpoint(ctx, id); err != nil {
			return fmt.Errorf("delete checkpoint %d: %w", id, err)
		}
		return nil
	})
}

// RawPacket sends one packet by rsp.Client.SendRaw's class rules and
// returns the reply and the console output the server sent before it (a
// monitor command's text); afterwards the session's view is refreshed.
func (s *Session) RawPacket(ctx context.Context, pkt string, allow rsp.RawAllow) (reply, output string, err error) {
	var out string
	var text []byte
	allowResume := allow.Resume
	limit := s.to.Eval
	if allowResume {
		limit = s.to.Forward
	}
	err = s.do(ctx, limit, func(ctx context.Context) error {
		var err error
		s.setRunning(allowResume)
		out, text, err = s.c.SendRaw(ctx, pkt, allow)
		s.setRunning(false)
		s.invalidate()
		if err != nil {
			return err
		}
		if allowResume {
			s.makeStop(ctx, s.c.LastStop())
		}
		return nil
	})
	return out, string(text), err
}
