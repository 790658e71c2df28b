// Package gdbdiff holds the GDB-differential test of rrmcp's symbol and
// DWARF engine as the server runs it (issue 3). It has no API: everything is in its _test.go
// files and testdata/.
//
// For every program in testprogs/ (C and C++, -O0 and -O2 builds) the test
// reads a table of stop points (testdata/stops.txt): function and
// file:line breakpoints with a hit number, watchpoints on globals, and
// signal stops (the crash). Each program runs twice, each time under its
// own gdbserver started the same way (same binary, arguments, directory
// and environment, ASLR disabled by gdbserver), so both runs see
// identical addresses:
//
//   - GDB's side: gdb --interpreter=mi3 connected with -target-select
//     remote; breakpoints with -break-insert, watchpoints with -break-watch,
//     and at each stop -stack-list-frames, -stack-list-variables
//     --all-values and -data-evaluate-expression.
//   - the session side: the product, internal/session, connected to its
//     gdbserver like rr_connect, using SetBreakpoint, SetWatchpoint,
//     Continue, Backtrace, Locals and Evaluate: the path every tool call
//     takes (rsp to the server, dwarf and symbols for what a stop shows).
//     An expression the session answers through its GDB/MI fallback
//     counts as a difference.
//
// An i386 (-m32) program runs under gdbserver where the kernel executes
// i386 programs, and under QEMU user mode (qemu-i386 -g PORT) where it
// cannot (RRMCP_I386_PEER=gdbserver or qemu-i386 forces one): every side
// of that program, GDB's included, uses the same peer, and stops the peer
// cannot make (QEMU has no watchpoints) are logged as not compared. The
// differential passes under both peers; a known difference that holds
// under one peer only names its program "prog@qemu-i386".
//
// Both sides follow the same script: run to main, insert every stop's
// breakpoint or watchpoint, continue, count hits, and record a stop when
// its hit number is reached (then remove that breakpoint). A write
// watchpoint counts only hits that change the value, as GDB's does.
//
// The session side is compared with GDB; field names carry the side
// ("session:bt", "session:var:i"). The fields compared at a stop are: the
// breakpoint addresses; the arguments of every frame (which checks the
// registers the unwinder recovers for callers); the variables of up to six
// caller frames in the program's own sources (libc frames hold
// per-process random data: pointer-guard mangled jmp_bufs, canaries); the
// backtrace (function, source file base name and line of every frame);
// every local and argument of frame 0 with its value; and the value of
// every expression in the table, where "x:EXPR" is a memory read compared
// as GDB's x/4xb prints it (address, <symbol+offset>, bytes; GDB with
// "set print asm-demangle on", so that x names code as print does)
// against rr_read_memory's, "i:EXPR" a disassembly (GDB's x/16i against
// rr_disassemble's) and "t:EXPR" and "w:EXPR" GDB's ptype and whatis
// against rr_ptype's; the real-world stops have these at the pc and for
// their variables. The test prints
// "gdb-differential: N stops, M agree" and fails unless every difference
// is listed with a reason and both expected values (ours and GDB's) in
// testdata/known_differences.txt; a listed field that differs in any other
// way fails, and an entry that no longer differs fails the test as stale.
//
// Normalisations (each hides only presentation, never a value):
//   - source files are compared by base name (GDB's "file" is the name in
//     the line table, ours the full path);
//   - variables are compared by name, not by order (GDB lists the innermost
//     block first, then the arguments and outer blocks);
//   - when both sides fail to evaluate an expression they agree, whatever
//     the wording of the error; an error on one side only is a difference;
//   - runs of white space in values are collapsed to one space;
//   - variables are printed by rr_locals as MI prints them
//     (common_val_print) and compared as they are; expressions are printed
//     as GDB's print command does, and MI drops print's "(TYPE) " before a
//     top-level pointer or reference, so that prefix is removed from them;
//     a top-level value that is entirely "<error: …>" is an error in MI;
//   - in the per-frame argument lists, GDB's NAME@entry items (entry
//     values, "print entry-values default") are left out; frame 0's
//     variables still compare them, so that gap is listed once per stop;
//   - when one side cannot list variables at all, the variable sets are
//     compared as one field ("vars").
//
// Flags (go test ./internal/gdbdiff -run GDBDifferential -args …):
// -show logs every compared field, also the agreeing ones; -prune removes
// stale entries from known_differences.txt (never adds any). -run
// 'TestGDBDifferential/progs/NAME$' compares one program.
//
// The stops expect GDB 13 and glibc's separate debug file (Debian:
// libc6-dbg), which GDB and the session both read for libc frames; without
// them the test skips (fails with CI=true).
//
// The real-world differential (realworld_test.go) runs the same drivers,
// session side against GDB, on programs we did not write, from Debian
// source packages that realworld/Makefile fetches once (apt-get source)
// and builds into realworld/build: lua 5.4 (gcc, in its source tree; also
// -m32), cJSON's test program (clang, CMake out of tree) and pugixml's
// traverse_walker sample (g++, CMake out of tree), each at -O0 and -O2.
// Its stops are testdata/realworld_points.txt; the expressions of
// testdata/realworld_stops.txt are generated mechanically from GDB's
// variable objects at each stop (-regen-realworld): every local and
// argument, a cast of each scalar and pointer, and each child one level
// down (struct members, pointer targets, array elements, with GDB's path
// expressions). It prints "real-world-differential: N stops, M agree;
// expressions E/T agree" and fails on a difference not listed with its
// reason in testdata/realworld_known.txt, or on a stale entry there.
//
// Each side runs under a deadline; a side that does not return (a decoder
// looping without looking at its context) fails the test, and its
// processes are killed, instead of hanging it.
package gdbdiff
