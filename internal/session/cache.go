package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/rsp"
)

const memBlock = 4096

// memCache holds target memory in aligned 4 KiB blocks for one stop.
type memCache struct {
	blocks map[uint64][]byte
	bad    map[uint64]bool // blocks that could not be read whole
}

func (m *memCache) reset() {
	m.blocks = nil
	m.bad = nil
}

// readMem reads target memory through the block cache. Blocks that cannot
// be read whole (the edge of a mapping) are read byte-exact, uncached.
func (s *Session) readMem(ctx context.Context, addr uint64, p []byte) (int, error) {
	if s.mem.blocks == nil {
		s.mem.blocks = map[uint64][]byte{}
		s.mem.bad = map[uint64]bool{}
	}
	n := 0
	for n < len(p) {
		a := addr + uint64(n)
		base := a &^ (memBlock - 1)
		off := int(a - base)
		want := min(len(p)-n, memBlock-off)
		blk, ok := s.mem.blocks[base]
		if !ok && !s.mem.bad[base] {
			b := make([]byte, memBlock)
			if _, err := s.c.ReadMemory(ctx, base, b); err == nil {
				s.mem.blocks[base] = b
				blk, ok = b, true
			} else {
				if ctx.Err() != nil || errors.Is(err, rsp.ErrClosed) {
					return n, err
				}
				s.mem.bad[base] = true
			}
		}
		if ok {
			copy(p[n:n+want], blk[off:off+want])
			n += want
			continue
		}
		m, err := s.c.ReadMemory(ctx, a, p[n:n+want])
		n += m
		if err != nil {
			return n, fmt.Errorf("cannot access memory at %#x: %w", a+uint64(m), err)
		}
	}
	return n, nil
}

// memFunc adapts readMem to dwarf's ReadMemoryFunc.
func (s *Session) memFunc(ctx context.Context) dwarf.ReadMemoryFunc {
	return func(addr uint64, p []byte) (int, error) { return s.readMem(ctx, addr, p) }
}

// regs returns the registers of thread t as DWARF-numbered values.
func (s *Session) regs(ctx context.Context, t rsp.Thread) (dwarf.Regs, error) {
	var r dwarf.Regs
	g, err := s.c.ReadRegisters(ctx, t)
	if err != nil {
		return r, err
	}
	if s.regMap == nil {
		td := s.c.Target()
		if td == nil {
			return r, fmt.Errorf("the server sent no register description: %w", ErrUnsupported)
		}
		s.regMap = []regSlot{}
		for _, reg := range td.Registers {
			if n, ok := dwarf.RegNum(reg.Name); ok {
				s.regMap = append(s.regMap, regSlot{off: reg.Offset, size: reg.Size(), num: n})
			}
		}
	}
	for _, rs := range s.regMap {
		if rs.off+rs.size <= len(g) {
			r.SetBytes(rs.num, g[rs.off:rs.off+rs.size])
		}
	}
	return r, nil
}

// regSlot maps a register of the g packet to its DWARF number.
type regSlot struct{ off, size, num int }

// pc returns the program counter of thread t.
func (s *Session) pc(ctx context.Context, t rsp.Thread) (uint64, error) {
	r, err := s.regs(ctx, t)
	if err != nil {
		return 0, err
	}
	return r.PC(), nil
}
