package inferior

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
	"golang.org/x/arch/x86/x86asm"
)

// Inferior is the debugged process as seen through one connection to its
// debug server. Its methods are not safe for concurrent use: the session
// that owns it serializes them.
type Inferior struct {
	c       *rsp.Client
	program string // the program's path; "" when the server did not say
	pid     int    // a local process whose /proc/PID/maps can be read; 0 otherwise

	// Img is the main program's debug information, nil without it (ImgErr
	// says why); Syms its ELF symbols (Img.Symbols()), Bias its load bias,
	// Auxv the process's auxiliary vector (nil where it could not be
	// read). Set by Load, never changed after.
	Img    *dwarf.Image
	ImgErr error
	Bias   uint64
	Syms   *symbols.File
	Auxv   symbols.Auxv

	// Cur is the selected thread: the one whose stack the memory cache
	// reads ahead.
	Cur rsp.Thread

	stops  int // stops seen (Invalidate); the library list is re-read at most once per stop
	mem    memCache
	libs   *libs // shared libraries, loaded on demand
	regMap []regSlot
	trs    map[*dwarf.Image]*dwarf.TypeReader
	insns  map[uint64]x86asm.Inst // decoded code, kept across stops (code.go)
}

// New returns the inferior behind c running program (its path, "" when
// unknown). pid is the process id where the process is local, so that its
// memory map can be read from /proc, else 0.
func New(c *rsp.Client, program string, pid int) *Inferior {
	return &Inferior{c: c, program: program, pid: pid, Cur: rsp.AnyThread}
}

// Load opens the main program's debug information and computes its load
// bias from the auxiliary vector. A failure is kept in ImgErr (matching
// errkind.NoDebugInfo): the inferior still works at the machine level.
func (inf *Inferior) Load(ctx context.Context) {
	if inf.program == "" {
		inf.ImgErr = fmt.Errorf("the server did not say which program it runs (pass program to rr_connect): %w", errkind.NoDebugInfo)
		return
	}
	img, err := dwarf.Open(inf.program)
	if err != nil {
		inf.ImgErr = fmt.Errorf("cannot read %s: %v: %w", inf.program, err, errkind.NoDebugInfo)
		return
	}
	inf.Img, inf.Syms = img, img.Symbols() // one mapping and one table of the program
	if t := img.ELF().Type; t != elf.ET_DYN && t != elf.ET_EXEC {
		return
	}
	// The auxiliary vector finds the library list (modules.go), of a
	// position-dependent program too, and a PIE's load bias.
	if b, err := inf.c.Auxv(ctx); err == nil {
		if av, err := symbols.ParseAuxv(b, inf.PtrSize(), binary.LittleEndian); err == nil {
			if e, ok := av[symbols.AT_ENTRY]; ok {
				if img.ELF().Type == elf.ET_DYN {
					inf.Bias = e - img.ELF().Entry
				}
				inf.Auxv = av
			}
		}
	}
}

// Invalidate drops what was read at the last stop: the process runs, or
// its memory or registers were written.
func (inf *Inferior) Invalidate() {
	inf.stops++
	inf.mem.reset()
}

// Close releases the program's and the libraries' files. A nil Inferior
// has nothing to close.
func (inf *Inferior) Close() {
	if inf == nil {
		return
	}
	if inf.libs != nil {
		inf.libs.close()
	}
	if inf.Img != nil {
		inf.Img.Close() // and inf.Syms, the image's
	}
}

// Types is the type reader of img's DWARF, made once; nil without DWARF.
func (inf *Inferior) Types(img *dwarf.Image) *dwarf.TypeReader {
	if img == nil || img.DWARF() == nil {
		return nil
	}
	if inf.trs == nil {
		inf.trs = map[*dwarf.Image]*dwarf.TypeReader{}
	}
	tr, ok := inf.trs[img]
	if !ok {
		tr = dwarf.NewTypeReader(img.DWARF())
		inf.trs[img] = tr
	}
	return tr
}

// Images are the images read so far: the program's (when it has one)
// and those of the libraries looked at.
func (inf *Inferior) Images() []*dwarf.Image {
	var out []*dwarf.Image
	if inf.Img != nil {
		out = append(out, inf.Img)
	}
	if inf.libs != nil {
		for _, img := range inf.libs.imgs {
			if img != nil {
				out = append(out, img)
			}
		}
	}
	return out
}

// BeforeLibs reports whether the dynamic linker has not loaded the
// program's libraries yet (the program has not reached main).
func (inf *Inferior) BeforeLibs(ctx context.Context) bool {
	if inf.Img == nil || inf.Auxv == nil || len(inf.Img.FuncsByName("main")) == 0 {
		return false
	}
	_, err := symbols.LoadedModules(ctx, inf.MemFunc(ctx), inf.Auxv, inf.program, inf.Layout())
	return errors.Is(err, symbols.ErrNotInitialized)
}

// Maps is the memory map of a local process (/proc/PID/maps), or nil.
func (inf *Inferior) Maps() []symbols.Mapping {
	if inf.pid <= 0 {
		return nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", inf.pid))
	if err != nil {
		return nil
	}
	maps, err := symbols.ParseMaps(string(b))
	if err != nil {
		return nil
	}
	return maps
}
