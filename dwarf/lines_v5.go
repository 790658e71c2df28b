package dwarf

import (
	stddwarf "debug/dwarf"
	"encoding/binary"
	"path"
	"strings"
)

// DWARF 5 line-table file names (DWARF 5 §6.2.4.1), read here because the
// standard library's reader joins every file name to its directory, even an
// absolute one (clang writes absolute names: the unit's own file becomes
// "/comp/dir/abs/path.c"), and leaves relative directories relative to
// nothing (they are relative to the compilation directory). The rules, as
// GDB applies them:
//   - directory entry 0 is the unit's compilation directory (itself: not
//     joined to DW_AT_comp_dir);
//   - another relative directory entry is relative to DW_AT_comp_dir;
//   - an absolute file name is used as it is; a relative one is joined to
//     its directory entry.
//
// DWARF 2-4 tables keep the standard library's names, which follow the same
// rules (directory 0 is DW_AT_comp_dir there by definition).

// Forms that occur in DWARF 5 line-table headers.
const (
	formBlock2   = 0x03
	formBlock4   = 0x04
	formData2    = 0x05
	formData4    = 0x06
	formData8    = 0x07
	formString   = 0x08
	formBlock    = 0x09
	formBlock1   = 0x0a
	formData1    = 0x0b
	formSdata    = 0x0d
	formStrp     = 0x0e
	formUdata    = 0x0f
	formData16   = 0x1e
	formLineStrp = 0x1f

	lnctPath     = 1
	lnctDirIndex = 2
)

// v5FileNames returns the full, cleaned paths of the file entries of the
// unit's DWARF 5 line table, index for index, or nil when the unit's table
// is not version 5 or cannot be read (the caller keeps the standard
// library's names then).
func (u *unit) v5FileNames() []string {
	var off uint64
	switch v := u.entry.Val(stddwarf.AttrStmtList).(type) {
	case int64:
		off = uint64(v)
	case uint64:
		off = v
	default:
		return nil
	}
	sec := u.img.section(".debug_line")
	if off >= uint64(len(sec)) {
		return nil
	}
	h := &lineHdr{b: sec[off:], lineStr: u.img.section(".debug_line_str"), str: u.img.section(".debug_str")}
	dirs, files := h.parse()
	if h.bad || dirs == nil {
		return nil
	}
	return v5Paths(u.compDir, dirs, files)
}

// v5Paths joins a DWARF 5 line table's file names to their directories.
// Directory 0 is the compilation directory itself (glibc's units say
// "./nptl" both there and in DW_AT_comp_dir): it is not joined to
// DW_AT_comp_dir again.
func v5Paths(compDir string, dirs []string, files []v5File) []string {
	dirs = append([]string(nil), dirs...)
	for i, d := range dirs {
		if i > 0 && !path.IsAbs(d) && compDir != "" {
			dirs[i] = path.Join(compDir, d)
		}
	}
	out := make([]string, len(files))
	for i, f := range files {
		name := f.name
		if strings.HasPrefix(name, "<") && strings.HasSuffix(name, ">") {
			out[i] = name // a compiler pseudo-file ("<built-in>": -D macros), not a path
			continue
		}
		if !path.IsAbs(name) && f.dir < uint64(len(dirs)) {
			name = path.Join(dirs[f.dir], name)
		} else if !path.IsAbs(name) && compDir != "" {
			name = path.Join(compDir, name)
		}
		if name != "" {
			name = path.Clean(name)
		}
		out[i] = name
	}
	return out
}

// lineHdr decodes a line-table header; bad records the first error.
type lineHdr struct {
	b            []byte
	pos          int
	dwarf64      bool
	lineStr, str []byte
	bad          bool
}

type v5File struct {
	name string
	dir  uint64
}

func (h *lineHdr) need(n int) bool {
	if h.bad || n < 0 || h.pos+n > len(h.b) {
		h.bad = true
		return false
	}
	return true
}

func (h *lineHdr) u8() uint64 {
	if !h.need(1) {
		return 0
	}
	h.pos++
	return uint64(h.b[h.pos-1])
}

func (h *lineHdr) fixed(n int) uint64 {
	if !h.need(n) {
		return 0
	}
	var v uint64
	switch n {
	case 2:
		v = uint64(binary.LittleEndian.Uint16(h.b[h.pos:]))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(h.b[h.pos:]))
	case 8:
		v = binary.LittleEndian.Uint64(h.b[h.pos:])
	}
	h.pos += n
	return v
}

func (h *lineHdr) uleb() uint64 {
	if h.bad {
		return 0
	}
	v, n := uleb(h.b[h.pos:])
	if n == 0 {
		h.bad = true
		return 0
	}
	h.pos += n
	return v
}

func (h *lineHdr) offset() uint64 {
	if h.dwarf64 {
		return h.fixed(8)
	}
	return h.fixed(4)
}

// cstr returns the NUL-terminated string at off in b.
func (h *lineHdr) cstr(b []byte, off uint64) string {
	if off >= uint64(len(b)) {
		h.bad = true
		return ""
	}
	s := b[off:]
	for i, c := range s {
		if c == 0 {
			return string(s[:i])
		}
	}
	h.bad = true
	return ""
}

// parse reads the header up to the end of the file-name table. It returns
// nil directories for a table older than version 5.
func (h *lineHdr) parse() ([]string, []v5File) {
	length := h.fixed(4)
	if length == 0xffffffff {
		h.dwarf64 = true
		h.fixed(8)
	}
	if h.fixed(2) != 5 || h.bad {
		return nil, nil
	}
	h.u8()     // address_size
	h.u8()     // segment_selector_size
	h.offset() // header_length
	h.u8()     // minimum_instruction_length
	h.u8()     // maximum_operations_per_instruction
	h.u8()     // default_is_stmt
	h.u8()     // line_base
	h.u8()     // line_range
	opBase := int(h.u8())
	if opBase > 0 && h.need(opBase-1) {
		h.pos += opBase - 1
	}
	var dirs []string
	h.entries(func(name string, _ uint64) { dirs = append(dirs, name) })
	var files []v5File
	h.entries(func(name string, dir uint64) { files = append(files, v5File{name, dir}) })
	if dirs == nil {
		dirs = []string{}
	}
	return dirs, files
}

// entries reads an entry format and the entries that follow it, calling
// add with each entry's path and directory index.
func (h *lineHdr) entries(add func(name string, dir uint64)) {
	nfmt := int(h.u8())
	type pair struct{ lnct, form uint64 }
	fmts := make([]pair, 0, nfmt)
	for i := 0; i < nfmt && !h.bad; i++ {
		fmts = append(fmts, pair{h.uleb(), h.uleb()})
	}
	count := h.uleb()
	for i := uint64(0); i < count && !h.bad; i++ {
		var name string
		var dir uint64
		for _, f := range fmts {
			s, v := h.value(f.form)
			switch f.lnct {
			case lnctPath:
				name = s
			case lnctDirIndex:
				dir = v
			}
		}
		if !h.bad {
			add(name, dir)
		}
	}
}

// value reads one attribute value of the given form: strings as s,
// constants as v.
func (h *lineHdr) value(form uint64) (s string, v uint64) {
	switch form {
	case formString:
		if !h.need(1) {
			return "", 0
		}
		s = h.cstr(h.b, uint64(h.pos))
		h.pos += len(s) + 1
	case formLineStrp:
		s = h.cstr(h.lineStr, h.offset())
	case formStrp:
		s = h.cstr(h.str, h.offset())
	case formData1:
		v = h.u8()
	case formData2:
		v = h.fixed(2)
	case formData4:
		v = h.fixed(4)
	case formData8:
		v = h.fixed(8)
	case formData16:
		if h.need(16) {
			h.pos += 16
		}
	case formUdata:
		v = h.uleb()
	case formSdata:
		if !h.bad {
			_, n := sleb(h.b[h.pos:])
			h.pos += n
		}
	case formBlock, formBlock1, formBlock2, formBlock4:
		var n uint64
		switch form {
		case formBlock:
			n = h.uleb()
		case formBlock1:
			n = h.u8()
		case formBlock2:
			n = h.fixed(2)
		default:
			n = h.fixed(4)
		}
		if n > uint64(len(h.b)) || !h.need(int(n)) {
			h.bad = true
			return "", 0
		}
		h.pos += int(n)
	default:
		h.bad = true // strx forms need the unit's string offsets; not seen in line tables
	}
	return s, v
}
