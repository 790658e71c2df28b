package testenv

import (
	"os"
	"sync"
	"testing"
)

// Shared is something a test binary builds once, in a temporary directory
// of its own, and shares between its tests (a compiled program, a QEMU
// recording). The zero value is ready; the package's TestMain runs its
// tests through Run, which removes the directory afterwards.
type Shared[T any] struct {
	once sync.Once
	dir  string
	v    T
	err  error
}

// Get builds the value with build in a fresh temporary directory the first
// time it is called and returns it; when that build failed, every test that
// asks fails with its error.
func (s *Shared[T]) Get(t testing.TB, build func(dir string) (T, error)) T {
	t.Helper()
	s.once.Do(func() {
		s.dir, s.err = os.MkdirTemp("", "rrmcp-test-")
		if s.err == nil {
			s.v, s.err = build(s.dir)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.v
}

// Run runs the tests of m, removes the directory if one was made and
// returns m's exit code (for os.Exit in TestMain).
func (s *Shared[T]) Run(m *testing.M) int {
	code := m.Run()
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	return code
}
