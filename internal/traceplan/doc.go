// Package traceplan decides what a tracepoint must collect at each hit
// of a function so that the values a query asks for can be evaluated
// later from the trace frames alone, and says it to the server as a
// trace run.
//
// The plan is made from the first hit, a real stop: the session
// evaluates the query's expressions there with every memory read logged,
// and Classify sorts the reads into the stack window around the frame
// (collected relative to the stack pointer), the writable static data of
// the program (collected at fixed addresses, whole objects), and the
// rest, which PlanChases reaches through pointers found in the registers,
// the window and the statics (collected by agent bytecode that follows
// the same pointers at each hit). Read-only data of the program is never
// collected: it is read from the file.
//
// A Plan then gives the trace run (Run: trace state variables recording
// the registers, the collection actions, a counter of frames, and the
// stop rule StopRule for the query's breakpoint), the size of one frame
// in the trace buffer (FrameSize, Chunk), the frame the plan would
// collect at a live stop (LiveFrame, to check the plan on the first row),
// and, for each frame read back, its registers (Registers) and its
// memory (Snapshot: what the frame lacks is a NotCollectedError). Blocks
// gdbserver recorded from a failed read are dropped by DropUnreadable.
//
// The package reads nothing itself: the session passes the registers and
// memory of the stop as functions. Its caller is the session's calls
// query (internal/session, tracequery.go and fasttrace.go); the wire
// format of trace runs and frames is package rsp's.
package traceplan
