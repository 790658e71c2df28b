package dwarf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	stddwarf "debug/dwarf"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestLargeBinaryLocations evaluates the location of every parameter and
// variable of every function of the sqlite3 amalgamation (gcc -O2) at
// pcs throughout the function, with every register known and memory
// readable, and checks that nothing panics and that almost nothing is
// unsupported (delve's op failed on 8.6% of these expressions).
func TestLargeBinaryLocations(t *testing.T) {
	path := filepath.Join(testenv.Root(t), "bench", "large", "build", "sqlite3")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not built (make -C bench/large): %v", path, err)
	}
	if testing.Short() {
		t.Skip("slow: evaluates every location of a 5 MB binary")
	}
	img := openImage(t, path)
	var regs Regs
	for r := 0; r < NumRegs; r++ {
		regs.Set(r, 0x7ff000001000+uint64(r)*8)
	}
	mem := func(_ context.Context, addr uint64, p []byte) (int, error) {
		for i := range p {
			p[i] = byte(addr) + byte(i)
		}
		return len(p), nil
	}
	counts := map[string]int{}
	total := 0
	for _, f := range img.Functions() {
		tree, err := f.Tree()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		env := &exprEnv{regs: &regs, mem: mem, cfa: 0x7ff000002000, hasCFA: true,
			frameBase: func() (uint64, error) { return 0x7ff000002000, nil },
			addrx:     f.cu.addrx, baseType: f.cu.baseType,
			entryValue: func([]byte) (uint64, error) { return 0, ErrOptimizedOut }}
		var walk func(n *godwarf.Tree)
		walk = func(n *godwarf.Tree) {
			for _, c := range n.Children {
				switch c.Tag {
				case stddwarf.TagVariable, stddwarf.TagFormalParameter:
					for _, r := range f.Ranges {
						for pc := r[0]; pc < r[1]; pc += max(1, (r[1]-r[0])/8) {
							total++
							_, err := img.locate(c, f.cu, env, pc)
							switch {
							case err == nil:
								counts["ok"]++
							case errors.Is(err, ErrOptimizedOut):
								counts["optimized out"]++
							case errors.Is(err, ErrUnsupported):
								counts["unsupported: "+err.Error()]++
							default:
								counts["error: "+err.Error()]++
							}
						}
					}
				case stddwarf.TagLexDwarfBlock, stddwarf.TagInlinedSubroutine:
					walk(c)
				}
			}
		}
		walk(tree)
	}
	bad := 0
	for k, n := range counts {
		if k != "ok" && k != "optimized out" {
			bad += n
			t.Logf("%6d %s", n, k)
		}
	}
	t.Logf("%d evaluations: %d ok, %d optimized out, %d other", total, counts["ok"], counts["optimized out"], bad)
	if total < 10000 {
		t.Errorf("only %d evaluations", total)
	}
	if bad*1000 > total {
		t.Errorf("%d of %d evaluations failed (more than 0.1%%)", bad, total)
	}
}
