package rr

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"time"
)

// versionRE matches `rr --version` output: "rr version 5.6.0", also with a
// suffix such as "5.9.0+dev" or "5.8.0-12-gdeadbeef".
var versionRE = regexp.MustCompile(`\brr version (\d+\.\d+(?:\.\d+)?)`)

// ParseVersion extracts "X.Y.Z" from `rr --version` output.
func ParseVersion(out string) (string, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("rr --version: unrecognised output %q", firstLine(out))
	}
	return m[1], nil
}

// versionOf runs `rr --version` (rrPath; "" = rr on PATH) and returns
// "X.Y.Z".
func versionOf(ctx context.Context, rrPath string, env []string) (string, error) {
	if rrPath == "" {
		rrPath = "rr"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, rrPath, "--version")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("rr --version: %w: %s", err, firstLine(string(out)))
	}
	return ParseVersion(string(out))
}
