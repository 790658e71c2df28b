package session

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/symbols"
)

// libs are the shared libraries of the process, read from the dynamic
// linker's list in target memory.
type libs struct {
	as    *symbols.AddressSpace
	imgs  map[string]*dwarf.Image
	files map[string]*symbols.File // the mapped files behind imgs
	stops int                      // s.stops when the list was read
}

func (l *libs) close() {
	if l.as != nil {
		l.as.Close()
	}
	for _, img := range l.imgs {
		if img != nil {
			img.Close()
		}
	}
	for _, f := range l.files {
		f.Close() // closes its debug file too
	}
}

// loadLibs returns the library list, reading it the first time. The list
// changes only when the program loads or unloads libraries; module()
// re-reads it (reloadLibs) when a pc falls outside every known module.
func (s *Session) loadLibs(ctx context.Context) *libs {
	if s.libs != nil {
		return s.libs
	}
	return s.reloadLibs(ctx)
}

// layout is how the program lays out words in memory.
func (s *Session) layout() symbols.Layout {
	return symbols.Layout{WordSize: s.ptrSize(), ByteOrder: binary.LittleEndian}
}

// reloadLibs re-reads the library list, at most once per stop.
func (s *Session) reloadLibs(ctx context.Context) *libs {
	if s.libs != nil && s.libs.stops == s.stops {
		return s.libs
	}
	if s.auxv == nil || s.img == nil {
		return s.libs
	}
	read := func(addr uint64, p []byte) (int, error) { return s.readMem(ctx, addr, p) }
	mods, err := symbols.LoadedModules(ctx, read, s.auxv, s.program, s.layout())
	if (err != nil || len(mods) < 2) && s.kind == KindLive && s.pid > 0 {
		// Before ld.so has run there is no link map; a local process
		// has /proc/PID/maps.
		if b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/maps", s.pid)); rerr == nil {
			if maps, perr := symbols.ParseMaps(string(b)); perr == nil {
				if mm := symbols.ModulesFromMaps(maps, nil); len(mm) > 0 {
					mods, err = mm, nil
				}
			}
		}
	}
	if err != nil || len(mods) == 0 {
		if s.libs != nil {
			s.libs.stops = s.stops
		}
		return s.libs
	}
	old := s.libs
	l := &libs{as: symbols.NewAddressSpace(mods), imgs: map[string]*dwarf.Image{}, files: map[string]*symbols.File{}, stops: s.stops}
	l.as.ReadMemory = read
	if old != nil {
		l.as.Carry(old.as)
		for p, img := range old.imgs {
			l.imgs[p] = img
		}
		for p, f := range old.files {
			l.files[p] = f
		}
		old.imgs, old.files = nil, nil
		old.close()
	}
	s.libs = l
	return l
}

// module maps a runtime pc to the image covering it and its bias.
func (s *Session) module(ctx context.Context, pc uint64) (*dwarf.Image, uint64, bool) {
	if s.img != nil && pc >= s.bias {
		fpc := pc - s.bias
		if s.img.FuncAt(fpc) != nil {
			return s.img, s.bias, true
		}
		// The program's code without DWARF; a pc elsewhere (the loader,
		// a library) leaves the program's symbol table unread.
		if inText(s.img, fpc) {
			if _, _, ok := s.img.SymbolAt(fpc); ok {
				return s.img, s.bias, true
			}
		}
	}
	l := s.loadLibs(ctx)
	if l == nil {
		return nil, 0, false
	}
	mod, err := l.as.ModuleFor(pc)
	if err != nil {
		if l = s.reloadLibs(ctx); l == nil {
			return nil, 0, false
		}
		mod, err = l.as.ModuleFor(pc)
	}
	if err == nil && mod.VDSO {
		img := s.vdsoImage(ctx, l, mod)
		return img, mod.Bias, img != nil
	}
	if err != nil || mod.Path == "" {
		return nil, 0, false
	}
	if mod.Path == s.program {
		return s.img, s.bias, s.img != nil
	}
	img := s.libImage(l, mod.Path)
	if img == nil {
		return nil, 0, false
	}
	return img, mod.Bias, true
}

// libImage opens (once) the debug information of a library; nil if it
// cannot be read or has no file.
func (s *Session) libImage(l *libs, path string) *dwarf.Image {
	if path == "" || strings.HasPrefix(path, "[") || strings.HasPrefix(path, "linux-vdso") {
		return nil
	}
	if path == s.program {
		return s.img
	}
	img, ok := l.imgs[path]
	if !ok {
		var f *symbols.File
		img, f, _ = openLib(path)
		l.imgs[path] = img
		if f != nil {
			l.files[path] = f
		}
	}
	return img
}

// openLib opens a shared library with its DWARF, read from its separate
// debug file (build-id under /usr/lib/debug, .gnu_debuglink) when the
// library has none, as GDB does: that gives libc frames file:line, locals
// and inlined frames. Both files stay memory-mapped until the returned
// File is closed; the code, .eh_frame and dynamic symbols come from the
// library itself.
func openLib(path string) (*dwarf.Image, *symbols.File, error) {
	sf, err := symbols.Open(path)
	if err != nil {
		return nil, nil, err
	}
	src := dwarf.Sources{Exe: sf.ELF(), Symbols: sf, Section: sf.SectionData, Release: sf.Release}
	if df, err := sf.DWARFFile(); err == nil {
		if dw, err := sf.DWARF(); err == nil {
			src.Debug, src.DWARF, src.Section, src.Release = df.ELF(), dw, df.SectionData, df.Release
		}
	}
	img, err := dwarf.LoadFrom(src)
	if err != nil {
		sf.Close()
		return nil, nil, err
	}
	img.Path = path
	return img, sf, nil
}

// inText reports whether the file address is inside an executable section.
func inText(img *dwarf.Image, a uint64) bool {
	for _, sec := range img.ELF().Sections {
		if sec.Flags&0x4 != 0 && a >= sec.Addr && a < sec.Addr+sec.Size {
			return true
		}
	}
	return false
}

// target is the dwarf view of the stopped process.
func (s *Session) target(ctx context.Context) *dwarf.Target {
	return &dwarf.Target{
		ReadMemory: s.readMem,
		Modules:    s.module,
	}
}

// locate describes a runtime pc: function, file:line, module, source.
func (s *Session) locate(ctx context.Context, pc uint64) Location {
	loc := Location{PC: hexAddr(pc)}
	img, bias, ok := s.module(ctx, pc)
	if ok {
		fpc := pc - bias
		if le, ok := img.PCToLine(fpc); ok {
			loc.File, loc.Line = le.File, le.Line
		}
		if f := img.FuncAt(fpc); f != nil {
			loc.Function = f.Name
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
		if img != s.img {
			loc.Module = filepath.Base(img.Path)
		}
		if loc.Function == "" {
			loc.Function = s.symbolize(ctx, pc) // demangled, as the backtrace names it
		}
		return loc
	}
	if l := s.loadLibs(ctx); l != nil {
		if sl, err := l.as.Lookup(pc); err == nil {
			loc.Function = symbolName(symbols.FrameName(sl.Symbol.Name), sl.Offset)
			loc.Module = filepath.Base(sl.Module.Path)
		}
	}
	return loc
}

// hiddenInline is how many of the innermost calls of chain (the inlined
// calls active at pc, file address fpc) GDB hides at a stop there: those
// that start at the pc (dwarf.HiddenAt), down to one a user breakpoint
// there is set on (a breakpoint on the inlined function, or on the
// address: inlineEntryAt), less those a "step" went into (stepIn).
func (s *Session) hiddenInline(ctx context.Context, chain []dwarf.InlineFrame, pc, fpc uint64) int {
	n := dwarf.HiddenAt(chain, fpc)
	if keep, fn := s.inlineEntryAt(pc); keep {
		for i := 0; i < n; i++ {
			if fn == "" || sameFunc(chain[len(chain)-1-i].Name, fn) {
				n = i
				break
			}
		}
	}
	if s.stepIn > 0 {
		if cur, err := s.pc(ctx, s.cur); err == nil && cur == pc {
			n -= s.stepIn
		}
	}
	return max(n, 0)
}

// addrName names an address as GDB prints one, <name+off>
// (dwarf.Image.AddrName): after a pointer value, in rr_read_memory's and
// the disassembly's addresses, beside the pc in rr_registers. The program
// is tried first, without listing the libraries.
func (s *Session) addrName(ctx context.Context, a uint64) string {
	if s.img != nil && a >= s.bias {
		if name, ok := s.img.AddrName(a-s.bias, s.types); ok {
			return name
		}
	}
	if img, bias, ok := s.module(ctx, a); ok && img != s.img && a >= bias {
		if name, ok := img.AddrName(a-bias, s.types); ok {
			return name
		}
	}
	return ""
}

// symbolize names the function a pc is in, without debug information, as
// a backtrace does: by the last function symbol before it, demangled
// without parameters (symbol+offset), or "".
func (s *Session) symbolize(ctx context.Context, a uint64) string {
	img, bias, ok := s.module(ctx, a)
	if ok {
		if name, off, ok := img.SymbolAt(a - bias); ok {
			return symbolName(symbols.FrameName(name), off)
		}
	}
	if s.img != nil && a >= s.bias {
		if name, off, ok := s.img.SymbolAt(a - s.bias); ok && off < 1<<20 {
			return symbolName(symbols.FrameName(name), off)
		}
	}
	if l := s.loadLibs(ctx); l != nil {
		if sl, err := l.as.Lookup(a); err == nil {
			return symbolName(symbols.FrameName(sl.Symbol.Name), sl.Offset)
		}
	}
	return ""
}

func symbolName(name string, off uint64) string {
	if off == 0 {
		return name
	}
	return fmt.Sprintf("%s+%d", name, off)
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
