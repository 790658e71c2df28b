// Package errkind is rrmcp's one error vocabulary: the kinds of failure a
// caller may need to tell apart, shared by every layer (rsp, symbols,
// dwarf, internal/session, tools).
//
// Each package keeps its own sentinel names (rsp.ErrExited,
// dwarf.ErrNotFound, session.ErrNotFound, …) with their own texts, but
// every sentinel is, or matches, one kind here, so a test with errors.Is
// works across layers: an error that says "not found" in package dwarf is
// errors.Is(err, session.ErrNotFound) in the session and gets the same
// advice in a tool error, with no translation and no parsing of messages.
//
// The kinds:
//
//   - NotFound: no function, symbol, file, line, variable, type, thread,
//     frame, breakpoint, checkpoint, module or process matches.
//   - Unsupported: the backend, server, machine or engine cannot do the
//     operation (an empty RSP reply, valid DWARF we cannot evaluate, rr
//     without performance counters).
//   - UnsupportedExpr: the native expression evaluator cannot handle the
//     expression (the session then asks GDB).
//   - Exited: the debuggee has exited; only reverse execution or a restart
//     can continue.
//   - NotStopped: a resume is in flight.
//   - NoReverse: the backend cannot execute backwards.
//   - Timeout: an operation ran past its limit (the session stays usable).
//   - NoSession: no such debugging session.
//   - NoDebugInfo: the program or library has no usable DWARF.
//   - Closed: the connection to the debug server is gone.
//   - Refused: rrmcp refused to send a request that would crash or
//     desynchronise the server.
//   - Malformed: input (ELF, DWARF, XML, a reply) could not be decoded.
//
// Errors carry their kind by wrapping (fmt.Errorf("...: %w", kind)) or,
// where a package needs its own text, by a sentinel made with [New]. Match
// with errors.Is; never look at err.Error().
//
// Bad tool input is an [*ArgError] (made with [Argf]), which names the
// argument; match it with errors.As. [Shorten] cuts what an error message
// echoes of an input.
package errkind
