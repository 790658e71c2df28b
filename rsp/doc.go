// Package rsp is a client for the GDB Remote Serial Protocol, written to
// drive rr's replay server (`rr replay -s PORT`), GNU gdbserver and QEMU's
// gdbstub directly, forward and in reverse.
//
// # Usage
//
//	c, err := rsp.Dial(ctx, "127.0.0.1:1234", rsp.Options{Dialect: rsp.DialectRR, RRVersion: "5.6.0"})
//	defer c.Close()
//	rip, _ := c.Target().Lookup("rip")                  // registers by name, never by number
//	g, _ := c.ReadRegisters(ctx, rsp.AnyThread)         // one g for all registers (cached until resume)
//	pc, _ := c.Target().Uint(g, "rip")
//	_ = c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, addr, 0)
//	stop, _ := c.Continue(ctx)                          // cancel ctx to interrupt
//	stop, _ = c.ReverseContinue(ctx)                    // bc (only if advertised)
//	if stop.AtHistoryStart { ... }
//
// Entry points: Dial / NewClient (handshake), Features, Target (*TargetDesc
// with Lookup), StopReason (?), ReadRegisters (g), ReadRegister (slice of g,
// or p), ReadRegisterByName, ReadRegisterUint, WriteRegister (P, or g/G),
// ReadMemory (m chunked by PacketSize; x with binary-upload+), WriteMemory
// (X on rr, M elsewhere), InsertBreakpoint / RemoveBreakpoint (Z/z 0–4
// with the client's own table), InsertBreakpointLater /
// RemoveBreakpointLater (the same, sent with the next resume), Continue, ContinueWithSignal, Step,
// Resume (raw vCont), ReverseContinue (Hc-1 + bc), ReverseStep (Hc<tid> +
// bs), Interrupt (0x03, from any goroutine), Threads (qfThreadInfo), SelectThread
// (Hg/Hc), Auxv, ExecFile, ReadXfer, VFileSetFS / VFileOpen /
// VFilePread / VFileClose / ReadFile, RRCmd (qRRCmd in both formats), When,
// WhenTicks, WhenTid, Checkpoint, Checkpoints, DeleteCheckpoint, Restart /
// SeekEvent / SeekTicks / RestoreCheckpoint (vRun + dummy resume + breakpoint
// re-insertion), Monitor (qRcmd), PassSignals (QPassSignals), CurrentThread
// (qC), Detach, Kill, Close, and Exchange for raw requests.
// Tracepoints (trace.go): SupportsTracepoints, DefineTraceRun (QTinit,
// QTBuffer:size, QTDV and QTDP with R/M/X actions and a condition, in
// one write), TraceStart, TraceStop, TraceStatus (qTStatus) and
// TraceBuffer (qTBuffer, the raw frames). Fast tracepoints (Tracepoint.Fast, QTDP's
// F field; gdbserver's in-process agent): MinFastTracepointLen
// (qTMinFTPILen), LookupSymbols (serves qSymbol, which tells gdbserver
// the agent's symbols) and TraceStartRelocating (serves the qRelocInsn
// requests nested in QTStart's reply with a Relocator). Pure parsers:
// ParseStop, ParseThread, ParseTargetDesc, ParseTraceStatus,
// ParseTraceFrames, ParseRelocRequest, SignalFromLinux.
//
// The other side of the wire: code that plays the server (rrmcp's relay
// for GDB, test fakes) reads requests with [RequestReader] and frames
// replies with [AppendFrame]; both run the framing the client runs.
//
// # Concurrency
//
// A Client is not safe for concurrent use; the caller serialises calls
// (internal/session holds a mutex). Interrupt is the exception: it may be
// called from another goroutine while Continue/Step/ReverseContinue is
// blocked, and the blocked call returns the resulting stop.
//
// # Cancellation
//
// Every call that can block takes a context. Short requests are bounded by
// read deadlines set from context.AfterFunc; a reply abandoned that way is
// read and dropped before the next request, so the stream stays in sync.
// Cancelling a resume sends 0x03 and keeps reading until the stop arrives
// (bounded by Options.InterruptTimeout, after which the connection is
// closed); the call returns that stop together with the context's error.
// Writes have no deadlines. After any interrupt the client sends a qC probe
// before its next request and discards stop replies that arrive before its
// answer (rr answers a late 0x03 with an extra T00, rr-rsp.md §12.22).
//
// # Errors
//
// *Error is an "Exx" reply; an empty reply gives an error matching
// ErrUnsupported; bytes that break the protocol give *ProtocolError; a dead
// or closed connection gives errors matching ErrClosed; a request the
// dialect forbids gives *RefusedError (matches ErrRefused) without anything
// being sent; resuming after the process exited gives ErrExited; QEMU's E14
// at the start of its replay log matches ErrHistoryStart. Nothing panics on
// server input; the decoders are fuzzed.
//
// # Glossary
//
//   - Packet: "$payload#cs", cs = sum of payload bytes mod 256 as two hex
//     digits. Notification: "%payload#cs" (never acknowledged; skipped).
//   - Ack mode: each packet is answered with "+" (or "-" to request a
//     retransmission). QStartNoAckMode turns acks off; rr and gdbserver
//     offer it, QEMU does not (it retransmits until it sees "+").
//   - RLE: "X*n" repeats X n-29 more times. gdbserver run-length encodes
//     every reply, binary ones included; rr and QEMU never do.
//   - Escapes: binary payloads (X requests; qXfer, vFile:pread, x replies)
//     escape '#', '$', '}', '*' as '}' followed by the byte xor 0x20.
//   - Thread id: "p<pid>.<tid>" (hex) with multiprocess+, else "<tid>";
//     "-1" = all, "0" = any.
//   - Stop reply: T<sig>[k:v;]… with thread, core, watch/rwatch/awatch,
//     swbreak, hwbreak, replaylog, expedited registers (regnum:hex);
//     S<sig>; W<code>[;process:pid] (exited); X<sig>[;process:pid]
//     (killed). Signals use GDB numbering (see Signal): SIGUSR1 is 0x1e.
//   - Target description: target.xml from qXfer:features:read, with
//     xi:include (rr) or inline <feature>s (gdbserver); register numbers
//     follow document order unless regnum= resets them; g-packet offsets
//     are cumulative byte sizes in register-number order.
//
// # Dialects and rr quirks
//
// Dialect (auto-detected from qSupported unless set) decides what is
// refused locally. For every server: bc/bs unless ReverseContinue+ /
// ReverseStep+ were advertised (qemu-user answers them twice and the
// stream desynchronises), and z for a breakpoint not in the client's table.
// For gdbserver: vCont with the ptid p-1.-1 (gdbserver exits). For rr
// (rr-rsp.md §12, §14), each of which makes rr exit, ASSERT or FATAL:
// qSupported without ':'; vRun without ';', with a filename, or with a
// non-hex argument; Z0/Z1 with a kind other than 1 (4 on aarch64); z for
// something never inserted; qThreadExtraInfo; qGetTLSAddr (use fs_base);
// qXfer:siginfo:read (starts a diversion); qXfer:features:read of an annex
// target.xml did not include; qRRCmd in the pre-5.8 format on rr >= 5.8 (and
// vice versa: a bad thread id); qRRCmd checkpoint without an argument;
// malformed m/M/X/H/Z packets; vFile:open with mode > 0777; and any resume
// after W00.
//
// Other rr behaviour the client absorbs:
//
//   - "?" must precede target.xml (gdbserver asserts otherwise); the
//     handshake does that.
//   - The interrupt reply is T00 (gdbserver/QEMU: T02).
//   - Reverse continue honours Hc: the client sends Hc-1 (Hcp-1.-1) before
//     every bc, and Hc<tid> before bs.
//   - Start of history: "replaylog:begin" (rr >= 5.9) or a bare T00 while
//     reversing (older rr); Stop.AtHistoryStart covers both when no
//     interrupt was sent. QEMU answers E14 instead (ErrHistoryStart).
//   - End of history: T09 (Stop.AboutToExit; state still readable, reverse
//     still possible), then W00 on the next forward resume; after that only
//     Restart or Detach.
//   - vRun (Restart) clears every breakpoint and watchpoint, and the first
//     resume after it returns T00 without moving: the client sends a
//     throw-away continue and re-inserts its table.
//   - "k" is never answered (rr exits): EOF after k is success.
//   - Memory and register writes only work inside diversions (E01 / empty).
//   - The qRRCmd format depends on rr's version (Options.RRVersion); the
//     reply is hex text, decoded by RRCmd.
//   - rr replays one thread at a time: Step may report a stop in another
//     thread; always read Stop.Thread.
//
// On QEMU "?" deletes all breakpoints; StopReason re-inserts the table.
//
// Forward resumes from a pc that holds a table breakpoint first step over
// it (remove, single-step, re-insert), as gdb and delve do; servers may
// otherwise re-report the same breakpoint. Options.NoStepOver turns it off.
// A thread that stopped at a hardware breakpoint's own report on x86
// under gdbserver needs none: the kernel's resume flag (RF) lets its next
// instruction run past the debug register, so the resume is a plain one
// (stepover.go's resumeFlagPasses; not after a register write, nor where
// a step only landed on the breakpoint).
// RangeStep makes the step over and the range step one resume: the
// breakpoint is out for the whole range (the caller checks that nothing
// in it leads back there). ContinuePast does the same for a continue, for
// a caller that knows no thread comes back to the pc before the next stop
// (a finish whose function returns without passing there again). The
// removal goes out in the same write as the resume, and the re-insertion
// with the next one.
//
// # Packet log
//
// Options.PacketLog (an io.Writer) gets one line per packet with a UTC
// timestamp and direction; Options.Logger gets the same at debug level.
// Options.PacketRing keeps the last packets raw and makes the same lines
// when read (PacketRing.Lines).
package rsp
