package sources

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// TestReadLines: only regular files within the limit are read, and a
// FIFO does not block.
func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.c")
	os.WriteFile(big, make([]byte, 2048), 0o644)
	small := filepath.Join(dir, "small.c")
	os.WriteFile(small, []byte("a\nb\n"), 0o644)
	for _, tc := range []struct {
		path, want string
		kind       error
	}{
		{fifo, "not a regular file", errkind.Unsupported},
		{"/dev/zero", "not a regular file", errkind.Unsupported},
		{dir, "not a regular file", errkind.Unsupported},
		{big, "over the 1024-byte limit", errkind.Unsupported},
		{filepath.Join(dir, "gone.c"), "moved or deleted", errkind.NotFound},
		{small, "", nil},
	} {
		lines, err := ReadLines(tc.path, 1024)
		switch {
		case tc.want == "" && (err != nil || len(lines) != 3):
			t.Errorf("ReadLines(%s) = %q, %v", tc.path, lines, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind)):
			t.Errorf("ReadLines(%s) = %v, want %q (%v)", tc.path, err, tc.want, tc.kind)
		}
	}
}

// TestMatch: a name is one the debug information gives, in full or as a
// tail that cannot climb out of the named directory.
func TestMatch(t *testing.T) {
	named := []string{"/src/app/main.c", "/src/app/lib/util.c", "/usr/include/stdio.h"}
	for _, tc := range []struct{ file, want string }{
		{"/src/app/main.c", "/src/app/main.c"},
		{"main.c", "/src/app/main.c"},
		{"./lib/util.c", "/src/app/lib/util.c"},
		{"lib/util.c", "/src/app/lib/util.c"},
		{"util.c", "/src/app/lib/util.c"},
		{"/etc/passwd", ""},
		{"../../etc/passwd", ""},
		{"lib/../main.c", ""},
		{"/src/app/../app/main.c", ""},
		{"main.c\x00/etc/passwd", ""},
		{"", ""},
		{"ain.c", ""},
	} {
		if got := Match(tc.file, named); got != tc.want {
			t.Errorf("Match(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

// TestCache: rules move where a file is read from; Lines does not
// remember a failure (the file may appear), Quiet does.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	rules, err := ParseMap("/build/src=" + dir + "; /other=/tmp")
	if err != nil || len(rules) != 2 {
		t.Fatalf("ParseMap: %v %v", rules, err)
	}
	c := Cache{Rules: rules}
	if _, err := c.Lines("/build/src/a.c"); !errors.Is(err, errkind.NotFound) {
		t.Fatalf("a missing file: %v", err)
	}
	if c.Quiet("/build/src/b.c") != nil {
		t.Fatal("Quiet of a missing file")
	}
	os.WriteFile(filepath.Join(dir, "a.c"), []byte("int a;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.c"), []byte("int b;\n"), 0o644)
	if l, err := c.Lines("/build/src/a.c"); err != nil || l[0] != "int a;" {
		t.Errorf("after it appeared: %q %v", l, err)
	}
	if c.Quiet("/build/src/b.c") != nil {
		t.Error("Quiet tried again a file it could not read")
	}
	for _, bad := range []string{"rel=/x", "/x", "/a=b"} {
		if _, err := ParseMap(bad); err == nil {
			t.Errorf("ParseMap(%q) accepted", bad)
		}
	}
}
