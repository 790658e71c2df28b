package session

import (
	"testing"
)

// TestGDBFallbackInWorkerThread: the GDB fallback evaluates in the
// thread the program stopped in when that is not the first thread. GDB
// reads its first registers through the relay with "Hg0" (any thread),
// before it knows the threads, and files them under the stop's thread;
// gdbserver picked the first thread for it, so GDB's frame of a worker
// thread was the main thread's and the worker's locals "No symbol"
// (a Go program's ptype fallback failed so in half the runs).
func TestGDBFallbackInWorkerThread(t *testing.T) {
	s := liveSession(t, "race", "bump")
	ctx := t.Context()
	st, err := s.Next(ctx, 1, false) // v is read
	if err != nil {
		t.Fatal(err)
	}
	if st.Thread == "" {
		t.Fatalf("no thread at the stop: %+v", st)
	}
	native, err := s.Evaluate(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	// {long} ADDR is GDB's syntax, which rrmcp leaves to GDB.
	r, err := s.Evaluate(ctx, "{long}&v")
	if err != nil || r.Engine != "gdb" || r.Value != native.Value {
		t.Fatalf("{long}&v in thread %s = %+v %v, want %s from GDB", st.Thread, r, err, native.Value)
	}
	if threads, err := s.Threads(ctx); err == nil && len(threads) > 0 && threads[0].ID == st.Thread {
		t.Logf("stopped in the first thread: this run does not prove the fix")
	}
}
