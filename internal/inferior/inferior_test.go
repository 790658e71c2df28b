package inferior

import (
	"bytes"
	"context"
	"debug/elf"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// newInferior starts prog under gdbserver (stopped at its first
// instruction) and returns the inferior behind the connection, loaded.
func newInferior(t *testing.T, prog string) (*Inferior, *rsp.Client) {
	t.Helper()
	path := testenv.Prog(t, prog)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, addr := testenv.GDBServer(t, ctx, path)
	c, err := rsp.Dial(ctx, addr, rsp.Options{Dialect: rsp.DialectGDBServer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	inf := New(c, path, int(c.Pid()))
	t.Cleanup(inf.Close)
	inf.Load(ctx)
	if inf.Img == nil {
		t.Fatalf("load %s: %v", prog, inf.ImgErr)
	}
	inf.Cur = c.LastStop().Thread
	return inf, c
}

// TestInsnCacheBoundaries: the instruction cache, filled from 64-byte
// reads decoded onward, holds only whole instructions. Decoding a read
// that ends inside an instruction took its first prefix for a one-byte
// instruction (x86asm does that without an error), and a later next put
// a breakpoint inside the instruction after it, which corrupted the
// program (sqlite3 -O2, found by a stepping differential). Every cached
// instruction of every function of cpp_shapes-O2, reached from each
// function's entry and each of its lines, must be what a decode of the
// whole bytes at its address says.
func TestInsnCacheBoundaries(t *testing.T) {
	inf, c := newInferior(t, "cpp_shapes-O2")
	ctx := t.Context()
	for _, f := range inf.Img.Functions() {
		if f.Entry == 0 || len(f.Ranges) == 0 {
			continue
		}
		inf.InsnMode(ctx, f.Entry+inf.Bias, 64) //nolint:errcheck
		for _, r := range f.Ranges {
			for a := r[0]; a < r[1]; a += 7 {
				inf.InsnMode(ctx, a+inf.Bias, 64) //nolint:errcheck // some are not instruction starts
			}
		}
	}
	checked := 0
	for a, in := range inf.insns {
		b := make([]byte, 32)
		if n, _ := c.ReadMemory(ctx, a, b); n < 15 {
			continue
		}
		want, err := x86asm.Decode(b, 64)
		if err != nil || want.Len != in.Len {
			t.Errorf("%#x: cached %v (%d bytes), the whole bytes decode as %v (%d bytes, %v)", a, in, in.Len, want, want.Len, err)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d cached instructions checked", checked)
	}
	t.Logf("%d cached instructions checked", checked)
}

// TestReadMemMatchesServer: what ReadMem returns through its line cache
// (the stack's top read with the registers, read-ahead on the stack, data
// lines, read-only data from the file) is what the server's own reads
// return, byte for byte, before and after the cache is dropped; and a
// read running into unmapped memory returns the bytes before it.
func TestReadMemMatchesServer(t *testing.T) {
	inf, c := newInferior(t, "counter")
	ctx := t.Context()
	regs, err := inf.RegsAtStop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc, sp, err := inf.PCSP(ctx, inf.Cur)
	if err != nil || pc != regs.PC() || sp != regs.SP() {
		t.Fatalf("PCSP = %#x, %#x, %v; the registers say %#x, %#x", pc, sp, err, regs.PC(), regs.SP())
	}
	var top uint64
	for _, m := range inf.Maps() {
		if m.Path == "[stack]" {
			top = m.End
		}
	}
	if top == 0 {
		t.Fatal("no [stack] mapping")
	}
	section := func(name string) uint64 {
		s := inf.Img.ELF().Section(name)
		if s == nil {
			t.Fatalf("counter has no %s", name)
		}
		return s.Addr + inf.Bias
	}
	reads := []struct {
		name string
		addr uint64
		n    int
	}{
		{"stack top", sp, 64},
		{"stack across lines", sp - 40, 700},
		{"deeper stack", (sp + top) / 2, 300}, // the environment, at the first instruction
		{"data", section(".data"), 48},
		{"read-only data", section(".rodata"), 40},
		{"code", pc, 100},
	}
	for _, round := range []string{"cached", "after Invalidate"} {
		for _, r := range reads {
			got := make([]byte, r.n)
			n, err := inf.ReadMem(ctx, r.addr, got)
			want := make([]byte, r.n)
			m, werr := c.ReadMemory(ctx, r.addr, want)
			if err != nil || werr != nil || n != r.n || m != r.n || !bytes.Equal(got, want) {
				t.Errorf("%s, %s: ReadMem(%#x, %d) = %d, %v: %x; the server: %d, %v: %x", round, r.name, r.addr, r.n, n, err, got[:n], m, werr, want[:m])
			}
		}
		inf.Invalidate()
	}
	// The top of the stack: a read past the last mapped page gets the
	// bytes before it, and an error naming the address.
	b := make([]byte, 64)
	if n, err := inf.ReadMem(ctx, top-16, b); n != 16 || err == nil {
		t.Errorf("ReadMem across the stack's end = %d, %v; want 16 bytes and an error", n, err)
	}
}

// TestModulesAndNames: the program's code maps to its image, an address in
// a global is named by it (<name+off>), and the libraries are listed once
// the dynamic linker has run.
func TestModulesAndNames(t *testing.T) {
	inf, _ := newInferior(t, "counter")
	ctx := t.Context()
	main := testenv.Symbol(t, inf.Img.Path, "main")
	if img, bias, ok := inf.Module(ctx, main.Value+inf.Bias); !ok || img != inf.Img || bias != inf.Bias {
		t.Errorf("Module(main) = %v, %#x, %v; want the program at bias %#x", img, bias, ok, inf.Bias)
	}
	bytesSym := testenv.Symbol(t, inf.Img.Path, "bytes")
	if got := inf.AddrName(ctx, bytesSym.Value+inf.Bias+4); got != "bytes+4" {
		t.Errorf("AddrName(&bytes[4]) = %q, want bytes+4", got)
	}
	if elf.ST_TYPE(bytesSym.Info) != elf.STT_OBJECT {
		t.Fatalf("bytes is %v", elf.ST_TYPE(bytesSym.Info))
	}
	// At the first instruction only ld.so and the program are mapped.
	if !inf.BeforeLibs(ctx) {
		t.Error("BeforeLibs at the first instruction = false")
	}
}
