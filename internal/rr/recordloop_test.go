package rr

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRecordUntilFailureCancelled: the client cancels a record loop while
// rr records (a fake rr on PATH that says so through a FIFO and then
// records forever): the loop ends "cancelled" with its attempt count, not
// with an error.
func TestRecordUntilFailureCancelled(t *testing.T) {
	bin := t.TempDir()
	fifo := filepath.Join(bin, "recording")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho started > " + fifo + "\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(bin, "rr"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type res struct {
		out *RecordLoop
		err error
	}
	done := make(chan res, 1)
	go func() {
		out, err := Traces{}.RecordUntilFailure(ctx, RecordRequest{Command: []string{"/bin/true"}, TraceDir: filepath.Join(t.TempDir(), "trace")}, UntilFailure{MaxAttempts: 3})
		done <- res{out, err}
	}()
	// Opening the FIFO for reading blocks until the fake rr writes to it.
	b, err := os.ReadFile(fifo)
	if err != nil || string(b) != "started\n" {
		t.Fatalf("fake rr never started: %q %v", b, err)
	}
	cancel()
	r := <-done
	if r.err != nil || r.out == nil || r.out.Ended != "cancelled" || r.out.Attempts != 1 || r.out.Failed {
		t.Fatalf("cancelled record loop: %+v %v; want ended cancelled after 1 attempt", r.out, r.err)
	}
}
