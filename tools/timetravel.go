package tools

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/triage"
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

func (in *lastWriteIn) check() error {
	if err := upTo("count", in.Count, 20); err != nil {
		return err
	}
	if in.Size < 0 || in.Size > 32 {
		return &session.ArgError{Arg: "size", Msg: "must be between 1 and 32 bytes"}
	}
	return notEmpty("expression", in.Expression, "; give a variable, member, *pointer or *ADDRESS")
}

func (in *triageIn) check() error {
	if err := upTo("max_frames", in.MaxFrames, 64); err != nil {
		return err
	}
	return upTo("max_locals", in.MaxLocals, 256)
}

func (in *outputIn) check() error {
	return upTo("limit", in.Limit, 65536)
}

func (in *queryIn) check() error {
	if in.Limit < 0 || in.Limit > 1000 && in.Kind != "lines" {
		return &session.ArgError{Arg: "limit", Msg: "must be between 1 and 1000"}
	}
	return nil
}

func (in *gotoIn) check() error {
	if in.Event < 0 || in.Icount < 0 {
		return &session.ArgError{Arg: "event", Msg: "event and icount must be positive"}
	}
	return nil
}

func (r *registry) timeTravelTools() {
	r.triageTool()
	r.outputTool()
	r.queryTool()
	r.gotoTool()
	addOn(r, "rr_last_write", "Who wrote this",
		"Run backward to the statement that last changed a value (an lvalue expression or *ADDRESS) and report the writer: function, file:line and source line, old and new value, thread, and the moment (rr event/ticks, QEMU icount). count > 1 follows the chain of earlier changes. Needs a backend with history (rr, QEMU replay); a live program says it cannot.",
		move,
		func(ctx context.Context, s *session.Session, in lastWriteIn) (lastWriteOut, error) {
			res, err := s.LastWrite(ctx, in.Expression, in.Size, in.Count)
			return lastWriteOut{res}, err
		})
}

type triageIn struct {
	sessionArg
	MaxFrames int    `json:"max_frames,omitempty" jsonschema:"frames in the backtrace (default 8, at most 64)"`
	MaxLocals int    `json:"max_locals,omitempty" jsonschema:"locals of the crashing frame (default 16, at most 256)"`
	Suspect   string `json:"suspect,omitempty" jsonschema:"lvalue whose last writer to find (default: the local holding the faulting pointer)"`
}

type triageOut struct {
	Report *triage.Report `json:"report"`
}

func (o triageOut) Text() string {
	t := o.Report
	var b strings.Builder
	if t.Summary != "" {
		b.WriteString(t.Summary + "\n")
	}
	fmt.Fprintf(&b, "Triage: %s", t.Reason)
	if t.Signal != "" {
		fmt.Fprintf(&b, " %s (%s)", t.Signal, t.SignalMeaning)
	}
	b.WriteString("\n")
	if a := t.Assertion; a != nil {
		fmt.Fprintf(&b, "Assertion failed: %s (in %s at %s:%d)\n", a.Condition, a.Function, a.File, a.Line)
	}
	if e := t.Exception; e != nil {
		fmt.Fprintf(&b, "Uncaught exception: %s", e.Type)
		if e.What != "" {
			fmt.Fprintf(&b, ", what(): %s", e.What)
		}
		b.WriteString("\n")
	}
	if in := t.Instruction; in != nil {
		fmt.Fprintf(&b, "Instruction at %s: %s\n", in.PC, in.Text)
		for _, op := range in.Operands {
			fmt.Fprintf(&b, "  %s (%s)", op.Text, op.Kind)
			if op.Address != "" {
				fmt.Fprintf(&b, " address %s", op.Address)
			}
			if op.Value != "" {
				fmt.Fprintf(&b, " = %s", op.Value)
			}
			if op.Error != "" {
				fmt.Fprintf(&b, " [%s]", op.Error)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("Backtrace:\n")
	for _, f := range t.Backtrace {
		b.WriteString(frameText(f.Frame))
		var args []string
		for _, a := range f.Args {
			args = append(args, a.Name+"="+a.Value)
		}
		if len(args) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(args, ", "))
		}
		b.WriteString("\n")
	}
	if t.MoreFrames {
		b.WriteString("  (more frames: raise max_frames or use rr_backtrace)\n")
	}
	if len(t.Locals) > 0 {
		b.WriteString("Locals of frame 0:\n")
		for _, v := range t.Locals {
			fmt.Fprintf(&b, "  %s = %s\n", v.Name, v.Value)
		}
		if t.MoreLocals {
			b.WriteString("  (more locals: raise max_locals or use rr_locals)\n")
		}
	}
	if f := t.ProgramFrame; f != nil {
		fmt.Fprintf(&b, "The program's own code: frame %d, %s\n", f.Level, frameText(f.Frame))
		for _, v := range t.ProgramLocals {
			fmt.Fprintf(&b, "  %s = %s\n", v.Name, v.Value)
		}
	}
	if t.StderrTail != "" {
		b.WriteString("Last lines of the program's stderr:\n  " + strings.ReplaceAll(t.StderrTail, "\n", "\n  ") + "\n")
	}
	if t.LastWriter != nil {
		b.WriteString("Last writer of " + t.Suspect + ":\n" + lastWriteOut{t.LastWriter}.Text() + "\n")
	} else if t.LastWriterWhy != "" {
		b.WriteString("Last writer: " + t.LastWriterWhy + "\n")
	}
	for _, n := range t.Notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

func (r *registry) triageTool() {
	addOn(r, "rr_triage", "Crash report",
		"One call at a crash (a signal stop, the end of a recording, or any stop): a one-sentence summary, the signal and its meaning, a failed assert()'s condition and place, the first frame in the program's own code with its locals when the crash is inside a library, the last lines of the program's stderr, the faulting instruction decoded with its operands and their values, the backtrace with arguments, the crashing frame's locals, and on backends with history the last writer of the faulting pointer (as rr_last_write; the session then stands at that write). Bounded by max_frames/max_locals; says when it cut.",
		move,
		func(ctx context.Context, s *session.Session, in triageIn) (triageOut, error) {
			t, err := triage.Run(ctx, s, triage.Options{MaxFrames: in.MaxFrames, MaxLocals: in.MaxLocals, Suspect: in.Suspect})
			return triageOut{t}, err
		})
}

type outputIn struct {
	sessionArg
	Stream string `json:"stream,omitempty" jsonschema:"stdout (default) or stderr"`
	Offset int64  `json:"offset,omitempty" jsonschema:"byte offset to read from (default 0); negative counts back from the end"`
	Limit  int    `json:"limit,omitempty" jsonschema:"bytes to return (default 4096, at most 65536)"`
}

type outputOut struct {
	Output session.Output `json:"output"`
}

func (o outputOut) Text() string {
	r := o.Output
	s := fmt.Sprintf("%s bytes %d-%d of %d:\n%s", r.Stream, r.Offset, r.Offset+int64(len(r.Text)), r.Total, r.Text)
	if r.Note != "" {
		s += "\n" + r.Note
	}
	return s
}

func (r *registry) outputTool() {
	addOn(r, "rr_output", "Program output",
		"Read what the debugged program wrote to stdout or stderr (captured by rr_live_start; on an rr replay, what rr echoed of the program's writes while replaying forward), never mixed into the MCP stream, by byte offset. Every stop says how many bytes were written so far; offset=-N reads the last N bytes.",
		inspect,
		func(ctx context.Context, s *session.Session, in outputIn) (outputOut, error) {
			o, err := s.Output(ctx, in.Stream, in.Offset, in.Limit)
			return outputOut{o}, err
		})
}

type queryIn struct {
	sessionArg
	Kind       string   `json:"kind" jsonschema:"calls (every call of a function), writes (every change of a value) or lines (hit counts per line of a function)"`
	Function   string   `json:"function,omitempty" jsonschema:"calls: the function (or any breakpoint location); lines: the function whose lines to count"`
	Collect    []string `json:"collect,omitempty" jsonschema:"calls: expressions to evaluate at each call, e.g. arguments"`
	Condition  string   `json:"condition,omitempty" jsonschema:"calls: only calls where this C expression holds (evaluated in the debug server where it can)"`
	AtReturn   bool     `json:"at_return,omitempty" jsonschema:"calls: also run each call to its return and record the value returned"`
	Expression string   `json:"expression,omitempty" jsonschema:"writes: the lvalue whose changes to list"`
	Limit      int      `json:"limit,omitempty" jsonschema:"rows to return (default 20, at most 1000); lines: hits to count (default 100000)"`
	Cursor     int      `json:"cursor,omitempty" jsonschema:"number of the first row: a previous result's next_cursor"`
}

type queryOut struct {
	Result *session.QueryResult `json:"result"`
}

func (o queryOut) Text() string {
	q := o.Result
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s rows (ended: %s", len(q.Rows), q.Kind, q.Ended)
	if q.Mechanism != "" {
		fmt.Fprintf(&b, "; collected by %s", q.Mechanism)
	}
	b.WriteString(")\n")
	// A row has a frame where it differs from the row before's
	// (QueryRow.Frame): a calls query's rows are all at one place.
	located, same := false, false
	for _, r := range q.Rows {
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(r.N))
		if r.Frame != nil {
			b.WriteByte(' ')
			b.WriteString(locText(r.Frame.Location))
			located = true
		} else if located {
			same = true
		}
		if r.Position != nil {
			fmt.Fprintf(&b, " [event %d ticks %d]", r.Position.Event, r.Position.Ticks)
		}
		if r.Line != 0 {
			fmt.Fprintf(&b, " line %d: %d hits", r.Line, r.Hits)
		}
		if r.Old != "" || r.New != "" {
			fmt.Fprintf(&b, " %s -> %s", orQ(r.Old), orQ(r.New))
		}
		for _, k := range sortedKeys(r.Values) {
			b.WriteByte(' ')
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(r.Values[k])
		}
		if r.Returned != "" {
			fmt.Fprintf(&b, " returned %s", r.Returned)
		}
		b.WriteString("\n")
	}
	if same {
		b.WriteString("(A row without a location is where the row before it is.)\n")
	}
	if q.Note != "" {
		b.WriteString(q.Note + "\n")
	}
	if q.MechanismNote != "" {
		b.WriteString("Not collected by a tracepoint: " + q.MechanismNote + ".\n")
	}
	if q.Stop != nil && !q.More {
		b.WriteString(stopText(q.Stop))
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (r *registry) queryTool() {
	addOn(r, "rr_query", "Execution-wide query",
		"Run forward collecting one numbered row per call of a function (kind calls: with the collect expressions evaluated at each call, optionally only where condition holds) or per change of a value (kind writes: old and new value and the writer's line). Returns at most limit rows and a next_cursor: the program is left at the last row, so the same query with that cursor continues. On a live program (gdbserver) kind calls collects the rows after the first with a tracepoint, without stopping at each call (mechanism says which way; a value whose memory the tracepoint did not collect reads <not collected: …>). A live session started with in_process_agent collects with a fast tracepoint (mechanism \"fast tracepoint\": a jump, no trap per call) where the function qualifies (first instruction >= 5 bytes, not a leaf, not a PIE); mechanism_note says why not otherwise.",
		move,
		func(ctx context.Context, s *session.Session, in queryIn) (queryOut, error) {
			q, err := s.Query(ctx, session.QueryOptions{Kind: in.Kind, Function: in.Function, Expression: in.Expression, Collect: in.Collect, Condition: in.Condition, AtReturn: in.AtReturn, Limit: in.Limit, Cursor: in.Cursor, Progress: progressFunc(ctx)})
			return queryOut{q}, err
		})
}

type gotoIn struct {
	sessionArg
	Event  int64 `json:"event,omitempty" jsonschema:"rr: the event number of a row (position.event)"`
	Icount int64 `json:"icount,omitempty" jsonschema:"QEMU replay: the instruction count of a row or writer"`
}

func (r *registry) gotoTool() {
	addOn(r, "rr_goto", "Go to a moment",
		"Put the session at a moment a query row or rr_last_write reported: on rr by event, on a QEMU replay by instruction count. A live program cannot travel and says so.",
		move,
		func(ctx context.Context, s *session.Session, in gotoIn) (stopOut, error) {
			st, err := s.Goto(ctx, session.Moment{Event: in.Event, Icount: in.Icount})
			return stopOut{st}, err
		})
}

type untilFailureIn struct {
	ExitCode       *int    `json:"exit_code,omitempty" jsonschema:"a failure is this exit code"`
	Signal         string  `json:"signal,omitempty" jsonschema:"a failure is death by this signal, e.g. SIGSEGV"`
	OutputContains string  `json:"output_contains,omitempty" jsonschema:"a failure prints this (in the last lines of output)"`
	MaxAttempts    int     `json:"max_attempts,omitempty" jsonschema:"default 20, at most 1000"`
	Budget         float64 `json:"budget,omitempty" jsonschema:"seconds for all attempts (default 600)"`
}

func (u *untilFailureIn) options() (rr.UntilFailure, error) {
	if u.MaxAttempts < 0 || u.MaxAttempts > 1000 {
		return rr.UntilFailure{}, &session.ArgError{Arg: "until_failure.max_attempts", Msg: "must be between 1 and 1000"}
	}
	if u.Budget < 0 || u.Budget > maxRecordSeconds {
		return rr.UntilFailure{}, &session.ArgError{Arg: "until_failure.budget", Msg: "must be a positive number of seconds"}
	}
	return rr.UntilFailure{ExitCode: u.ExitCode, Signal: u.Signal, OutputContains: u.OutputContains, MaxAttempts: u.MaxAttempts, Budget: seconds(u.Budget)}, nil
}

// listIn is the input of a tool that returns a list: its limit.
type listIn struct {
	sessionArg
	Limit int `json:"limit,omitempty" jsonschema:"most entries to return (default 64, at most 10000); the reply says how many it left out"`
}

func (l *listIn) check() error { return inRange("limit", &l.Limit, 64, 10000) }
