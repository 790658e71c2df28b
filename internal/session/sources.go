package session

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

// maxSourceSize bounds one source file read from the host.
const maxSourceSize = 8 << 20

// The source file policy: tools read host files only when the program's
// debug information names them (findSource), and only regular files of at
// most maxSourceSize (readSource). A path the agent types is never opened
// as it is: /etc/shadow, /proc/self/environ, /dev/zero or a FIFO are not
// sources of the program.

// findSource maps a file name (full, or a tail of a full name) to a file
// named by the line tables of the program or of a loaded library; "" when
// none names it.
func (s *Session) findSource(file string) string {
	if file == "" || strings.ContainsRune(file, 0) {
		return ""
	}
	var files []string
	if s.img != nil {
		files = append(files, s.img.Files()...)
	}
	if s.libs != nil {
		for _, img := range s.libs.imgs {
			if img != nil {
				files = append(files, img.Files()...)
			}
		}
	}
	if slices.Contains(files, file) {
		return file
	}
	tail := strings.TrimPrefix(file, "./")
	if filepath.IsAbs(tail) || slices.Contains(strings.Split(tail, "/"), "..") {
		return "" // a full path must match exactly; no escaping a tail
	}
	for _, f := range files {
		if strings.HasSuffix(f, "/"+tail) {
			return f
		}
	}
	return ""
}

// readSource returns the lines of a source file the debug information
// named, refusing anything but a regular file within the size cap. It never
// blocks: a FIFO is opened non-blocking and refused.
func (s *Session) readSource(path string) ([]string, error) {
	if l, ok := s.src[path]; ok && l != nil {
		return l, nil
	}
	lines, err := readRegularFile(substitutePath(s.m.cfg.SourceMap, path), maxSourceSize)
	if err != nil {
		return nil, err
	}
	if s.src == nil {
		s.src = map[string][]string{}
	}
	s.src[path] = lines
	return lines, nil
}

func readRegularFile(path string, limit int64) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot read %s (moved or deleted since the build?): %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, ErrNotFound)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, ErrNotFound)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); only source files are read: %w", path, fi.Mode().Type(), ErrUnsupported)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit for a source file: %w", path, fi.Size(), limit, ErrUnsupported)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v: %w", path, err, ErrNotFound)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s grew over the %d-byte limit for a source file: %w", path, limit, ErrUnsupported)
	}
	return strings.Split(string(b), "\n"), nil
}

// PathSubstitution is one rule of Config.SourceMap: a path that is From
// or lies under it is read from To instead.
type PathSubstitution struct{ From, To string }

// ParseSourceMap reads RRMCP_SOURCE_MAP: "from=to" rules separated by ';'.
func ParseSourceMap(v string) ([]PathSubstitution, error) {
	var out []PathSubstitution
	for _, r := range strings.Split(v, ";") {
		if strings.TrimSpace(r) == "" {
			continue
		}
		from, to, ok := strings.Cut(r, "=")
		from, to = filepath.Clean(strings.TrimSpace(from)), filepath.Clean(strings.TrimSpace(to))
		if !ok || !filepath.IsAbs(from) || !filepath.IsAbs(to) {
			return nil, fmt.Errorf("RRMCP_SOURCE_MAP: %q is not an absolute from=to pair", errkind.Shorten(r, 80))
		}
		out = append(out, PathSubstitution{From: from, To: to})
	}
	return out, nil
}

// substitutePath applies the first rule whose From is path or a parent
// directory of it.
func substitutePath(rules []PathSubstitution, path string) string {
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
