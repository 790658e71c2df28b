package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// CheckLaunch checks what a program is started with (its arguments,
// working directory and extra environment) before anything is run, so
// that the error names the tool's argument (command, working_directory,
// env; an *errkind.ArgError) instead of a fork/exec failure of gdbserver
// or rr.
func CheckLaunch(argv []string, dir string, env map[string]string) error {
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return errkind.Argf("command", "argument %d (%q) contains a NUL byte, which no program argument can hold", i, errkind.Shorten(a, 40))
		}
	}
	for k, v := range env {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) || strings.ContainsRune(k, '=') || k == "" {
			return errkind.Argf("env", "variable %q is not a valid NAME=value pair (empty name, '=' in the name, or a NUL byte)", errkind.Shorten(k, 40))
		}
	}
	if dir == "" {
		return nil
	}
	if strings.ContainsRune(dir, 0) {
		return errkind.Argf("working_directory", "contains a NUL byte")
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return errkind.Argf("working_directory", "%s does not exist", errkind.Shorten(dir, 200))
	case !fi.IsDir():
		return errkind.Argf("working_directory", "%s is not a directory", errkind.Shorten(dir, 200))
	}
	return nil
}

// ResolveProgram finds the executable the way a shell would: a name
// without a slash on PATH, a relative path relative to dir. The result is
// absolute; an error is an *errkind.ArgError for the command argument.
func ResolveProgram(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", errkind.Argf("command", "program %q is not on PATH; give a path such as ./%s", name, name)
		}
		name = p
	}
	if !filepath.IsAbs(name) && dir != "" {
		name = filepath.Join(dir, name)
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", errkind.Argf("command", "%v", err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", errkind.Argf("command", "program %s does not exist", abs)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return "", errkind.Argf("command", "%s is not an executable file", abs)
	}
	return abs, nil
}
