package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const ntGNUBuildID = 3

// BuildID returns the GNU build-id from .note.gnu.build-id (or any note
// section holding one), or nil if the file has none.
func (f *File) BuildID() ([]byte, error) {
	for _, s := range f.elf.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := f.sectionData(s)
		if err != nil {
			return nil, fmt.Errorf("build-id: %w", err)
		}
		if id := findBuildID(data, f.elf.ByteOrder); id != nil {
			return id, nil
		}
	}
	return nil, nil
}

// findBuildID walks ELF notes (namesz, descsz, type, name, desc; 4-byte
// aligned) looking for NT_GNU_BUILD_ID with name "GNU".
func findBuildID(b []byte, bo interface{ Uint32([]byte) uint32 }) []byte {
	align := func(n uint64) uint64 { return (n + 3) &^ 3 }
	for len(b) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(b)), uint64(bo.Uint32(b[4:])), bo.Uint32(b[8:])
		rest := uint64(len(b) - 12)
		if align(namesz) > rest || align(namesz)+descsz > rest {
			return nil
		}
		name := b[12 : 12+namesz]
		desc := b[12+align(namesz) : 12+align(namesz)+descsz]
		if typ == ntGNUBuildID && string(bytes.TrimRight(name, "\x00")) == "GNU" && len(desc) > 0 {
			return bytes.Clone(desc)
		}
		next := 12 + align(namesz) + align(descsz)
		if next > uint64(len(b)) {
			return nil
		}
		b = b[next:]
	}
	return nil
}

// DebugLink returns the file name and CRC-32 from .gnu_debuglink; ok is
// false if the file has no such section.
func (f *File) DebugLink() (name string, crc uint32, ok bool, err error) {
	data, err := f.SectionData(".gnu_debuglink")
	if err != nil || data == nil {
		return "", 0, false, err
	}
	i := bytes.IndexByte(data, 0)
	if i <= 0 {
		return "", 0, false, fmt.Errorf(".gnu_debuglink: %w: no file name", ErrMalformed)
	}
	off := (i + 4) &^ 3
	if off+4 > len(data) {
		return "", 0, false, fmt.Errorf(".gnu_debuglink: %w: no crc", ErrMalformed)
	}
	return string(data[:i]), f.elf.ByteOrder.Uint32(data[off:]), true, nil
}

func (f *File) debugRoots() []string {
	if f.DebugRoots != nil {
		return f.DebugRoots
	}
	return []string{DefaultDebugRoot}
}

// DebugFile finds and opens the separate debug file of f, like GDB:
// first by build-id (ROOT/.build-id/xx/yyyy.debug, checking that the debug
// file has the same build-id), then by .gnu_debuglink (DIR/link,
// DIR/.debug/link, ROOT/DIR/link, where DIR is the directory of f.Path,
// checking the CRC). The result is cached and closed with f. It returns an
// error wrapping ErrNoDebugFile if no candidate matches.
func (f *File) DebugFile() (*File, error) {
	f.dbgOnce.Do(func() { f.dbg, f.dbgErr = f.findDebugFile() })
	return f.dbg, f.dbgErr
}

func (f *File) findDebugFile() (*File, error) {
	var tried []string
	id, err := f.BuildID()
	if err != nil {
		return nil, err
	}
	if len(id) > 1 {
		h := hex.EncodeToString(id)
		for _, root := range f.debugRoots() {
			p := filepath.Join(root, ".build-id", h[:2], h[2:]+".debug")
			tried = append(tried, p)
			d, err := Open(p)
			if err != nil {
				continue
			}
			if did, err := d.BuildID(); err == nil && bytes.Equal(did, id) {
				return d, nil
			}
			d.Close()
		}
	}
	link, crc, ok, err := f.DebugLink()
	if err != nil {
		return nil, err
	}
	if ok && f.Path != "" && !strings.Contains(link, "/") {
		dir := filepath.Dir(f.Path)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		cands := []string{filepath.Join(dir, link), filepath.Join(dir, ".debug", link)}
		for _, root := range f.debugRoots() {
			cands = append(cands, filepath.Join(root, dir, link))
		}
		self, _ := os.Stat(f.Path)
		for _, p := range cands {
			tried = append(tried, p)
			if st, err := os.Stat(p); err != nil || (self != nil && os.SameFile(st, self)) {
				continue
			}
			d, err := Open(p)
			if err != nil {
				continue
			}
			if c, err := d.crc32(); err == nil && c == crc {
				return d, nil
			}
			d.Close()
		}
	}
	return nil, fmt.Errorf("separate debug file for %s (tried %s): %w", f.describe(), strings.Join(tried, ", "), ErrNoDebugFile)
}

// crc32 computes the .gnu_debuglink CRC (CRC-32/IEEE) of the whole file.
func (f *File) crc32() (uint32, error) {
	if f.data != nil {
		return crc32.ChecksumIEEE(f.data), nil
	}
	if f.Path == "" {
		return 0, errors.New("crc32: file has no path")
	}
	osf, err := os.Open(f.Path)
	if err != nil {
		return 0, fmt.Errorf("crc32: %w", err)
	}
	defer osf.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, osf); err != nil {
		return 0, fmt.Errorf("crc32 %s: %w", f.Path, err)
	}
	return h.Sum32(), nil
}
