package proc_test

import (
	"errors"
	"fmt"
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

// TestRunsI386Concurrent: probes started together (rrmcp processes
// sharing a TMPDIR, or goroutines of one) each write a file of their own
// and give the same answer; none is left behind. The probe's file had a
// fixed name, which one probe could remove or rewrite while another ran
// it.
func TestRunsI386Concurrent(t *testing.T) {
	dir := t.TempDir()
	want, err := proc.RunsI386(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			ok, err := proc.RunsI386(t.Context(), dir)
			if err == nil && ok != want {
				err = fmt.Errorf("runs-i386=%v, the first probe said %v", ok, want)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("probe files left in %s: %v", dir, left)
	}
}
