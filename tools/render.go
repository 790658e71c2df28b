package tools

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/session"
)

// locText renders "function at file:line (pc)" or as much of it as known.
func locText(l session.Location) string {
	var b strings.Builder
	if l.Function != "" {
		b.WriteString(l.Function)
	} else {
		b.WriteString("??")
	}
	if l.File != "" && l.Line > 0 {
		fmt.Fprintf(&b, " at %s:%d", l.File, l.Line)
	}
	if l.Module != "" {
		fmt.Fprintf(&b, " in %s", l.Module)
	}
	fmt.Fprintf(&b, " (%s)", l.PC)
	return b.String()
}

func frameText(f session.Frame) string {
	s := fmt.Sprintf("#%d  %s", f.Level, locText(f.Location))
	if f.Inlined {
		s += " [inlined]"
	}
	if f.TailCall {
		s += " [tail call]"
	}
	return s
}

// stopText renders a stop so that the model learns where it is without a
// second call: reason, signal, location and the source line.
func stopText(st *session.Stop) string {
	if st == nil {
		return "stopped (no details)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped: %s", st.Reason)
	if st.Signal != "" {
		fmt.Fprintf(&b, " (%s", st.Signal)
		if st.SignalMeaning != "" {
			fmt.Fprintf(&b, ", %s", st.SignalMeaning)
		}
		b.WriteString(")")
	}
	if st.ExitCode != nil {
		fmt.Fprintf(&b, ", exit code %d", *st.ExitCode)
	}
	if st.Breakpoint != 0 && st.Watch == nil {
		fmt.Fprintf(&b, ", breakpoint #%d", st.Breakpoint)
	}
	if st.AlsoBreakpoint != 0 {
		fmt.Fprintf(&b, ", also breakpoint #%d", st.AlsoBreakpoint)
	}
	if st.Thread != "" {
		fmt.Fprintf(&b, ", thread %s", st.Thread)
	}
	b.WriteString("\n")
	if w := st.Watch; w != nil {
		fmt.Fprintf(&b, "Watchpoint #%d %s %s", w.Number, w.Kind, w.Expression)
		if w.Address != "" { // (none for a value not in memory)
			fmt.Fprintf(&b, " at %s", w.Address)
		}
		if w.Mechanism != "" {
			fmt.Fprintf(&b, " (%s)", w.Mechanism)
		}
		switch {
		case w.Value != "":
			fmt.Fprintf(&b, ": value = %s", w.Value)
		case w.Old != "" || w.New != "":
			fmt.Fprintf(&b, ": old = %s, new = %s", orQ(w.Old), orQ(w.New))
		}
		b.WriteString("\n")
	}
	if st.Frame != nil {
		fmt.Fprintf(&b, "Location: %s\n", locText(st.Frame.Location))
		if st.Frame.Source != "" {
			fmt.Fprintf(&b, "%d\t%s\n", st.Frame.Line, st.Frame.Source)
		}
	}
	if st.Position != nil {
		fmt.Fprintf(&b, "rr event %d, ticks %d\n", st.Position.Event, st.Position.Ticks)
	}
	if o := st.Output; o != nil && o.Stdout+o.Stderr > 0 {
		fmt.Fprintf(&b, "Program output so far: %d bytes stdout, %d bytes stderr (rr_output)\n", o.Stdout, o.Stderr)
	}
	if st.Message != "" {
		b.WriteString(st.Message + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func infoText(i session.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s (%s backend, %s)", i.ID, i.Backend, i.Address)
	if i.Program != "" {
		fmt.Fprintf(&b, "\nProgram: %s", i.Program)
	}
	if i.TraceDir != "" {
		fmt.Fprintf(&b, "\nTrace: %s", i.TraceDir)
	}
	if i.PID != 0 {
		fmt.Fprintf(&b, "\nPID: %d", i.PID)
	}
	var caps []string
	if i.Caps.Reverse {
		caps = append(caps, "reverse execution")
	}
	if i.Caps.Events {
		caps = append(caps, "rr events")
	}
	if i.Caps.Checkpoints {
		caps = append(caps, "checkpoints")
	}
	if len(caps) == 0 {
		caps = append(caps, "forward execution only")
	}
	fmt.Fprintf(&b, "\nCan do: %s", strings.Join(caps, ", "))
	if i.Watchpoints != "" {
		fmt.Fprintf(&b, "\nWatchpoints: %s", i.Watchpoints)
	}
	if i.Registers != "" {
		fmt.Fprintf(&b, "\nRegisters: %s", i.Registers)
	}
	return b.String()
}

func bpText(bp session.Breakpoint) string {
	var b strings.Builder
	kind := "Breakpoint"
	switch bp.Type {
	case "breakpoint", "hw-breakpoint":
	default:
		kind = "Watchpoint (" + bp.Type + ")"
	}
	fmt.Fprintf(&b, "%s #%d: %s", kind, bp.Number, bp.Location)
	if bp.Function != "" || bp.File != "" {
		fmt.Fprintf(&b, " -> %s", bp.Function)
		if bp.File != "" {
			fmt.Fprintf(&b, " at %s:%d", bp.File, bp.Line)
		}
	}
	if len(bp.Addresses) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(bp.Addresses, ", "))
	}
	if bp.Condition != "" {
		fmt.Fprintf(&b, " if %s", bp.Condition)
		if bp.ConditionBy != "" {
			fmt.Fprintf(&b, " (evaluated by %s)", bp.ConditionBy)
		}
	}
	if bp.Pending {
		b.WriteString(" (pending: resolved when the program's shared libraries are loaded, at main)")
	}
	if !bp.Enabled {
		b.WriteString(" (disabled)")
	}
	if bp.Temporary {
		b.WriteString(" (temporary)")
	}
	fmt.Fprintf(&b, ", hits %d", bp.Hits)
	if bp.Mechanism != "" {
		fmt.Fprintf(&b, " (%s)", bp.Mechanism)
	}
	if bp.Note != "" {
		fmt.Fprintf(&b, "\nNote: %s", bp.Note)
	}
	return b.String()
}

func itoa[T ~int | ~int64](v T) string { return strconv.FormatInt(int64(v), 10) }

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
