package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/linespec"
)

// locate describes a runtime pc: function, file:line, module, source.
func (s *Session) locate(ctx context.Context, pc uint64) Location {
	loc := Location{PC: hexAddr(pc)}
	img, bias, ok := s.inf.Module(ctx, pc)
	if ok {
		fpc := pc - bias
		if le, ok := img.PCToLine(fpc); ok {
			loc.File, loc.Line = le.File, le.Line
		}
		if f := img.FuncAt(fpc); f != nil {
			loc.Function = s.funcName(f, img)
			chain := f.InlineChain(fpc)
			if n := s.hiddenInline(ctx, chain, pc, fpc); n > 0 {
				// Like GDB (and the unwinder's frame 0), inlined calls
				// whose first instruction is the pc are not entered yet:
				// the stop is at the call site in their caller.
				in := chain[len(chain)-n]
				loc.File, loc.Line = in.CallFile, in.CallLine
				chain = chain[:len(chain)-n]
			}
			if len(chain) > 0 {
				loc.Function = chain[len(chain)-1].Name // the innermost inlined call
			}
		}
		if loc.File != "" {
			loc.Source = s.sourceLine(loc.File, loc.Line)
		}
		if img != s.inf.Img {
			loc.Module = filepath.Base(img.Path)
		}
		switch {
		case loc.Function != "":
		case img.InSignalTrampoline(fpc):
			loc.Function = dwarf.SignalFrameName // as the backtrace and GDB name it
		default:
			loc.Function = s.inf.Symbolize(ctx, pc) // demangled, as the backtrace names it
		}
		return loc
	}
	if name, mod, ok := s.inf.ModuleSymbol(ctx, pc); ok {
		loc.Function, loc.Module = name, mod
	}
	return loc
}

// hiddenInline is how many of the innermost calls of chain (the inlined
// calls active at pc, file address fpc) GDB hides at a stop there: those
// that start at the pc (dwarf.HiddenAt), down to the one whose block is
// the symbol of a user breakpoint there (the inlined copy a breakpoint on
// the function or line is set on; every one for a breakpoint on the
// address: inlineEntryAt), less those a "step" went into (stepIn).
func (s *Session) hiddenInline(ctx context.Context, chain []dwarf.InlineFrame, pc, fpc uint64) int {
	n := dwarf.HiddenAt(chain, fpc)
	if keep, sym := s.inlineEntryAt(pc); keep {
		for i := 0; i < n; i++ {
			if sym == (linespec.Symbol{}) || sym.Block != 0 && chain[len(chain)-1-i].Offset == sym.Block {
				n = i
				break
			}
		}
	}
	if s.stepIn > 0 {
		if cur, err := s.inf.PC(ctx, s.inf.Cur); err == nil && cur == pc {
			n -= s.stepIn
		}
	}
	return max(n, 0)
}

func hexAddr(a uint64) string { return fmt.Sprintf("%#x", a) }

// sourceLine returns the text of line n of file, or "".
func (s *Session) sourceLine(file string, n int) string {
	lines := s.sourceFile(file)
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n-1], " \t\r")
}

// sourceFile is readSource for frames' source lines: a file that could not
// be read is remembered and not tried again.
func (s *Session) sourceFile(file string) []string {
	return s.src.Quiet(file)
}
