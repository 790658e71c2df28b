// Package qemu records and replays a small guest with QEMU's system-mode
// record/replay (-icount rr=record / rr=replay) and serves the replay over
// QEMU's gdbstub. It is the reverse-execution peer rrmcp's RSP client is
// tested against on machines where rr cannot run (docs/peers.md §2, §8.2):
// QEMU >= 10 answers bc/bs, reverse breakpoints and watchpoints, E14 at the
// start of the log and W00 at its end.
//
// Sockets are created by us and handed to QEMU as file descriptors (QMP and
// the gdbstub), so their addresses are known before QEMU starts and there
// is nothing to poll for. The guest's serial port is QEMU's stdout, read
// line by line: Record waits for the guest's "done" line with the caller's
// deadline.
//
// QEMU 10.0 replay can deadlock in a reverse seek (a few in a thousand
// operations on an idle machine, far more under load): Replay.Kill ends it
// with SIGKILL, the only signal a deadlocked QEMU obeys. Callers bound every
// reverse operation with a deadline and retry with a fresh replay.
package qemu
