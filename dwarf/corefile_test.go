package dwarf

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corefile "github.com/rrmcp/rrmcp/internal/coredump"
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
	out := filepath.Join(progDir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+strings.ReplaceAll(strings.Join(flags, ""), " ", ""))
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

// core is a core file (read by internal/coredump, the reader rr_core_open
// uses) with the first thread's registers as DWARF registers and the
// images of its mapped files.
type core struct {
	*corefile.File
	regs Regs
	imgs map[string]*Image
}

// mustOpen opens path with open, failing the test on an error, and closes
// what it opened when the test ends.
func mustOpen[T io.Closer](t testing.TB, open func(string) (T, error), path string) T {
	t.Helper()
	v, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// openELF opens the ELF file at path until the test ends.
func openELF(t testing.TB, path string) *elf.File {
	t.Helper()
	return mustOpen(t, elf.Open, path)
}

// openImage opens the image at path until the test ends.
func openImage(t testing.TB, path string) *Image {
	t.Helper()
	return mustOpen(t, Open, path)
}

func openCore(t testing.TB, path string) *core {
	t.Helper()
	f, err := corefile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c := &core{File: f, imgs: map[string]*Image{}}
	for i, name := range corefile.RegNames {
		if n, ok := RegNum(name); ok {
			c.regs.Set(n, f.Threads[0].Regs[i])
		}
	}
	return c
}

// modules maps a pc to the image of the mapped file covering it.
func (c *core) modules(t testing.TB) ModuleFunc {
	return func(_ context.Context, pc uint64) (*Image, uint64, bool) {
		for _, fm := range c.Mappings {
			if pc < fm.Start || pc >= fm.End {
				continue
			}
			img, ok := c.imgs[fm.Path]
			if !ok {
				var err error
				img, err = openWithDebugFile(fm.Path)
				if img != nil {
					img.Path = fm.Path
				}
				if err != nil {
					t.Logf("open %s: %v", fm.Path, err)
				}
				c.imgs[fm.Path] = img
			}
			if img == nil {
				return nil, 0, false
			}
			// bias: the mapping of file offset 0 minus the first PT_LOAD's vaddr
			for _, m := range c.Mappings {
				if m.Path == fm.Path && m.Offset == 0 {
					var first uint64
					for _, p := range img.ELF().Progs {
						if p.Type == elf.PT_LOAD {
							first = p.Vaddr &^ 0xfff
							break
						}
					}
					return img, m.Start - first, true
				}
			}
		}
		return nil, 0, false
	}
}

func (c *core) target(t testing.TB) *Target {
	return &Target{ReadMemory: c.read, Modules: c.modules(t)}
}

// read is the core's memory as a ReadMemoryFunc (a file needs no context).
func (c *core) read(_ context.Context, addr uint64, p []byte) (int, error) {
	return c.ReadMemory(addr, p)
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

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not installed: %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
}

// compile builds testdata/values/src with cc into dir.
func compile(t *testing.T, cc, src string, extra ...string) string {
	t.Helper()
	needTools(t, cc)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	args := append([]string{"-O0", "-g", "-o", out, filepath.Join("testdata", "values", src)}, extra...)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if b, err := exec.CommandContext(ctx, cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	return out
}
