// Package proc starts and stops the helper processes rrmcp drives (rr,
// gdbserver, gdb, QEMU) the same careful way every time:
//
//   - each child runs in its own process group and gets SIGKILL if rrmcp dies
//     (Pdeathsig), so nothing is left behind;
//   - stdin is /dev/null unless given, and stdout/stderr are drained line by
//     line into a bounded ring, never onto rrmcp's stdout (which belongs to MCP),
//     or stderr goes to a file read when asked for (Config.StderrFile);
//   - readiness is read from the child's own output (WaitLine), never guessed
//     with a sleep, or there is none to wait for: a live session's gdbserver
//     speaks on a socket pair from its start ([StartGDBServerStdio]);
//   - Stop ends the whole group in steps, SIGTERM then SIGKILL, and always
//     waits for the child.
//
// The program a user asks to run (under gdbserver, or recorded by rr) is
// checked before any helper starts: [CheckLaunch] and [ResolveProgram]
// name the bad argument in an *errkind.ArgError instead of leaving a
// fork/exec failure of the helper to explain it.
//
// [StartLive] picks and starts a live program's debug server: gdbserver
// running it (with gdbserver's in-process agent preloaded for fast
// tracepoints; the program writing its stdout and stderr to files of
// its own) or attached to it, or QEMU user mode's gdbstub for an
// i386 program on a kernel that cannot run one ([I386Probe]).
package proc
