package rr

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// TestRemove: Traces.Remove deletes a recording directly under its root
// (by path, or through a link in the root, which is removed alone) and
// refuses, with an *errkind.ArgError and nothing deleted, whatever else it
// is given: a trace-looking directory elsewhere, a link into the root from
// outside, a path that climbs out with "..", the root itself, a
// non-trace directory in the root.
func TestRemove(t *testing.T) {
	root := t.TempDir()
	tr := Traces{Root: root}
	keep := filepath.Join(root, "prog-0")
	gone := filepath.Join(root, "prog-1")
	elsewhere := filepath.Join(t.TempDir(), "prog-9")
	junk := filepath.Join(root, "junk")
	for _, d := range []string{keep, gone, elsewhere} {
		if err := makeFakeTrace(d); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(junk, 0o755)
	outLink := filepath.Join(t.TempDir(), "to-keep")
	os.Symlink(keep, outLink)
	os.Symlink("prog-0", filepath.Join(root, "latest-trace"))

	for name, p := range map[string]string{
		"trace elsewhere":       elsewhere,
		"link from outside":     outLink,
		"dot-dot out and in":    filepath.Join(root, "..", filepath.Base(filepath.Dir(elsewhere)), "prog-9"),
		"the root":              root,
		"not a trace in root":   junk,
		"dot-dot to the parent": filepath.Join(keep, ".."),
		"empty":                 "",
	} {
		_, err := tr.Remove(t.Context(), p)
		var ae *errkind.ArgError
		if !errors.As(err, &ae) || ae.Arg != "trace_dir" {
			t.Errorf("%s: Remove(%q) = %v, want a trace_dir ArgError", name, p, err)
		}
	}
	for _, d := range []string{keep, gone, elsewhere} {
		if !IsTraceDir(d) {
			t.Fatalf("%s was deleted by a refused Remove", d)
		}
	}

	// latest-trace: only the link goes.
	rm, err := tr.Remove(t.Context(), filepath.Join(root, "latest-trace"))
	if err != nil || rm.LinkTo != keep || rm.Path != filepath.Join(root, "latest-trace") {
		t.Fatalf("Remove(latest-trace) = %+v, %v", rm, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "latest-trace")); !os.IsNotExist(err) || !IsTraceDir(keep) {
		t.Errorf("after removing the link: link %v, recording kept %v", err, IsTraceDir(keep))
	}

	// A recording by its own path.
	if rm, err := tr.Remove(t.Context(), gone); err != nil || rm.Path != gone || rm.LinkTo != "" {
		t.Fatalf("Remove(%s) = %+v, %v", gone, rm, err)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", gone, err)
	}
}
