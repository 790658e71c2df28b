package dwarf_test

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/format"

	stddwarf "debug/dwarf"

	"github.com/ianlancetaylor/demangle"
)

// coreMem reads memory from the PT_LOAD segments of a core file, falling
// back to the executable's file-backed segments (GDB does not dump
// read-only text) shifted by the load bias.
type coreMem struct {
	segs []coreSeg
}

type coreSeg struct {
	addr uint64
	data []byte
}

func (m *coreMem) add(f *elf.File, bias uint64) error {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			return err
		}
		m.segs = append(m.segs, coreSeg{p.Vaddr + bias, data})
	}
	return nil
}

func (m *coreMem) read(_ context.Context, addr uint64, p []byte) (int, error) {
	for _, s := range m.segs { // core segments first: they win
		if addr >= s.addr && addr-s.addr <= uint64(len(s.data)) && uint64(len(p)) <= uint64(len(s.data))-(addr-s.addr) {
			return copy(p, s.data[addr-s.addr:]), nil
		}
	}
	return 0, fmt.Errorf("no segment at %#x", addr)
}

// gdbStop is a program stopped in GDB at here() with the frame moved up
// to the caller, a core of it, and what GDB printed.
type gdbStop struct {
	bin     string
	exe     *elf.File
	d       *stddwarf.Data
	types   *dwarf.TypeReader
	bias    uint64
	mem     *coreMem
	printed map[string]string // expression -> GDB's text after "$N = "
	env     *dwarf.ValueEnv
	syms    []elf.Symbol
	globals map[string]globalInfo
	core    string // path of the core file
}

var buildMu sync.Mutex

var markRe = regexp.MustCompile(`^<<<(\d+)>>>$`)

// stopAtHere runs to here() and finishes back to main.
var stopAtHere = []string{"break here", "run", "finish"}

// stopInGDB runs bin under GDB with the commands in stop, writes a core
// and prints every expression in exprs (plus helpers), returning all.
func stopInGDB(t *testing.T, bin string, stop, exprs []string) *gdbStop {
	t.Helper()
	dwarf.NeedTools(t, "gdb")
	core := filepath.Join(t.TempDir(), "core")
	// Each command is a separate -ex: unlike a script, a failing -ex
	// does not stop the ones after it.
	args := []string{"-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0", "-ex", "set confirm off"}
	for _, c := range stop {
		args = append(args, "-ex", c)
	}
	args = append(args, "-ex", "generate-core-file "+core)
	all := append([]string{"(unsigned long)&main"}, exprs...)
	for i, e := range all {
		cmd := "print " + e
		if strings.HasPrefix(e, "/") { // "/x expr" is print/x expr
			cmd = "print" + e
		}
		args = append(args, "-ex", fmt.Sprintf("echo <<<%d>>>\\n", i), "-ex", cmd)
	}
	args = append(args, bin)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "gdb", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	// gdb -batch exits non-zero when the last command failed; the
	// per-expression errors are checked by the callers.
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("<<<0>>>")) {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	printed := map[string]string{}
	cur := -1
	for _, line := range strings.Split(string(out), "\n") {
		if m := markRe.FindStringSubmatch(line); m != nil {
			cur, _ = strconv.Atoi(m[1])
			continue
		}
		if cur < 0 || cur >= len(all) {
			continue
		}
		if _, done := printed[all[cur]]; done {
			continue
		}
		if i := strings.Index(line, " = "); strings.HasPrefix(line, "$") && i > 0 {
			printed[all[cur]] = line[i+3:]
		} else if line != "" {
			printed[all[cur]] = "ERROR: " + line
		}
	}
	s := &gdbStop{bin: bin, printed: printed, mem: &coreMem{}, core: core}
	s.exe = dwarf.OpenELF(t, bin)
	if s.d, err = s.exe.DWARF(); err != nil {
		t.Fatal(err)
	}
	s.types = dwarf.NewTypeReader(s.d)
	s.syms, _ = s.exe.Symbols()
	mainAddr, err := strconv.ParseUint(strings.TrimSuffix(printed["(unsigned long)&main"], "UL"), 10, 64)
	if err != nil {
		t.Fatalf("address of main from gdb: %q: %v\n%s", printed["(unsigned long)&main"], err, out)
	}
	for _, sym := range s.syms {
		if sym.Name == "main" && elf.ST_TYPE(sym.Info) == elf.STT_FUNC {
			s.bias = mainAddr - sym.Value
		}
	}
	if err := s.mem.add(dwarf.OpenELF(t, core), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.mem.add(s.exe, s.bias); err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(s.syms, func(i, j int) bool { return s.syms[i].Value < s.syms[j].Value })
	s.env = &dwarf.ValueEnv{Mem: func(a uint64, p []byte) (int, error) { return s.mem.read(t.Context(), a, p) }, Types: s.types, Bias: s.bias, Symbolize: s.symbolize}
	return s
}

// symbolize names an address as GDB's <sym+off>, from the ELF symbols.
func (s *gdbStop) symbolize(addr uint64) (string, bool) {
	best := -1
	for i, sym := range s.syms {
		typ := elf.ST_TYPE(sym.Info)
		if sym.Name == "" || sym.Section == elf.SHN_UNDEF || (typ != elf.STT_FUNC && typ != elf.STT_OBJECT) {
			continue
		}
		a := sym.Value + s.bias
		if addr >= a && (addr < a+sym.Size || addr == a) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	sym := s.syms[best]
	name := sym.Name
	if d, err := demangle.ToString(name); err == nil {
		name = d
	}
	if off := addr - sym.Value - s.bias; off != 0 {
		name += "+" + strconv.FormatUint(off, 10)
	}
	return name, true
}

type globalInfo struct {
	typ  stddwarf.Offset
	addr uint64
}

// globalVar finds a global variable's type and address by name.
func (s *gdbStop) globalVar(name string) (dwarf.Object, error) {
	if s.globals == nil {
		s.indexGlobals()
	}
	g, ok := s.globals[name]
	if !ok {
		return dwarf.Object{}, fmt.Errorf("variable %s: %w", name, dwarf.ErrNotFound)
	}
	t, err := s.types.Type(g.typ)
	if err != nil {
		return dwarf.Object{}, err
	}
	return dwarf.MemObject(t, g.addr+s.bias), nil
}

func (s *gdbStop) indexGlobals() {
	s.globals = map[string]globalInfo{}
	r := s.d.Reader()
	var prefix []string // namespace names of the open scopes ("" for others)
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return
		}
		if e.Tag == 0 {
			if len(prefix) > 0 {
				prefix = prefix[:len(prefix)-1]
			}
			continue
		}
		switch e.Tag {
		case stddwarf.TagCompileUnit, stddwarf.TagNamespace:
			n, _ := e.Val(stddwarf.AttrName).(string)
			if e.Children {
				prefix = append(prefix, n)
			}
			continue
		case stddwarf.TagVariable:
		default:
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		loc, ok := e.Val(stddwarf.AttrLocation).([]byte)
		if !ok || len(loc) != 9 || loc[0] != 0x03 {
			continue
		}
		n, _ := e.Val(stddwarf.AttrName).(string)
		toff, hasType := e.Val(stddwarf.AttrType).(stddwarf.Offset)
		qual := ""
		for _, p := range prefix[min(1, len(prefix)):] { // skip the CU's name
			qual += p + "::"
		}
		if spec, ok := e.Val(stddwarf.AttrSpecification).(stddwarf.Offset); ok {
			sr := s.d.Reader()
			sr.Seek(spec)
			se, err := sr.Next()
			if err != nil || se == nil {
				continue
			}
			n, _ = se.Val(stddwarf.AttrName).(string)
			toff, hasType = se.Val(stddwarf.AttrType).(stddwarf.Offset)
			qual = s.types.PrefixOf(spec)
		}
		if n != "" && hasType {
			g := globalInfo{toff, dwarf.DecodeUint(loc[1:])}
			s.globals[n] = g
			if qual != "" {
				s.globals[qual+n] = g
			}
		}
	}
}

// localVar finds a local of main by name and gets its address from GDB.
func (s *gdbStop) localVar(name string) (dwarf.Object, error) {
	r := s.d.Reader()
	inMain := false
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return dwarf.Object{}, fmt.Errorf("local %s: %w", name, dwarf.ErrNotFound)
		}
		switch e.Tag {
		case stddwarf.TagSubprogram:
			n, _ := e.Val(stddwarf.AttrName).(string)
			inMain = n == "main"
			if !inMain && e.Children {
				r.SkipChildren()
			}
			continue
		case stddwarf.TagVariable, stddwarf.TagFormalParameter:
			n, _ := e.Val(stddwarf.AttrName).(string)
			if !inMain || n != name {
				continue
			}
			t, err := s.types.Type(e.Val(stddwarf.AttrType).(stddwarf.Offset))
			if err != nil {
				return dwarf.Object{}, err
			}
			a, ok := s.printed["(unsigned long)&"+name]
			if !ok {
				return dwarf.Object{}, fmt.Errorf("no address of %s from gdb", name)
			}
			addr, err := strconv.ParseUint(a, 10, 64)
			if err != nil {
				return dwarf.Object{}, err
			}
			return dwarf.MemObject(t, addr), nil
		}
	}
}

var cExprs = []string{
	"g_mixed", "head", "n1", "g_arr", "g_zero", "g_same", "g_str", "g_cp", "g_esc", "g_col", "g_alias", "g_badcol",
	"g_op", "g_ops", "g_d", "g_f", "g_dz", "g_big", "g_neg", "g_ld", "g_short", "g_ulong", "g_ll", "g_uc",
	"g_sc", "g_c", "g_nl", "g_bool", "g_i32", "g_u8", "g_ip", "g_ipp", "g_vp", "g_nodes", "g_matrix",
	"g_u", "g_size", "g_nullstr", "g_strs", "s_counter", "g_flags", "g_flags_unk", "g_flags_zero", "g_anon",
	"g_big_arr", "g_zeros", "g_mostly", "g_rep", "g_wstr", "g_ldarr", "g_longstr", "g_longp", "g_cplx",
	"g_i128", "g_u128", "g_parr", "g_selfp", "g_fnan", "g_inf", "g_tiny", "g_bytes", "g_sbytes", "g_bigzero", "g_mixrun",
}

// printKnownDiff: variables we knowingly print differently from GDB.
var printKnownDiff = map[string]string{
	// The <symbol> of std::function's _M_manager: the demangler
	// (ianlancetaylor/demangle) substitutes a template parameter in a
	// lambda's signature differently from GDB's (c++filt's) demangler.
	"g_fn": "demangler template-parameter substitution",
}

var cLocals = []string{"m", "local", "lp", "buf", "np"}

func localExprs(locals []string) []string {
	var out []string
	for _, l := range locals {
		out = append(out, l, "(unsigned long)&"+l)
	}
	return out
}

func checkPrinted(t *testing.T, s *gdbStop, names []string, local bool) {
	t.Helper()
	for _, name := range names {
		want, ok := s.printed[name]
		if !ok || strings.HasPrefix(want, "ERROR") {
			t.Errorf("gdb did not print %s: %q", name, want)
			continue
		}
		var o dwarf.Object
		var err error
		if local {
			o, err = s.localVar(name)
		} else {
			o, err = s.globalVar(name)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := format.Text(s.env, o); got != want {
			if reason, ok := printKnownDiff[name]; ok {
				t.Logf("print %s: known difference (%s)", name, reason)
				continue
			}
			t.Errorf("print %s:\n got: %s\nwant: %s", name, got, want)
		}
	}
}

// TestCLikeGDB stops cvals in GDB once and compares our printing of
// variables and our evaluation of expressions with GDB's print.
func TestCLikeGDB(t *testing.T) {
	likeGDB{cc: "gcc", src: "cvals.c", lang: dwarf.LangC, exprs: cExprs, locals: cLocals,
		eval: cEvalExprs, frame: cFrameExprs, types: cTypes}.check(t)
}

// likeGDB is a program's comparison with GDB stopped in it: the printing
// of globals (exprs) and locals, the evaluation of eval in lang, the types,
// the frame-scope expressions frame, and the image scope.
type likeGDB struct {
	cc, src                    string
	lang                       dwarf.Lang
	exprs, locals, eval, frame []string
	types                      []typeCase
}

// check compiles the program, stops it in GDB once and runs the
// comparisons as subtests; it returns the binary and the stop.
func (l likeGDB) check(t *testing.T) (bin string, s *gdbStop) {
	t.Helper()
	bin = dwarf.Compile(t, l.cc, l.src)
	exprs := append(append(append(append([]string{}, l.exprs...), l.eval...), localExprs(l.locals)...), l.frame...)
	s = stopInGDB(t, bin, stopAtHere, exprs)
	t.Run("format", func(t *testing.T) {
		checkPrinted(t, s, l.exprs, false)
		checkPrinted(t, s, l.locals, true)
	})
	t.Run("eval", func(t *testing.T) { checkEval(t, s, l.lang, l.eval) })
	t.Run("types", func(t *testing.T) { checkTypes(t, bin, s, l.types) })
	t.Run("frame", func(t *testing.T) { checkFrameScope(t, s, l.frame) })
	t.Run("image", func(t *testing.T) { checkImageScope(t, s, l.exprs) })
	return bin, s
}

var cxxExprs = []string{
	"g_pt", "g_buf", "g_mode", "g_s", "g_long", "g_empty", "g_vec", "g_vs", "g_vempty", "g_map", "g_set",
	"g_umap", "g_list", "g_opt", "g_noopt", "g_up", "g_upnull", "g_sp", "g_sp2", "g_wp", "g_spnull",
	"g_circle", "g_shape", "g_diamond", "g_holder", "g_counter", "g_int", "g_ref", "g_cstr", "g_aref", "g_vzero",
	"g_nested", "g_sset", "g_uset", "g_mmap", "g_lstr", "g_lempty", "g_vb", "g_ostr", "g_uparr", "g_bigs", "g_vbig",
	"g_spshape", "g_pair", "g_arr3", "g_mpt", "g_vv", "g_esc", "g_tup", "g_tup0", "g_atom", "g_abool", "g_deq",
	"g_deqbig", "g_fl", "g_flempty", "g_stack", "g_queue", "g_umaps", "g_ws", "g_vref", "g_sref", "g_refh", "g_vit",
	"g_vitnull", "g_lit", "g_mit", "g_uit", "g_sit", "g_dit", "g_strit",
}

var cxxLocals = []string{"p", "cpp", "pts"}

// TestCXXLikeGDB does the same for cxxvals (libstdc++ printers on).
func TestCXXLikeGDB(t *testing.T) {
	bin, s := likeGDB{cc: "g++", src: "cxxvals.cpp", lang: dwarf.LangCPlusPlus, exprs: cxxExprs, locals: cxxLocals,
		eval: cxxEvalExprs, frame: cxxFrameExprs, types: cxxTypes}.check(t)
	t.Run("method", func(t *testing.T) { checkMethodScope(t, bin) })
	t.Run("native", func(t *testing.T) { checkNativeOnly(t, s) })
}

// TestModernCXXLikeGDB covers the C++17/20 printers (variant,
// string_view, bitset, span, optional and any, their alternatives named
// through the type printers and "containing" a printer with children) and
// types GDB prints raw.
func TestModernCXXLikeGDB(t *testing.T) {
	bin := dwarf.Compile(t, "g++", "modern.cpp", "-std=c++20")
	exprs := []string{"g_var", "g_var2", "g_sv", "g_bits", "g_span", "g_fn", "g_ms", "g_uarr", "g_wpe", "g_il",
		"g_oe", "g_om", "g_os", "g_ostr", "g_ot", "g_ve", "g_vs", "g_vm", "g_ae", "g_ai", "g_astr", "g_av", "g_as", "g_am",
		"g_vsp", "g_vup", "g_vtu", "g_osp", "g_obad"}
	s := stopInGDB(t, bin, stopAtHere, exprs)
	checkPrinted(t, s, exprs, false)
}

func TestFloat128RoundTrip(t *testing.T) {
	for _, f := range []float64{2.5, -0.75, 1e300, 1.0 / 3, 5e-324, -0.0, math.Inf(1)} {
		v, bf := dwarf.DecodeFloat128(dwarf.EncodeFloat128(new(big.Float).SetFloat64(f)))
		if v != f || math.Signbit(v) != math.Signbit(f) || bf == nil && !math.IsInf(f, 0) {
			t.Errorf("%g: decoded %g (%v)", f, v, bf)
		}
	}
	if v, _ := dwarf.DecodeFloat128(dwarf.EncodeFloat128(nil)); !math.IsNaN(v) {
		t.Errorf("NaN: %g", v)
	}
}
