package symbols

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestRelease: the pages of a memory-mapped section leave the resident
// set when released and read the same afterwards; a pass over a symbol
// table (EachSymbol) releases the table's pages; a slice that is not
// part of the mapping is left alone.
func TestRelease(t *testing.T) {
	const lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("%s: %v", lib, err)
	}
	f, err := Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.data == nil {
		t.Fatal("not memory-mapped")
	}
	str, err := f.SectionData(".dynstr")
	if err != nil || len(str) < 64<<10 {
		t.Fatalf(".dynstr: %d bytes, %v", len(str), err)
	}
	before := bytes.Clone(str) // reads every page
	if r, n := testenv.Resident(t, str); r != n || n == 0 {
		t.Fatalf("after reading .dynstr: %d of its %d pages resident, want all", r, n)
	}
	f.Release(str)
	if r, n := testenv.Resident(t, str); r != 0 {
		t.Errorf("after Release: %d of %d pages resident, want none", r, n)
	}
	if !bytes.Equal(str, before) {
		t.Error("released pages read back differently")
	}
	count := 0
	if err := f.EachSymbol(elf.SHT_DYNSYM, func(e RawSymbol) bool { count += len(e.Name); return true }); err != nil || count == 0 {
		t.Fatalf("EachSymbol: %d name bytes, %v", count, err)
	}
	syms, _ := f.SectionData(".dynsym")
	for _, b := range [][]byte{str, syms} {
		if r, n := testenv.Resident(t, b); r != 0 {
			t.Errorf("after a pass over .dynsym: %d of %d pages of a table resident, want none", r, n)
		}
	}
	f.Release(before) // a copy: nothing to do
	if r, n := testenv.Resident(t, before); r != n {
		t.Errorf("a slice outside the mapping was released: %d of %d pages resident", r, n)
	}
}
