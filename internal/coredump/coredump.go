// Package coredump reads Linux x86-64 ELF core dumps and serves them to a
// debugger. [Open] reads the threads' registers (NT_PRSTATUS) and x87/SSE
// state (NT_PRFPREG), the auxiliary vector (NT_AUXV), the mapped files
// (NT_FILE) and memory, from the core's PT_LOAD segments or, for pages
// the core omits (read-only file mappings), from the mapped files
// themselves. [Server] answers RSP read requests from a core the way
// gdbserver answers them from a process (its target description is
// gdbserver's amd64 GNU/Linux one, so GDB accepts it too): rr_core_open
// serves the inspection tools through it and the read-only relay
// (internal/relay), and the DWARF tests read GDB's cores with [Open].
package coredump

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// RegNames are the registers of a thread in the order of the kernel's
// struct user_regs_struct (Thread.Regs).
var RegNames = [...]string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
	"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
	"fs_base", "gs_base", "ds", "es", "fs", "gs"}

// Thread is one thread of the dumped process (one NT_PRSTATUS note; the
// first is the thread that received the signal).
type Thread struct {
	TID    int
	Signal int // pr_cursig: the signal being delivered, 0 if none
	Regs   [len(RegNames)]uint64
	// FP is the thread's x87 and SSE state (NT_PRFPREG: the 512-byte
	// FXSAVE area, FPOffset), nil when the core has none.
	FP []byte
	// XState is the thread's XSAVE area (NT_X86_XSTATE, the standard
	// layout: XSaveAVX holds the upper halves of ymm0-15), nil when the
	// core has none.
	XState []byte
}

// Offsets in an XSAVE area (Thread.XState) as the kernel writes it in a
// core: the enabled features (XCR0, in the FXSAVE area's bytes the
// kernel reserves for software), the features whose state the area
// holds (XSTATE_BV; a clear bit: that state is in its initial state,
// zeros), and the upper 128 bits of ymm0-15.
const (
	XSaveXCR0    = 464
	XSaveStateBV = 512
	XSaveAVX     = 576
	XSaveAVXSize = 16 * 16
	xcr0AVX      = 1 << 2
)

// HasAVX reports whether the thread's XSAVE area is there and its
// processor had AVX enabled.
func (t Thread) HasAVX() bool {
	return len(t.XState) >= XSaveAVX+XSaveAVXSize && binary.LittleEndian.Uint64(t.XState[XSaveXCR0:])&xcr0AVX != 0
}

// YMMHigh returns the upper 128 bits of ymmN (zeros where the area
// says the AVX state is in its initial state), or nil without AVX.
func (t Thread) YMMHigh(n int) []byte {
	if !t.HasAVX() || n < 0 || n >= 16 {
		return nil
	}
	if binary.LittleEndian.Uint64(t.XState[XSaveStateBV:])&xcr0AVX == 0 {
		return make([]byte, 16)
	}
	return t.XState[XSaveAVX+16*n : XSaveAVX+16*n+16]
}

// Offsets of the x87 and SSE registers in Thread.FP (the FXSAVE layout,
// 64-bit form): the x87 control, status and abridged tag words, the
// last instruction's opcode, instruction and operand pointers, MXCSR,
// st0-st7 (10 bytes each, 16 apart) and xmm0-xmm15 (16 bytes each).
const (
	FPCtrl  = 0
	FPStat  = 2
	FPTag   = 4 // abridged: one bit a register, set where it is valid
	FPOp    = 6
	FPIOff  = 8
	FPISeg  = 12
	FPOOff  = 16
	FPOSeg  = 20
	FPMXCSR = 24
	FPSt0   = 32
	FPXMM0  = 160
	FPSize  = 512
)

// Reg returns a register by name ("rip", "rsp", "eflags", …).
func (t Thread) Reg(name string) (uint64, bool) {
	for i, n := range RegNames {
		if n == name {
			return t.Regs[i], true
		}
	}
	return 0, false
}

// Mapping is one file mapping of NT_FILE.
type Mapping struct {
	Start, End, Offset uint64 // Offset in bytes into Path
	Path               string
}

// File is an open core file. Its methods are safe for concurrent reads.
type File struct {
	f        *elf.File
	PID      int
	Threads  []Thread
	Mappings []Mapping
	Auxv     []byte
}

// ErrNotCore: the file is not an x86-64 ELF core dump. An i386 core
// is also ErrI386.
var ErrNotCore = errors.New("not an x86-64 ELF core dump")

// ErrI386: the file is the core dump of an i386 program, which this
// package does not read.
var ErrI386 = errors.New("an i386 (32-bit) core dump")

// Open reads a core file's notes; memory is read on demand.
func Open(path string) (*File, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("core %s: %w", path, err)
	}
	if f.Type != elf.ET_CORE || f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		f.Close()
		if f.Type == elf.ET_CORE && f.Machine == elf.EM_386 {
			return nil, fmt.Errorf("core %s is %w: %w", path, ErrI386, ErrNotCore)
		}
		return nil, fmt.Errorf("core %s is a %v %v file: %w", path, f.Type, f.Machine, ErrNotCore)
	}
	c := &File{f: f}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			f.Close()
			return nil, fmt.Errorf("core %s: read notes: %w", path, err)
		}
		if err := c.notes(data); err != nil {
			f.Close()
			return nil, fmt.Errorf("core %s: %w", path, err)
		}
	}
	if len(c.Threads) == 0 {
		f.Close()
		return nil, fmt.Errorf("core %s has no thread (NT_PRSTATUS): %w", path, ErrNotCore)
	}
	return c, nil
}

// Close closes the core file.
func (c *File) Close() error { return c.f.Close() }

const (
	ntPrstatus = 1
	ntPrfpreg  = 2
	ntXstate   = 0x202 // NT_X86_XSTATE
	ntAuxv     = 6
	ntFile     = 0x46494c45
	// Offsets in struct elf_prstatus (x86-64).
	prCursig = 12
	prPid    = 32
	prReg    = 112
)

func (c *File) notes(data []byte) error {
	le := binary.LittleEndian
	for len(data) >= 12 {
		nsz, dsz, typ := le.Uint32(data), le.Uint32(data[4:]), le.Uint32(data[8:])
		if nsz > uint32(len(data)) || dsz > uint32(len(data)) {
			return errors.New("truncated note")
		}
		nOff := 12 + (int(nsz)+3)&^3
		end := nOff + (int(dsz)+3)&^3
		if nOff+int(dsz) > len(data) {
			return errors.New("truncated note")
		}
		desc := data[nOff : nOff+int(dsz)]
		if end > len(data) {
			end = len(data)
		}
		data = data[end:]
		switch typ {
		case ntPrstatus:
			if len(desc) < prReg+8*len(RegNames) {
				return errors.New("short NT_PRSTATUS")
			}
			t := Thread{TID: int(int32(le.Uint32(desc[prPid:]))), Signal: int(int16(le.Uint16(desc[prCursig:])))}
			for i := range t.Regs {
				t.Regs[i] = le.Uint64(desc[prReg+8*i:])
			}
			if len(c.Threads) == 0 {
				c.PID = t.TID // the first thread is the one that got the signal; the main thread's id is the pid
			}
			c.Threads = append(c.Threads, t)
		case ntPrfpreg:
			// The kernel (and GDB's generate-core-file) write a thread's
			// notes together, NT_PRSTATUS first.
			if len(desc) >= FPSize && len(c.Threads) > 0 && c.Threads[len(c.Threads)-1].FP == nil {
				c.Threads[len(c.Threads)-1].FP = append([]byte(nil), desc[:FPSize]...)
			}
		case ntXstate:
			if len(desc) >= XSaveAVX && len(c.Threads) > 0 && c.Threads[len(c.Threads)-1].XState == nil {
				c.Threads[len(c.Threads)-1].XState = append([]byte(nil), desc...)
			}
		case ntAuxv:
			c.Auxv = append([]byte(nil), desc...)
		case ntFile:
			if len(desc) < 16 {
				return errors.New("short NT_FILE")
			}
			n := le.Uint64(desc)
			page := le.Uint64(desc[8:])
			if n > uint64(len(desc)-16)/24 {
				return errors.New("truncated NT_FILE")
			}
			names := bytes.Split(desc[16+24*n:], []byte{0})
			for i := uint64(0); i < n && i < uint64(len(names)); i++ {
				e := desc[16+24*i:]
				c.Mappings = append(c.Mappings, Mapping{Start: le.Uint64(e), End: le.Uint64(e[8:]),
					Offset: le.Uint64(e[16:]) * page, Path: string(names[i])})
			}
		}
	}
	// The process id is the thread group id: the main thread's, which is
	// the smallest thread id in the dump.
	for _, t := range c.Threads {
		if t.TID < c.PID {
			c.PID = t.TID
		}
	}
	return nil
}

// ReadMemory reads len(p) bytes at addr; n < len(p) with an error at the
// first byte neither the core nor a mapped file has.
func (c *File) ReadMemory(addr uint64, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m := c.readSome(addr+uint64(n), p[n:])
		if m == 0 {
			return n, fmt.Errorf("address %#x is not in the core or its mapped files", addr+uint64(n))
		}
		n += m
	}
	return n, nil
}

func (c *File) readSome(addr uint64, p []byte) int {
	for _, s := range c.f.Progs {
		if s.Type != elf.PT_LOAD || addr < s.Vaddr || addr >= s.Vaddr+s.Memsz {
			continue
		}
		if addr < s.Vaddr+s.Filesz {
			n := min(uint64(len(p)), s.Vaddr+s.Filesz-addr)
			m, _ := s.ReadAt(p[:n], int64(addr-s.Vaddr))
			return m
		}
	}
	for _, fm := range c.Mappings {
		if addr < fm.Start || addr >= fm.End {
			continue
		}
		f, err := os.Open(fm.Path)
		if err != nil {
			return 0
		}
		defer f.Close()
		n := min(uint64(len(p)), fm.End-addr)
		m, _ := f.ReadAt(p[:n], int64(fm.Offset+addr-fm.Start))
		return m
	}
	return 0
}
