package session

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestFinishValuesMatchGDB: rr_finish's "Value returned" is GDB's, for
// every place the System V ABI leaves a return value (testdata/
// returns.cpp: rax, xmm0, rax:rdx, xmm0:xmm1, a mix of both, memory at
// the address in rax for a large struct and for a class that is not
// trivially copyable), built by g++ and clang++. movesVsGDB compares each
// finish's value with the one GDB prints.
func TestFinishValuesMatchGDB(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gdbserver")
	src, err := filepath.Abs(filepath.Join("testdata", "returns.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cxx := range []string{"g++", "clang++"} {
		t.Run(cxx, func(t *testing.T) {
			testenv.NeedTool(t, cxx)
			exe := filepath.Join(t.TempDir(), "returns")
			args := []string{"-g", "-O0", "-o", exe, src}
			if cxx == "clang++" {
				// Without it clang leaves std::string's definition to
				// libstdc++'s debug info, which GDB's printer needs too.
				args = append([]string{"-fstandalone-debug"}, args...)
			}
			if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cxx, err, out)
			}
			for _, fn := range []string{"mk", "small", "dbl", "mixed", "floats", "big", "withdtor", "chars", "color", "text", "bytes", "half", "odd"} {
				t.Run(fn, func(t *testing.T) {
					got := movesVsGDB(t, exe, fn, []string{"finish"})
					if len(got) < 2 || got[1].ret == "" {
						t.Errorf("finish from %s returned no value: %v", fn, got)
					}
				})
			}
		})
	}
}
