package proc_test

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestRunsI386: the probe's answer is what happens when the real -m32
// test program is executed: it runs (exit 0) where the probe says yes,
// exec fails with ENOEXEC where it says no.
func TestRunsI386(t *testing.T) {
	prog := testenv.Prog(t, "counter-m32")
	ok, err := proc.RunsI386(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = exec.Command(prog).Run()
	var pe *os.PathError
	noexec := errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOEXEC)
	if ok == noexec || ok && err != nil {
		t.Fatalf("probe says runs-i386=%v, running %s gave %v", ok, prog, err)
	}
	t.Logf("this kernel runs i386 programs: %v", ok)
}
