// Package inferior is the debugged process at its current stop, as rrmcp
// sees it through a debug server (an rsp.Client): its registers, its
// memory and the program and libraries loaded in it, with the debug
// information of each.
//
// What it reads it keeps until the process moves (Invalidate): memory in
// aligned lines, the stack's top and the lines read at the previous stop
// at the same pc fetched with the registers in one round trip (memory.go);
// read-only data from the program's file, never from the server; the
// library list from the dynamic linker's list in memory, re-read when a pc
// falls outside every known module (modules.go). Registers are numbered as
// dwarf.Regs numbers them, and named as the server's target description
// names them, x86-64 or i386 (arch.go).
//
// An Inferior is the machine-level layer under a session (package
// session): the session decides when the process moves and what a stop
// means; the Inferior answers what is in it now. Its methods are not safe
// for concurrent use.
package inferior
