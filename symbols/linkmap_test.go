package symbols

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// fakeMem is target memory made of byte regions, like a core file.
type fakeMem map[uint64][]byte

func (m fakeMem) read(addr uint64, p []byte) (int, error) {
	for base, b := range m {
		if addr >= base && addr-base <= uint64(len(b)) && uint64(len(p)) <= uint64(len(b))-(addr-base) {
			return copy(p, b[addr-base:]), nil
		}
	}
	return 0, fmt.Errorf("address %#x: not mapped", addr)
}

// image builds the memory of a process whose main program is loaded at
// bias and whose link_map list has the given entries after the main
// program's. It returns the memory, the auxv and the addresses of the
// dynamic section's DT_DEBUG value and of each link_map (main first).
type image struct {
	l        Layout
	mem      fakeMem
	av       Auxv
	dtDebug  uint64 // address of DT_DEBUG's value
	rdebug   uint64
	lms      []uint64
	wantMods []Module
}

func buildImage(l Layout, bias uint64, libs []LinkMapEntry, exe string) *image {
	w := uint64(l.WordSize)
	im := &image{l: l, mem: fakeMem{}, av: Auxv{}}
	put := func(b []byte, v uint64) []byte {
		if w == 8 {
			return l.ByteOrder.(binary.AppendByteOrder).AppendUint64(b, v)
		}
		return l.ByteOrder.(binary.AppendByteOrder).AppendUint32(b, uint32(v))
	}
	// Program headers at bias+0x40: PT_PHDR, PT_LOAD, PT_DYNAMIC.
	var ph []byte
	phent := uint64(56)
	if w == 4 {
		phent = 32
	}
	for _, p := range []struct{ typ, vaddr, memsz uint64 }{
		{uint64(elf.PT_PHDR), 0x40, 3 * phent},
		{uint64(elf.PT_LOAD), 0, 0x4000},
		{uint64(elf.PT_DYNAMIC), 0x3000, 4 * 2 * w},
	} {
		e := make([]byte, phent)
		l.ByteOrder.PutUint32(e, uint32(p.typ))
		if w == 8 {
			l.ByteOrder.PutUint64(e[16:], p.vaddr)
			l.ByteOrder.PutUint64(e[40:], p.memsz)
		} else {
			l.ByteOrder.PutUint32(e[8:], uint32(p.vaddr))
			l.ByteOrder.PutUint32(e[20:], uint32(p.memsz))
		}
		ph = append(ph, e...)
	}
	im.mem[bias+0x40] = ph
	im.av[AT_PHDR], im.av[AT_PHNUM], im.av[AT_PHENT] = bias+0x40, 3, phent

	im.rdebug = 0x10000
	strs := uint64(0x20000)
	lmBase := uint64(0x30000)
	// Dynamic section: DT_NEEDED, DT_DEBUG, DT_NULL.
	var dyn []byte
	dyn = put(put(dyn, 1), 0x55)
	dyn = put(put(dyn, dtDebug), im.rdebug)
	dyn = put(put(dyn, 0), 0)
	im.mem[bias+0x3000] = dyn
	im.dtDebug = bias + 0x3000 + 3*w

	// r_debug { r_version; r_map; r_brk; r_state; r_ldbase }.
	var rd []byte
	rd = put(put(put(put(put(rd, 1), lmBase), 0x1234), 0), 0x7000)
	im.mem[im.rdebug] = rd

	all := append([]LinkMapEntry{{LAddr: bias, LD: bias + 0x3000}}, libs...)
	var strBuf []byte
	for i, e := range all {
		lm := lmBase + uint64(i)*0x100
		im.lms = append(im.lms, lm)
		name := uint64(0)
		if e.Name != "" || i == 0 {
			name = strs + uint64(len(strBuf))
			strBuf = append(append(strBuf, e.Name...), 0)
		}
		next, prev := uint64(0), uint64(0)
		if i+1 < len(all) {
			next = lm + 0x100
		}
		if i > 0 {
			prev = lm - 0x100
		}
		var b []byte
		b = put(put(put(put(put(b, e.LAddr), name), e.LD), next), prev)
		im.mem[lm] = b
		if i == 0 {
			im.wantMods = append(im.wantMods, Module{Path: exe, Bias: bias, LD: bias + 0x3000, LM: lm})
		} else if e.Name != "" {
			im.wantMods = append(im.wantMods, Module{Path: e.Name, Bias: e.LAddr, LD: e.LD, LM: lm})
		}
	}
	im.mem[strs] = append(strBuf, make([]byte, pageSize)...) // a page, as in a real process
	return im
}

func TestLoadedModulesFakeMemory(t *testing.T) {
	libs := []LinkMapEntry{
		{Name: "linux-vdso.so.1", LAddr: 0x7fff1000, LD: 0x7fff13e0},
		{Name: "/lib/x86_64-linux-gnu/libc.so.6", LAddr: 0x7f0000000000, LD: 0x7f00001d0000},
		{Name: "", LAddr: 0x1, LD: 0x2}, // no name: skipped
		{Name: "/lib64/ld-linux-x86-64.so.2", LAddr: 0x7f0000400000, LD: 0x7f0000430000},
	}
	for _, tc := range []struct {
		name string
		l    Layout
		bias uint64
	}{
		{"64-bit LE", Layout{8, binary.LittleEndian}, 0x555555554000},
		{"32-bit LE", Layout{4, binary.LittleEndian}, 0x56555000},
		{"64-bit BE", Layout{8, binary.BigEndian}, 0x10000000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := libs
			if tc.l.WordSize == 4 {
				ls = []LinkMapEntry{{Name: "/lib/libc.so.6", LAddr: 0xf7d00000, LD: 0xf7ef0000}}
			}
			im := buildImage(tc.l, tc.bias, ls, "/bin/prog")
			im.av[AT_SYSINFO_EHDR] = 0x7fff1000
			ctx := t.Context()
			got, err := LoadedModules(ctx, im.mem.read, im.av, "/bin/prog", tc.l)
			if err != nil {
				t.Fatal(err)
			}
			want := im.wantMods
			for i := range want {
				if want[i].Path == "linux-vdso.so.1" {
					want[i].VDSO, want[i].Start = true, 0x7fff1000
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("LoadedModules() =\n%+v\nwant\n%+v", got, want)
			}
			ents, err := ReadLinkMap(ctx, im.mem.read, im.rdebug, tc.l)
			if err != nil || len(ents) != len(ls)+1 || ents[0].Name != "" || ents[0].LAddr != tc.bias {
				t.Fatalf("ReadLinkMap() = %+v, %v", ents, err)
			}
		})
	}
}

// vdsoELF32 is the start of an i386 vDSO image in memory: an ELF header
// and one PT_LOAD program header whose p_vaddr is vaddr.
func vdsoELF32(vaddr uint32) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0x1000)
	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS], b[elf.EI_DATA], b[elf.EI_VERSION] = byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), 1
	le.PutUint16(b[16:], uint16(elf.ET_DYN))
	le.PutUint16(b[18:], uint16(elf.EM_386))
	le.PutUint32(b[20:], 1)
	le.PutUint32(b[28:], 52) // e_phoff
	le.PutUint16(b[40:], 52) // e_ehsize
	le.PutUint16(b[42:], 32) // e_phentsize
	le.PutUint16(b[44:], 1)  // e_phnum
	le.PutUint16(b[46:], 40) // e_shentsize
	ph := b[52:]
	le.PutUint32(ph, uint32(elf.PT_LOAD))
	le.PutUint32(ph[8:], vaddr)   // p_vaddr
	le.PutUint32(ph[12:], vaddr)  // p_paddr
	le.PutUint32(ph[16:], 0xa70)  // p_filesz
	le.PutUint32(ph[20:], 0xa70)  // p_memsz
	le.PutUint32(ph[24:], 7)      // p_flags
	le.PutUint32(ph[28:], 0x1000) // p_align
	return b
}

// TestLoadedModulesVDSO: the vDSO is the link_map entry whose l_addr is
// the bias the dynamic linker computes from the image at AT_SYSINFO_EHDR:
// the header's address for a kernel's vDSO (linked at 0), 0 for QEMU user
// mode's, which QEMU relocates to where it maps it (QEMU 10 qemu-i386).
func TestLoadedModulesVDSO(t *testing.T) {
	const ehdr = 0x40836000
	l := Layout{4, binary.LittleEndian}
	for _, tc := range []struct {
		name  string
		vaddr uint32 // first PT_LOAD's p_vaddr
		laddr uint64 // the link_map entry's l_addr
	}{
		{"kernel, linked at 0", 0, ehdr},
		{"qemu-i386, relocated", ehdr, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			libs := []LinkMapEntry{
				{Name: "linux-gate.so.1", LAddr: tc.laddr, LD: ehdr + 0xf8},
				{Name: "/lib32/libc.so.6", LAddr: 0x40845000, LD: 0x40a61000},
			}
			im := buildImage(l, 0, libs, "/bin/prog")
			im.av[AT_SYSINFO_EHDR] = ehdr
			im.mem[ehdr] = vdsoELF32(tc.vaddr)
			if b, ok := VDSOBias(im.mem.read, ehdr); !ok || b != tc.laddr {
				t.Fatalf("VDSOBias() = %#x, %v; want %#x", b, ok, tc.laddr)
			}
			got, err := LoadedModules(t.Context(), im.mem.read, im.av, "/bin/prog", l)
			if err != nil {
				t.Fatal(err)
			}
			want := im.wantMods
			want[1].VDSO, want[1].Start = true, ehdr
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("LoadedModules() =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestLinkMapErrors(t *testing.T) {
	l := Layout{8, binary.LittleEndian}
	libs := []LinkMapEntry{{Name: "/a.so", LAddr: 0x1000}, {Name: "/b.so", LAddr: 0x2000}}
	ctx := t.Context()
	fresh := func() *image { return buildImage(l, 0x400000, libs, "/bin/p") }

	t.Run("DT_DEBUG not set", func(t *testing.T) {
		im := fresh()
		b := im.mem[0x400000+0x3000]
		binary.LittleEndian.PutUint64(b[24:], 0)
		if _, err := LoadedModules(ctx, im.mem.read, im.av, "/bin/p", l); !errors.Is(err, ErrNotInitialized) {
			t.Fatalf("err = %v, want ErrNotInitialized", err)
		}
	})
	t.Run("r_map is 0", func(t *testing.T) {
		im := fresh()
		binary.LittleEndian.PutUint64(im.mem[im.rdebug][8:], 0)
		if _, err := LoadedModules(ctx, im.mem.read, im.av, "/bin/p", l); !errors.Is(err, ErrNotInitialized) {
			t.Fatalf("err = %v, want ErrNotInitialized", err)
		}
	})
	t.Run("cycle", func(t *testing.T) {
		im := fresh()
		last := im.lms[len(im.lms)-1]
		binary.LittleEndian.PutUint64(im.mem[last][24:], im.lms[1])
		if _, err := ReadLinkMap(ctx, im.mem.read, im.rdebug, l); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("unreadable name", func(t *testing.T) {
		im := fresh()
		binary.LittleEndian.PutUint64(im.mem[im.lms[1]][8:], 0xdead0000)
		if _, err := ReadLinkMap(ctx, im.mem.read, im.rdebug, l); err == nil {
			t.Fatal("no error for an unreadable l_name")
		}
	})
	t.Run("no DT_DEBUG", func(t *testing.T) {
		im := fresh()
		b := im.mem[0x400000+0x3000]
		binary.LittleEndian.PutUint64(b[16:], 0) // DT_DEBUG → DT_NULL
		if _, err := LoadedModules(ctx, im.mem.read, im.av, "/bin/p", l); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("no PT_PHDR", func(t *testing.T) {
		im := fresh()
		binary.LittleEndian.PutUint32(im.mem[0x400040], uint32(elf.PT_NULL))
		if _, err := FindDynamic(ctx, im.mem.read, im.av, l); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("static program", func(t *testing.T) {
		im := fresh()
		binary.LittleEndian.PutUint32(im.mem[0x400040][2*56:], uint32(elf.PT_NULL))
		mods, err := LoadedModules(ctx, im.mem.read, im.av, "/bin/p", l)
		if err != nil || len(mods) != 1 || mods[0].Path != "/bin/p" || mods[0].Bias != 0x400000 {
			t.Fatalf("LoadedModules() = %+v, %v; want only the main program", mods, err)
		}
	})
	t.Run("missing auxv", func(t *testing.T) {
		im := fresh()
		if _, err := LoadedModules(ctx, im.mem.read, Auxv{}, "/bin/p", l); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		im := fresh()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := LoadedModules(cctx, im.mem.read, im.av, "/bin/p", l); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// FuzzReadLinkMap walks a link_map list in arbitrary memory.
func FuzzReadLinkMap(f *testing.F) {
	im := buildImage(Layout{8, binary.LittleEndian}, 0x400000, []LinkMapEntry{{Name: "/a.so", LAddr: 0x1000}}, "/p")
	// Flatten the image into one region for the seed.
	flat := make([]byte, 0x400)
	copy(flat[0x10:], im.mem[im.rdebug][:16])
	f.Add(flat, uint8(8))
	f.Add([]byte{}, uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, ws uint8) {
		mem := fakeMem{0x1000: b}
		l := Layout{int(ws%2)*4 + 4, binary.LittleEndian}
		_, _ = ReadLinkMap(t.Context(), mem.read, 0x1000, l)
		_, _ = ReadRDebugAddr(t.Context(), mem.read, 0x1000, uint64(len(b)), l)
	})
}
