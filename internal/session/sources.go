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
	lines, err := readRegularFile(path, maxSourceSize)
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
