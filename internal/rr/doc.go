// Package rr runs the rr debugger's command-line tool for rrmcp: it finds
// out whether rr can work on this machine (Probe), records programs
// (Record), starts `rr replay -s 0` and learns the debug port from rr's own
// output (StartReplay), and lists and inspects trace directories.
//
// The RSP conversation with the replay is not this package's business: a
// caller connects to Replay.Addr with package rsp (dialect rr, version from
// Replay.Version), says goodbye over the protocol (D or k) and then calls
// Replay.Stop, which ends whatever is left of the rr process group and
// always waits for it.
//
// rr's output never reaches rrmcp's stdout (which belongs to MCP): the
// replayed program's writes and rr's messages are drained into a bounded
// ring, available through Replay.Output and in error messages.
//
// # Recordings
//
// [Traces] is the recording lifecycle the tools drive (rr_record with its
// until_failure loop, rr_list_recordings, rr_ps, rr_traceinfo, rr_pack,
// rr_rm) on the recordings of one trace root. It needs no debugging
// session, so package tools calls it directly, not through
// internal/session. Its methods take the tools' arguments and check them
// (an *errkind.ArgError names the bad one), turn rr's known failures into
// one sentence with the fix ([Failure.Explain], which the session's rr
// replay uses too), and return the typed results the tools print.
// [Traces.Remove] deletes only a recording directly under the trace root
// that looks like an rr trace, with every symbolic link resolved first.
//
// See docs/rr-rsp.md §1 for rr's command line and what it prints.
package rr
