package symbols

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// liveProc is the pie fixture running with "wait": it has printed its own
// view of the dynamic linker's state and waits on stdin.
type liveProc struct {
	pid   int
	bin   string
	addrs map[string]uint64 // main, helper, lib_add, puts
	lms   []LinkMapEntry    // as the program printed them
}

func startLive(t *testing.T) *liveProc {
	t.Helper()
	bin := fixture(t, "pie")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "wait")
	stdin, stdout := testenv.StartPiped(t, cmd)
	t.Cleanup(func() {
		stdin.Close() // the program exits on EOF
		cmd.Wait()
	})
	p := &liveProc{pid: cmd.Process.Pid, bin: bin, addrs: map[string]uint64{}}
	// The context kills the process at its deadline, which ends the scan.
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "ready":
			return p
		case len(f) == 2:
			a, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
			if err != nil {
				t.Fatalf("bad line %q", sc.Text())
			}
			p.addrs[f[0]] = a
		case len(f) >= 3 && f[0] == "lm":
			var e LinkMapEntry
			e.Addr, _ = strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
			e.LAddr, _ = strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
			if len(f) > 3 {
				e.Name = f[3]
			}
			p.lms = append(p.lms, e)
		}
	}
	t.Fatalf("pie wait exited before \"ready\": %v", errors.Join(sc.Err(), ctx.Err()))
	return nil
}

func (p *liveProc) readMemory(t *testing.T) ReadMemoryFunc {
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", p.pid))
	if err != nil {
		t.Skipf("cannot read target memory through procfs: %v", err)
	}
	t.Cleanup(func() { mem.Close() })
	return func(addr uint64, b []byte) (int, error) { return mem.ReadAt(b, int64(addr)) }
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// TestLiveProcess checks, on a running PIE with a shared library, that
// the link_map walk (through auxv, PT_DYNAMIC and DT_DEBUG in its memory)
// and the /proc/PID/maps derivation both give the load biases the
// program itself sees, and that AddressSpace names the addresses it
// printed (including the vDSO, read from memory).
func TestLiveProcess(t *testing.T) {
	p := startLive(t)
	read := p.readMemory(t)
	ab, err := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	exe := openT(t, p.bin)
	l := Layout{WordSize: 8, ByteOrder: binary.LittleEndian}
	av, err := ParseAuxv(ab, l.WordSize, l.ByteOrder)
	if err != nil {
		t.Fatal(err)
	}

	mods, err := LoadedModules(t.Context(), read, av, p.bin, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.lms) < 3 || len(mods) != len(p.lms) {
		t.Fatalf("LoadedModules() = %+v; the program printed %+v", mods, p.lms)
	}
	for i, e := range p.lms {
		m := mods[i]
		name := e.Name
		if i == 0 {
			name = p.bin
		}
		if m.LM != e.Addr || m.Bias != e.LAddr || m.Path != name {
			t.Errorf("module %d = %+v; program says link_map %#x l_addr %#x %q", i, m, e.Addr, e.LAddr, name)
		}
	}
	if b := av[AT_ENTRY] - exe.Entry(); b != mods[0].Bias || b == 0 {
		t.Errorf("bias from AT_ENTRY = %#x, link_map l_addr = %#x", b, mods[0].Bias)
	}

	// /proc/PID/maps gives the same biases.
	mb, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	maps, err := ParseMaps(string(mb))
	if err != nil {
		t.Fatal(err)
	}
	fromMaps := ModulesFromMaps(maps, nil)
	defer NewAddressSpace(fromMaps).Close()
	for _, m := range mods {
		if m.VDSO {
			continue
		}
		i := slices.IndexFunc(fromMaps, func(x Module) bool { return sameFile(x.Path, m.Path) })
		if i < 0 {
			t.Errorf("no module for %s in maps", m.Path)
			continue
		}
		if fromMaps[i].Bias != m.Bias {
			t.Errorf("%s: bias from maps %#x, from link_map %#x", m.Path, fromMaps[i].Bias, m.Bias)
		}
	}

	as := NewAddressSpace(mods)
	for _, m := range mods {
		if m.VDSO {
			as.VDSOImage, _ = ReadImage(read, cmp.Or(m.Start, m.Bias))
		}
	}
	defer as.Close()
	for _, name := range []string{"main", "helper", "lib_add"} {
		loc, err := as.Lookup(p.addrs[name])
		if err != nil || loc.Symbol.Name != name || loc.Offset != 0 {
			t.Errorf("Lookup(%s at %#x) = %v (%+v), %v", name, p.addrs[name], loc, loc.Symbol, err)
		}
		locs, err := as.LookupName(name)
		if err != nil || locs[0].Symbol.Addr+locs[0].Module.Bias != p.addrs[name] {
			t.Errorf("LookupName(%s) = %+v, %v; want runtime %#x", name, locs, err, p.addrs[name])
		}
	}
	// puts is in libc, maybe under an alias (_IO_puts).
	loc, err := as.Lookup(p.addrs["puts"])
	if err != nil || loc.Offset != 0 || !strings.Contains(loc.Module.Path, "libc") {
		t.Errorf("Lookup(puts at %#x) = %v in %s, %v", p.addrs["puts"], loc, loc.Module.Path, err)
	}
	locs, err := as.LookupName("puts")
	if err != nil || !slices.ContainsFunc(locs, func(l Location) bool { return l.Symbol.Addr+l.Module.Bias == p.addrs["puts"] }) {
		t.Errorf("LookupName(puts) = %+v, %v; want one at %#x", locs, err, p.addrs["puts"])
	}
	// The vDSO has no file; it is read through memory.
	locs, err = as.LookupName("__vdso_clock_gettime")
	if err != nil {
		t.Fatalf("LookupName(__vdso_clock_gettime): %v", err)
	}
	pc := locs[0].Symbol.Addr + locs[0].Module.Bias
	vi := slices.IndexFunc(maps, func(m Mapping) bool { return m.Path == "[vdso]" })
	if vi < 0 || pc < maps[vi].Start || pc >= maps[vi].End || !locs[0].Module.VDSO {
		t.Errorf("__vdso_clock_gettime at %#x in %+v; [vdso] mapping %+v", pc, locs[0].Module, maps[vi])
	}
	if loc, err := as.Lookup(pc + 1); err != nil || loc.Offset != 1 || !strings.Contains(loc.Symbol.Name, "clock_gettime") {
		t.Errorf("Lookup(vdso pc+1) = %v, %v", loc, err)
	}
	if _, err := as.Lookup(1); !errors.Is(err, ErrNoModule) {
		t.Errorf("Lookup(1) error = %v, want ErrNoModule", err)
	}
}

var gdbSolib = regexp.MustCompile(`^(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+(?: \(\*\))?\s+(/\S+)$`)

// TestLiveAgainstGDB attaches GDB to the running program and checks that
// for every shared library GDB lists, its "From" address (the start of
// .text) equals our bias plus the link-time address of .text.
func TestLiveAgainstGDB(t *testing.T) {
	needTool(t, "gdb")
	p := startLive(t)
	read := p.readMemory(t)
	ab, err := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	av, err := ParseAuxv(ab, 8, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := LoadedModules(t.Context(), read, av, p.bin, Layout{WordSize: 8, ByteOrder: binary.LittleEndian})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", "-nx", "-batch", "-p", strconv.Itoa(p.pid),
		"-ex", "info sharedlibrary").CombinedOutput()
	if err != nil {
		t.Skipf("gdb cannot attach here: %v\n%s", err, out)
	}
	as := NewAddressSpace(mods)
	defer as.Close()
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := gdbSolib.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		from, _ := strconv.ParseUint(m[1], 0, 64)
		i := slices.IndexFunc(mods, func(x Module) bool { return sameFile(x.Path, m[3]) })
		if i < 0 {
			t.Errorf("gdb lists %s; we do not", m[3])
			continue
		}
		mod, err := as.ModuleFor(from)
		if err != nil || !sameFile(mod.Path, m[3]) {
			t.Errorf("ModuleFor(%#x) = %s, %v; gdb says %s", from, mod.Path, err, m[3])
			continue
		}
		text := mod.File.ELF().Section(".text")
		if text == nil {
			t.Errorf("%s has no .text", m[3])
			continue
		}
		if text.Addr+mod.Bias != from {
			t.Errorf("%s: .text at %#x+%#x, gdb says %#x", filepath.Base(m[3]), text.Addr, mod.Bias, from)
		}
		seen++
	}
	if seen < 2 {
		t.Fatalf("gdb listed %d libraries we could compare:\n%s", seen, out)
	}
}
