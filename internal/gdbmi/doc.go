// Package gdbmi drives one `gdb --interpreter=mi3` per session as the
// fallback evaluator for C++ expressions rrmcp's own evaluator reports
// unsupported (overloaded operators, template methods, casts GDB resolves
// better, libstdc++ pretty printers and xmethods).
//
// GDB is connected with `target remote` to the session's read-only relay
// (package internal/relay), never to the debug server itself: rr accepts one
// client, and GDB must not move, change or detach the target. GDB's own
// may-write-memory, may-write-registers, may-insert-breakpoints and
// may-call-functions switches are turned off too, so it refuses writes and
// inferior calls with a clear message before it even tries.
//
// Because GDB never sees the target run, [GDB.Evaluate] flushes its register
// and memory caches and selects the session's thread and frame before each
// evaluation.
//
// [ParseRecord] is the MI output parser: pure, table-tested and fuzzed.
package gdbmi
