package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type cpIn struct {
	sessionArg
	CheckpointID int `json:"checkpoint_id" jsonschema:"checkpoint id from rr_checkpoint_save or rr_checkpoint_list"`
}

type cpOut struct {
	Checkpoint session.Checkpoint `json:"checkpoint"`
}

func (c cpOut) Text() string {
	return fmt.Sprintf("Checkpoint %d saved at event %d (%s).", c.Checkpoint.ID, c.Checkpoint.Event, c.Checkpoint.Where)
}

type cpListOut struct {
	Checkpoints []session.Checkpoint `json:"checkpoints"`
}

func (c cpListOut) Text() string {
	if len(c.Checkpoints) == 0 {
		return "No checkpoints."
	}
	var lines []string
	for _, cp := range c.Checkpoints {
		lines = append(lines, fmt.Sprintf("%d\tevent %d\t%s", cp.ID, cp.Event, cp.Where))
	}
	return strings.Join(lines, "\n")
}

type cpDeletedOut struct {
	Deleted int `json:"deleted"`
}

func (c cpDeletedOut) Text() string { return fmt.Sprintf("Checkpoint %d deleted.", c.Deleted) }

func (r *registry) checkpointTools() {
	addOn(r, "rr_checkpoint_save", "Save checkpoint",
		"Save a checkpoint at the current position of an rr replay, to come back with rr_checkpoint_restore.",
		hints{},
		func(ctx context.Context, s *session.Session, in noArgs) (cpOut, error) {
			cp, err := s.CheckpointSave(ctx)
			return cpOut{cp}, err
		})

	addOn(r, "rr_checkpoint_restore", "Restore checkpoint",
		"Return the rr replay to a saved checkpoint. Breakpoints stay set.",
		hints{idempotent: true},
		func(ctx context.Context, s *session.Session, in cpIn) (stopOut, error) {
			st, err := s.CheckpointRestore(ctx, in.CheckpointID)
			return stopOut{st}, err
		})

	addOn(r, "rr_checkpoint_list", "List checkpoints",
		"List the checkpoints of an rr replay.",
		inspect,
		func(ctx context.Context, s *session.Session, in noArgs) (cpListOut, error) {
			cps, err := s.Checkpoints(ctx)
			return cpListOut{cps}, err
		})

	addOn(r, "rr_checkpoint_delete", "Delete checkpoint",
		"Delete a checkpoint of an rr replay.",
		hints{destructive: true, idempotent: true},
		func(ctx context.Context, s *session.Session, in cpIn) (cpDeletedOut, error) {
			return cpDeletedOut{in.CheckpointID}, s.CheckpointDelete(ctx, in.CheckpointID)
		})
}
