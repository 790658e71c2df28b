package symbols

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// mapsFor writes /proc/PID/maps lines that load each file's PT_LOAD
// segments at bias, the way the kernel and ld.so would.
func mapsFor(t *testing.T, files map[string]uint64) string {
	t.Helper()
	var b strings.Builder
	for path, bias := range files {
		f := openT(t, path)
		for _, p := range f.ELF().Progs {
			if p.Type != 1 { // PT_LOAD
				continue
			}
			start := (bias + p.Vaddr) &^ (pageSize - 1)
			end := (bias + p.Vaddr + p.Memsz + pageSize - 1) &^ (pageSize - 1)
			fmt.Fprintf(&b, "%x-%x r-xp %08x 08:01 42    %s\n", start, end, p.Off&^(pageSize-1), path)
		}
	}
	b.WriteString("7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0    [stack]\n")
	return b.String()
}

func TestModulesFromMapsAndAddressSpace(t *testing.T) {
	nopie, pie, lib := fixture(t, "nopie"), fixture(t, "pie"), fixture(t, "libsymt.so")
	for _, tc := range []struct {
		exe      string
		exeBias  uint64
		wantBias uint64
	}{
		{nopie, 0, 0}, // ET_EXEC: mapped at its link-time addresses
		{pie, 0x555555554000, 0x555555554000},
	} {
		t.Run(tc.exe[strings.LastIndexByte(tc.exe, '/')+1:], func(t *testing.T) {
			const libBias = 0x7f1234500000
			maps, err := ParseMaps(mapsFor(t, map[string]uint64{tc.exe: tc.exeBias, lib: libBias}))
			if err != nil {
				t.Fatal(err)
			}
			mods := ModulesFromMaps(maps, nil)
			as := NewAddressSpace(mods)
			defer as.Close()
			if len(mods) != 2 {
				t.Fatalf("ModulesFromMaps() = %+v; want 2 modules", mods)
			}
			for _, m := range mods {
				want := uint64(libBias)
				if m.Path == tc.exe {
					want = tc.wantBias
				}
				if m.Bias != want || m.File == nil {
					t.Errorf("module %s: bias %#x (file %v), want %#x", m.Path, m.Bias, m.File, want)
				}
			}
			for _, name := range []string{"main", "helper", "lib_add", "lib_counter"} {
				locs, err := as.LookupName(name)
				if err != nil || len(locs) != 1 {
					t.Fatalf("LookupName(%s) = %+v, %v", name, locs, err)
				}
				pc := locs[0].Symbol.Addr + locs[0].Module.Bias + 1
				loc, err := as.Lookup(pc)
				if err != nil || loc.Symbol.Name != name || loc.Offset != 1 || loc.String() != name+"+1" {
					t.Errorf("Lookup(%s+1 = %#x) = %v, %v", name, pc, loc, err)
				}
			}
			if _, err := as.Lookup(0x7ffd00000010); !errors.Is(err, ErrNoModule) {
				t.Errorf("Lookup(stack) error = %v, want ErrNoModule", err)
			}
		})
	}
}

func TestAddressSpaceMissingFile(t *testing.T) {
	lib := fixture(t, "libsymt.so")
	as := NewAddressSpace([]Module{
		{Path: "/nonexistent/libgone.so", Bias: 0x10000, Start: 0x10000, End: 0x20000},
		{Path: lib, Bias: 0x7f0000000000},
		{Path: "linux-vdso.so.1", Bias: 0x7fff0000, VDSO: true}, // no ReadMemory
	})
	defer as.Close()
	m, err := as.ModuleFor(0x10010)
	if err != nil || m.Path != "/nonexistent/libgone.so" || m.File != nil {
		t.Errorf("ModuleFor(in missing file) = %+v, %v", m, err)
	}
	loc, err := as.Lookup(0x10010)
	if err == nil || loc.Module.Path != "/nonexistent/libgone.so" {
		t.Errorf("Lookup(in missing file) = %+v, %v; want the module and an error", loc, err)
	}
	syms, err := as.LookupName("lib_add")
	if err != nil || len(syms) != 1 || syms[0].Module.Path != lib {
		t.Errorf("LookupName(lib_add) = %+v, %v", syms, err)
	}
	if _, err := as.LookupName("nothing_here"); !errors.Is(err, ErrNoSymbol) {
		t.Errorf("LookupName(nothing_here) error = %v, want ErrNoSymbol", err)
	}
	got := as.Modules()
	if len(got) != 3 || got[1].File == nil || got[0].File != nil || got[2].File != nil {
		t.Errorf("Modules() = %+v", got)
	}
}

// TestConcurrentLookups runs first lookups from several goroutines at
// once (run with -race): symbol loading, the name index and module opening
// happen exactly once.
func TestConcurrentLookups(t *testing.T) {
	cxx := fixture(t, "cxx")
	f := openT(t, cxx)
	as := NewAddressSpace([]Module{{Path: cxx, Bias: 0x400000}})
	defer as.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Go(func() {
			syms, err := f.LookupName("Foo::bar")
			if err != nil || len(syms) != 2 {
				errs <- fmt.Errorf("LookupName(Foo::bar) = %v, %v", syms, err)
				return
			}
			if s, _, err := f.LookupAddr(syms[0].Addr); err != nil || s.Addr != syms[0].Addr {
				errs <- fmt.Errorf("LookupAddr = %v, %v", s, err)
			}
			if loc, err := as.Lookup(syms[0].Addr + 0x400000); err != nil || loc.Symbol.Addr != syms[0].Addr {
				errs <- fmt.Errorf("AddressSpace.Lookup = %v, %v", loc, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCarry: a library list read again keeps the files (and the symbol
// tables read from them) of the modules it still has at the same path
// and bias; the old address space's Close leaves them open; a module
// moved to another bias is opened anew.
func TestCarry(t *testing.T) {
	cxx := fixture(t, "cxx")
	old := NewAddressSpace([]Module{{Path: cxx, Bias: 0x400000}})
	if _, err := old.LookupName("Foo::bar"); err != nil {
		t.Fatal(err)
	}
	f := old.mods[0].File
	if f == nil {
		t.Fatal("the lookup opened no file")
	}
	same := NewAddressSpace([]Module{{Path: cxx, Bias: 0x400000}})
	moved := NewAddressSpace([]Module{{Path: cxx, Bias: 0x500000}})
	moved.Carry(old)
	same.Carry(old)
	if same.mods[0].File != f {
		t.Errorf("the module at the same path and bias did not get the open file")
	}
	if moved.mods[0].File != nil {
		t.Errorf("a module at another bias got the file")
	}
	// Whoever still looks through the old one (a caller holding it
	// across a stop that read the list again) gets an error, not a
	// module without a file.
	if _, err := old.LookupName("Foo::bar"); err == nil {
		t.Errorf("the old address space still finds Foo::bar in a file it gave away")
	}
	if _, err := old.Lookup(0x400000 + f.elf.Entry); err == nil {
		t.Errorf("the old address space still looks addresses up in a file it gave away")
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	for _, as := range []*AddressSpace{same, moved} {
		if locs, err := as.LookupName("Foo::bar"); err != nil || len(locs) != 2 {
			t.Errorf("after the old one closed: %v, %v", locs, err)
		}
		as.Close()
	}
}
