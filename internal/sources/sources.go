// Package sources reads a debugged program's source files under one
// policy. A file is read only when the program's debug information names
// it (Match): a path an agent types is never opened as it is, so
// /etc/shadow, /proc/self/environ, /dev/zero or a FIFO are not sources of
// the program. Only a regular file within MaxSize is read, never blocking
// (a FIFO is opened non-blocking and refused). It is read from where the
// RRMCP_SOURCE_MAP rules say it lies now (ParseMap), and its lines are
// kept once read (Cache).
package sources

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// MaxSize bounds one source file read from the host.
const MaxSize = 8 << 20

// Match maps a file name (full, or a tail of a full name) to one of the
// files the debug information names; "" when none is. A full path must
// match exactly, and a tail cannot climb out with "..".
func Match(file string, named []string) string {
	if file == "" || strings.ContainsRune(file, 0) {
		return ""
	}
	if slices.Contains(named, file) {
		return file
	}
	tail := strings.TrimPrefix(file, "./")
	if filepath.IsAbs(tail) || slices.Contains(strings.Split(tail, "/"), "..") {
		return ""
	}
	for _, f := range named {
		if strings.HasSuffix(f, "/"+tail) {
			return f
		}
	}
	return ""
}

// ReadLines returns the lines of the regular file at path, refusing
// anything else and anything over limit bytes. Errors match
// errkind.NotFound (no such file, unreadable) or errkind.Unsupported (not
// a regular file, too large).
func ReadLines(path string, limit int64) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot read %s (moved or deleted since the build?): %w", path, errkind.NotFound)
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, errkind.NotFound)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, errkind.NotFound)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); only source files are read: %w", path, fi.Mode().Type(), errkind.Unsupported)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit for a source file: %w", path, fi.Size(), limit, errkind.Unsupported)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v: %w", path, err, errkind.NotFound)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s grew over the %d-byte limit for a source file: %w", path, limit, errkind.Unsupported)
	}
	return strings.Split(string(b), "\n"), nil
}

// Substitution is one rule of RRMCP_SOURCE_MAP: a path that is From or
// lies under it is read from To instead.
type Substitution struct{ From, To string }

// ParseMap reads RRMCP_SOURCE_MAP: "from=to" rules separated by ';',
// both absolute.
func ParseMap(v string) ([]Substitution, error) {
	var out []Substitution
	for _, r := range strings.Split(v, ";") {
		if strings.TrimSpace(r) == "" {
			continue
		}
		from, to, ok := strings.Cut(r, "=")
		from, to = filepath.Clean(strings.TrimSpace(from)), filepath.Clean(strings.TrimSpace(to))
		if !ok || !filepath.IsAbs(from) || !filepath.IsAbs(to) {
			return nil, fmt.Errorf("RRMCP_SOURCE_MAP: %q is not an absolute from=to pair", errkind.Shorten(r, 80))
		}
		out = append(out, Substitution{From: from, To: to})
	}
	return out, nil
}

// substitute applies the first rule whose From is path or a parent
// directory of it.
func substitute(rules []Substitution, path string) string {
	for _, r := range rules {
		if path == r.From {
			return r.To
		}
		if rest, ok := strings.CutPrefix(path, r.From+"/"); ok {
			return filepath.Join(r.To, rest)
		}
	}
	return path
}

// Cache reads source files through Rules and keeps their lines. It is not
// safe for concurrent use (a session's lock guards it).
type Cache struct {
	Rules []Substitution
	lines map[string][]string // nil value: could not be read (Quiet)
}

// Lines returns the lines of path, a file the debug information names
// (see Match), read once.
func (c *Cache) Lines(path string) ([]string, error) {
	if l, ok := c.lines[path]; ok && l != nil {
		return l, nil
	}
	lines, err := ReadLines(substitute(c.Rules, path), MaxSize)
	if err != nil {
		return nil, err
	}
	c.keep(path, lines)
	return lines, nil
}

// Quiet is Lines for context shown beside frames: a file that could not
// be read is remembered (nil) and not tried again.
func (c *Cache) Quiet(path string) []string {
	if l, ok := c.lines[path]; ok {
		return l
	}
	lines, err := c.Lines(path)
	if err != nil {
		c.keep(path, nil)
	}
	return lines
}

func (c *Cache) keep(path string, lines []string) {
	if c.lines == nil {
		c.lines = map[string][]string{}
	}
	c.lines[path] = lines
}
