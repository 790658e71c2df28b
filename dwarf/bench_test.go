package dwarf

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/symbols"
)

// largeBinary returns bench/large/build/<name> or skips the benchmark.
func largeBinary(b *testing.B, name string) string {
	p := filepath.Join(testenv.Root(b), "bench", "large", "build", name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not built (run make -C bench/large): %v", p, err)
	}
	return p
}

// samplePCs picks n pcs spread over the function symbols of an ELF file.
func samplePCs(b *testing.B, path string, n int) []uint64 {
	syms, err := openELF(b, path).Symbols()
	if err != nil {
		b.Fatal(err)
	}
	var fns []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
			fns = append(fns, s)
		}
	}
	if len(fns) == 0 {
		b.Fatal("no function symbols")
	}
	pcs := make([]uint64, n)
	for i := range pcs {
		s := fns[(i*7919)%len(fns)]
		pcs[i] = s.Value + uint64(i*31)%s.Size
	}
	return pcs
}

// BenchmarkLoadLargeAndResolve opens a large binary cold and resolves
// 10,000 pcs to file:line and function (issue 3).
func BenchmarkLoadLargeAndResolve(b *testing.B) {
	benchLoadAndResolve(b, func(b *testing.B, path string) (*Image, func() error) {
		img, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		return img, img.Close
	})
}

// benchLoadAndResolve times, for each large binary, loading it cold with
// load (which returns the image and what closes it) and resolving 10,000
// of its pcs with resolveAll.
func benchLoadAndResolve(b *testing.B, load func(b *testing.B, path string) (*Image, func() error)) {
	for _, name := range []string{"sqlite3", "stl/stl"} {
		b.Run(filepath.Base(name), func(b *testing.B) {
			path := largeBinary(b, name)
			pcs := samplePCs(b, path, 10000)
			b.ResetTimer()
			for b.Loop() {
				img, closeImg := load(b, path)
				resolveAll(b, img, pcs)
				closeImg()
			}
			b.ReportMetric(float64(len(pcs)), "pcs/op")
		})
	}
}

// resolveAll resolves every pc to a line and a function in img, and fails
// unless at least half of those lookups succeed.
func resolveAll(b *testing.B, img *Image, pcs []uint64) {
	b.Helper()
	found := 0
	for _, pc := range pcs {
		if _, ok := img.PCToLine(pc); ok {
			found++
		}
		if f := img.FuncAt(pc); f != nil && f.Name != "" {
			found++
		}
	}
	if found < len(pcs) {
		b.Fatalf("only %d of %d lookups resolved", found, 2*len(pcs))
	}
}

// BenchmarkPCToLineWarm measures lookups on an already indexed image.
func BenchmarkPCToLineWarm(b *testing.B) {
	path := largeBinary(b, "sqlite3")
	pcs := samplePCs(b, path, 10000)
	img := openImage(b, path)
	for _, pc := range pcs {
		img.PCToLine(pc)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, pc := range pcs {
			img.PCToLine(pc)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pcs)), "ns/lookup")
}

// BenchmarkLineToAddrsCold opens the 100-unit C++ binary and resolves a
// file:line breakpoint (only units naming the file decode their lines).
func BenchmarkLineToAddrsCold(b *testing.B) {
	path := largeBinary(b, "stl/stl")
	for b.Loop() {
		img, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		las, err := img.LineToAddrs("mod007.cpp", 40)
		if err != nil || len(las) == 0 {
			b.Fatalf("LineToAddrs: %v, %d", err, len(las))
		}
		img.Close()
	}
}

// BenchmarkLoadLargeMapped is BenchmarkLoadLargeAndResolve with the
// DWARF of package symbols' memory-mapped file (LoadFrom): no section
// copies.
func BenchmarkLoadLargeMapped(b *testing.B) {
	benchLoadAndResolve(b, func(b *testing.B, path string) (*Image, func() error) {
		sf, err := symbols.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		dw, err := sf.DWARF()
		if err != nil {
			b.Fatal(err)
		}
		img, err := LoadFrom(Sources{Exe: sf.ELF(), DWARF: dw, Section: sf.SectionData})
		if err != nil {
			b.Fatal(err)
		}
		return img, sf.Close
	})
}

// BenchmarkUnwindAndLocals measures one stop's worth of work on warm
// images: a backtrace through a signal handler and libc (with its
// separate debug file) and the locals and arguments of every frame.
func BenchmarkUnwindAndLocals(b *testing.B) {
	bin := buildTestProg(b, "gcc", "sample.c", "-g", "-O2")
	d := stopAndDump(b, bin, []string{"stop_in_handler"})[0]
	img := openImage(b, bin)
	tgt := d.core.target(b)
	bt, err := img.Unwind(b.Context(), tgt, d.core.regs, 0, UnwindOptions{})
	if err != nil || len(bt.Frames) < 5 {
		b.Fatalf("unwind: %v", err)
	}
	b.ResetTimer()
	for b.Loop() {
		bt, _ := img.Unwind(b.Context(), tgt, d.core.regs, 0, UnwindOptions{})
		for _, f := range bt.Frames {
			for _, v := range append(f.Params(b.Context()), f.Locals(b.Context())...) {
				v.Location.Read(b.Context(), tgt.ReadMemory, 4)
			}
		}
	}
	b.ReportMetric(float64(len(bt.Frames)), "frames/op")
}

// BenchmarkColdStartSTL is the DWARF side of the session's cold start to
// the first stop on the 100-unit C++ binary: open the image, resolve the
// function breakpoint "bench_stop" (GDB's prologue skip, inlined copies),
// then name the
// stop pc (function, line, ELF symbol). peak-MiB is the process's VmHWM
// (meaningful with -benchtime=1x in a fresh process).
func BenchmarkColdStartSTL(b *testing.B) {
	path := largeBinary(b, "stl/stl")
	for b.Loop() {
		img, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		las := img.FunctionBreakpoints("bench_stop") // as the session's "break NAME"
		if len(las) != 1 || las[0].Line == 0 {
			b.Fatalf("FunctionBreakpoints(bench_stop) = %+v", las)
		}
		pc := las[0].Addr
		if f := img.FuncAt(pc); f == nil || f.Name != "bench_stop" {
			b.Fatalf("FuncAt(%#x) = %v", pc, f)
		}
		if _, ok := img.PCToLine(pc); !ok {
			b.Fatalf("PCToLine(%#x) failed", pc)
		}
		img.SymbolAt(pc)
		img.cfiFor().fdeFor(pc)
		img.Close()
	}
	b.ReportMetric(vmHWM(b), "peak-MiB")
}

// vmHWM returns the process's peak resident set size in MiB.
func vmHWM(b *testing.B) float64 {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
