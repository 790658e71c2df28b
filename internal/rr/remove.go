package rr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Removed is what rr_rm removed.
type Removed struct {
	Path string // the path given, made absolute
	// LinkTo is set when Path was a symbolic link: only the link was
	// removed, the recording it points to is kept.
	LinkTo string
}

// Remove deletes one recording. The path, with every symbolic link
// resolved, must be a direct child of the trace root and look like an rr
// trace; anything else is refused (an *errkind.ArgError). A symbolic
// link (itself in the trace root, such as latest-trace) is removed as a
// link and reported as one.
func (t Traces) Remove(ctx context.Context, trace string) (Removed, error) {
	dir, err := CheckTraceDir(trace)
	if err != nil {
		return Removed{}, err
	}
	root, err := filepath.Abs(t.root())
	if err != nil {
		return Removed{}, fmt.Errorf("trace root: %w", err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Removed{}, errkind.Argf("trace_dir", "cannot resolve %s: %v", dir, err)
	}
	if resolved == root || filepath.Dir(resolved) != root {
		return Removed{}, errkind.Argf("trace_dir", "%s is not a recording directly under the trace root %s; rr_rm removes only those (rr_list_recordings shows them)", errkind.Shorten(dir, 200), root)
	}
	if why := notTrace(resolved); why != "" {
		return Removed{}, errkind.Argf("trace_dir", "%s is not an rr trace directory (%s): rr_rm removes nothing else", resolved, why)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return Removed{}, fmt.Errorf("remove %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
		if err != nil || parent != root {
			return Removed{}, errkind.Argf("trace_dir", "%s is a symbolic link outside the trace root %s; remove the recording by its own path %s", dir, root, resolved)
		}
		if err := os.Remove(dir); err != nil {
			return Removed{}, fmt.Errorf("remove link %s: %w", dir, err)
		}
		return Removed{Path: dir, LinkTo: resolved}, nil
	}
	if err := os.RemoveAll(resolved); err != nil {
		return Removed{}, fmt.Errorf("remove %s: %w", resolved, err)
	}
	// Drop a dangling latest-trace link.
	link := filepath.Join(root, "latest-trace")
	if t, err := filepath.EvalSymlinks(link); err != nil || t == "" {
		if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			os.Remove(link)
		}
	}
	return Removed{Path: resolved}, nil
}
