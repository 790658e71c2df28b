package tools

import (
	"context"

	"github.com/rrmcp/rrmcp/internal/session"
)

// stopOut is the result of every tool that moves the program.
type stopOut struct {
	Stop *session.Stop `json:"stop"`
}

func (s stopOut) Text() string { return stopText(s.Stop) }

type continueIn struct {
	sessionArg
	Reverse bool `json:"reverse,omitempty" jsonschema:"run backwards (rr only) until a breakpoint/watchpoint or the start of the recording"`
}

type stepIn struct {
	sessionArg
	Count   int  `json:"count,omitempty" jsonschema:"number of steps (default 1)"`
	Reverse bool `json:"reverse,omitempty" jsonschema:"step backwards (rr only)"`
}

type finishIn struct {
	sessionArg
	Reverse bool `json:"reverse,omitempty" jsonschema:"run backwards to the call site of the current function (rr only)"`
}

type eventIn struct {
	sessionArg
	EventNumber int64 `json:"event_number" jsonschema:"rr event number (see rr_when)"`
}

// noArgs is the input of a tool that takes nothing but the session.
type noArgs struct {
	sessionArg
}

type whenOut struct {
	Position session.Position `json:"position"`
}

func (w whenOut) Text() string {
	return "Completed event: " + itoa(w.Position.Event) + ", ticks: " + itoa(w.Position.Ticks)
}

type interruptOut struct {
	Sent bool `json:"sent"`
}

func (i interruptOut) Text() string {
	if i.Sent {
		return "Interrupt sent; the running command returns with reason \"interrupted\"."
	}
	return "Nothing is running; the program is already stopped."
}

func (in *stepIn) check() error { return inRange("count", &in.Count, 1, 100000) }

func (in *eventIn) check() error {
	if in.EventNumber < 0 {
		return &session.ArgError{Arg: "event_number", Msg: "must be >= 0"}
	}
	return nil
}

func (r *registry) execTools() {
	addOn(r, "rr_continue", "Continue",
		"Continue forward, or backward with reverse=true, until a breakpoint, watchpoint, signal, exit or the start of the recording. Returns where it stopped, with the source line.",
		move,
		func(ctx context.Context, s *session.Session, in continueIn) (stopOut, error) {
			st, err := s.Continue(ctx, in.Reverse)
			return stopOut{st}, err
		})

	stepper := func(name, title, desc string, op func(s *session.Session, ctx context.Context, n int, rev bool) (*session.Stop, error)) {
		addOn(r, name, title, desc, move, func(ctx context.Context, s *session.Session, in stepIn) (stopOut, error) {
			st, err := op(s, ctx, in.Count, in.Reverse)
			return stopOut{st}, err
		})
	}
	stepper("rr_step", "Step into",
		"Step one source line, entering called functions (forward, or backward with reverse=true).",
		(*session.Session).Step)
	stepper("rr_next", "Step over",
		"Step one source line, stepping over calls (forward, or backward with reverse=true).",
		(*session.Session).Next)
	stepper("rr_stepi", "Step instruction",
		"Step one machine instruction, entering calls (forward, or backward with reverse=true).",
		func(s *session.Session, ctx context.Context, n int, rev bool) (*session.Stop, error) {
			return s.StepInstruction(ctx, n, false, rev)
		})
	stepper("rr_nexti", "Step instruction over calls",
		"Step one machine instruction, stepping over call instructions (forward, or backward with reverse=true).",
		func(s *session.Session, ctx context.Context, n int, rev bool) (*session.Stop, error) {
			return s.StepInstruction(ctx, n, true, rev)
		})

	addOn(r, "rr_finish", "Finish function",
		"Run until the selected function returns (forward), or back to its call site (reverse=true). In a frame of an inlined call it steps out of that call into its caller, in either direction, as GDB does.",
		move,
		func(ctx context.Context, s *session.Session, in finishIn) (stopOut, error) {
			st, err := s.Finish(ctx, in.Reverse)
			return stopOut{st}, err
		})

	addOn(r, "rr_run_to_event", "Run to event",
		"Jump to an rr event number (rr replays only): the replay is positioned right after that event completed. Breakpoints stay set.",
		hints{idempotent: true},
		func(ctx context.Context, s *session.Session, in eventIn) (stopOut, error) {
			st, err := s.RunToEvent(ctx, in.EventNumber)
			return stopOut{st}, err
		})

	addOn(r, "rr_when", "Current rr event",
		"Return the current position in the rr recording: the last completed event and the tick count of the current thread.",
		inspect,
		func(ctx context.Context, s *session.Session, in noArgs) (whenOut, error) {
			p, err := s.When(ctx)
			return whenOut{p}, err
		})

	addOn(r, "rr_interrupt", "Interrupt",
		"Interrupt a running continue/step/finish of the session (like Ctrl-C). The running tool call then returns with reason \"interrupted\".",
		hints{idempotent: true},
		func(ctx context.Context, s *session.Session, in noArgs) (interruptOut, error) {
			sent, err := s.Interrupt()
			return interruptOut{sent}, err
		})
}
