package session

import (
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rrmcp/rrmcp/internal/core"
	"github.com/rrmcp/rrmcp/internal/relay"
	"github.com/rrmcp/rrmcp/rsp"
)

// KindCore is a post-mortem session on a core dump: no process and no debug
// server. The core is served by the read-only relay (internal/relay) with
// a ForwardFunc that answers from the core file (coreServer), so every
// inspection tool runs the code it runs on a live target.
const KindCore Kind = "core"

// OpenCore starts a session on a core dump of program exe.
func (m *Manager) OpenCore(ctx context.Context, corePath, exe string) (*Session, *Stop, error) {
	abs, err := filepath.Abs(exe)
	if err != nil {
		return nil, nil, argErrorf("executable", "%v", err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return nil, nil, argErrorf("executable", "%s is not a file: give the program that dumped the core", abs)
	}
	cf, err := core.Open(corePath)
	if err != nil {
		if errors.Is(err, core.ErrNotCore) || errors.Is(err, os.ErrNotExist) {
			return nil, nil, argErrorf("core_file", "%v", err)
		}
		return nil, nil, argErrorf("core_file", "cannot read it as an ELF core dump: %v", err)
	}
	srv := &coreServer{f: cf, exe: abs, sel: cf.Threads[0].TID}
	r, err := relay.New(relay.Config{Forward: srv.forward, Stop: srv.stop, Multiprocess: true})
	if err != nil {
		cf.Close()
		return nil, nil, fmt.Errorf("serve the core: %w", err)
	}
	s := m.newSession(KindCore)
	s.addr = r.Addr()
	s.program = abs
	s.traceDir = corePath
	s.core = srv
	srv.relay = r
	st, err := m.open(ctx, s, rsp.DialectAuto, "")
	if err != nil {
		srv.close()
		return nil, nil, err
	}
	return s, st, nil
}

// coreServer answers the relay's read requests from a core file.
type coreServer struct {
	f     *core.File
	exe   string
	relay *relay.Relay

	mu  sync.Mutex
	sel int // thread selected by Hg
}

func (c *coreServer) close() {
	c.relay.Close() //nolint:errcheck
	c.f.Close()     //nolint:errcheck
}

// coreCannotMove is the error of every tool that would run the program.
func (s *Session) coreCannotMove() error {
	return fmt.Errorf("session %s is a core dump (%s): there is no process to run, step or set breakpoints in; inspect it (rr_backtrace, rr_select_frame, rr_locals, rr_evaluate, rr_read_memory, rr_registers, rr_thread_list, rr_disassemble), or run the program with rr_record / rr_live_start: %w", s.id, s.traceDir, ErrUnsupported)
}

func (c *coreServer) thread(tid int) (core.Thread, bool) {
	for _, t := range c.f.Threads {
		if t.TID == tid {
			return t, true
		}
	}
	return core.Thread{}, false
}

func (c *coreServer) id(tid int) string {
	return rsp.Thread{Pid: int64(c.f.PID), Tid: int64(tid)}.String()
}

// stop is the stop reply for "?": the signal of the thread that got it.
func (c *coreServer) stop() string {
	t := c.f.Threads[0]
	sig := t.Signal
	if sig <= 0 || sig > 255 {
		sig = 5
	}
	return fmt.Sprintf("T%02xthread:%s;", sig, c.id(t.TID))
}

// coreRegs is the register layout the target description announces:
// the 64-bit general registers and rip, then eflags and the segment
// registers (32-bit), then fs_base and gs_base, as gdbserver orders them.
var coreRegs = []struct {
	name string
	bits int
}{
	{"rax", 64}, {"rbx", 64}, {"rcx", 64}, {"rdx", 64}, {"rsi", 64}, {"rdi", 64}, {"rbp", 64}, {"rsp", 64},
	{"r8", 64}, {"r9", 64}, {"r10", 64}, {"r11", 64}, {"r12", 64}, {"r13", 64}, {"r14", 64}, {"r15", 64},
	{"rip", 64}, {"eflags", 32}, {"cs", 32}, {"ss", 32}, {"ds", 32}, {"es", 32}, {"fs", 32}, {"gs", 32},
	{"fs_base", 64}, {"gs_base", 64},
}

func coreTargetXML() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd"><target><architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi><feature name="org.gnu.gdb.i386.core">`)
	for i, r := range coreRegs {
		typ := "int64"
		switch {
		case r.name == "rip":
			typ = "code_ptr"
		case r.name == "rsp" || r.name == "rbp":
			typ = "data_ptr"
		case r.bits == 32:
			typ = "int32"
		}
		fmt.Fprintf(&b, `<reg name="%s" bitsize="%d" type="%s" regnum="%d"/>`, r.name, r.bits, typ, i)
	}
	b.WriteString(`</feature></target>`)
	return b.String()
}

func (c *coreServer) regHex(t core.Thread, i int) string {
	v, _ := t.Reg(coreRegs[i].name)
	var buf [8]byte
	for j := range buf {
		buf[j] = byte(v >> (8 * j))
	}
	return hex.EncodeToString(buf[:coreRegs[i].bits/8])
}

// forward answers one read request (see relay.ForwardFunc): "Exx" for an
// error, "" for what a core cannot answer.
func (c *coreServer) forward(_ context.Context, pkt string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case pkt == "g":
		t, _ := c.thread(c.sel)
		var b strings.Builder
		for i := range coreRegs {
			b.WriteString(c.regHex(t, i))
		}
		return b.String(), nil
	case strings.HasPrefix(pkt, "p"):
		n, err := strconv.ParseUint(pkt[1:], 16, 16)
		if err != nil || int(n) >= len(coreRegs) {
			return "E01", nil
		}
		t, _ := c.thread(c.sel)
		return c.regHex(t, int(n)), nil
	case strings.HasPrefix(pkt, "m"):
		a, l, ok := strings.Cut(pkt[1:], ",")
		addr, err1 := strconv.ParseUint(a, 16, 64)
		n, err2 := strconv.ParseUint(l, 16, 32)
		if !ok || err1 != nil || err2 != nil {
			return "E01", nil
		}
		buf := make([]byte, min(n, 1<<16))
		got, _ := c.f.ReadMemory(addr, buf)
		if got == 0 && len(buf) > 0 {
			return "E01", nil
		}
		return hex.EncodeToString(buf[:got]), nil
	case strings.HasPrefix(pkt, "Hg"), strings.HasPrefix(pkt, "T"):
		arg := strings.TrimPrefix(strings.TrimPrefix(pkt, "Hg"), "T")
		t, err := rsp.ParseThread(arg)
		if err != nil {
			return "E01", nil
		}
		if t.Tid <= 0 { // 0 or -1: any thread
			if strings.HasPrefix(pkt, "Hg") {
				c.sel = c.f.Threads[0].TID
			}
			return "OK", nil
		}
		if _, ok := c.thread(int(t.Tid)); !ok {
			return "E01", nil
		}
		if strings.HasPrefix(pkt, "Hg") {
			c.sel = int(t.Tid)
		}
		return "OK", nil
	case pkt == "qfThreadInfo":
		ids := make([]string, len(c.f.Threads))
		for i, t := range c.f.Threads {
			ids[i] = c.id(t.TID)
		}
		return "m" + strings.Join(ids, ","), nil
	case pkt == "qsThreadInfo":
		return "l", nil
	case pkt == "qC":
		return "QC" + c.id(c.f.Threads[0].TID), nil
	case strings.HasPrefix(pkt, "qXfer:"):
		return c.xfer(pkt)
	}
	return "", nil
}

// xfer answers qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH.
func (c *coreServer) xfer(pkt string) (string, error) {
	parts := strings.SplitN(pkt, ":", 5)
	if len(parts) != 5 || parts[2] != "read" {
		return "", nil
	}
	o, l, _ := strings.Cut(parts[4], ",")
	off, err1 := strconv.ParseUint(o, 16, 64)
	n, err2 := strconv.ParseUint(l, 16, 64)
	if err1 != nil || err2 != nil {
		return "E01", nil
	}
	var data []byte
	switch parts[1] {
	case "features":
		if parts[3] != "target.xml" {
			return "E01", nil
		}
		data = []byte(coreTargetXML())
	case "auxv":
		data = c.f.Auxv
	case "exec-file":
		data = []byte(c.exe)
	case "libraries-svr4":
		data = []byte(c.libraries())
	default:
		return "", nil
	}
	if off >= uint64(len(data)) {
		return "l", nil
	}
	chunk := data[off:min(uint64(len(data)), off+n)]
	kind := "m"
	if off+uint64(len(chunk)) >= uint64(len(data)) {
		kind = "l"
	}
	return kind + escapeBinary(chunk), nil
}

// escapeBinary escapes a binary reply the way the protocol frames it.
func escapeBinary(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch c {
		case '#', '$', '}', '*':
			s.WriteByte('}')
			s.WriteByte(c ^ 0x20)
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

// libraries lists the shared objects the core maps (NT_FILE mappings at
// file offset 0 of an ELF shared object other than the executable), with
// their load bias and dynamic section, as a <library-list-svr4>.
func (c *coreServer) libraries() string {
	exeInfo, _ := os.Stat(c.exe)
	var b strings.Builder
	b.WriteString(`<library-list-svr4 version="1.0">`)
	seen := map[string]bool{}
	for _, m := range c.f.Mappings {
		if m.Offset != 0 || seen[m.Path] {
			continue
		}
		seen[m.Path] = true
		if fi, err := os.Stat(m.Path); err != nil || (exeInfo != nil && os.SameFile(fi, exeInfo)) {
			continue
		}
		bias, dyn, ok := loadBias(m.Path, m.Start)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, `<library name="%s" lm="0x0" l_addr="%#x" l_ld="%#x"/>`, html.EscapeString(m.Path), bias, dyn)
	}
	b.WriteString(`</library-list-svr4>`)
	return b.String()
}

// loadBias is the bias of a shared object whose first page is mapped at
// start, and the address of its dynamic section.
func loadBias(path string, start uint64) (bias, dyn uint64, ok bool) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return 0, 0, false
	}
	first := ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr&^0xfff < first {
			first = p.Vaddr &^ 0xfff
		}
	}
	if first == ^uint64(0) {
		return 0, 0, false
	}
	bias = start - first
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC {
			dyn = bias + p.Vaddr
		}
	}
	return bias, dyn, true
}
