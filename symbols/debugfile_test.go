package symbols

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hasSubprogram reports whether d has a DW_TAG_subprogram named name.
func hasSubprogram(t *testing.T, d *dwarf.Data, name string) bool {
	t.Helper()
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return false
		}
		if e.Tag == dwarf.TagSubprogram && e.Val(dwarf.AttrName) == name {
			return true
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDebugLink(t *testing.T) {
	f := openT(t, fixture(t, "pie.stripped"))
	f.DebugRoots = []string{t.TempDir()} // no build-id match there
	name, crc, ok, err := f.DebugLink()
	if err != nil || !ok || name != "pie.debug" {
		t.Fatalf("DebugLink() = %q, %#x, %v, %v", name, crc, ok, err)
	}
	dbgPath := filepath.Join(buildDir, "pie.debug")
	// objcopy wrote the CRC; our CRC of pie.debug must agree.
	df := openT(t, dbgPath)
	if c, err := df.crc32(); err != nil || c != crc {
		t.Errorf("crc32(pie.debug) = %#x, %v; objcopy recorded %#x", c, err, crc)
	}
	if f.HasDWARF() {
		t.Fatal("stripped binary claims to have DWARF")
	}
	d, err := f.DWARFFile()
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != dbgPath {
		t.Errorf("DWARFFile().Path = %q, want %q", d.Path, dbgPath)
	}
	dw, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	if !hasSubprogram(t, dw, "main") {
		t.Error("DWARF of the debug file has no subprogram main")
	}
	// Static functions come from the debug file's .symtab.
	syms, err := f.LookupName("helper")
	if err != nil || len(syms) != 1 || syms[0].Source != SourceSymtab {
		t.Errorf("LookupName(helper) on stripped binary = %v, %v", syms, err)
	}
}

func TestDebugLinkCRCMismatch(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, fixture(t, "pie.stripped"), filepath.Join(dir, "pie.stripped"))
	// A debug file with the right name but the wrong contents.
	copyFile(t, fixture(t, "libsymt.so"), filepath.Join(dir, "pie.debug"))
	f := openT(t, filepath.Join(dir, "pie.stripped"))
	f.DebugRoots = []string{t.TempDir()}
	if d, err := f.DebugFile(); !errors.Is(err, ErrNoDebugFile) {
		t.Fatalf("DebugFile() = %v, %v; want ErrNoDebugFile", d, err)
	}
	if _, err := f.DWARF(); !errors.Is(err, ErrNoDebugFile) {
		t.Fatalf("DWARF() error = %v; want ErrNoDebugFile", err)
	}
	// The .debug subdirectory is searched too.
	copyFile(t, filepath.Join(buildDir, "pie.debug"), filepath.Join(dir, ".debug", "pie.debug"))
	g := openT(t, filepath.Join(dir, "pie.stripped"))
	g.DebugRoots = f.DebugRoots
	if d, err := g.DebugFile(); err != nil || d.Path != filepath.Join(dir, ".debug", "pie.debug") {
		t.Fatalf("DebugFile() with .debug/ = %v, %v", d, err)
	}
}

var readelfBuildID = regexp.MustCompile(`Build ID: ([0-9a-f]+)`)

func TestBuildIDDebugFile(t *testing.T) {
	needTool(t, "readelf")
	bin := fixture(t, "pie.nolink")
	f := openT(t, bin)
	id, err := f.BuildID()
	if err != nil {
		t.Fatal(err)
	}
	m := readelfBuildID.FindStringSubmatch(run(t, "readelf", "-n", bin))
	if m == nil || hex.EncodeToString(id) != m[1] {
		t.Fatalf("BuildID() = %x, readelf says %q", id, m)
	}
	root := t.TempDir()
	h := m[1]
	dst := filepath.Join(root, ".build-id", h[:2], h[2:]+".debug")

	// A file at the build-id path whose own build-id differs is refused.
	copyFile(t, fixture(t, "libsymt.so"), dst)
	f.DebugRoots = []string{root}
	if _, err := f.DebugFile(); !errors.Is(err, ErrNoDebugFile) {
		t.Fatalf("DebugFile() with a wrong build-id file: %v; want ErrNoDebugFile", err)
	}

	copyFile(t, filepath.Join(buildDir, "pie.debug"), dst)
	g := openT(t, bin)
	g.DebugRoots = []string{t.TempDir(), root}
	d, err := g.DWARFFile()
	if err != nil || d.Path != dst {
		t.Fatalf("DWARFFile() = %v, %v; want %s", d, err, dst)
	}
	sym, off, err := g.LookupAddr(mustLookup(t, g, "helper").Addr + 1)
	if err != nil || sym.Name != "helper" || off != 1 {
		t.Errorf("LookupAddr(helper+1) = %q+%d, %v", sym.Name, off, err)
	}
}

func mustLookup(t *testing.T, f *File, name string) Symbol {
	t.Helper()
	syms, err := f.LookupName(name)
	if err != nil {
		t.Fatal(err)
	}
	return syms[0]
}

// TestSystemLibcDebugFile uses the machine's libc and libc6-dbg, when
// installed, with the default debug root.
func TestSystemLibcDebugFile(t *testing.T) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := Open(libc)
	if err != nil {
		t.Skipf("no %s: %v", libc, err)
	}
	defer f.Close()
	id, err := f.BuildID()
	if err != nil || id == nil {
		t.Fatalf("BuildID(%s) = %x, %v", libc, id, err)
	}
	h := hex.EncodeToString(id)
	want := filepath.Join(DefaultDebugRoot, ".build-id", h[:2], h[2:]+".debug")
	if _, err := os.Stat(want); err != nil {
		t.Skipf("libc debug file not installed (apt-get install libc6-dbg): %v", err)
	}
	d, err := f.DWARFFile()
	if err != nil || d.Path != want {
		t.Fatalf("DWARFFile() = %v, %v; want %s", d, err, want)
	}
	// Internal (static) libc functions are named through the debug
	// file's .symtab.
	syms, err := f.LookupName("_IO_new_file_overflow")
	if err != nil || !strings.Contains(syms[0].Name, "overflow") {
		t.Errorf("LookupName(_IO_new_file_overflow) = %v, %v", syms, err)
	}
}

// TestCompressedSectionsOnce: a zlib-compressed debug section (Debian's
// debug files have them) is decompressed once, whoever asks: the DWARF
// reader and SectionData get the same bytes.
func TestCompressedSectionsOnce(t *testing.T) {
	needTool(t, "objcopy")
	out := filepath.Join(t.TempDir(), "pie.z")
	run(t, "objcopy", "--compress-debug-sections=zlib", fixture(t, "pie"), out)
	f := openT(t, out)
	s := f.ELF().Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		t.Fatalf("%s: .debug_info is not compressed", out)
	}
	a, err := f.SectionData(".debug_info")
	if err != nil || len(a) == 0 {
		t.Fatalf("SectionData: %d bytes, %v", len(a), err)
	}
	b, _ := f.SectionData(".debug_info")
	if &a[0] != &b[0] {
		t.Error("the section was decompressed twice")
	}
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	if !hasSubprogram(t, d, "main") {
		t.Error("the DWARF of the compressed file has no main")
	}
	if c, _ := f.SectionData(".debug_info"); &c[0] != &a[0] {
		t.Error("DWARF decompressed the section again")
	}
}

// TestDWARFLeavesOtherSections: making the DWARF reader inflates the
// compressed sections it reads and no other; a location list is inflated
// when it is first asked for.
func TestDWARFLeavesOtherSections(t *testing.T) {
	needTool(t, "gcc")
	needTool(t, "objcopy")
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("extern int g(int);\n")
	for i := range 64 {
		fmt.Fprintf(&src, "int f%d(int a, int b) { int s = 0; for (int i = 0; i < a; i++) s += g(i * b + %d); return s + a; }\n", i, i)
	}
	c := filepath.Join(dir, "many.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	obj, out := filepath.Join(dir, "many.so"), filepath.Join(dir, "many.z")
	run(t, "gcc", "-g", "-O2", "-fPIC", "-shared", "-o", obj, c)
	run(t, "objcopy", "--compress-debug-sections=zlib", obj, out)
	f := openT(t, out)
	if _, err := f.DWARF(); err != nil {
		t.Fatal(err)
	}
	var left []*elf.Section
	for _, s := range f.ELF().Sections {
		sfx, ok := strings.CutPrefix(s.Name, ".debug_")
		if !ok || s.Flags&elf.SHF_COMPRESSED == 0 {
			continue
		}
		_, inflated := f.inflated[s]
		switch sfx {
		case "abbrev", "info", "str", "line", "ranges", "addr", "line_str", "str_offsets", "rnglists":
			if !inflated {
				t.Errorf("%s, which the DWARF reader reads, was not inflated", s.Name)
			}
		default:
			if inflated {
				t.Errorf("DWARF inflated %s, which it does not read", s.Name)
			}
			left = append(left, s)
		}
	}
	if len(left) == 0 {
		t.Fatalf("%s has no compressed section that the DWARF reader leaves", out)
	}
	for _, s := range left {
		if b, err := f.SectionData(s.Name); err != nil || uint64(len(b)) != s.Size {
			t.Errorf("SectionData(%s): %d bytes of %d, %v", s.Name, len(b), s.Size, err)
		}
	}

}
