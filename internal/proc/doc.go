// Package proc starts and stops the helper processes rrmcp drives (rr,
// gdbserver, gdb, QEMU) the same careful way every time:
//
//   - each child runs in its own process group and gets SIGKILL if rrmcp dies
//     (Pdeathsig), so nothing is left behind;
//   - stdin is /dev/null unless given, and stdout/stderr are drained line by
//     line into a bounded ring, never onto rrmcp's stdout (which belongs to MCP);
//   - readiness is read from the child's own output (WaitLine), never guessed
//     with a sleep;
//   - Stop ends the whole group in steps, SIGTERM then SIGKILL, and always
//     waits for the child.
package proc
