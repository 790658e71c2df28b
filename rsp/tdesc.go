package rsp

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Register describes one register from the target description.
type Register struct {
	Name    string
	Regnum  int    // protocol register number (p/P packets, expedited registers)
	Bitsize int    // size in bits (80 for x87 st0-7)
	Offset  int    // byte offset in the g packet
	Type    string // "int64", "code_ptr", "i387_ext", "vec128", ...
	Group   string // "general", "float", "vector", "system", or ""
	Feature string // name of the <feature> that defined it
}

// Size returns the register's size in bytes.
func (r Register) Size() int { return (r.Bitsize + 7) / 8 }

// TargetDesc is a parsed target description (qXfer:features:read). Registers
// are ordered by register number; offsets are the byte positions in the g
// packet, computed from bitsize in that order, as gdb does.
type TargetDesc struct {
	Architecture string // e.g. "i386:x86-64"
	OSABI        string // e.g. "GNU/Linux"
	Registers    []Register
	Size         int      // bytes of all registers = expected g payload size
	Annexes      []string // annexes read, target.xml first

	byName map[string]int
	byNum  map[int]int
}

// Lookup finds a register by name ("rip", "rsp", "eflags", "fs_base", ...).
func (td *TargetDesc) Lookup(name string) (Register, bool) {
	if td == nil {
		return Register{}, false
	}
	i, ok := td.byName[name]
	if !ok {
		return Register{}, false
	}
	return td.Registers[i], true
}

// ByRegnum finds a register by protocol number.
func (td *TargetDesc) ByRegnum(n int) (Register, bool) {
	if td == nil {
		return Register{}, false
	}
	i, ok := td.byNum[n]
	if !ok {
		return Register{}, false
	}
	return td.Registers[i], true
}

// Value returns the bytes of register name in a g payload (little-endian,
// as sent by the server).
func (td *TargetDesc) Value(g []byte, name string) ([]byte, error) {
	r, ok := td.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no register named %q in target description", name)
	}
	if r.Offset+r.Size() > len(g) {
		return nil, fmt.Errorf("register %s at offset %d beyond %d-byte register block", name, r.Offset, len(g))
	}
	return g[r.Offset : r.Offset+r.Size()], nil
}

// Uint returns register name from a g payload as an unsigned integer
// (little-endian; registers wider than 8 bytes are an error).
func (td *TargetDesc) Uint(g []byte, name string) (uint64, error) {
	b, err := td.Value(g, name)
	if err != nil {
		return 0, err
	}
	return leUint(b, name)
}

func leUint(b []byte, name string) (uint64, error) {
	if len(b) > 8 {
		return 0, fmt.Errorf("register %s is %d bytes, too wide for an integer", name, len(b))
	}
	var tmp [8]byte
	copy(tmp[:], b)
	return binary.LittleEndian.Uint64(tmp[:]), nil
}

// Limits that keep a hostile or broken description from looping or
// exhausting memory.
const (
	maxIncludeDepth = 8
	maxAnnexes      = 64
	maxRegisters    = 4096
	maxRegnum       = 1 << 16
	maxBitsize      = 1 << 16
	maxDocBytes     = 4 << 20
	maxTokens       = 1 << 18
)

// ParseTargetDesc reads "target.xml" through fetch, follows xi:include
// elements recursively (in document order, which matters for numbering)
// and accepts inline <feature> blocks. fetch is only ever called for
// "target.xml" and for annexes named by an include, so it is safe against
// servers (rr) that die on unknown annexes.
func ParseTargetDesc(fetch func(annex string) ([]byte, error)) (*TargetDesc, error) {
	p := &tdParser{fetch: fetch, seen: map[string]bool{}}
	td := &TargetDesc{}
	if err := p.parse("target.xml", td, 0); err != nil {
		return nil, err
	}
	if err := td.index(); err != nil {
		return nil, err
	}
	return td, nil
}

type tdParser struct {
	fetch   func(string) ([]byte, error)
	seen    map[string]bool
	next    int // next implicit register number
	feature string
}

func (p *tdParser) parse(annex string, td *TargetDesc, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("target description: includes nested deeper than %d at %q", maxIncludeDepth, annex)
	}
	if p.seen[annex] {
		return fmt.Errorf("target description: %q included twice", annex)
	}
	if len(p.seen) >= maxAnnexes {
		return fmt.Errorf("target description: more than %d annexes", maxAnnexes)
	}
	p.seen[annex] = true
	td.Annexes = append(td.Annexes, annex)
	data, err := p.fetch(annex)
	if err != nil {
		return fmt.Errorf("target description %s: %w", annex, err)
	}
	if len(data) > maxDocBytes {
		return fmt.Errorf("target description %s: larger than %d bytes", annex, maxDocBytes)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	var text *string // element whose character data we collect
	for n := 0; ; n++ {
		if n > maxTokens {
			return fmt.Errorf("target description %s: more than %d XML tokens", annex, maxTokens)
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("target description %s: %w", annex, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			text = nil
			switch t.Name.Local {
			case "architecture":
				text = &td.Architecture
				td.Architecture = ""
			case "osabi":
				text = &td.OSABI
				td.OSABI = ""
			case "feature":
				p.feature = attr(t, "name")
			case "include":
				href := attr(t, "href")
				if href == "" {
					return fmt.Errorf("target description %s: include without href", annex)
				}
				if err := p.parse(href, td, depth+1); err != nil {
					return err
				}
			case "reg":
				if err := p.reg(t, td); err != nil {
					return fmt.Errorf("target description %s: %w", annex, err)
				}
			}
		case xml.CharData:
			if text != nil {
				*text += string(bytes.TrimSpace(t))
			}
		case xml.EndElement:
			text = nil
		}
	}
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (p *tdParser) reg(e xml.StartElement, td *TargetDesc) error {
	if len(td.Registers) >= maxRegisters {
		return fmt.Errorf("more than %d registers", maxRegisters)
	}
	r := Register{Name: attr(e, "name"), Type: attr(e, "type"), Group: attr(e, "group"), Feature: p.feature}
	if r.Name == "" {
		return errors.New("reg without name")
	}
	bits, err := strconv.Atoi(attr(e, "bitsize"))
	if err != nil || bits <= 0 || bits > maxBitsize {
		return fmt.Errorf("reg %s: bad bitsize %q", r.Name, attr(e, "bitsize"))
	}
	r.Bitsize = bits
	r.Regnum = p.next
	if s := attr(e, "regnum"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n >= maxRegnum {
			return fmt.Errorf("reg %s: bad regnum %q", r.Name, s)
		}
		r.Regnum = n
	}
	if r.Regnum >= maxRegnum {
		return fmt.Errorf("reg %s: regnum %d too large", r.Name, r.Regnum)
	}
	p.next = r.Regnum + 1
	td.Registers = append(td.Registers, r)
	return nil
}

func (td *TargetDesc) index() error {
	sort.SliceStable(td.Registers, func(i, j int) bool { return td.Registers[i].Regnum < td.Registers[j].Regnum })
	td.byName = make(map[string]int, len(td.Registers))
	td.byNum = make(map[int]int, len(td.Registers))
	off := 0
	for i := range td.Registers {
		r := &td.Registers[i]
		if _, dup := td.byNum[r.Regnum]; dup {
			return fmt.Errorf("target description: register number %d used twice (%s)", r.Regnum, r.Name)
		}
		r.Offset = off
		off += r.Size()
		td.byNum[r.Regnum] = i
		if _, dup := td.byName[r.Name]; !dup {
			td.byName[r.Name] = i
		}
	}
	td.Size = off
	return nil
}
