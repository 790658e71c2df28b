package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type lastWriteIn struct {
	sessionArg
	Expression string `json:"expression" jsonschema:"lvalue whose last change to find (variable, member, element, *pointer) or *ADDRESS"`
	Size       int    `json:"size,omitempty" jsonschema:"bytes to watch (default: the expression's size; 8 for *ADDRESS); at most 32"`
	Count      int    `json:"count,omitempty" jsonschema:"how many earlier changes to find, most recent first (default 1, at most 20)"`
}

type lastWriteOut struct {
	Result *session.LastWrites `json:"result"`
}

func (o lastWriteOut) Text() string {
	r := o.Result
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d bytes at %s) is %s now.\n", r.Expression, r.Size, r.Address, r.Current)
	for i, w := range r.Writers {
		fmt.Fprintf(&b, "#%d written in %s: %s -> %s", i+1, locText(w.Frame), orQ(w.Old), orQ(w.New))
		if w.Thread != "" {
			fmt.Fprintf(&b, ", thread %s", w.Thread)
		}
		if w.Position != nil {
			fmt.Fprintf(&b, ", rr event %d ticks %d", w.Position.Event, w.Position.Ticks)
		}
		if w.Icount != 0 {
			fmt.Fprintf(&b, ", icount %d", w.Icount)
		}
		b.WriteString("\n")
		if w.Frame.Source != "" {
			fmt.Fprintf(&b, "    %s\n", strings.TrimSpace(w.Frame.Source))
		}
	}
	if r.Message != "" {
		b.WriteString(r.Message + "\n")
	}
	b.WriteString("The session is now at the oldest write found; rr_continue goes forward again.")
	return b.String()
}

func (r *registry) timeTravelTools() {
	add(r, "rr_last_write", "Who wrote this",
		"Run backward to the statement that last changed a value (an lvalue expression or *ADDRESS) and report the writer: function, file:line and source line, old and new value, thread, and the moment (rr event/ticks, QEMU icount). count > 1 follows the chain of earlier changes. Needs a backend with history (rr, QEMU replay); a live program says it cannot.",
		move,
		func(ctx context.Context, in lastWriteIn) (lastWriteOut, error) {
			if in.Count < 0 || in.Count > 20 {
				return lastWriteOut{}, &session.ArgError{Arg: "count", Msg: "must be between 1 and 20"}
			}
			if in.Size < 0 || in.Size > 32 {
				return lastWriteOut{}, &session.ArgError{Arg: "size", Msg: "must be between 1 and 32 bytes"}
			}
			if strings.TrimSpace(in.Expression) == "" {
				return lastWriteOut{}, &session.ArgError{Arg: "expression", Msg: "is required: a variable, member, *pointer or *ADDRESS"}
			}
			s, err := r.session(in.sessionArg)
			if err != nil {
				return lastWriteOut{}, err
			}
			res, err := s.LastWrite(ctx, in.Expression, in.Size, in.Count)
			return lastWriteOut{res}, err
		})
}
