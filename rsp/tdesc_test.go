package rsp_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/rsp"
)

func tdFetch(docs map[string]string, asked *[]string) func(string) ([]byte, error) {
	return func(annex string) ([]byte, error) {
		if asked != nil {
			*asked = append(*asked, annex)
		}
		d, ok := docs[annex]
		if !ok {
			return nil, errors.New("no such annex")
		}
		return []byte(d), nil
	}
}

// gdbserver 13.1 inlines every feature (captured from a live session).
func TestTargetDescGDBServer(t *testing.T) {
	xml, err := os.ReadFile("testdata/gdbserver-13.1-amd64-target.xml")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	td, err := rsp.ParseTargetDesc(tdFetch(map[string]string{"target.xml": string(xml)}, &asked))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"target.xml"}) {
		t.Errorf("fetched %q", asked)
	}
	if td.Architecture != "i386:x86-64" || td.OSABI != "GNU/Linux" {
		t.Errorf("arch %q osabi %q", td.Architecture, td.OSABI)
	}
	for _, tc := range []struct {
		name                  string
		regnum, offset, bitsz int
	}{
		{"rax", 0, 0, 64}, {"rbp", 6, 48, 64}, {"rsp", 7, 56, 64}, {"rip", 16, 128, 64},
		{"eflags", 17, 136, 32}, {"cs", 18, 140, 32}, {"st0", 24, 164, 80}, {"st7", 31, 234, 80},
		{"fctrl", 32, 244, 32}, {"xmm0", 40, 276, 128}, {"mxcsr", 56, 532, 32},
	} {
		r, ok := td.Lookup(tc.name)
		if !ok || r.Regnum != tc.regnum || r.Offset != tc.offset || r.Bitsize != tc.bitsz {
			t.Errorf("%s = %+v, want regnum %d offset %d bitsize %d", tc.name, r, tc.regnum, tc.offset, tc.bitsz)
		}
	}
	fs, ok := td.Lookup("fs_base")
	if !ok {
		t.Fatal("no fs_base")
	}
	if r, _ := td.ByRegnum(fs.Regnum); r.Name != "fs_base" {
		t.Errorf("ByRegnum(%d) = %s", fs.Regnum, r.Name)
	}
	last := td.Registers[len(td.Registers)-1]
	if td.Size != last.Offset+last.Size() {
		t.Errorf("Size %d, last register %s ends at %d", td.Size, last.Name, last.Offset+last.Size())
	}
	if r, _ := td.Lookup("rip"); r.Type != "code_ptr" || r.Feature != "org.gnu.gdb.i386.core" {
		t.Errorf("rip = %+v", r)
	}
}

// rr serves xi:includes, with regnum resets (rr-rsp.md §11); rr <= 5.7
// nests them one level deeper.
func TestTargetDescIncludes(t *testing.T) {
	var asked []string
	td, err := rsp.ParseTargetDesc(tdFetch(stubXML, &asked))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"target.xml", "64bit-core.xml", "64bit-linux.xml"}) {
		t.Errorf("fetched %q", asked)
	}
	orig, _ := td.Lookup("orig_rax")
	fs, _ := td.Lookup("fs_base")
	st0, _ := td.Lookup("st0")
	if orig.Regnum != 57 || fs.Regnum != 58 || orig.Offset != st0.Offset+10 {
		t.Errorf("orig_rax %+v fs_base %+v st0 %+v", orig, fs, st0)
	}
	old := map[string]string{
		"target.xml":       `<target><xi:include href="amd64-linux.xml"/></target>`,
		"amd64-linux.xml":  `<target><architecture>i386:x86-64</architecture><xi:include href="64bit-core.xml"/><xi:include href="64bit-linux.xml"/></target>`,
		"64bit-core.xml":   stubXML["64bit-core.xml"],
		"64bit-linux.xml":  stubXML["64bit-linux.xml"],
		"64bit-unused.xml": "never fetched",
	}
	asked = nil
	td2, err := rsp.ParseTargetDesc(tdFetch(old, &asked))
	if err != nil {
		t.Fatal(err)
	}
	if len(td2.Registers) != len(td.Registers) || td2.Size != td.Size || td2.Architecture != "i386:x86-64" {
		t.Errorf("nested includes: %d regs size %d arch %q", len(td2.Registers), td2.Size, td2.Architecture)
	}
	if slices.Contains(asked, "64bit-unused.xml") {
		t.Error("fetched an annex nothing included")
	}
	g := make([]byte, td.Size)
	g[128] = 0x10 // rip low byte
	if v, err := td.Uint(g, "rip"); err != nil || v != 0x10 {
		t.Errorf("Uint(rip) = %#x, %v", v, err)
	}
	if _, err := td.Uint(g, "st0"); err == nil {
		t.Error("Uint of an 80-bit register should fail")
	}
	if _, err := td.Value(g[:100], "rip"); err == nil {
		t.Error("Value beyond a short g should fail")
	}
}

func TestTargetDescErrors(t *testing.T) {
	for name, docs := range map[string]map[string]string{
		"cycle":         {"target.xml": `<target><xi:include href="a.xml"/></target>`, "a.xml": `<feature><xi:include href="target.xml"/></feature>`},
		"missing":       {"target.xml": `<target><xi:include href="a.xml"/></target>`},
		"no href":       {"target.xml": `<target><xi:include/></target>`},
		"bad bitsize":   {"target.xml": `<target><feature><reg name="a" bitsize="x"/></feature></target>`},
		"zero bitsize":  {"target.xml": `<target><feature><reg name="a" bitsize="0"/></feature></target>`},
		"no name":       {"target.xml": `<target><feature><reg bitsize="8"/></feature></target>`},
		"dup regnum":    {"target.xml": `<target><feature><reg name="a" bitsize="8" regnum="3"/><reg name="b" bitsize="8" regnum="3"/></feature></target>`},
		"bad regnum":    {"target.xml": `<target><feature><reg name="a" bitsize="8" regnum="-1"/></feature></target>`},
		"broken xml":    {"target.xml": `<target><feature><reg name="a" bitsize="8"`},
		"no target.xml": {},
	} {
		if _, err := rsp.ParseTargetDesc(tdFetch(docs, nil)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	deep := map[string]string{"target.xml": `<target><xi:include href="0.xml"/></target>`}
	for i := range 20 {
		deep[string(rune('0'+i))+".xml"] = `<feature><xi:include href="` + string(rune('0'+i+1)) + `.xml"/></feature>`
	}
	if _, err := rsp.ParseTargetDesc(tdFetch(deep, nil)); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep includes: %v", err)
	}
}

func FuzzParseTargetDesc(f *testing.F) {
	gs, err := os.ReadFile("testdata/gdbserver-13.1-amd64-target.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(gs))
	f.Add(stubXML["target.xml"])
	f.Add(stubXML["64bit-core.xml"])
	f.Add(`<target><xi:include href="target.xml"/></target>`)
	f.Add(`<target><feature><reg name="a" bitsize="65535" regnum="65535"/></feature></target>`)
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 64<<10 {
			return // real descriptions are < 20 KB; keep executions fast
		}
		docs := map[string]string{"target.xml": doc}
		for k, v := range stubXML {
			if k != "target.xml" {
				docs[k] = v
			}
		}
		td, err := rsp.ParseTargetDesc(tdFetch(docs, nil))
		if err != nil {
			return
		}
		off := 0
		for i, r := range td.Registers {
			if r.Offset != off || (i > 0 && r.Regnum <= td.Registers[i-1].Regnum) {
				t.Fatalf("register %d %+v out of order (offset want %d)", i, r, off)
			}
			off += r.Size()
			if got, ok := td.ByRegnum(r.Regnum); !ok || got.Regnum != r.Regnum {
				t.Fatalf("ByRegnum(%d) broken", r.Regnum)
			}
		}
		if off != td.Size {
			t.Fatalf("Size %d, sum %d", td.Size, off)
		}
	})
}
