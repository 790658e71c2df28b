package session

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAcquireWakesOnResume: a call waiting for the session lock held by a
// short operation fails with ErrNotStopped as soon as a resume starts,
// and takes the lock normally when none does.
func TestAcquireWakesOnResume(t *testing.T) {
	s := &Session{id: "t", sem: make(chan struct{}, 1)}
	s.sem <- struct{}{} // a short operation holds the lock
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	waiting := make(chan error, 1)
	go func() { waiting <- s.acquire(ctx) }()
	s.setRunning(true) // that operation starts a resume
	if err := <-waiting; !errors.Is(err, ErrNotStopped) {
		t.Fatalf("acquire while a resume starts: %v, want ErrNotStopped", err)
	}
	s.setRunning(false)
	go func() { waiting <- s.acquire(ctx) }()
	s.release()
	if err := <-waiting; err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	s.release()
}
