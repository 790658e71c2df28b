package symbols

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// ReadMemoryFunc reads target memory at addr into p and returns the number
// of bytes read. A short read must return an error. Implementations that
// can block should honour their own context.
type ReadMemoryFunc func(addr uint64, p []byte) (int, error)

// Layout describes how the target lays out words in memory.
type Layout struct {
	WordSize  int // 8 for 64-bit targets, 4 for 32-bit ones
	ByteOrder binary.ByteOrder
}

func (l Layout) valid() error {
	if (l.WordSize != 4 && l.WordSize != 8) || l.ByteOrder == nil {
		return fmt.Errorf("%w: layout word size %d", ErrMalformed, l.WordSize)
	}
	return nil
}

// Word decodes the word at the start of b (at least WordSize bytes).
func (l Layout) Word(b []byte) uint64 {
	if l.WordSize == 8 {
		return l.ByteOrder.Uint64(b)
	}
	return uint64(l.ByteOrder.Uint32(b))
}

// readFull reads exactly len(p) bytes.
func readFull(read ReadMemoryFunc, addr uint64, p []byte) error {
	n, err := read(addr, p)
	if err == nil && n < len(p) {
		err = fmt.Errorf("short read (%d of %d bytes)", n, len(p))
	}
	if err != nil {
		return fmt.Errorf("read memory at %#x: %w", addr, err)
	}
	return nil
}

// readString reads a NUL-terminated string of at most max bytes, in
// chunks that do not cross page boundaries.
func readString(read ReadMemoryFunc, addr uint64, max int) (string, error) {
	var out []byte
	for len(out) < max {
		n := pageSize - int(addr%pageSize)
		n = min(n, 256, max-len(out))
		buf := make([]byte, n)
		if err := readFull(read, addr, buf); err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf...)
		addr += uint64(n)
	}
	return "", fmt.Errorf("string at %#x: %w: longer than %d bytes", addr, ErrMalformed, max)
}

// Dynamic is the location of the main program in target memory, found
// through the auxiliary vector.
type Dynamic struct {
	Bias uint64 // load bias of the main program
	Addr uint64 // runtime address of its dynamic section (_DYNAMIC), 0 if static
	Size uint64 // size of the dynamic section
}

const maxPhdrs = 4096

// FindDynamic reads the main program's program headers at AT_PHDR (AT_PHNUM
// entries of AT_PHENT bytes) from target memory and returns its load bias
// (AT_PHDR minus PT_PHDR's address) and the runtime address of PT_DYNAMIC.
func FindDynamic(ctx context.Context, read ReadMemoryFunc, av Auxv, l Layout) (Dynamic, error) {
	if err := l.valid(); err != nil {
		return Dynamic{}, err
	}
	phdr, phnum, phent := av[AT_PHDR], av[AT_PHNUM], av[AT_PHENT]
	want := uint64(56)
	if l.WordSize == 4 {
		want = 32
	}
	if phdr == 0 || phnum == 0 || phnum > maxPhdrs || phent < want || phent > 1024 {
		return Dynamic{}, fmt.Errorf("find dynamic: %w: auxv AT_PHDR=%#x AT_PHNUM=%d AT_PHENT=%d", ErrMalformed, phdr, phnum, phent)
	}
	if err := ctx.Err(); err != nil {
		return Dynamic{}, err
	}
	buf := make([]byte, phnum*phent)
	if err := readFull(read, phdr, buf); err != nil {
		return Dynamic{}, fmt.Errorf("find dynamic: program headers: %w", err)
	}
	type ph struct{ typ, vaddr, memsz uint64 }
	var phs []ph
	for i := uint64(0); i < phnum; i++ {
		b := buf[i*phent:]
		var p ph
		p.typ = uint64(l.ByteOrder.Uint32(b))
		if l.WordSize == 8 {
			p.vaddr, p.memsz = l.ByteOrder.Uint64(b[16:]), l.ByteOrder.Uint64(b[40:])
		} else {
			p.vaddr, p.memsz = uint64(l.ByteOrder.Uint32(b[8:])), uint64(l.ByteOrder.Uint32(b[20:]))
		}
		phs = append(phs, p)
	}
	var d Dynamic
	found := false
	for _, p := range phs {
		if elf.ProgType(p.typ) == elf.PT_PHDR {
			d.Bias, found = phdr-p.vaddr, true
		}
	}
	if !found {
		return Dynamic{}, fmt.Errorf("find dynamic: %w: no PT_PHDR in program headers", ErrMalformed)
	}
	for _, p := range phs {
		if elf.ProgType(p.typ) == elf.PT_DYNAMIC {
			d.Addr, d.Size = d.Bias+p.vaddr, p.memsz
		}
	}
	return d, nil
}

const (
	dtNull  = 0
	dtDebug = 21
	// maxDynEntries bounds the dynamic-section scan.
	maxDynEntries = 4096
)

// ReadRDebugAddr scans the dynamic section at runtime address dyn (size
// bytes; 0 means unknown) in target memory for DT_DEBUG and returns the
// address of struct r_debug. It returns an error wrapping
// ErrNotInitialized if DT_DEBUG is still 0.
func ReadRDebugAddr(ctx context.Context, read ReadMemoryFunc, dyn, size uint64, l Layout) (uint64, error) {
	if err := l.valid(); err != nil {
		return 0, err
	}
	ent := uint64(2 * l.WordSize)
	n := uint64(maxDynEntries)
	if size != 0 {
		n = min(n, size/ent)
	}
	buf := make([]byte, ent)
	for i := uint64(0); i < n; i++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := readFull(read, dyn+i*ent, buf); err != nil {
			return 0, fmt.Errorf("dynamic section: %w", err)
		}
		tag, val := l.Word(buf), l.Word(buf[l.WordSize:])
		switch tag {
		case dtNull:
			return 0, fmt.Errorf("dynamic section at %#x: %w: no DT_DEBUG", dyn, ErrMalformed)
		case dtDebug:
			if val == 0 {
				return 0, fmt.Errorf("dynamic section at %#x: DT_DEBUG is 0: %w", dyn, ErrNotInitialized)
			}
			return val, nil
		}
	}
	return 0, fmt.Errorf("dynamic section at %#x: %w: no DT_DEBUG in %d entries", dyn, ErrMalformed, n)
}

// LinkMapEntry is one struct link_map of the dynamic linker's list.
type LinkMapEntry struct {
	Addr  uint64 // address of the struct
	LAddr uint64 // l_addr: load bias
	Name  string // l_name ("" for the main program)
	LD    uint64 // l_ld: runtime address of the dynamic section
}

const (
	maxLinkMaps = 1 << 16
	maxPathLen  = 4096
)

// ReadLinkMap reads struct r_debug at rdebug and walks its r_map list
// (l_next) in target memory. It returns an error wrapping
// ErrNotInitialized if r_map is 0, and ErrMalformed on a cycle.
//
// Layout (glibc <link.h>, W = word size): r_debug { int r_version;
// link_map *r_map @W; ... }, link_map { l_addr @0; l_name @W; l_ld @2W;
// l_next @3W; l_prev @4W }.
func ReadLinkMap(ctx context.Context, read ReadMemoryFunc, rdebug uint64, l Layout) ([]LinkMapEntry, error) {
	if err := l.valid(); err != nil {
		return nil, err
	}
	w := l.WordSize
	buf := make([]byte, 5*w)
	if err := readFull(read, rdebug+uint64(w), buf[:w]); err != nil {
		return nil, fmt.Errorf("r_debug: %w", err)
	}
	lm := l.Word(buf)
	if lm == 0 {
		return nil, fmt.Errorf("r_debug at %#x: r_map is 0: %w", rdebug, ErrNotInitialized)
	}
	seen := make(map[uint64]bool)
	var out []LinkMapEntry
	for lm != 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if seen[lm] || len(out) >= maxLinkMaps {
			return nil, fmt.Errorf("link_map list at %#x: %w: cycle or more than %d entries", lm, ErrMalformed, maxLinkMaps)
		}
		seen[lm] = true
		if err := readFull(read, lm, buf); err != nil {
			return nil, fmt.Errorf("link_map: %w", err)
		}
		e := LinkMapEntry{Addr: lm, LAddr: l.Word(buf), LD: l.Word(buf[2*w:])}
		if nameAddr := l.Word(buf[w:]); nameAddr != 0 {
			name, err := readString(read, nameAddr, maxPathLen)
			if err != nil {
				return nil, fmt.Errorf("link_map at %#x: l_name: %w", lm, err)
			}
			e.Name = name
		}
		out = append(out, e)
		lm = l.Word(buf[3*w:])
	}
	return out, nil
}

// LoadedModules lists the modules of a running dynamically linked process
// from its own memory: it finds the main program's dynamic section through
// auxv (AT_PHDR), follows DT_DEBUG to r_debug and walks the link_map list.
// The main program (first entry, empty name) gets exePath; the vDSO and
// other entries without a file name keep the name the linker gave them.
// Modules are not opened. Before ld.so has run, the error wraps
// ErrNotInitialized; for a static program (no PT_DYNAMIC) it returns just
// the main program.
func LoadedModules(ctx context.Context, read ReadMemoryFunc, av Auxv, exePath string, l Layout) ([]Module, error) {
	dyn, err := FindDynamic(ctx, read, av, l)
	if err != nil {
		return nil, err
	}
	main := Module{Path: exePath, Bias: dyn.Bias, LD: dyn.Addr}
	if dyn.Addr == 0 {
		return []Module{main}, nil
	}
	rd, err := ReadRDebugAddr(ctx, read, dyn.Addr, dyn.Size, l)
	if err != nil {
		return nil, fmt.Errorf("loaded modules: %w", err)
	}
	ents, err := ReadLinkMap(ctx, read, rd, l)
	if err != nil {
		return nil, fmt.Errorf("loaded modules: %w", err)
	}
	mods := []Module{main}
	vdso, vdsoBias := av[AT_SYSINFO_EHDR], av[AT_SYSINFO_EHDR]
	if b, ok := VDSOBias(read, vdso); ok {
		vdsoBias = b
	}
	for i, e := range ents {
		if i == 0 && e.Name == "" {
			mods[0].LM = e.Addr
			continue
		}
		if e.Name == "" {
			continue
		}
		m := Module{Path: e.Name, Bias: e.LAddr, LM: e.Addr, LD: e.LD}
		if vdso != 0 && e.LAddr == vdsoBias {
			m.VDSO, m.Start = true, vdso
		}
		mods = append(mods, m)
	}
	return mods, nil
}

// VDSOBias returns the load bias the dynamic linker gives the vDSO whose
// ELF header is at ehdr (its link_map l_addr): ehdr minus the p_vaddr of
// its first PT_LOAD. A kernel's vDSO is linked at 0, so its bias is ehdr;
// QEMU user mode relocates its own vDSO to where it maps it, so there the
// bias is 0. False when no ELF image can be read at ehdr.
func VDSOBias(read ReadMemoryFunc, ehdr uint64) (uint64, bool) {
	if ehdr == 0 {
		return 0, false
	}
	f, err := elf.NewFile(memReaderAt{read, ehdr})
	if err != nil {
		return 0, false
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			return ehdr - p.Vaddr, true
		}
	}
	return 0, false
}

// memReaderAt reads an ELF image in target memory (the vDSO) through
// target memory reads.
type memReaderAt struct {
	read ReadMemoryFunc
	base uint64
}

func (r memReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read vdso: negative offset %d", off)
	}
	return r.read(r.base+uint64(off), p)
}
