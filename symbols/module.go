package symbols

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"sync"
)

// Module is an ELF image loaded in a process.
type Module struct {
	// Path is the file name ("/lib/x86_64-linux-gnu/libc.so.6"), or the
	// name the dynamic linker gave an image without a file
	// ("linux-vdso.so.1", "[vdso]").
	Path string
	// Bias is the load bias: runtime address = link-time address + Bias.
	Bias uint64
	// File is the opened image, nil until opened.
	File *File
	// Start and End bound the image's runtime addresses when known (from
	// /proc/PID/maps); both 0 otherwise. The vDSO's Start is its ELF
	// header (auxv AT_SYSINFO_EHDR) even when End is unknown.
	Start, End uint64
	// LM and LD are the addresses of its struct link_map and dynamic
	// section, when known.
	LM, LD uint64
	// VDSO marks the kernel's vDSO, which has no file: it is read from
	// target memory at Start (or Bias).
	VDSO bool
}

// Location is a runtime address resolved to a module and symbol.
type Location struct {
	Module Module
	Symbol Symbol // link-time symbol (add Module.Bias for its runtime address)
	Offset uint64 // pc − (Symbol.Addr + Module.Bias)
}

// String formats the location like GDB: "name+off" or "name".
func (l Location) String() string {
	if l.Offset == 0 {
		return l.Symbol.Demangled()
	}
	return fmt.Sprintf("%s+%d", l.Symbol.Demangled(), l.Offset)
}

// AddressSpace resolves runtime addresses across the modules of a process.
// Module files are opened when a lookup first needs them; symbol tables are
// read when a lookup falls into a module. Safe for concurrent use.
type AddressSpace struct {
	// Open opens module files (nil means Open). Set it to map target
	// paths to local copies (a sysroot, files fetched over vFile).
	Open func(path string) (*File, error)
	// VDSOImage is the vDSO's ELF image, copied from target memory
	// (ReadImage) by the caller, which has the context for the reads:
	// the vDSO has no file. Nil leaves the vDSO without symbols.
	VDSOImage []byte
	// DebugRoots is copied to every opened File (nil means the default).
	DebugRoots []string

	mu   sync.Mutex
	mods []*asModule
}

type asModule struct {
	Module
	tried   bool
	openErr error
	lo, hi  uint64 // runtime range, valid when hi > lo
}

// NewAddressSpace returns an AddressSpace over mods. Files already open in
// mods are used (and closed by Close).
func NewAddressSpace(mods []Module) *AddressSpace {
	a := &AddressSpace{}
	for _, m := range mods {
		am := &asModule{Module: m}
		if m.File != nil {
			am.tried = true
			am.setRange()
		}
		if m.End > m.Start {
			am.lo, am.hi = m.Start, m.End
		}
		a.mods = append(a.mods, am)
	}
	return a
}

func (m *asModule) setRange() {
	if m.End > m.Start {
		m.lo, m.hi = m.Start, m.End
		return
	}
	lo, hi := m.File.LoadRange()
	m.lo, m.hi = lo+m.Bias, hi+m.Bias
}

// open opens the module file once; a.mu must be held.
func (a *AddressSpace) open(m *asModule) error {
	if m.tried {
		return m.openErr
	}
	m.tried = true
	var f *File
	var err error
	switch {
	case m.VDSO && a.VDSOImage != nil:
		f, err = NewFile(bytes.NewReader(a.VDSOImage))
		if f != nil {
			f.Path = m.Path
		}
	case m.VDSO:
		err = fmt.Errorf("vdso %s: no memory reader", m.Path)
	case a.Open != nil:
		f, err = a.Open(m.Path)
	default:
		f, err = Open(m.Path)
	}
	if err == nil && f == nil {
		err = errors.New("nothing to read")
	}
	if err != nil {
		m.openErr = fmt.Errorf("module %s: %w", m.Path, err)
		return m.openErr
	}
	f.DebugRoots = a.DebugRoots
	m.File = f
	m.setRange()
	return nil
}

// Modules returns the modules, with File set for those opened so far.
func (a *AddressSpace) Modules() []Module {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Module, len(a.mods))
	for i, m := range a.mods {
		out[i] = m.Module
	}
	return out
}

// ModuleFor returns the module whose image covers the runtime address pc,
// opening module files as needed to learn their ranges. A module whose
// range is known (from /proc/PID/maps) is returned even if its file cannot
// be opened; its File is then nil. It returns an error wrapping ErrNoModule
// if no module covers pc.
func (a *AddressSpace) ModuleFor(pc uint64) (Module, error) {
	m, err := a.moduleFor(pc)
	if err != nil {
		return Module{}, err
	}
	return m.Module, nil
}

func (a *AddressSpace) moduleFor(pc uint64) (*asModule, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Known ranges first, so a lookup opens no more files than needed.
	for _, m := range a.mods {
		if m.hi > m.lo && pc >= m.lo && pc < m.hi {
			a.open(m) // m.File stays nil on error; Lookup reports it
			return m, nil
		}
	}
	for _, m := range a.mods {
		if m.tried || m.hi > m.lo {
			continue
		}
		if a.open(m) == nil && pc >= m.lo && pc < m.hi {
			return m, nil
		}
	}
	return nil, fmt.Errorf("address %#x: %w", pc, ErrNoModule)
}

// Lookup resolves the runtime address pc to its module, symbol and offset.
// Errors wrap ErrNoModule (no image covers pc), ErrNoSymbol (the image has
// no symbol there) or the error opening the module's file; in the latter
// two cases the Location still names the module.
func (a *AddressSpace) Lookup(pc uint64) (Location, error) {
	m, err := a.moduleFor(pc)
	if err != nil {
		return Location{}, err
	}
	loc := Location{Module: m.Module}
	if m.File == nil {
		return loc, m.openErr
	}
	sym, off, err := m.File.LookupAddr(pc - m.Bias)
	if err != nil {
		return loc, fmt.Errorf("module %s: %w", m.Path, err)
	}
	loc.Symbol, loc.Offset = sym, off
	return loc, nil
}

// LookupName finds symbols by name (see File.LookupName) in every module
// that can be opened, in module order, and returns them with Offset 0.
// Runtime addresses are Symbol.Addr + Module.Bias. It returns an error
// wrapping ErrNoSymbol if no module has a match.
func (a *AddressSpace) LookupName(name string) ([]Location, error) {
	a.mu.Lock()
	var mods []*asModule
	for _, m := range a.mods {
		if a.open(m) == nil && m.File != nil {
			mods = append(mods, m)
		}
	}
	a.mu.Unlock()
	var out []Location
	var failed error
	for _, m := range mods {
		syms, err := m.File.LookupName(name)
		if errors.Is(err, ErrNoSymbol) {
			continue
		}
		if err != nil {
			// one unreadable module does not hide the others' symbols
			failed = cmp.Or(failed, fmt.Errorf("module %s: %w", m.Path, err))
			continue
		}
		for _, s := range syms {
			out = append(out, Location{Module: m.Module, Symbol: s})
		}
	}
	if len(out) == 0 {
		if failed != nil {
			return nil, fmt.Errorf("symbol %q: %w", name, failed)
		}
		return nil, fmt.Errorf("symbol %q: %w", name, ErrNoSymbol)
	}
	return out, nil
}

// Carry moves into a the module files old has opened, for the modules of
// a at the same path and bias that a has not opened: a library list read
// again keeps the files and the symbol tables already read from them.
// old no longer holds them (its Close leaves them open). The vDSO's file,
// made from VDSOImage, is not carried.
func (a *AddressSpace) Carry(old *AddressSpace) {
	if old == nil || old == a {
		return
	}
	old.mu.Lock()
	defer old.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.mods {
		if m.tried || m.VDSO {
			continue
		}
		for _, o := range old.mods {
			if o.File != nil && !o.VDSO && o.Path == m.Path && o.Bias == m.Bias {
				m.File, o.File = o.File, nil
				// old's module no longer has a file: say so to whoever
				// still looks through old (which would find nil)
				o.openErr = fmt.Errorf("module %s: its file moved to a newer address space", o.Path)
				m.tried = true
				m.setRange()
				break
			}
		}
	}
}

// Close closes every module file the AddressSpace holds.
func (a *AddressSpace) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for _, m := range a.mods {
		if m.File != nil {
			errs = append(errs, m.File.Close())
			m.File = nil
		}
	}
	return errors.Join(errs...)
}
