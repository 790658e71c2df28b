package dwarf

import (
	"os/exec"
	"path/filepath"
	"testing"

	stddwarf "debug/dwarf"
)

// FuzzTypeReader mutates the .debug_info of a small C program and reads
// every type DIE in it: the reader must return errors, never panic or
// loop. The seed is the real section (built with gcc at fuzz start).
func FuzzTypeReader(f *testing.F) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		f.Skipf("gcc not installed: %v", err)
	}
	bin := filepath.Join(f.TempDir(), "vla")
	if out, err := exec.Command(gcc, "-O0", "-g", "-o", bin, filepath.Join("testdata", "values", "vla.c")).CombinedOutput(); err != nil {
		f.Fatalf("gcc: %v\n%s", err, out)
	}
	ef := openELF(f, bin)
	sec := func(name string) []byte {
		s := ef.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	abbrev, info, str, lineStr := sec(".debug_abbrev"), sec(".debug_info"), sec(".debug_str"), sec(".debug_line_str")
	f.Add(info)
	f.Add(info[:len(info)/2])
	f.Fuzz(func(t *testing.T, info []byte) {
		d, err := stddwarf.New(abbrev, nil, nil, info, nil, nil, nil, str)
		if err != nil {
			return
		}
		if lineStr != nil {
			_ = d.AddSection(".debug_line_str", lineStr)
		}
		tr := NewTypeReader(d)
		r := d.Reader()
		for i := 0; i < 2000; i++ {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if off, ok := e.Val(stddwarf.AttrType).(stddwarf.Offset); ok {
				if typ, err := tr.Type(off); err == nil {
					_ = typ.String()
					_ = PtypeString(typ, nil, Naming{})
					_ = SizeOf(typ)
				}
			}
		}
		_, _ = tr.LookupType("struct flex")
		_, _, _ = tr.Enumerator("X")
	})
}
