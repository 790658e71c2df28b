package inferior

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
	stops int                      // inf.stops when the list was read
	vdso  uint64                   // where the vDSO's image (as.VDSOImage) was read
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
// changes only when the program loads or unloads libraries; Module
// re-reads it (reloadLibs) when a pc falls outside every known module.
func (inf *Inferior) loadLibs(ctx context.Context) *libs {
	if inf.libs != nil {
		return inf.libs
	}
	return inf.reloadLibs(ctx)
}

// Layout is how the program lays out words in memory.
func (inf *Inferior) Layout() symbols.Layout {
	return symbols.Layout{WordSize: inf.PtrSize(), ByteOrder: binary.LittleEndian}
}

// reloadLibs re-reads the library list, at most once per stop.
func (inf *Inferior) reloadLibs(ctx context.Context) *libs {
	if inf.libs != nil && inf.libs.stops == inf.stops {
		return inf.libs
	}
	if inf.Auxv == nil || inf.Img == nil {
		return inf.libs
	}
	read := func(addr uint64, p []byte) (int, error) { return inf.ReadMem(ctx, addr, p) }
	mods, err := symbols.LoadedModules(ctx, read, inf.Auxv, inf.program, inf.Layout())
	if (err != nil || len(mods) < 2) && inf.pid > 0 {
		// Before ld.so has run there is no link map; a local process
		// has /proc/PID/maps.
		if b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/maps", inf.pid)); rerr == nil {
			if maps, perr := symbols.ParseMaps(string(b)); perr == nil {
				if mm := symbols.ModulesFromMaps(maps, nil); len(mm) > 0 {
					mods, err = mm, nil
				}
			}
		}
	}
	if err != nil || len(mods) == 0 {
		if inf.libs != nil {
			inf.libs.stops = inf.stops
		}
		return inf.libs
	}
	old := inf.libs
	l := &libs{as: symbols.NewAddressSpace(mods), imgs: map[string]*dwarf.Image{}, files: map[string]*symbols.File{}, stops: inf.stops}
	l.vdso, l.as.VDSOImage = vdsoCopy(read, mods, old)
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
	inf.libs = l
	return l
}

// Module maps a runtime pc to the image covering it and its bias.
func (inf *Inferior) Module(ctx context.Context, pc uint64) (*dwarf.Image, uint64, bool) {
	if inf.Img != nil && pc >= inf.Bias {
		fpc := pc - inf.Bias
		if inf.Img.FuncAt(fpc) != nil {
			return inf.Img, inf.Bias, true
		}
		// The program's code without DWARF; a pc elsewhere (the loader,
		// a library) leaves the program's symbol table unread.
		if inText(inf.Img, fpc) {
			if _, _, ok := inf.Img.SymbolAt(fpc); ok {
				return inf.Img, inf.Bias, true
			}
		}
	}
	l := inf.loadLibs(ctx)
	if l == nil {
		return nil, 0, false
	}
	mod, err := l.as.ModuleFor(pc)
	if err != nil {
		if l = inf.reloadLibs(ctx); l == nil {
			return nil, 0, false
		}
		mod, err = l.as.ModuleFor(pc)
	}
	if err == nil && mod.VDSO {
		img := inf.vdsoImage(l, mod)
		return img, mod.Bias, img != nil
	}
	if err != nil || mod.Path == "" {
		return nil, 0, false
	}
	if mod.Path == inf.program {
		return inf.Img, inf.Bias, inf.Img != nil
	}
	img := inf.libImage(l, mod.Path)
	if img == nil {
		return nil, 0, false
	}
	return img, mod.Bias, true
}

// libImage opens (once) the debug information of a library; nil if it
// cannot be read or has no file.
func (inf *Inferior) libImage(l *libs, path string) *dwarf.Image {
	if path == "" || strings.HasPrefix(path, "[") || strings.HasPrefix(path, "linux-vdso") {
		return nil
	}
	if path == inf.program {
		return inf.Img
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

// Target is the dwarf view of the stopped process.
func (inf *Inferior) Target(ctx context.Context) *dwarf.Target {
	return &dwarf.Target{
		ReadMemory: inf.ReadMem,
		Modules:    inf.Module,
	}
}

// AddrName names an address as GDB prints one, <name+off>
// (dwarf.Image.AddrName): after a pointer value, in rr_read_memory's and
// the disassembly's addresses, beside the pc in rr_registers. The program
// is tried first, without listing the libraries.
func (inf *Inferior) AddrName(ctx context.Context, a uint64) string {
	if inf.Img != nil && a >= inf.Bias {
		if name, ok := inf.Img.AddrName(a-inf.Bias, inf.Types); ok {
			return name
		}
	}
	if img, bias, ok := inf.Module(ctx, a); ok && img != inf.Img && a >= bias {
		if name, ok := img.AddrName(a-bias, inf.Types); ok {
			return name
		}
	}
	return ""
}

// Symbolize names the function a pc is in, without debug information, as
// a backtrace and GDB's frame line ("0x… in crash_here ()") do: by the
// last function symbol before it, demangled without parameters, or "".
// The offset into it is not part of the name (the pc says where).
func (inf *Inferior) Symbolize(ctx context.Context, a uint64) string {
	img, bias, ok := inf.Module(ctx, a)
	if ok {
		if name, _, ok := img.SymbolAt(a - bias); ok {
			return symbols.FrameName(name)
		}
	}
	if inf.Img != nil && a >= inf.Bias {
		if name, off, ok := inf.Img.SymbolAt(a - inf.Bias); ok && off < 1<<20 {
			return symbols.FrameName(name)
		}
	}
	name, _, _ := inf.ModuleSymbol(ctx, a)
	return name
}

// AddressSpace is the process's modules (the program, its libraries, the
// vDSO) as the dynamic linker lists them, read once; nil where no list
// can be read.
func (inf *Inferior) AddressSpace(ctx context.Context) *symbols.AddressSpace {
	if l := inf.loadLibs(ctx); l != nil {
		return l.as
	}
	return nil
}

// ReloadAddressSpace is AddressSpace read again, at most once per stop:
// the program may have loaded a library since.
func (inf *Inferior) ReloadAddressSpace(ctx context.Context) *symbols.AddressSpace {
	if l := inf.reloadLibs(ctx); l != nil {
		return l.as
	}
	return nil
}

// SymbolAddr is the run-time address of the ELF symbol name in the
// program or a library (the first module that defines it).
func (inf *Inferior) SymbolAddr(ctx context.Context, name string) (uint64, bool) {
	as := inf.AddressSpace(ctx)
	if as == nil {
		return 0, false
	}
	locs, err := as.LookupName(name)
	if err != nil || len(locs) == 0 {
		return 0, false
	}
	return locs[0].Symbol.Addr + locs[0].Module.Bias, true
}

// ModuleSymbol names pc by the ELF symbol before it in the module holding
// it, without debug information (demangled for a frame, without the
// offset into it), and the module's file name.
func (inf *Inferior) ModuleSymbol(ctx context.Context, pc uint64) (name, module string, ok bool) {
	as := inf.AddressSpace(ctx)
	if as == nil {
		return "", "", false
	}
	sl, err := as.Lookup(pc)
	if err != nil {
		return "", "", false
	}
	return symbols.FrameName(sl.Symbol.Name), filepath.Base(sl.Module.Path), true
}

// LibImage is the debug information of the library at path, opened once
// (from its separate debug file where it has one); nil where it cannot be
// read, or before the library list was read (AddressSpace).
func (inf *Inferior) LibImage(path string) *dwarf.Image {
	if inf.libs == nil {
		return nil
	}
	return inf.libImage(inf.libs, path)
}

// LibSymbols is the ELF symbol table of the library at path, where its
// debug information was opened (LibImage); nil otherwise.
func (inf *Inferior) LibSymbols(path string) *symbols.File {
	if inf.libs == nil {
		return nil
	}
	return inf.libs.files[path]
}
