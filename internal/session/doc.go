// Package session is the one place in rrmcp that knows both the wire and the
// symbols. A [Session] joins an RSP connection (package rsp) to a debug
// server, the ELF symbols of the debuggee (package symbols) and its DWARF
// (package dwarf), and turns requests such as "step backward" or "where am
// I" into packets and a stop reply into a [Stop].
//
// # Backends
//
// A session is started by one of three backends, which differ only in how
// the server is started and stopped and in what it can do ([Caps]):
//
//   - rr: `rr replay -s 0` on a recorded trace; reverse execution, event
//     positions and checkpoints ([Manager.StartRR]);
//   - live: a program launched under (or attached to by) gdbserver, for
//     machines without a PMU where rr cannot record; forward only
//     ([Manager.StartLive]);
//   - connect: any RSP address, such as QEMU's gdbstub or a gdbserver started
//     by someone else ([Manager.Connect]); capabilities are read from the
//     server's qSupported reply.
//
// Code asks [Session.Caps] instead of testing which backend it is.
//
// What needs no session lives elsewhere: the process's registers, memory
// and loaded images at a stop are internal/inferior (the session owns one
// per connection and tells it when the process moves); recording, listing, packing and
// removing rr traces is internal/rr ([rr.Traces], which the tools call
// directly); checking a program's command line, working directory and
// environment before it is launched is internal/proc (shared with
// rr_record); the program's captured output is internal/outlog, the
// source-file policy internal/sources, what an x86 instruction does
// (control flow, stores, relocation, room for a jump pad's jump)
// internal/x86code, what a query's tracepoint collects internal/traceplan,
// starting a live program's debug server proc.StartLive, and answering a
// debugger from a core file coredump.Server. The crash report (rr_triage) is
// internal/triage, an analysis built on this package's exported
// operations (machine.go: the stop, registers, raw memory and decoded
// instructions for such analyses).
//
// # Concurrency
//
// A [Manager] holds several sessions; each session serializes its
// operations with a lock. A call made while a resume (continue, step,
// finish…) runs fails at once with [ErrNotStopped] instead of waiting;
// [Session.Interrupt] does not take the lock, so it can stop that resume.
// Every operation is bounded by its RR_MCP_TIMEOUT_* limit ([Timeouts]);
// a resume that runs out of time (or whose caller goes away) is
// interrupted and the session stays usable.
//
// # Execution
//
// Source-level step, next and finish are built here from single-steps,
// the line table and temporary breakpoints (at return addresses, with a
// stack check for recursion); their reverse variants use the server's
// bs/bc the same way. Both directions follow GDB's model of inlined calls
// (stepping.go): a call starting at the pc is hidden until "step" goes
// into it, "next" goes through the inlined calls of its line, and finish
// of an inlined frame steps out of it. User breakpoints stay inserted across resumes, and
// conditions are evaluated by rrmcp at each reported hit; on gdbserver a
// condition that compiles to agent bytecode (package agentexpr) goes with
// the breakpoint from its first hit on, so that the server reports only
// the hits where it holds (agentcond.go). One that stays with rrmcp
// moves its breakpoint to a free debug register where hardware
// breakpoints fire, so that each false hit resumes in one round trip,
// not in a step over; a watchpoint takes the register back (hwpass.go).
// As in GDB, a write
// watchpoint reports only writes that change the value, and continuing a
// live program after a signal stop delivers the signal.
//
// # Queries
//
// [Session.Query] (rr_query) runs forward collecting rows. Kind calls
// stops at each call where it must (rr, QEMU: mechanism "breakpoint");
// on gdbserver the rows after the first are collected by a tracepoint
// the server runs without reporting the hits (mechanism "tracepoint",
// tracequery.go), and read in bulk at the end; the first hit, a real
// stop, plans (package traceplan) and checks what the tracepoint
// collects. With gdbserver's
// in-process agent preloaded (LiveOptions.InProcessAgent) the same plan
// runs as a fast tracepoint (mechanism "fast tracepoint",
// fasttrace.go): a jump to a jump pad in the program, no trap per call,
// where the instruction at the address is long enough for the jump, the
// function is not a leaf (the red zone) and the server builds the pad
// (not for a PIE: the pads lie below 2 GiB); MechanismNote says why
// not otherwise.
//
// # Expressions
//
// Expressions are evaluated by package dwarf in the selected frame; what
// it reports unsupported goes to GDB/MI (internal/gdbmi) connected to the
// same target through a read-only relay (internal/relay), started on
// first use.
//
// # Caches
//
// What the process holds at a stop is read through its
// [inferior.Inferior]: registers, memory in 256-byte lines, the program's
// and libraries' images. A stop is reported from the pc its reply carried;
// all registers, the stack's top and the lines read at the previous stop
// at the same pc are asked for with it, in one batch, and read by the first
// look at it (PrefetchStop), or earlier, between the client's calls
// (Manager.Idle, which rrmcp's stdio transport calls once a reply is out). That cache, the thread list and the frames are
// dropped on every resume or write (invalidate).
//
// # Errors
//
// The error vocabulary is small: [ErrNoSession], [ErrNotStopped],
// [ErrNoReverse], [ErrUnsupported], [ErrExited], [ErrTimeout] and
// [*ArgError] for bad input (errkind's, the same type internal/rr and
// internal/proc return). Package tools turns them into messages that say
// what to do next.
package session
