package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/sources"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestSourcePolicy: rr_source_lines reads only files the program's debug
// information names (the old code read any absolute path: /etc/passwd,
// /proc/self/environ, /dev/zero without limit), and only regular files
// within the size cap (a FIFO blocked the session forever).
func TestSourcePolicy(t *testing.T) {
	s := liveSession(t, "null_deref", "lookup")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, file := range []string{"/etc/passwd", "/proc/self/environ", "/dev/zero",
		"/x/../../etc/passwd", "../../../../../etc/passwd", "/etc/../etc/passwd", "null_deref.c\x00/etc/passwd"} {
		_, err := s.SourceLines(ctx, file, 1, 5)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "debug information") {
			t.Errorf("SourceLines(%q) = %v, want a not-in-the-debug-information error", file, err)
		}
	}
	src, err := s.SourceLines(ctx, "null_deref.c", 1, 3)
	if err != nil || len(src.Lines) != 3 {
		t.Fatalf("SourceLines(null_deref.c) = %+v, %v", src, err)
	}
}

// TestSourceMap: Config.SourceMap (RRMCP_SOURCE_MAP) reads the sources the
// debug information names from another place; names it does not give are
// still refused.
func TestSourceMap(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	path := testenv.Prog(t, "null_deref")
	moved := t.TempDir()
	os.WriteFile(filepath.Join(moved, "null_deref.c"), []byte("MAPPED COPY\n"), 0o644)
	rules, err := sources.ParseMap(filepath.Join(testenv.Root(t), "testprogs", "src") + "=" + moved)
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{SourceMap: rules})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _, err := m.StartLive(ctx, LiveOptions{Command: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := s.SourceLines(ctx, "null_deref.c", 1, 1)
	if err != nil || len(src.Lines) != 1 || src.Lines[0].Text != "MAPPED COPY" {
		t.Fatalf("SourceLines through the map = %+v, %v", src, err)
	}
	if _, err := s.SourceLines(ctx, filepath.Join(moved, "null_deref.c"), 1, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("the map's target read by its own name: %v", err)
	}
}
