package symbols

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End uint64
	Perms      string // "r-xp"
	Offset     uint64 // file offset of Start
	Dev        string // "08:01"
	Inode      uint64
	Path       string // file name, "[heap]", "[vdso]", … or "" (anonymous)
	Deleted    bool   // the path had a " (deleted)" suffix (removed here)
}

// ParseMaps decodes /proc/PID/maps text, as read from procfs or served by
// rr over vFile. Blank lines are ignored; any other malformed line is an
// error that names the line.
func ParseMaps(text string) ([]Mapping, error) {
	var out []Mapping
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMapsLine(line)
		if err != nil {
			return nil, fmt.Errorf("maps line %d: %w: %w", n, ErrMalformed, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("maps: %w: %w", ErrMalformed, err)
	}
	return out, nil
}

func parseMapsLine(line string) (Mapping, error) {
	var m Mapping
	rest := line
	field := func() string {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			i = len(rest)
		}
		f := rest[:i]
		rest = rest[i:]
		return f
	}
	rng, perms, off, dev, inode := field(), field(), field(), field(), field()
	lo, hi, ok := strings.Cut(rng, "-")
	if !ok {
		return m, fmt.Errorf("address range %q", rng)
	}
	var err error
	if m.Start, err = strconv.ParseUint(lo, 16, 64); err != nil {
		return m, fmt.Errorf("start address %q", lo)
	}
	if m.End, err = strconv.ParseUint(hi, 16, 64); err != nil || m.End < m.Start {
		return m, fmt.Errorf("end address %q", hi)
	}
	if len(perms) != 4 {
		return m, fmt.Errorf("permissions %q", perms)
	}
	m.Perms = perms
	if m.Offset, err = strconv.ParseUint(off, 16, 64); err != nil {
		return m, fmt.Errorf("offset %q", off)
	}
	if !strings.Contains(dev, ":") {
		return m, fmt.Errorf("device %q", dev)
	}
	m.Dev = dev
	if m.Inode, err = strconv.ParseUint(inode, 10, 64); err != nil {
		return m, fmt.Errorf("inode %q", inode)
	}
	m.Path = strings.TrimLeft(rest, " \t")
	if p, ok := strings.CutSuffix(m.Path, " (deleted)"); ok {
		m.Path, m.Deleted = p, true
	}
	return m, nil
}

// ModulesFromMaps derives the loaded ELF modules from mappings: each run of
// mappings of one file that starts a new image (a mapping of the file at
// the lowest offset) is one module. Its bias comes from the PT_LOAD segment
// that maps that file offset: bias = start − page(p_vaddr). open opens
// module files (nil means Open); the opened File is kept in the Module.
// Mapped files that are not ELF are left out; files that cannot be opened
// are kept without a File, with the bias a position-independent image
// would have (start of its first mapping minus its offset). "[vdso]" is
// included with VDSO set.
func ModulesFromMaps(maps []Mapping, open func(string) (*File, error)) []Module {
	if open == nil {
		open = Open
	}
	var mods []Module
	var offs []uint64 // file offset of each module's first mapping
	cur := -1
	for _, m := range maps {
		switch {
		case m.Path == "[vdso]":
			mods = append(mods, Module{Path: m.Path, Bias: m.Start, Start: m.Start, End: m.End, VDSO: true})
			offs = append(offs, 0)
			cur = -1
			continue
		case !strings.HasPrefix(m.Path, "/"):
			cur = -1
			continue
		}
		if cur >= 0 && mods[cur].Path == m.Path && m.Offset > offs[cur] && m.Start >= mods[cur].End {
			mods[cur].End = m.End
			continue
		}
		mods = append(mods, Module{Path: m.Path, Bias: m.Start - m.Offset, Start: m.Start, End: m.End})
		offs = append(offs, m.Offset)
		cur = len(mods) - 1
	}
	var out []Module
	for i, mod := range mods {
		if mod.VDSO {
			out = append(out, mod)
			continue
		}
		f, err := open(mod.Path)
		if errors.Is(err, ErrMalformed) {
			continue // not an ELF file (locale archive, fonts, …)
		}
		if err != nil {
			out = append(out, mod)
			continue
		}
		bias, ok := biasForMapping(f, mod.Start, offs[i])
		if !ok {
			f.Close()
			continue
		}
		mod.Bias, mod.File = bias, f
		out = append(out, mod)
	}
	return out
}

// biasForMapping finds the PT_LOAD that maps file offset off (page
// aligned) at runtime address start.
func biasForMapping(f *File, start, off uint64) (uint64, bool) {
	for _, p := range f.elf.Progs {
		if p.Type == elf.PT_LOAD && p.Off&^(pageSize-1) == off {
			return start - p.Vaddr&^(pageSize-1), true
		}
	}
	return 0, false
}
