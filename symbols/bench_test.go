package symbols

import (
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// largeBinary returns a big ELF file on this machine for benchmarks:
// $RRMCP_BENCH_ELF, or the first of a few usual suspects.
func largeBinary(tb testing.TB) string {
	cands := []string{os.Getenv("RRMCP_BENCH_ELF"), "/usr/bin/node", "/usr/bin/qemu-system-x86_64", "/usr/bin/gdb"}
	for _, p := range cands {
		if st, err := os.Stat(p); p != "" && err == nil && st.Size() > 4<<20 {
			return p
		}
	}
	tb.Skip("no ELF file over 4 MiB found (set RRMCP_BENCH_ELF)")
	return ""
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestOpenIsLazy checks that opening a large binary reads only its headers
// and that symbol tables are read on the first lookup.
func TestOpenIsLazy(t *testing.T) {
	path := largeBinary(t)
	osf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer osf.Close()
	st, _ := osf.Stat()
	cr := &countingReaderAt{r: osf}
	f, err := NewFile(cr)
	if err != nil {
		t.Fatal(err)
	}
	opened := cr.n
	if opened > 1<<20 || opened*20 > st.Size() {
		t.Errorf("NewFile read %d of %d bytes of %s", opened, st.Size(), path)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) == 0 || cr.n <= opened {
		t.Errorf("Symbols() returned %d symbols after reading %d more bytes", len(syms), cr.n-opened)
	}
	t.Logf("%s: %d bytes; open read %d bytes, symbols %d more (%d symbols)", path, st.Size(), opened, cr.n-opened, len(syms))
}

func BenchmarkOpenLarge(b *testing.B) {
	path := largeBinary(b)
	st, _ := os.Stat(path)
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkLoadSymbols measures the first lookup: decoding .symtab,
// .dynsym and the PLT and sorting them.
func BenchmarkLoadSymbols(b *testing.B) {
	path := largeBinary(b)
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := f.LookupAddr(f.Entry()); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func BenchmarkLookupPC(b *testing.B) {
	f := openT(b, largeBinary(b))
	syms, err := f.Symbols()
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var sized []Symbol
	for _, s := range syms {
		if s.Size > 0 {
			sized = append(sized, s)
		}
	}
	pcs := make([]uint64, 10000)
	for i := range pcs {
		s := sized[r.IntN(len(sized))]
		pcs[i] = s.Addr + s.Size/2
	}
	b.ResetTimer()
	for b.Loop() {
		for _, pc := range pcs {
			if _, _, err := f.LookupAddr(pc); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pcs)), "ns/pc")
}

// BenchmarkLookupName measures name lookups after the name index is
// built (the first call demangles every C++ symbol).
func BenchmarkLookupName(b *testing.B) {
	f := openT(b, largeBinary(b))
	syms, err := f.Symbols()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.LookupName(syms[0].Name); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := f.LookupName(syms[i%len(syms)].Name); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}
