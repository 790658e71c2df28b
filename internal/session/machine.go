package session

import (
	"context"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/rsp"
)

// The machine-level view of the current stop, for analyses built on a
// session outside this package (internal/triage): what the server
// reported, the registers, raw memory and decoded instructions. Each
// call takes the session's lock once, like every other operation.

// StopState is the current stop as the debug server reported it.
type StopState struct {
	// Stop is the last stop reply: for a program that is gone, how it
	// ended (StopExited or StopTerminated with its signal).
	Stop rsp.Stop
	// Exited says the program is gone; Regs is then zero.
	Exited bool
	// Thread is the selected thread (rr_thread_select may have moved it
	// off Stop.Thread, the one that stopped), Regs its registers (DWARF
	// numbering).
	Thread rsp.Thread
	Regs   dwarf.Regs
}

// StopState returns the current stop and the selected thread's registers.
// A program that has exited is not an error here: Exited says so, and
// [Session.ExitedError] words the error of an operation that needed it.
func (s *Session) StopState(ctx context.Context) (StopState, error) {
	var out StopState
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if e := s.exited; e != nil {
			out.Stop, out.Exited = *e, true
			return nil
		}
		out.Stop, out.Thread = s.c.LastStop(), s.inf.Cur
		var err error
		out.Regs, err = s.inf.Regs(ctx, s.inf.Cur)
		return err
	})
	return out, err
}

// ExitedError is the error of an operation that needs a live program
// once it has exited: how it ended, then what (what could not be done and
// what to do instead), matching [ErrExited].
func (s *Session) ExitedError(what string) error { return s.exitedErr(what) }

// ReadBytes reads n bytes of the program's memory at addr, through the
// stop's cache; an address that cannot be read is an error.
func (s *Session) ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error) {
	b := make([]byte, n)
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("its memory is gone")
		}
		_, err := s.inf.ReadMem(ctx, addr, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Instruction decodes the instruction at pc, in the target's mode (64-bit,
// or 32-bit for an i386 program).
func (s *Session) Instruction(ctx context.Context, pc uint64) (x86asm.Inst, error) {
	var in x86asm.Inst
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("its code is gone")
		}
		var err error
		in, err = s.inf.Insn(ctx, pc)
		return err
	})
	return in, err
}
