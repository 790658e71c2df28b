package symbols

import (
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func auxvBytes(wordSize int, bo binary.AppendByteOrder, pairs ...uint64) []byte {
	var b []byte
	for _, v := range pairs {
		if wordSize == 8 {
			b = bo.AppendUint64(b, v)
		} else {
			b = bo.AppendUint32(b, uint32(v))
		}
	}
	return b
}

func TestParseAuxv(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	tests := []struct {
		name     string
		in       []byte
		wordSize int
		bo       binary.ByteOrder
		want     Auxv
		wantErr  bool
	}{
		{"64-bit", auxvBytes(8, le, 33, 0x7fff0000, 3, 0x555555554040, 9, 0x555555555060, 0, 0), 8, le,
			Auxv{AT_SYSINFO_EHDR: 0x7fff0000, AT_PHDR: 0x555555554040, AT_ENTRY: 0x555555555060}, false},
		{"32-bit big-endian", auxvBytes(4, be, 7, 0xf7fc0000, 9, 0x8049000, 0, 0), 4, be,
			Auxv{AT_BASE: 0xf7fc0000, AT_ENTRY: 0x8049000}, false},
		{"stops at AT_NULL", auxvBytes(8, le, 9, 1, 0, 0, 9, 2), 8, le, Auxv{AT_ENTRY: 1}, false},
		{"no AT_NULL", auxvBytes(8, le, 6, 4096), 8, le, Auxv{AT_PAGESZ: 4096}, false},
		{"first duplicate wins", auxvBytes(8, le, 9, 1, 9, 2, 0, 0), 8, le, Auxv{AT_ENTRY: 1}, false},
		{"empty", nil, 8, le, Auxv{}, false},
		{"truncated", auxvBytes(8, le, 9, 1)[:12], 8, le, nil, true},
		{"bad word size", auxvBytes(8, le, 9, 1), 2, le, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAuxv(tc.in, tc.wordSize, tc.bo)
			if tc.wantErr {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("ParseAuxv() error = %v, want ErrMalformed", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseAuxv() = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestParseAuxvSelf decodes this process's auxv and checks it against
// the kernel's view: page size, and the bias from AT_ENTRY agreeing with
// the bias FindDynamic computes from AT_PHDR.
func TestParseAuxvSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		t.Skipf("no /proc/self/auxv: %v", err)
	}
	av, err := ParseAuxv(b, 8, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if av[AT_PAGESZ] != uint64(os.Getpagesize()) {
		t.Errorf("AT_PAGESZ = %d, want %d", av[AT_PAGESZ], os.Getpagesize())
	}
	exe := openT(t, "/proc/self/exe")
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Skipf("no /proc/self/mem: %v", err)
	}
	defer mem.Close()
	read := func(a uint64, p []byte) (int, error) { return mem.ReadAt(p, int64(a)) }
	d, err := FindDynamic(t.Context(), read, av, Layout{WordSize: 8, ByteOrder: binary.LittleEndian})
	if b := av[AT_ENTRY] - exe.elf.Entry; err != nil || d.Bias != b {
		t.Errorf("bias from AT_ENTRY %#x, from AT_PHDR %#x (%v)", b, d.Bias, err)
	}
}

func FuzzParseAuxv(f *testing.F) {
	f.Add(auxvBytes(8, binary.LittleEndian, 33, 0x7fff0000, 9, 0x1000, 0, 0), 8)
	f.Add(auxvBytes(4, binary.LittleEndian, 9, 0x1000, 0, 0), 4)
	f.Add([]byte{1, 2, 3}, 8)
	if b, err := os.ReadFile("/proc/self/auxv"); err == nil {
		f.Add(b, 8)
	}
	f.Fuzz(func(t *testing.T, b []byte, ws int) {
		av, err := ParseAuxv(b, ws, binary.LittleEndian)
		if err == nil && len(av) > len(b) {
			t.Fatalf("%d entries from %d bytes", len(av), len(b))
		}
	})
}

const mapsSample = `55d0c1a00000-55d0c1a01000 r--p 00000000 08:01 1234                       /tmp/dir with space/pie
55d0c1a01000-55d0c1a02000 r-xp 00001000 08:01 1234                       /tmp/dir with space/pie
55d0c1a03000-55d0c1a04000 rw-p 00003000 08:01 1234                       /tmp/dir with space/pie
55d0c2000000-55d0c2021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000001000 r--p 00000000 08:01 99                         /usr/lib/libgone.so (deleted)
7f0000002000-7f0000003000 rw-p 00000000 00:00 0 
7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0                          [vdso]
`

func TestParseMaps(t *testing.T) {
	got, err := ParseMaps(mapsSample)
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{
		{Start: 0x55d0c1a00000, End: 0x55d0c1a01000, Perms: "r--p", Offset: 0, Dev: "08:01", Inode: 1234, Path: "/tmp/dir with space/pie"},
		{Start: 0x55d0c1a01000, End: 0x55d0c1a02000, Perms: "r-xp", Offset: 0x1000, Dev: "08:01", Inode: 1234, Path: "/tmp/dir with space/pie"},
		{Start: 0x55d0c1a03000, End: 0x55d0c1a04000, Perms: "rw-p", Offset: 0x3000, Dev: "08:01", Inode: 1234, Path: "/tmp/dir with space/pie"},
		{Start: 0x55d0c2000000, End: 0x55d0c2021000, Perms: "rw-p", Dev: "00:00", Path: "[heap]"},
		{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "r--p", Dev: "08:01", Inode: 99, Path: "/usr/lib/libgone.so", Deleted: true},
		{Start: 0x7f0000002000, End: 0x7f0000003000, Perms: "rw-p", Dev: "00:00"},
		{Start: 0x7ffff7fc1000, End: 0x7ffff7fc3000, Perms: "r-xp", Dev: "00:00", Path: "[vdso]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseMaps() =\n%+v\nwant\n%+v", got, want)
	}
	for _, bad := range []string{
		"55d0c1a00000 r--p 00000000 08:01 1234 /x",
		"zz-55d0c1a01000 r--p 00000000 08:01 1234 /x",
		"2000-1000 r--p 00000000 08:01 1234 /x",
		"1000-2000 r--p 00000000 08:01",
		"1000-2000 r-p 00000000 08:01 1 /x",
		"1000-2000 r--p 0000000g 08:01 1 /x",
		"1000-2000 r--p 00000000 0801 1 /x",
	} {
		if _, err := ParseMaps(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseMaps(%q) error = %v, want ErrMalformed", bad, err)
		}
	}
}

// TestParseMapsSelf parses this process's maps: every line must decode
// and the test binary itself must be mapped.
func TestParseMapsSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	maps, err := ParseMaps(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); len(maps) != n {
		t.Errorf("%d mappings from %d lines", len(maps), n)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mods := ModulesFromMaps(maps, nil)
	defer NewAddressSpace(mods).Close()
	found := false
	for _, m := range mods {
		if m.Path == exe && m.File != nil {
			found = true
		}
	}
	if !found {
		t.Errorf("ModulesFromMaps found no module for %s in %+v", exe, mods)
	}
}

func FuzzParseMaps(f *testing.F) {
	f.Add(mapsSample)
	f.Add("0-1 ---p 0 0:0 0")
	f.Add("\n\n1000-2000 r--p 00000000 08:01 1 \t/x (deleted)\n")
	f.Fuzz(func(t *testing.T, text string) {
		maps, err := ParseMaps(text)
		if err != nil {
			return
		}
		for _, m := range maps {
			if m.End < m.Start {
				t.Fatalf("mapping %+v ends before it starts", m)
			}
		}
		open := func(string) (*File, error) { return nil, os.ErrNotExist }
		_ = ModulesFromMaps(maps, open)
	})
}
