package session

import "github.com/rrmcp/rrmcp/dwarf/format"

// Kind names a backend.
type Kind string

const (
	KindRR      Kind = "rr"      // rr replay -s
	KindLive    Kind = "live"    // a program under gdbserver
	KindConnect Kind = "connect" // any RSP address
)

// Caps is what a backend can do. Code asks for a capability, never for a
// backend kind.
type Caps struct {
	Reverse     bool `json:"reverse" jsonschema:"reverse execution (bc/bs)"`
	Events      bool `json:"events" jsonschema:"rr event numbers and ticks"`
	Checkpoints bool `json:"checkpoints" jsonschema:"rr checkpoints"`
	Seek        bool `json:"seek" jsonschema:"jump to an event (vRun)"`
}

// Info summarizes a session.
type Info struct {
	ID       string `json:"id" jsonschema:"session id; pass it as session to other tools"`
	Backend  Kind   `json:"backend" jsonschema:"rr, live, connect or core"`
	Address  string `json:"address" jsonschema:"RSP address of the debug server (host:port, or the path of its Unix-domain socket: qemu-i386); for a live session's gdbserver, which speaks on a socket pair, its pid"`
	Program  string `json:"program,omitempty" jsonschema:"the debuggee's executable"`
	TraceDir string `json:"trace_dir,omitempty"`
	PID      int    `json:"pid,omitempty" jsonschema:"process id of the debuggee (recorded pid for rr)"`
	Caps     Caps   `json:"capabilities"`
	Attached bool   `json:"attached,omitempty" jsonschema:"the session attached to a running process, which keeps running when the session stops"`
	State    string `json:"state" jsonschema:"stopped, running, exited, unresponsive (the debug server has not answered requests: calls fail until it does, and the session is declared dead if no reply comes within the interrupt bound), dead (the connection to the debug server is gone; stop the session) or closed"`
	// Watchpoints says whether watchpoints use the hardware debug
	// registers here, and why (the probe's verdict; live sessions).
	Watchpoints string `json:"watchpoints,omitempty"`
	// Server says why the debug server is not the backend's usual one
	// (an i386 program on a kernel that cannot run it: qemu-i386).
	Server string `json:"server,omitempty"`
	// Registers says what the debug server does to the program's
	// registers on this processor, where that is wrong, and what rrmcp
	// does about it (gdbserver before GDB 14 on AMD with AVX-512).
	Registers string `json:"registers,omitempty" jsonschema:"where the debug server corrupts registers on this processor (gdbserver before GDB 14 on AMD with AVX-512): what it does and what rrmcp does about it"`
	// Cancelled is where the last command, cancelled by the client, left
	// the program (its result may not have reached the client).
	Cancelled *Stop `json:"cancelled,omitempty" jsonschema:"when the client cancelled the last command: where the program stopped (reason cancelled)"`
}

// Location is a code address with whatever the symbols say about it.
type Location struct {
	PC       string `json:"pc" jsonschema:"runtime address, hex"`
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Module   string `json:"module,omitempty" jsonschema:"shared object, when not the main program"`
	Source   string `json:"source,omitempty" jsonschema:"text of the source line"`
}

// Frame is one stack frame.
type Frame struct {
	Level int `json:"level"`
	Location
	Inlined bool `json:"inlined,omitempty"`
	// TailCall marks a frame found from the call-site information, for
	// a function that tail-called (jumped to) the frame below it: it has
	// no stack frame of its own, and its pc is after the tail jump.
	TailCall bool   `json:"tail_call,omitempty" jsonschema:"a function that tail-called the frame below: found from call-site information, no stack frame of its own (GDB shows such frames where it can find them)"`
	CFA      string `json:"cfa,omitempty"`
}

// WatchHit describes a watchpoint trigger.
type WatchHit struct {
	Number     int    `json:"number,omitempty" jsonschema:"watchpoint number"`
	Expression string `json:"expression,omitempty"`
	Address    string `json:"address"`
	Kind       string `json:"kind" jsonschema:"write, read or access"`
	Old        string `json:"old,omitempty" jsonschema:"value before the access (when known)"`
	New        string `json:"new,omitempty" jsonschema:"value after the access"`
	Value      string `json:"value,omitempty" jsonschema:"the value, for a read or an access that left it unchanged (then old and new are not given)"`
	Mechanism  string `json:"mechanism,omitempty" jsonschema:"hardware watchpoint or software watchpoint"`
	Error      string `json:"error,omitempty" jsonschema:"the watched expression could not be evaluated here (a variable it reads is no longer known: value has been optimized out); the watchpoint was deleted, as GDB does"`
}

// Position is where an rr replay is: last completed event and the tick
// count of the current thread.
type Position struct {
	Event int64 `json:"event"`
	Ticks int64 `json:"ticks"`
}

// Stop is the result of every operation that moves the target.
type Stop struct {
	// Reason is one of: breakpoint, watchpoint, watchpoint-scope (a
	// watchpoint's frame returned: WatchScope), step, signal, exited,
	// killed, interrupted (a time limit or rr_interrupt), cancelled (the
	// client cancelled the command), history-start, history-end, timeout,
	// started.
	Reason        string    `json:"reason"`
	Thread        string    `json:"thread,omitempty"`
	Frame         *Frame    `json:"frame,omitempty"`
	Signal        string    `json:"signal,omitempty" jsonschema:"signal name, e.g. SIGSEGV"`
	SignalMeaning string    `json:"signal_meaning,omitempty"`
	Breakpoint    int       `json:"breakpoint,omitempty" jsonschema:"number of the breakpoint that was hit"`
	Watch         *WatchHit `json:"watch,omitempty"`
	// AlsoBreakpoint is a breakpoint hit at a watchpoint's stop: the
	// trap left the pc at its address.
	AlsoBreakpoint int         `json:"also_breakpoint,omitempty" jsonschema:"a breakpoint hit at this watchpoint stop too: the write's trap left the pc at its address (its hit is counted)"`
	ExitCode       *int        `json:"exit_code,omitempty"`
	Position       *Position   `json:"position,omitempty" jsonschema:"rr event and ticks"`
	Icount         int64       `json:"icount,omitempty" jsonschema:"QEMU replay, rr_goto: the instruction count arrived at"`
	Output         *OutputSize `json:"output,omitempty" jsonschema:"bytes the program has written so far (rr_output reads them)"`
	ReturnValue    string      `json:"return_value,omitempty" jsonschema:"finish: the value the function returned"`
	// ReturnHistory is the returned value's number in the value history.
	ReturnHistory int    `json:"return_history,omitempty" jsonschema:"finish: the returned value's number in the value history ($N in later expressions)"`
	Message       string `json:"message,omitempty" jsonschema:"extra explanation"`
	Cancelled     string `json:"cancelled,omitempty" jsonschema:"the operation the client cancelled (continue, reverse continue, rr_query, rr_last_write…) that ended at this stop"`
	// WatchScope numbers the watchpoints deleted at this stop because
	// the frame whose variables they watched returned (GDB's "left the
	// block in which its expression is valid").
	WatchScope []int `json:"watch_scope,omitempty" jsonschema:"watchpoints deleted at this stop because the frame whose variables they watched has returned"`
}

// Breakpoint is a breakpoint or watchpoint the session manages.
type Breakpoint struct {
	Number    int      `json:"number"`
	Type      string   `json:"type" jsonschema:"breakpoint, watchpoint, read-watchpoint or access-watchpoint"`
	Location  string   `json:"location" jsonschema:"as given"`
	Addresses []string `json:"addresses,omitempty"`
	Function  string   `json:"function,omitempty"`
	File      string   `json:"file,omitempty"`
	Line      int      `json:"line,omitempty"`
	Condition string   `json:"condition,omitempty"`
	// ConditionBy says who evaluates the condition (agentcond.go).
	ConditionBy string `json:"condition_evaluated_by,omitempty" jsonschema:"server: compiled to agent bytecode at the first hit, so hits where it is false cost no stop; rrmcp: evaluated at every hit (floating point, calls, or a server without target-side conditions); absent before the first hit"`
	Enabled     bool   `json:"enabled"`
	Temporary   bool   `json:"temporary,omitempty"`
	Hits        int    `json:"hits"`
	Size        int    `json:"size,omitempty" jsonschema:"watched bytes"`
	Expression  string `json:"expression,omitempty"`
	Pending     bool   `json:"pending,omitempty" jsonschema:"not resolved yet: set when the shared libraries are loaded"`
	Mechanism   string `json:"mechanism,omitempty" jsonschema:"watchpoints: hardware watchpoint (debug registers) or software watchpoint (single-stepping); breakpoints asked for as hardware: hardware breakpoint or software breakpoint (the note says why)"`
	Note        string `json:"note,omitempty" jsonschema:"why a watchpoint or a breakpoint asked for as hardware is a software one, and what it costs"`
}

// Thread is one thread of the debuggee.
type Thread struct {
	ID      string `json:"id" jsonschema:"RSP thread id (pPID.TID); pass to rr_thread_select"`
	TID     int    `json:"tid"`
	Current bool   `json:"current"`
	Name    string `json:"name,omitempty"`
	Frame   *Frame `json:"frame,omitempty"`
}

// Value is a formatted value.
type Value struct {
	Name  string `json:"name,omitempty"`
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
	// Kind is "local", "argument", "entry" (NAME@entry: an argument's
	// value at the function's entry, as GDB lists it, when the caller's
	// call-site information gives it) or "" (expression result).
	Kind    string `json:"kind,omitempty"`
	Address string `json:"address,omitempty"`
	Error   string `json:"error,omitempty" jsonschema:"why the value is not available (optimized out, …)"`
	// NoLocation: the compiler recorded no location for the variable in
	// this function (or inlined copy), so it is optimized out at every
	// pc, not only at this one (GDB's LOC_OPTIMIZED_OUT).
	NoLocation bool `json:"no_location,omitempty" jsonschema:"the compiler kept no location for it in this function: optimized out at every pc, not only here"`
}

// Register is one register value.
type Register struct {
	Name  string `json:"name"`
	Value string `json:"value" jsonschema:"hex"`
	// Natural is a decimal or symbolic rendering when useful (rip → function+off).
	Natural string `json:"natural,omitempty"`
}

// SourceLine is one numbered line of source.
type SourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

// Instruction is one disassembled instruction.
type Instruction struct {
	Address string `json:"address"`
	Bytes   string `json:"bytes"`
	Text    string `json:"text" jsonschema:"AT&T syntax as GDB prints it; branch targets and RIP-relative operands named <sym+off>"`
	Symbol  string `json:"symbol,omitempty" jsonschema:"function+offset of the address"`
	Current bool   `json:"current,omitempty"`
}

// Checkpoint is an rr checkpoint.
type Checkpoint struct {
	ID    int    `json:"id"`
	Event int64  `json:"event,omitempty"`
	Where string `json:"where,omitempty"`
}

// EvalResult is the value of an expression.
type EvalResult struct {
	Expression string `json:"expression"`
	Value      string `json:"value"`
	Type       string `json:"type,omitempty"`
	Address    string `json:"address,omitempty" jsonschema:"address of the lvalue, if it has one"`
	// Engine is "native" (rrmcp's evaluator) or "gdb" (the GDB/MI fallback).
	Engine string `json:"engine" jsonschema:"which evaluator answered: native or gdb"`
	// History is the value's number in the value history (GDB's $N).
	History int `json:"history,omitempty" jsonschema:"the value's number in the value history: later expressions name it $N ($ is the last value, $$ the one before, $$N N before the last), a copy as it was now"`
	// Parts are the value's parts when asked for (EvalOptions.Expand),
	// the tree in pre-order.
	Parts []ValuePart `json:"parts,omitempty" jsonschema:"members, elements or the pointee of the value and of its parts, in pre-order: each part's level says how deep it is (1: a part of the value itself)"`
	// PartsCut says that parts were left out.
	PartsCut bool `json:"parts_cut,omitempty" jsonschema:"some parts were left out (the depth asked for, the element limit or the bound on parts in all)"`
	// Warnings are what the evaluation warned of, as GDB's warnings.
	Warnings []string `json:"warnings,omitempty" jsonschema:"what the evaluation warned of, as GDB does (left shift count >= width of type): the value stands"`
}

// ValuePart is one part of an expanded value.
type ValuePart struct {
	Level int `json:"level" jsonschema:"1 for a part of the value, 2 for a part of that part, ..."`
	// Name is a member name, "[3]" for an element, "<Base>" for a base
	// class, "static x", "*p" for the pointee of p, "[key]" for a map.
	Name    string `json:"name"`
	Type    string `json:"type"`
	Value   string `json:"value"`
	Address string `json:"address,omitempty"`
	Error   string `json:"error,omitempty"`
	// Cut says that parts of this part were left out.
	Cut bool `json:"cut,omitempty"`
}

// valueParts flattens the children of a structured value in pre-order.
func valueParts(vs []format.Value, level int, out []ValuePart) []ValuePart {
	for _, v := range vs {
		out = append(out, ValuePart{Level: level, Name: v.Name, Type: v.Type, Value: v.Value, Address: v.Address, Error: v.Error, Cut: v.Truncated})
		out = valueParts(v.Children, level+1, out)
	}
	return out
}

// Memory is a block of target memory.
type Memory struct {
	Address string `json:"address"`
	Count   int    `json:"count"`
	Hex     string `json:"hex" jsonschema:"the bytes as hex, no separators"`
	Symbol  string `json:"symbol,omitempty" jsonschema:"symbol+offset of the start address"`
	Stopped string `json:"stopped,omitempty" jsonschema:"why fewer bytes than asked were read: the first address that cannot be read"`
}

// Source is a range of lines of one source file.
type Source struct {
	File  string       `json:"file"`
	Lines []SourceLine `json:"lines"`
}
