// Package x86code answers what the debugger asks of x86 machine code,
// one decoded instruction (golang.org/x/arch/x86/x86asm) at a time:
//
//   - where it can send control (flow.go): whether it may leave the
//     straight line at all, whether nothing falls through it, whether a
//     function's code from a pc reaches its returns without coming back
//     (ReturnsWithout: a finish may leave the breakpoint there out);
//   - what memory it may write (store.go), for software watchpoints;
//   - which 64-bit register holds the one it names (regs.go), for
//     reading operands;
//   - which instructions a fast tracepoint's jump displaces and whether
//     they may move (room.go), and how to move them to another address
//     (reloc.go), for the jump pads.
//
// Every answer errs on the side that keeps the debugger correct: an
// instruction that may transfer control or write memory is reported as
// doing so.
package x86code
