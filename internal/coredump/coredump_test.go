package coredump

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// note builds one ELF note.
func note(typ uint32, desc []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 5)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = append(b, "CORE\x00\x00\x00\x00"...)
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// TestNotes: well-formed notes are read; malformed ones are errors, never
// panics (a core file is input from the user).
func TestNotes(t *testing.T) {
	pr := make([]byte, prReg+8*len(RegNames))
	binary.LittleEndian.PutUint16(pr[prCursig:], 11)
	binary.LittleEndian.PutUint32(pr[prPid:], 4242)
	binary.LittleEndian.PutUint64(pr[prReg+8*16:], 0x401000) // rip
	file := binary.LittleEndian.AppendUint64(nil, 1)
	file = binary.LittleEndian.AppendUint64(file, 4096)
	file = binary.LittleEndian.AppendUint64(file, 0x400000)
	file = binary.LittleEndian.AppendUint64(file, 0x401000)
	file = binary.LittleEndian.AppendUint64(file, 0)
	file = append(file, "/bin/prog\x00"...)
	huge := binary.LittleEndian.AppendUint64(nil, 1<<62) // count that overflows 16+24*n
	huge = append(huge, make([]byte, 40)...)

	fp := make([]byte, FPSize)
	fp[FPMXCSR] = 0x80
	pr2 := append([]byte(nil), pr...)
	binary.LittleEndian.PutUint32(pr2[prPid:], 4243)

	var c File
	// Each thread's NT_PRFPREG follows its NT_PRSTATUS; the second
	// thread has none.
	if err := c.notes(append(append(append(note(ntPrstatus, pr), note(ntPrfpreg, fp)...), note(ntPrstatus, pr2)...), note(ntFile, file)...)); err != nil {
		t.Fatal(err)
	}
	if len(c.Threads) != 2 || c.Threads[0].TID != 4242 || c.Threads[0].Signal != 11 || c.PID != 4242 || c.Threads[1].TID != 4243 {
		t.Errorf("threads %+v pid %d", c.Threads, c.PID)
	}
	if len(c.Threads) == 2 && (len(c.Threads[0].FP) != FPSize || c.Threads[0].FP[FPMXCSR] != 0x80 || c.Threads[1].FP != nil) {
		t.Errorf("x87/SSE state: %d bytes and %d bytes", len(c.Threads[0].FP), len(c.Threads[1].FP))
	}
	if rip, _ := c.Threads[0].Reg("rip"); rip != 0x401000 {
		t.Errorf("rip %#x", rip)
	}
	if len(c.Mappings) != 1 || c.Mappings[0] != (Mapping{Start: 0x400000, End: 0x401000, Path: "/bin/prog"}) {
		t.Errorf("mappings %+v", c.Mappings)
	}
	for name, data := range map[string][]byte{
		"short prstatus": note(ntPrstatus, pr[:100]),
		"huge NT_FILE":   note(ntFile, huge),
		"short NT_FILE":  note(ntFile, file[:8]),
		"desc past end":  note(ntAuxv, make([]byte, 16))[:20],
	} {
		var c File
		if err := c.notes(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestOpenNotCore: an ELF file that is not a core is ErrNotCore.
func TestOpenNotCore(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(exe); !errors.Is(err, ErrNotCore) {
		t.Errorf("Open(test binary) = %v, want ErrNotCore", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("Open(missing file): no error")
	}
	// An i386 core: the ELF header alone (ET_CORE, EM_386), no segments.
	h := []byte{0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	le := binary.LittleEndian
	h = le.AppendUint16(h, 4) // ET_CORE
	h = le.AppendUint16(h, 3) // EM_386
	h = le.AppendUint32(h, 1)
	h = append(h, make([]byte, 12)...) // entry, phoff, shoff
	h = le.AppendUint32(h, 0)          // flags
	for _, v := range []uint16{52, 32, 0, 40, 0, 0} {
		h = le.AppendUint16(h, v)
	}
	m32 := filepath.Join(t.TempDir(), "core.m32")
	if err := os.WriteFile(m32, h, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(m32); !errors.Is(err, ErrI386) || !errors.Is(err, ErrNotCore) {
		t.Errorf("Open(i386 core) = %v, want ErrI386 and ErrNotCore", err)
	}
}

func FuzzNotes(f *testing.F) {
	pr := make([]byte, prReg+8*len(RegNames))
	f.Add(note(ntPrstatus, pr))
	f.Add(note(ntFile, make([]byte, 64)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c File
		c.notes(data) //nolint:errcheck // must not panic
	})
}
