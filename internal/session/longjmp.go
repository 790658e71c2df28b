package session

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/rrmcp/rrmcp/rsp"
)

// Step-resume breakpoints and longjmp breakpoints, as GDB 13 uses them in
// a step, next or nexti over a call (infrun.c, breakpoint.c).

// stepResume runs forward to ret, the return address of a call made at
// stack pointer sp, as GDB's step-resume breakpoint at the caller does
// (insert_step_resume_breakpoint_at_caller): a hit there ends the run only
// in the frame that made the call, by GDB's frame id (bpstat_check_
// breakpoint_conditions compares it with frame 0's): the same stack
// (returnedTo) and the same function. A call that never returns (longjmp,
// abort) at the end of a function has its return address at the first
// byte of the next function: the frame there is never the caller's, and
// the run goes on to whatever else stops it (a breakpoint, the exit), as
// GDB's does. On i386, GDB's longjmp breakpoints may end it too
// (longjmpHalts): the thread stops there, s.halt says why, and done is
// false.
func (s *Session) stepResume(ctx context.Context, ret, sp uint64) (st rsp.Stop, done bool, err error) {
	back := returnedTo(sp)
	if f := s.funcStart(ctx, ret-1); f != s.funcStart(ctx, ret) {
		back = func(uint64) bool { return false }
	}
	lj := s.longjmpStops(ctx)
	if len(lj) == 0 {
		return s.runTo(ctx, ret, false, back)
	}
	addrs := append([]uint64{ret}, slices.DeleteFunc(lj, func(a uint64) bool { return a == ret })...)
	st, done, err = s.runToAny(ctx, addrs, false, false, func(sp uint64) bool {
		pc, _, err := s.inf.PCSP(ctx, s.inf.Cur)
		if err != nil {
			return false
		}
		if pc == ret {
			return back(sp)
		}
		return s.longjmpHalts(ctx, sp)
	})
	if err == nil && done && s.halt != "" {
		return st, false, nil
	}
	return st, done, err
}

// funcStart returns the runtime entry of the function holding pc (its
// DWARF, else its ELF symbol), GDB's get_frame_func of a frame 0 at pc; 0
// where none is known.
func (s *Session) funcStart(ctx context.Context, pc uint64) uint64 {
	img, bias, ok := s.inf.Module(ctx, pc)
	if !ok || img == nil || pc < bias {
		return 0
	}
	if f := img.FuncAt(pc - bias); f != nil {
		return f.Entry + bias
	}
	if _, off, ok := img.SymbolAt(pc - bias); ok {
		return pc - off
	}
	return 0
}

// longjmpNames are the functions GDB puts its longjmp master breakpoints
// on (breakpoint.c longjmp_names) where the C library has no longjmp
// SystemTap probes (Debian's glibc has none).
var longjmpNames = []string{"longjmp", "_longjmp", "siglongjmp", "_siglongjmp"}

// longjmpEntries returns the entries of longjmpNames' functions in the
// program and its libraries (runtime addresses), where GDB's longjmp
// breakpoints are during a step, next or nexti (step_command_fsm_prepare).
func (s *Session) longjmpEntries(ctx context.Context) []uint64 {
	// (read again: libc may be loaded since the list was first read)
	as := s.inf.ReloadAddressSpace(ctx)
	if as == nil {
		return nil
	}
	var key strings.Builder
	for _, m := range as.Modules() {
		fmt.Fprintf(&key, "%s@%#x;", m.Path, m.Bias)
	}
	if s.lj.key == key.String() {
		return s.lj.addrs
	}
	var addrs []uint64
	for _, name := range longjmpNames {
		locs, err := as.LookupName(name)
		if err != nil {
			continue
		}
		for _, l := range locs {
			if a := l.Symbol.Addr + l.Module.Bias; l.Symbol.InCode() && !slices.Contains(addrs, a) {
				addrs = append(addrs, a)
			}
		}
	}
	s.lj.key, s.lj.addrs = key.String(), addrs
	return addrs
}

// longjmpStops returns where a step's run over a call must stop to do
// what GDB's longjmp breakpoints do: on i386 (GDB's i386 Linux target
// reads the jmp_buf's pc: jb_pc_offset 20), the longjmp functions'
// entries. On x86-64 GDB cannot read it (amd64 Linux has no jb_pc_offset)
// and its longjmp breakpoint's hit goes on (BPSTAT_WHAT_SET_LONGJMP_
// RESUME, !gdbarch_get_longjmp_target): nothing to stop for.
func (s *Session) longjmpStops(ctx context.Context) []uint64 {
	if !s.inf.I386() {
		return nil
	}
	return slices.Clone(s.longjmpEntries(ctx))
}

// i386JmpBufPC is where glibc's i386 jmp_buf keeps the pc (GDB's
// i386-linux-tdep.c jb_pc_offset).
const i386JmpBufPC = 20

// longjmpHalts is GDB's handling of its longjmp breakpoint's hit on i386
// with the thread at the entry of a longjmp function, stack pointer sp
// (infrun.c BPSTAT_WHAT_SET_LONGJMP_RESUME): the jmp_buf (the first
// argument) gives the pc the longjmp resumes at, where GDB inserts a
// breakpoint. glibc keeps that pc mangled (PTR_MANGLE), so it is no code
// address: where it is no address at all the insertion fails, and GDB
// stops here with its warning (keep_going's failed insert_breakpoints);
// where it is readable, or the jmp_buf is not, GDB goes on, and so does
// this (true: stop, with s.halt set).
func (s *Session) longjmpHalts(ctx context.Context, sp uint64) bool {
	var b [4]byte
	if n, err := s.inf.ReadMem(ctx, sp+4, b[:]); err != nil || n != 4 {
		return false
	}
	jb := uint64(binary.LittleEndian.Uint32(b[:]))
	if n, err := s.inf.ReadMem(ctx, jb+i386JmpBufPC, b[:]); err != nil || n != 4 {
		return false
	}
	target := uint64(binary.LittleEndian.Uint32(b[:]))
	if n, err := s.inf.ReadMem(ctx, target, b[:1]); err == nil && n == 1 {
		return false
	}
	s.halt = fmt.Sprintf("Stopped at the longjmp: its resume address in the jmp_buf, %#x (mangled by the C library), cannot take a breakpoint (GDB: \"Cannot insert breakpoint 0. Cannot access memory at address %#x\").", target, target)
	return true
}
