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
// See docs/rr-rsp.md §1 for rr's command line and what it prints.
package rr
