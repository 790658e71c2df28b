package symbols

import (
	"bytes"
	"os"
	"testing"
)

// FuzzFile feeds arbitrary bytes to NewFile and every lookup: malformed
// ELF files must give errors, never panics.
func FuzzFile(f *testing.F) {
	for _, fx := range []string{"libsymt.so", "pie"} {
		b, err := os.ReadFile(fixture(f, fx))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/3])
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := NewFile(bytes.NewReader(b))
		if err != nil {
			return
		}
		ef.DebugRoots = []string{} // no file system access
		_, _ = ef.BuildID()
		_, _, _, _ = ef.DebugLink()
		_, _ = ef.DWARFFile()
		syms, err := ef.Symbols()
		if err != nil {
			return
		}
		for i, s := range syms {
			if i > 64 {
				break
			}
			_, _, _ = ef.LookupAddr(s.Addr + s.Size/2)
			_, _ = ef.LookupName(s.Name)
		}
		_, _ = ef.LookupName("Foo::bar(int) const")
		_ = ef.LoadRange
	})
}
