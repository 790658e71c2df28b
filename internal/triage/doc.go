// Package triage writes rr_triage's crash report: the stop's signal and
// what it means, the faulting instruction decoded with its operands'
// values, the backtrace with each frame's arguments, the crashing frame's
// locals and, on a backend with history, the last writer of the faulting
// pointer.
//
// It is an analysis built on a session's exported operations
// ([session.Session.StopState], [session.Session.Instruction],
// [session.Session.ReadBytes], Backtrace, Locals, LastWrite): nothing
// here speaks to the debug server or reads DWARF itself, so the report
// holds exactly what the single-purpose tools would answer at the same
// stop.
package triage
