package symbols

import (
	"os"
	"testing"
)

// TestFunctionNamedAt: naming one address by a pass over the raw tables
// gives the name the indexed table (FunctionAt) gives at offset 0, for
// the address of every code symbol (of at most 400, evenly spread) of programs, libraries (their .dynsym too),
// a stripped program whose .symtab is in its debug file, i386 code and
// the system's libc and libstdc++.
func TestFunctionNamedAt(t *testing.T) {
	for _, name := range []string{"pie", "libsymt.so", "cxx", "pie.stripped", "libsymt.stripped.so", "use32", "libuse32.so",
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"} {
		t.Run(name, func(t *testing.T) {
			path := name
			if path[0] == '/' {
				if _, err := os.Stat(path); err != nil {
					t.Skipf("%s: %v", path, err)
				}
			} else {
				path = fixture(t, name)
			}
			indexed, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer indexed.Close()
			raw, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			st, err := indexed.symbols()
			if err != nil {
				t.Fatal(err)
			}
			if len(st.funcs) == 0 {
				t.Fatal("no code symbols")
			}
			step := max(1, len(st.funcs)/400) // each call is a pass over the tables
			for i := 0; i < len(st.funcs); i += step {
				s := st.funcs[i]
				want, off, err := indexed.FunctionAt(s.Addr)
				if err != nil || off != 0 {
					t.Fatalf("FunctionAt(%#x) = %v +%d, %v", s.Addr, want.Name, off, err)
				}
				if want.Source == SourcePLT {
					continue // stubs are synthesized, not in a table
				}
				if got, ok := raw.FunctionNamedAt(s.Addr); !ok || got != want.Name {
					t.Errorf("FunctionNamedAt(%#x) = %q %v, want %q", s.Addr, got, ok, want.Name)
				}
			}
			if raw.syms != nil {
				t.Error("FunctionNamedAt indexed the table")
			}
			if got, ok := raw.FunctionNamedAt(1); ok {
				t.Errorf("FunctionNamedAt(1) = %q, want none", got)
			}
		})
	}
}
