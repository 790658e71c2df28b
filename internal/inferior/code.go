package inferior

import (
	"context"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/internal/x86code"
)

// Insn decodes the instruction at pc. Code does not change while we
// debug (we never write memory), so instructions are cached for the
// session. The server hides its breakpoints from m reads.
func (inf *Inferior) Insn(ctx context.Context, pc uint64) (x86asm.Inst, error) {
	mode := 64
	if inf.I386() {
		mode = 32
	}
	return inf.InsnMode(ctx, pc, mode)
}

// InsnMode is Insn for a decoding mode (64, or 32 for i386 targets); an
// inferior is one kind of target, so the cache needs no mode key.
func (inf *Inferior) InsnMode(ctx context.Context, pc uint64, mode int) (x86asm.Inst, error) {
	if in, ok := inf.insns[pc]; ok {
		return in, nil
	}
	// One read for the instructions that follow too: a line's row is
	// decoded from its start to its end (rangeEnd), which would otherwise
	// cost a round trip per instruction the first time.
	b := make([]byte, insnRead)
	n, err := inf.c.ReadMemory(ctx, pc, b)
	if n == 0 {
		return x86asm.Inst{}, err
	}
	in, err := x86code.Decode(b[:n], mode)
	if err != nil {
		return in, err
	}
	if inf.insns == nil || len(inf.insns) > 1<<16 {
		inf.insns = map[uint64]x86asm.Inst{}
	}
	inf.insns[pc] = in
	// The bytes after an instruction are the next one's, up to a jump
	// or return (what follows it may be data or padding). A decode that
	// would need bytes past the read fails (x86code.Decode: x86asm alone
	// would take a cut instruction's first prefix for one, and a later
	// breakpoint would land inside an instruction) and ends the walk.
	for a, rest := pc, b[:n]; !x86code.EndsFlow(in); {
		a, rest = a+uint64(in.Len), rest[in.Len:]
		next, err := x86code.Decode(rest, mode)
		if err != nil {
			break
		}
		if _, ok := inf.insns[a]; !ok {
			inf.insns[a] = next
		}
		in = next
	}
	return inf.insns[pc], nil
}

// insnRead is how many bytes of code Insn reads at once.
const insnRead = 64
