package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/linespec"
	"github.com/rrmcp/rrmcp/rsp"
)

// QueryOptions describes an execution-wide query, run forward from the
// current stop.
type QueryOptions struct {
	Kind       string   // "calls" or "writes"
	Function   string   // calls: the function (any breakpoint location works)
	Expression string   // writes: the lvalue whose changes to list
	Collect    []string // calls: expressions evaluated at each call
	Condition  string   // calls: only calls where this holds (evaluated in the server where it can)
	AtReturn   bool     // calls: also run each call to its return and record the value returned
	Limit      int      // rows to return (default 20)
	Cursor     int      // number of the first row (a previous result's NextCursor; default 1)
	// Mechanism "breakpoint" makes kind calls stop at every call even
	// where a tracepoint could collect the rows; "" picks the fastest.
	Mechanism string
	// Progress, if set, hears of each row collected.
	Progress func(rows int, msg string)
	// traceChunk (tests) bounds the rows of one tracepoint run; 0: as
	// many as the trace buffer takes.
	traceChunk int
}

// QueryRow is one numbered moment of a query.
type QueryRow struct {
	N        int               `json:"n" jsonschema:"hit number from where the query started (live); the row's moment"`
	Frame    *Frame            `json:"frame,omitempty" jsonschema:"where the row is; omitted where it is the same as the row before it in this page (every row of a calls query is at the function's first line)"`
	Values   map[string]string `json:"values,omitempty" jsonschema:"collected expressions (calls)"`
	Old      string            `json:"old,omitempty" jsonschema:"writes: value before"`
	New      string            `json:"new,omitempty" jsonschema:"writes: value after"`
	Position *Position         `json:"position,omitempty" jsonschema:"rr event and ticks"`
	Icount   int64             `json:"icount,omitempty" jsonschema:"QEMU replay: the instruction count of the row (rr_goto icount)"`
	File     string            `json:"file,omitempty" jsonschema:"lines: the source file"`
	Line     int               `json:"line,omitempty" jsonschema:"lines: the line"`
	Hits     int               `json:"hits,omitempty" jsonschema:"lines: times the line was reached"`
	Returned string            `json:"returned,omitempty" jsonschema:"calls with at_return: the value the call returned"`
}

// QueryResult is a page of rows.
type QueryResult struct {
	Kind  string     `json:"kind"`
	Rows  []QueryRow `json:"rows"`
	Ended string     `json:"ended" jsonschema:"why collection stopped: limit, exited, killed, signal, or another stop's reason"`
	// More says the limit cut the rows: the program is stopped at the
	// next row, so the same query again continues from there.
	More       bool   `json:"more"`
	NextCursor int    `json:"next_cursor,omitempty" jsonschema:"pass as cursor to the same query for the rest"`
	Stop       *Stop  `json:"stop,omitempty" jsonschema:"where the session is now"`
	Note       string `json:"note,omitempty"`
	// Mechanism says how kind calls collected the rows: "tracepoint"
	// (the server collected them without stopping: gdbserver), "fast
	// tracepoint" (the in-process agent collected them without a trap:
	// fasttrace.go) or "breakpoint" (a stop per row).
	Mechanism string `json:"mechanism,omitempty" jsonschema:"calls: tracepoint (collected by the server without stopping), fast tracepoint (collected in the program by gdbserver's in-process agent, without a trap) or breakpoint (one stop per row)"`
	// MechanismNote says why a server with tracepoints did not collect
	// the rows with one.
	MechanismNote string `json:"mechanism_note,omitempty" jsonschema:"calls: why the rows were not collected by a tracepoint on a server that has them"`
}

// Query runs the program forward collecting one row per call of a
// function (kind calls) or per change of a value (kind writes), up to
// Limit rows. Conditions go to the server as agent bytecode where it
// evaluates them (agentcond.go), so a false condition costs no round
// trip; each row costs one stop plus the reads of its values.
func (s *Session) Query(ctx context.Context, o QueryOptions) (*QueryResult, error) {
	res, err := s.query(ctx, o)
	if res != nil {
		res.shareFrames()
	}
	return res, err
}

// shareFrames leaves a row's frame out where it is the row before's: a
// page of a calls query says where its rows are once, not a thousand
// times.
func (res *QueryResult) shareFrames() {
	var prev *Frame
	for i := range res.Rows {
		f := res.Rows[i].Frame
		if f == nil {
			continue
		}
		if prev != nil && *f == *prev {
			res.Rows[i].Frame = nil
			continue
		}
		prev = f
	}
}

func (s *Session) query(ctx context.Context, o QueryOptions) (*QueryResult, error) {
	ctx = naming(ctx, "rr_query", true)
	if o.Limit <= 0 {
		o.Limit = 20
		if o.Kind == "lines" {
			o.Limit = 100000
		}
	}
	if o.Cursor <= 0 {
		o.Cursor = 1
	}
	res := &QueryResult{Kind: o.Kind}
	var bp Breakpoint
	var err error
	switch o.Kind {
	case "lines":
		if strings.TrimSpace(o.Function) == "" {
			return nil, argErrorf("function", "is required for kind lines")
		}
		return s.lineCounts(ctx, o.Function, o.Limit, o.Progress)
	case "calls":
		if strings.TrimSpace(o.Function) == "" {
			return nil, argErrorf("function", "is required for kind calls")
		}
		bp, err = s.SetBreakpoint(ctx, o.Function, o.Condition, false)
	case "writes":
		if strings.TrimSpace(o.Expression) == "" {
			return nil, argErrorf("expression", "is required for kind writes")
		}
		bp, err = s.SetWatchpoint(ctx, o.Expression, "write")
	default:
		return nil, argErrorf("kind", "%q is not calls, writes or lines", o.Kind)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		rctx := context.WithoutCancel(ctx)
		if s.exited == nil {
			s.keepingCancelled(func() { s.RemoveBreakpoint(rctx, bp.Number) }) //nolint:errcheck
		}
	}()
	var first queryStart // where the tracepoint path leaves this loop to begin
	if o.Kind == "calls" {
		var done bool
		if first, done, err = s.traceCalls(ctx, o, bp, res); done {
			return res, err
		}
		res.Mechanism = "breakpoint"
	}
	for {
		st, known := first.stop, first.row
		if st == nil {
			st, err = s.Continue(ctx, false)
			if st, err = s.queryCancelled(ctx, st, err); err != nil {
				return res, err
			}
		}
		first = queryStart{}
		res.Stop = st
		if st.Breakpoint != bp.Number || (st.Reason != "breakpoint" && st.Reason != "watchpoint") {
			res.endAt(st)
			return res, nil
		}
		var row QueryRow
		if known != nil { // read by the tracepoint path at this very stop
			row = *known
		} else {
			row = s.hitRow(ctx, o, st, o.Cursor+len(res.Rows))
		}
		if o.AtReturn {
			fin, err := s.Finish(ctx, false)
			if err != nil {
				return res, err
			}
			row.Returned = fin.ReturnValue
			if fin.Reason != "finish" {
				res.Rows = append(res.Rows, row)
				res.Stop, res.Ended = fin, fin.Reason
				res.Note = "The call did not return before this stop."
				return res, nil
			}
		}
		res.Rows = append(res.Rows, row)
		res.report(o, len(res.Rows)-1)
		if len(res.Rows) == o.Limit {
			res.cutAtLimit(o)
			return res, nil
		}
	}
}

// hitRow is row n of a query stopped at st, a hit of its breakpoint or
// watchpoint: the collect expressions evaluated there.
func (s *Session) hitRow(ctx context.Context, o QueryOptions, st *Stop, n int) QueryRow {
	row := QueryRow{N: n, Frame: st.Frame, Position: st.Position, Icount: s.replayIcount(ctx)}
	if st.Watch != nil {
		row.Old, row.New = st.Watch.Old, st.Watch.New
	}
	for _, e := range o.Collect {
		if row.Values == nil {
			row.Values = map[string]string{}
		}
		v, err := s.Evaluate(ctx, e)
		if err != nil {
			row.Values[e] = "<error: " + err.Error() + ">"
			continue
		}
		row.Values[e] = v.Value
	}
	return row
}

// functionLines returns the file of function name and its lines that have
// code, each once (LineToAddrs's lines whose address is in the function).
func (s *Session) functionLines(ctx context.Context, name string) (string, []int, error) {
	var (
		file  string
		lines []int
	)
	err := s.do(ctx, s.to.Breakpoint, func(ctx context.Context) error {
		if s.inf.Img == nil {
			return fmt.Errorf("no debug information for the program, so its lines are unknown: %w", ErrNoDebugInfo)
		}
		fns := s.inf.Img.FuncsByName(name)
		if len(fns) == 0 {
			return argErrorf("function", "no function %q%s", name, linespec.SuggestFunction(s.inf.Img, name))
		}
		f := fns[0]
		le, ok := s.inf.Img.PCToLine(f.Entry)
		if !ok {
			return fmt.Errorf("function %s has no line information: %w", name, ErrNoDebugInfo)
		}
		file = le.File
		for _, n := range s.inf.Img.LinesWithCode(file) {
			addrs, err := s.inf.Img.LineToAddrs(file, n)
			if err != nil {
				continue
			}
			for _, a := range addrs {
				if a.Line == n && a.Function == f {
					lines = append(lines, n)
					break
				}
			}
		}
		return nil
	})
	return file, lines, err
}

// lineCounts runs forward until the program stops for another reason (an
// exit, a signal, another breakpoint) or maxHits hits, counting the hits
// of every line of function fn.
func (s *Session) lineCounts(ctx context.Context, fn string, maxHits int, progress func(int, string)) (*QueryResult, error) {
	file, lines, err := s.functionLines(ctx, fn)
	if err != nil {
		return nil, err
	}
	res := &QueryResult{Kind: "lines"}
	byBP := map[int]int{} // breakpoint number -> row index
	defer func() {
		rctx := context.WithoutCancel(ctx)
		s.keepingCancelled(func() {
			for n := range byBP {
				// (after an exit too: the list must not keep them)
				s.RemoveBreakpoint(rctx, n) //nolint:errcheck
			}
		})
	}()
	for _, n := range lines {
		bp, err := s.SetBreakpoint(ctx, fmt.Sprintf("%s:%d", file, n), "", false)
		if err != nil || bp.Line != n {
			if err == nil {
				s.RemoveBreakpoint(ctx, bp.Number) //nolint:errcheck
			}
			continue
		}
		byBP[bp.Number] = len(res.Rows)
		res.Rows = append(res.Rows, QueryRow{N: len(res.Rows) + 1, Line: n, File: file})
	}
	for hits := 0; ; {
		if hits == maxHits {
			res.Ended, res.More = "limit", true
			res.Note = fmt.Sprintf("Stopped counting after %d hits; the same query again counts on from here.", maxHits)
			return res, nil
		}
		st, err := s.Continue(ctx, false)
		if st, err = s.queryCancelled(ctx, st, err); err != nil {
			return res, err
		}
		res.Stop = st
		i, ok := byBP[st.Breakpoint]
		if st.Reason != "breakpoint" || !ok {
			res.Ended = st.Reason
			return res, nil
		}
		res.Rows[i].Hits++
		hits++
		if progress != nil && hits%100 == 0 {
			progress(hits, fmt.Sprintf("%d line hits", hits))
		}
	}
}

// report sends a progress notification for each row from index from on:
// one per row, on every path of a query.
func (res *QueryResult) report(o QueryOptions, from int) {
	if o.Progress == nil {
		return
	}
	for i := from; i < len(res.Rows); i++ {
		o.Progress(i+1, fmt.Sprintf("row %d of at most %d", res.Rows[i].N, o.Cursor+o.Limit-1))
	}
}

// endAt ends the query at st, a stop that is not one of its rows.
func (res *QueryResult) endAt(st *Stop) {
	res.Ended = st.Reason
	if st.Reason == "breakpoint" || st.Reason == "watchpoint" {
		res.Note = fmt.Sprintf("Another breakpoint (#%d) stopped the query; run it again to go on.", st.Breakpoint)
	}
}

// cutAtLimit ends the query at its last row, the limit reached.
func (res *QueryResult) cutAtLimit(o QueryOptions) {
	last := res.Rows[len(res.Rows)-1].N
	res.Ended, res.More = "limit", true
	res.NextCursor = last + 1
	res.Note = fmt.Sprintf("Cut at %d rows; the program is stopped at row %d: run the same query with cursor=%d for the rest.", o.Limit, last, last+1)
}

// noteOverflow says when a trace run collected fewer calls than it saw.
func (res *QueryResult) noteOverflow(status rsp.TraceStatus) {
	if status.StopReason == "tfull" || status.Created > status.Frames && status.Frames >= 0 {
		res.Note = fmt.Sprintf("The trace buffer overflowed: %d calls were not collected.", status.Created-status.Frames)
	}
}
