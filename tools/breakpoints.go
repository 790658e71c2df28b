package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type bpSetIn struct {
	sessionArg
	Location  string `json:"location" jsonschema:"function name (main, ns::Class::method; one overload: ns::Class::method(const char*, int)), file:function (foo.c:helper), file:line (foo.c:42), line number in the current file, or *address (*0x401136)"`
	Condition string `json:"condition,omitempty" jsonschema:"stop only when this C expression is true, e.g. i > 10"`
	Temporary bool   `json:"temporary,omitempty" jsonschema:"delete the breakpoint after its first hit"`
	Hardware  bool   `json:"hardware,omitempty" jsonschema:"a hardware breakpoint (GDB's hbreak): the CPU's debug registers, no int3 written into the code; where they do not fire or the server refuses one, a software breakpoint with a note saying why"`
}

type bpNumIn struct {
	sessionArg
	BreakpointNumber int `json:"breakpoint_number" jsonschema:"breakpoint number from rr_breakpoint_set or rr_breakpoint_list"`
}

type bpCondIn struct {
	sessionArg
	BreakpointNumber int    `json:"breakpoint_number" jsonschema:"breakpoint number"`
	Condition        string `json:"condition,omitempty" jsonschema:"C expression; empty removes the condition"`
}

type watchIn struct {
	sessionArg
	Expression string `json:"expression" jsonschema:"lvalue to watch: a variable (count), a member (n->next), an element (a[3]) or *0xADDR"`
	AccessType string `json:"access_type,omitempty" jsonschema:"write (default), read or access,enum=write,enum=read,enum=access"`
}

type bpOut struct {
	Breakpoint session.Breakpoint `json:"breakpoint"`
}

func (b bpOut) Text() string { return bpText(b.Breakpoint) }

type bpListOut struct {
	Breakpoints []session.Breakpoint `json:"breakpoints"`
}

func (b bpListOut) Text() string {
	if len(b.Breakpoints) == 0 {
		return "No breakpoints or watchpoints."
	}
	var lines []string
	for _, bp := range b.Breakpoints {
		lines = append(lines, bpText(bp))
	}
	return strings.Join(lines, "\n")
}

type removedOut struct {
	Removed int `json:"removed"`
}

func (r removedOut) Text() string { return fmt.Sprintf("Breakpoint #%d removed.", r.Removed) }

func (in *bpSetIn) check() error {
	return notEmpty("location", in.Location, "; give a function, file:line or *address")
}

func (in *watchIn) check() error {
	switch in.AccessType {
	case "":
		in.AccessType = "write"
	case "write", "read", "access":
	default:
		return &session.ArgError{Arg: "access_type", Msg: fmt.Sprintf("%q is not one of write, read, access", in.AccessType)}
	}
	return notEmpty("expression", in.Expression, "")
}

func (r *registry) breakpointTools() {
	addOn(r, "rr_breakpoint_set", "Set breakpoint",
		"Set a breakpoint at a function, file:line, or *address, optionally with a condition. Works in both directions of execution.",
		edit,
		func(ctx context.Context, s *session.Session, in bpSetIn) (bpOut, error) {
			bp, err := s.AddBreakpoint(ctx, session.BreakpointRequest{Location: in.Location, Condition: in.Condition, Temporary: in.Temporary, Hardware: in.Hardware})
			return bpOut{bp}, err
		})

	addOn(r, "rr_breakpoint_remove", "Remove breakpoint",
		"Remove a breakpoint or watchpoint by number.",
		hints{destructive: true, idempotent: true},
		func(ctx context.Context, s *session.Session, in bpNumIn) (removedOut, error) {
			return removedOut{in.BreakpointNumber}, s.RemoveBreakpoint(ctx, in.BreakpointNumber)
		})

	addOn(r, "rr_breakpoint_list", "List breakpoints",
		"List breakpoints and watchpoints with their addresses, conditions and hit counts.",
		inspect,
		func(ctx context.Context, s *session.Session, in noArgs) (bpListOut, error) {
			bps, err := s.Breakpoints(ctx)
			return bpListOut{bps}, err
		})

	for _, on := range []bool{true, false} {
		name, title, desc := "rr_breakpoint_enable", "Enable breakpoint", "Enable a disabled breakpoint or watchpoint."
		if !on {
			name, title, desc = "rr_breakpoint_disable", "Disable breakpoint", "Disable a breakpoint or watchpoint without removing it."
		}
		addOn(r, name, title, desc, edit, func(ctx context.Context, s *session.Session, in bpNumIn) (bpOut, error) {
			bp, err := s.EnableBreakpoint(ctx, in.BreakpointNumber, on)
			return bpOut{bp}, err
		})
	}

	addOn(r, "rr_breakpoint_condition", "Set breakpoint condition",
		"Set or clear (empty condition) the condition of a breakpoint.",
		edit,
		func(ctx context.Context, s *session.Session, in bpCondIn) (bpOut, error) {
			bp, err := s.SetCondition(ctx, in.BreakpointNumber, in.Condition)
			return bpOut{bp}, err
		})

	addOn(r, "rr_watchpoint_set", "Set watchpoint",
		"Set a watchpoint on an lvalue: a hardware one (up to 8 bytes each, 4 at once) where the debug registers work, else a software one (write only, single-stepped; the result's note says why and what it costs). A variable the compiler keeps in a register (-O2) is watched by its value on a live program, as GDB does. With reverse rr_continue it finds the last write to a corrupted value. The stop reports old and new values. An expression whose address is read from memory (p->x, a[i]) follows it, as GDB does: a write to p or i moves the watchpoint, and stops where that changed the value; where p is kept in a register (-O2) it is a software watchpoint that evaluates p->x again after each instruction of its frame, and stops with watch.error where p is no longer known (then it is deleted), as GDB. A bit-field watches its own bits. A watchpoint on a frame's variables (a local, a parameter, this; of an inlined call too) is deleted when that frame returns or the pc leaves the inlined call, and the program stops there (reason watchpoint-scope), as in GDB.",
		edit,
		func(ctx context.Context, s *session.Session, in watchIn) (bpOut, error) {
			bp, err := s.SetWatchpoint(ctx, in.Expression, in.AccessType)
			return bpOut{bp}, err
		})
}
