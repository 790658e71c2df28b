package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rrmcp/rrmcp/internal/rr"
)

// checkLaunch checks what a program is started with before anything is
// run, so that the error names the argument instead of a fork/exec failure
// of gdbserver or rr.
func checkLaunch(argv []string, dir string, env map[string]string) error {
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return argErrorf("command", "argument %d (%q) contains a NUL byte, which no program argument can hold", i, Shorten(a, 40))
		}
	}
	for k, v := range env {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) || strings.ContainsRune(k, '=') || k == "" {
			return argErrorf("env", "variable %q is not a valid NAME=value pair (empty name, '=' in the name, or a NUL byte)", Shorten(k, 40))
		}
	}
	if dir == "" {
		return nil
	}
	if strings.ContainsRune(dir, 0) {
		return argErrorf("working_directory", "contains a NUL byte")
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return argErrorf("working_directory", "%s does not exist", Shorten(dir, 200))
	case !fi.IsDir():
		return argErrorf("working_directory", "%s is not a directory", Shorten(dir, 200))
	}
	return nil
}

// checkHaveRecording is rr_replay_start without trace_dir: it needs the
// latest recording, which must exist before rr is run.
func checkHaveRecording() error {
	root := rr.TraceRoot()
	if rr.IsTraceDir(filepath.Join(root, "latest-trace")) {
		return nil
	}
	return argErrorf("trace_dir", "%s", fmt.Sprintf("there are no recordings in %s (no latest-trace); record one with rr_record, or give trace_dir (rr_list_recordings shows what exists)", root))
}
