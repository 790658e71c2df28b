package session

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestGOTSlotNames: a pointer into a .got.plt slot prints as GDB prints
// it, <puts@got[plt]> (+offset), as GDB's minimal symbols name the slots
// the PLT stubs jump through; it printed as a bare address. Linked with
// -z now, the program has no .got.plt and the slots are in .got, where
// GDB names them as well.
func TestGOTSlotNames(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	for _, prog := range []string{"counter", "counter-m32", "counter-z-now"} {
		t.Run(prog, func(t *testing.T) {
			var path string
			if prog == "counter-z-now" {
				path = filepath.Join(t.TempDir(), prog)
				src := filepath.Join(testenv.Root(t), "testprogs", "src", "counter.c")
				if err := testenv.CompileDebug("gcc", src, path, "-Wl,-z,now"); err != nil {
					t.Fatal(err)
				}
			} else {
				path = testenv.Prog(t, prog)
			}
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := f.Section(".got.plt")
			if prog == "counter-z-now" && got != nil {
				t.Fatalf("%s linked with -z now has a .got.plt", prog)
			}
			if got == nil {
				got = f.Section(".got") // -z now (the toolchain's default, or asked for)
			}
			if got == nil {
				t.Fatalf("%s has neither .got.plt nor .got", prog)
			}
			ptr := uint64(8)
			if f.Class == elf.ELFCLASS32 {
				ptr = 4
			}
			s, ctx := liveAt(t, Config{}, []string{path}, "main")
			bias := s.inf.Bias
			var exprs, cmds []string
			// past the three reserved slots, and an offset into one
			for _, a := range []uint64{got.Addr + 3*ptr, got.Addr + 4*ptr, got.Addr + 3*ptr + 2} {
				e := fmt.Sprintf("(void *)%#x", bias+a)
				exprs = append(exprs, e)
				cmds = append(cmds, "echo <V>\\n", "output "+e, "echo \\n</V>\\n")
			}
			out := gdbAt(t, path, "main", cmds...)
			want := regexp.MustCompile(`(?s)<V>\n(.*?)\n</V>`).FindAllStringSubmatch(out, -1)
			if len(want) != len(exprs) {
				t.Fatalf("gdb:\n%s", out)
			}
			for i, e := range exprs {
				r, err := s.Evaluate(ctx, e)
				if err != nil || r.Value != want[i][1] {
					t.Errorf("%s = %q %v, gdb %q", e, r.Value, err, want[i][1])
				}
			}
		})
	}
}
