package dwarf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/regnum"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// Test programs are compiled once per test binary into a shared temp dir.
var (
	progMu    sync.Mutex
	progDir   string
	progBuilt = map[string]string{}
)

// buildTestProg compiles testdata/src with compiler cc and flags into a
// cached binary and returns its path.
func buildTestProg(t testing.TB, cc, src string, flags ...string) string {
	t.Helper()
	testenv.NeedTool(t, cc)
	progMu.Lock()
	defer progMu.Unlock()
	key := cc + " " + src + " " + strings.Join(flags, " ")
	if p, ok := progBuilt[key]; ok {
		return p
	}
	if progDir == "" {
		d, err := os.MkdirTemp("", "dwarf-test-progs-")
		if err != nil {
			t.Fatal(err)
		}
		progDir = d
	}
	abs, err := filepath.Abs(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(progDir, strings.TrimSuffix(src, filepath.Ext(src))+strings.ReplaceAll(strings.Join(flags, ""), " ", ""))
	args := append(append([]string{}, flags...), "-o", out, abs)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	progBuilt[key] = out
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if progDir != "" {
		os.RemoveAll(progDir)
	}
	os.Exit(code)
}

// markerLine returns the line of the "LINE:name" marker in a testdata file.
func markerLine(t testing.TB, src, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "LINE:"+name+" ") || strings.HasSuffix(l, "LINE:"+name) {
			return i + 1
		}
	}
	t.Fatalf("no marker LINE:%s in %s", name, src)
	return 0
}

// runGDB runs gdb in batch mode with the commands and returns its output.
func runGDB(t testing.TB, bin string, cmds ...string) string {
	t.Helper()
	testenv.NeedTool(t, "gdb")
	args := []string{"-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0", "-ex", "set debuginfod enabled off"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	args = append(args, bin)
	cmd := exec.CommandContext(t.Context(), "gdb", args...)
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Fatalf("gdb: %v", err)
	}
	return string(out)
}

// core is a core file: memory from PT_LOAD segments (falling back to the
// mapped files for pages the core omits), the registers of the first
// thread, and the mapped files.
type core struct {
	f     *elf.File
	regs  Regs
	files []coreFile
	imgs  map[string]*Image
}

type coreFile struct {
	start, end, off uint64
	path            string
}

func openCore(t testing.TB, path string) *core {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c := &core{f: f, imgs: map[string]*Image{}}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			t.Fatal(err)
		}
		for len(data) >= 12 {
			nsz, dsz, typ := binary.LittleEndian.Uint32(data), binary.LittleEndian.Uint32(data[4:]), binary.LittleEndian.Uint32(data[8:])
			nOff := 12 + (int(nsz)+3)&^3
			desc := data[nOff : nOff+int(dsz)]
			data = data[nOff+(int(dsz)+3)&^3:]
			switch typ {
			case 1: // NT_PRSTATUS
				if c.regs.valid != [2]uint64{} {
					continue // first thread only
				}
				c.regs = prstatusRegs(desc[112:])
			case 0x46494c45: // NT_FILE
				n := binary.LittleEndian.Uint64(desc)
				page := binary.LittleEndian.Uint64(desc[8:])
				names := bytes.Split(desc[16+24*n:], []byte{0})
				for i := uint64(0); i < n; i++ {
					e := desc[16+24*i:]
					c.files = append(c.files, coreFile{
						start: binary.LittleEndian.Uint64(e),
						end:   binary.LittleEndian.Uint64(e[8:]),
						off:   binary.LittleEndian.Uint64(e[16:]) * page,
						path:  string(names[i]),
					})
				}
			}
		}
	}
	return c
}

// prstatusRegs maps struct user_regs_struct to DWARF registers.
func prstatusRegs(b []byte) Regs {
	order := []int{15, 14, 13, 12, regnum.AMD64_Rbp, regnum.AMD64_Rbx, 11, 10, 9, 8,
		regnum.AMD64_Rax, regnum.AMD64_Rcx, regnum.AMD64_Rdx, regnum.AMD64_Rsi, regnum.AMD64_Rdi,
		-1 /* orig_rax */, regnum.AMD64_Rip, regnum.AMD64_Cs, regnum.AMD64_Rflags, regnum.AMD64_Rsp,
		regnum.AMD64_Ss, regnum.AMD64_Fs_base, regnum.AMD64_Gs_base, regnum.AMD64_Ds, regnum.AMD64_Es,
		regnum.AMD64_Fs, regnum.AMD64_Gs}
	var r Regs
	for i, reg := range order {
		if reg >= 0 {
			r.Set(reg, binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return r
}

func (c *core) readMemory(addr uint64, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m := c.readSome(addr+uint64(n), p[n:])
		if m == 0 {
			return n, fmt.Errorf("address %#x not in core", addr+uint64(n))
		}
		n += m
	}
	return n, nil
}

func (c *core) readSome(addr uint64, p []byte) int {
	for _, s := range c.f.Progs {
		if s.Type != elf.PT_LOAD || addr < s.Vaddr || addr >= s.Vaddr+s.Memsz {
			continue
		}
		if addr < s.Vaddr+s.Filesz {
			n := min(uint64(len(p)), s.Vaddr+s.Filesz-addr)
			m, _ := s.ReadAt(p[:n], int64(addr-s.Vaddr))
			return m
		}
	}
	for _, fm := range c.files {
		if addr < fm.start || addr >= fm.end {
			continue
		}
		f, err := os.Open(fm.path)
		if err != nil {
			return 0
		}
		defer f.Close()
		n := min(uint64(len(p)), fm.end-addr)
		m, _ := f.ReadAt(p[:n], int64(fm.off+addr-fm.start))
		return m
	}
	return 0
}

// modules maps a pc to the image of the mapped file covering it.
func (c *core) modules(t testing.TB) ModuleFunc {
	return func(pc uint64) (*Image, uint64, bool) {
		for _, fm := range c.files {
			if pc < fm.start || pc >= fm.end {
				continue
			}
			img, ok := c.imgs[fm.path]
			if !ok {
				var err error
				img, err = openWithDebugFile(fm.path)
				if img != nil {
					img.Path = fm.path
				}
				if err != nil {
					t.Logf("open %s: %v", fm.path, err)
				}
				c.imgs[fm.path] = img
			}
			if img == nil {
				return nil, 0, false
			}
			// bias: the mapping of file offset 0 minus the first PT_LOAD's vaddr
			for _, m := range c.files {
				if m.path == fm.path && m.off == 0 {
					var first uint64
					for _, p := range img.ELF().Progs {
						if p.Type == elf.PT_LOAD {
							first = p.Vaddr &^ 0xfff
							break
						}
					}
					return img, m.start - first, true
				}
			}
		}
		return nil, 0, false
	}
}

func (c *core) target(t testing.TB) *Target {
	return &Target{ReadMemory: c.readMemory, Modules: c.modules(t)}
}

// gdbFrame is one line of gdb's "bt".
type gdbFrame struct {
	level int
	pc    uint64 // 0 if gdb did not print one
	hasPC bool
	fn    string
	file  string
	line  int
}

var btRe = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(.+?)(?: \(.*\))?(?: at (\S+):(\d+)| from (\S+))?$`)

// parseBT parses gdb's backtrace lines from its output.
func parseBT(out string) []gdbFrame {
	var fs []gdbFrame
	for _, l := range strings.Split(out, "\n") {
		m := btRe.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		f := gdbFrame{}
		f.level, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			f.pc, _ = strconv.ParseUint(m[2][2:], 16, 64)
			f.hasPC = true
		}
		f.fn = m[3]
		if i := strings.Index(f.fn, " ("); i > 0 {
			f.fn = f.fn[:i]
		}
		f.file = m[4]
		f.line, _ = strconv.Atoi(m[5])
		fs = append(fs, f)
	}
	return fs
}

// gdbStopDump is what stopAndDump saw at one stop.
type gdbStopDump struct {
	out  string // gdb's output for this stop (bt and the extra commands)
	core *core
}

// stopAndDump runs bin under one gdb to each breakpoint in turn (one-shot
// breakpoints, so list them in the order the program reaches them); at
// each stop it prints "bt", runs extra and writes a core.
func stopAndDump(t testing.TB, bin string, stops []string, extra ...string) []gdbStopDump {
	t.Helper()
	dir := t.TempDir()
	cmds := []string{"handle SIGUSR1 nostop noprint pass"}
	for _, s := range stops {
		cmds = append(cmds, "tbreak "+s)
	}
	for i := range stops {
		if i == 0 {
			cmds = append(cmds, "run")
		} else {
			cmds = append(cmds, "continue")
		}
		cmds = append(cmds, fmt.Sprintf("echo <<<STOP%d\\n", i), "bt")
		cmds = append(cmds, extra...)
		cmds = append(cmds, fmt.Sprintf("generate-core-file %s/core%d", dir, i), fmt.Sprintf("echo STOP%d>>>\\n", i))
	}
	cmds = append(cmds, "kill")
	out := runGDB(t, bin, cmds...)
	var res []gdbStopDump
	for i := range stops {
		p := fmt.Sprintf("%s/core%d", dir, i)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("gdb wrote no core at stop %d (%s): %v\n%s", i, stops[i], err, out)
		}
		res = append(res, gdbStopDump{out: between(out, fmt.Sprintf("<<<STOP%d", i), fmt.Sprintf("STOP%d>>>", i)), core: openCore(t, p)})
	}
	return res
}

// between returns the text between two markers of gdb output.
func between(out, a, b string) string {
	i := strings.Index(out, a)
	if i < 0 {
		return ""
	}
	out = out[i+len(a):]
	if j := strings.Index(out, b); j >= 0 {
		out = out[:j]
	}
	return out
}

// openWithDebugFile opens an ELF file and, when /usr/lib/debug has a
// separate debug file for its build id, takes the DWARF from there.
func openWithDebugFile(path string) (*Image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	if s := f.Section(".note.gnu.build-id"); s != nil && f.Section(".debug_info") == nil {
		if b, err := s.Data(); err == nil && len(b) > 16 {
			id := b[16:]
			dbgPath := fmt.Sprintf("/usr/lib/debug/.build-id/%x/%x.debug", id[:1], id[1:])
			if d, err := elf.Open(dbgPath); err == nil {
				return LoadSplit(f, d)
			}
		}
	}
	return LoadSplit(f, nil)
}
