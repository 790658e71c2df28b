package session

import (
	"context"
	"fmt"
	"strings"
)

// QueryOptions describes an execution-wide query, run forward from the
// current stop.
type QueryOptions struct {
	Kind       string   // "calls" or "writes"
	Function   string   // calls: the function (any breakpoint location works)
	Expression string   // writes: the lvalue whose changes to list
	Collect    []string // calls: expressions evaluated at each call
	Condition  string   // calls: only calls where this holds (evaluated in the server where it can)
	Limit      int      // rows to return (default 20)
	Cursor     int      // number of the first row (a previous result's NextCursor; default 1)
	// Progress, if set, hears of each row collected.
	Progress func(rows int, msg string)
}

// QueryRow is one numbered moment of a query.
type QueryRow struct {
	N        int               `json:"n" jsonschema:"hit number from where the query started (live); the row's moment"`
	Frame    *Frame            `json:"frame,omitempty"`
	Values   map[string]string `json:"values,omitempty" jsonschema:"collected expressions (calls)"`
	Old      string            `json:"old,omitempty" jsonschema:"writes: value before"`
	New      string            `json:"new,omitempty" jsonschema:"writes: value after"`
	Position *Position         `json:"position,omitempty" jsonschema:"rr event and ticks"`
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
}

// Query runs the program forward collecting one row per call of a
// function (kind calls) or per change of a value (kind writes), up to
// Limit rows. Conditions go to the server as agent bytecode where it
// evaluates them (agentcond.go), so a false condition costs no round
// trip; each row costs one stop plus the reads of its values.
func (s *Session) Query(ctx context.Context, o QueryOptions) (*QueryResult, error) {
	if o.Limit <= 0 {
		o.Limit = 20
	}
	if o.Cursor <= 0 {
		o.Cursor = 1
	}
	res := &QueryResult{Kind: o.Kind}
	var bp Breakpoint
	var err error
	switch o.Kind {
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
		return nil, argErrorf("kind", "%q is not calls or writes", o.Kind)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		rctx := context.WithoutCancel(ctx)
		if s.exited == nil {
			s.RemoveBreakpoint(rctx, bp.Number) //nolint:errcheck
		}
	}()
	for {
		st, err := s.Continue(ctx, false)
		if err != nil {
			return res, err
		}
		res.Stop = st
		if st.Breakpoint != bp.Number || (st.Reason != "breakpoint" && st.Reason != "watchpoint") {
			res.Ended = st.Reason
			if st.Reason == "breakpoint" || st.Reason == "watchpoint" {
				res.Note = fmt.Sprintf("Another breakpoint (#%d) stopped the query; run it again to go on.", st.Breakpoint)
			}
			return res, nil
		}
		row := QueryRow{N: o.Cursor + len(res.Rows), Frame: st.Frame, Position: st.Position}
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
		res.Rows = append(res.Rows, row)
		if o.Progress != nil {
			o.Progress(len(res.Rows), fmt.Sprintf("row %d of at most %d", row.N, o.Cursor+o.Limit-1))
		}
		if len(res.Rows) == o.Limit {
			res.Ended, res.More = "limit", true
			res.NextCursor = row.N + 1
			res.Note = fmt.Sprintf("Cut at %d rows; the program is stopped at row %d: run the same query with cursor=%d for the rest.", o.Limit, row.N, row.N+1)
			return res, nil
		}
	}
}
