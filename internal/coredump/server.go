package coredump

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"html"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// Server answers a debugger's read requests from a core file: the
// payload of the reply to each RSP request it can answer (registers,
// memory, threads, the target description, auxv, the executable's name,
// the shared libraries). Package relay frames them: its ForwardFunc is
// [Server.Answer], its stop reply [Server.StopReply]. A Server is safe
// for concurrent use.
type Server struct {
	f   *File
	exe string

	regs []serverReg // the register layout: serverRegs, or avxRegs where the core has AVX state
	desc []byte      // its target description

	mu   sync.Mutex
	sel  int    // thread selected by Hg
	libs []byte // the library list, made at the first request
}

// NewServer serves f, a core dumped by the program exe (its absolute
// path: qXfer:exec-file names it, and it is left out of the libraries).
func NewServer(f *File, exe string) *Server {
	c := &Server{f: f, exe: exe, sel: f.Threads[0].TID, regs: serverRegs, desc: targetDesc}
	for _, t := range f.Threads {
		if t.HasAVX() {
			c.regs, c.desc = avxRegs, avxTargetDesc
			break
		}
	}
	return c
}

func (c *Server) thread(tid int) (Thread, bool) {
	for _, t := range c.f.Threads {
		if t.TID == tid {
			return t, true
		}
	}
	return Thread{}, false
}

func (c *Server) id(tid int) string {
	return rsp.Thread{Pid: int64(c.f.PID), Tid: int64(tid)}.String()
}

// StopReply is the stop reply for "?": the signal of the thread that got
// it.
func (c *Server) StopReply() string {
	t := c.f.Threads[0]
	sig := t.Signal
	if sig <= 0 || sig > 255 {
		sig = 5
	}
	return fmt.Sprintf("T%02xthread:%s;", sig, c.id(t.TID))
}

// A register of the target description: its name, size, the type the
// XML gives it, the feature it is in, and where its value comes from.
type serverReg struct {
	name    string
	bits    int
	typ     string
	group   string // "" or the register group the XML names
	feature string
	fp      int // offset in Thread.FP; -1: a general register (Thread.Reg)
	ymm     int // n of ymmNh (the upper half of ymmN, Thread.YMMHigh); -1 for the others
}

// serverRegs is gdbserver's amd64 GNU/Linux layout without AVX
// (features/i386/64bit-core.xml, 64bit-sse.xml, 64bit-linux.xml and
// 64bit-segments.xml, in that order): GDB checks that the core feature
// has exactly its 40 registers (i386_validate_tdesc_p) and rejects a
// description that lacks one, and numbers the 'g' packet by it.
var serverRegs = func() []serverReg {
	const core, sse = "org.gnu.gdb.i386.core", "org.gnu.gdb.i386.sse"
	var rs []serverReg
	gen := func(feature, typ string, bits int, names ...string) {
		for _, n := range names {
			rs = append(rs, serverReg{name: n, bits: bits, typ: typ, feature: feature, fp: -1, ymm: -1})
		}
	}
	gen(core, "int64", 64, "rax", "rbx", "rcx", "rdx", "rsi", "rdi")
	gen(core, "data_ptr", 64, "rbp", "rsp")
	gen(core, "int64", 64, "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
	gen(core, "code_ptr", 64, "rip")
	gen(core, "i386_eflags", 32, "eflags")
	gen(core, "int32", 32, "cs", "ss", "ds", "es", "fs", "gs")
	for i := range 8 {
		rs = append(rs, serverReg{name: fmt.Sprintf("st%d", i), bits: 80, typ: "i387_ext", feature: core, fp: FPSt0 + 16*i, ymm: -1})
	}
	for _, r := range []struct {
		name string
		off  int
	}{{"fctrl", FPCtrl}, {"fstat", FPStat}, {"ftag", FPTag}, {"fiseg", FPISeg}, {"fioff", FPIOff}, {"foseg", FPOSeg}, {"fooff", FPOOff}, {"fop", FPOp}} {
		rs = append(rs, serverReg{name: r.name, bits: 32, typ: "int", group: "float", feature: core, fp: r.off, ymm: -1})
	}
	for i := range 16 {
		rs = append(rs, serverReg{name: fmt.Sprintf("xmm%d", i), bits: 128, typ: "vec128", feature: sse, fp: FPXMM0 + 16*i, ymm: -1})
	}
	rs = append(rs, serverReg{name: "mxcsr", bits: 32, typ: "i386_mxcsr", group: "vector", feature: sse, fp: FPMXCSR, ymm: -1})
	gen("org.gnu.gdb.i386.linux", "int64", 64, "orig_rax")
	gen("org.gnu.gdb.i386.segments", "int64", 64, "fs_base", "gs_base")
	return rs
}()

// avxRegs is serverRegs with gdbserver's AVX feature after them
// (features/i386/64bit-avx.xml): the upper halves of ymm0-15, which GDB
// joins with xmm0-15 into its $ymmN pseudo registers.
var avxRegs = func() []serverReg {
	rs := append([]serverReg(nil), serverRegs...)
	for i := range 16 {
		rs = append(rs, serverReg{name: fmt.Sprintf("ymm%dh", i), bits: 128, typ: "uint128", feature: "org.gnu.gdb.i386.avx", fp: -1, ymm: i})
	}
	return rs
}()

// featureTypes are the types a feature defines before its registers, as
// GDB's feature files define them (features/i386/64bit-core.xml and
// 64bit-sse.xml): GDB prints eflags, mxcsr and the xmm registers by them.
var featureTypes = map[string]string{
	"org.gnu.gdb.i386.core": flagsXML("i386_eflags", "CF", "", "PF", "-", "AF", "-", "ZF", "SF", "TF", "IF", "DF", "OF", "-", "-", "NT", "-", "RF", "VM", "AC", "VIF", "VIP", "ID"),
	"org.gnu.gdb.i386.sse": `<vector id="v8bf16" type="bfloat16" count="8"/><vector id="v8h" type="ieee_half" count="8"/>` +
		`<vector id="v4f" type="ieee_single" count="4"/><vector id="v2d" type="ieee_double" count="2"/>` +
		`<vector id="v16i8" type="int8" count="16"/><vector id="v8i16" type="int16" count="8"/>` +
		`<vector id="v4i32" type="int32" count="4"/><vector id="v2i64" type="int64" count="2"/>` +
		`<union id="vec128"><field name="v8_bfloat16" type="v8bf16"/><field name="v8_half" type="v8h"/>` +
		`<field name="v4_float" type="v4f"/><field name="v2_double" type="v2d"/>` +
		`<field name="v16_int8" type="v16i8"/><field name="v8_int16" type="v8i16"/>` +
		`<field name="v4_int32" type="v4i32"/><field name="v2_int64" type="v2i64"/>` +
		`<field name="uint128" type="uint128"/></union>` +
		flagsXML("i386_mxcsr", "IE", "DE", "ZE", "OE", "UE", "PE", "DAZ", "IM", "DM", "ZM", "OM", "UM", "PM", "-", "-", "FZ"),
}

// flagsXML defines a 32-bit flags type whose bit i is named bits[i] ("-":
// no field for that bit).
func flagsXML(id string, bits ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<flags id="%s" size="4">`, id)
	for i, n := range bits {
		if n != "-" {
			fmt.Fprintf(&b, `<field name="%s" start="%d" end="%d"/>`, n, i, i)
		}
	}
	b.WriteString(`</flags>`)
	return b.String()
}

// The target descriptions of the two layouts.
var (
	targetDesc    = []byte(targetXML(serverRegs))
	avxTargetDesc = []byte(targetXML(avxRegs))
)

func targetXML(regs []serverReg) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd"><target><architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi>`)
	feature := ""
	for i, r := range regs {
		if r.feature != feature {
			if feature != "" {
				b.WriteString(`</feature>`)
			}
			feature = r.feature
			fmt.Fprintf(&b, `<feature name="%s">%s`, feature, featureTypes[feature])
		}
		group := ""
		if r.group != "" {
			group = ` group="` + r.group + `"`
		}
		fmt.Fprintf(&b, `<reg name="%s" bitsize="%d" type="%s" regnum="%d"%s/>`, r.name, r.bits, r.typ, i, group)
	}
	b.WriteString(`</feature></target>`)
	return b.String()
}

// regHex is register r of thread t in hex, "xx" a byte where the core
// has no x87/SSE (or AVX) state for the thread.
func regHex(t Thread, r serverReg) string {
	n := r.bits / 8
	if r.ymm >= 0 {
		if h := t.YMMHigh(r.ymm); h != nil {
			return hex.EncodeToString(h)
		}
		return strings.Repeat("xx", n)
	}
	if r.fp < 0 {
		v, _ := t.Reg(r.name)
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], v)
		return hex.EncodeToString(buf[:n])
	}
	if len(t.FP) < FPSize {
		return strings.Repeat("xx", n)
	}
	if n > 4 { // st and xmm: the bytes as saved
		return hex.EncodeToString(t.FP[r.fp : r.fp+n])
	}
	// The x87 control registers, as GDB reads them from an FXSAVE area
	// (i387_supply_fxsave): 16 bits zero-extended, fop's 11, the tag word
	// in full, the instruction and operand offsets and MXCSR whole.
	var v uint32
	switch r.name {
	case "fioff", "fooff", "mxcsr":
		v = binary.LittleEndian.Uint32(t.FP[r.fp:])
	case "fop":
		v = uint32(binary.LittleEndian.Uint16(t.FP[r.fp:])) & 0x7ff
	case "ftag":
		v = uint32(fullTag(t.FP))
	default:
		v = uint32(binary.LittleEndian.Uint16(t.FP[r.fp:]))
	}
	var buf [4]byte
	binary.LittleEndian.PutUint32(buf[:], v)
	return hex.EncodeToString(buf[:])
}

// fullTag expands FXSAVE's abridged tag (a bit a physical register: in
// use or empty) to the x87 tag word (two bits a register: valid 0, zero
// 1, special 2, empty 3), classifying each register in use by its value
// as FSAVE would.
func fullTag(fp []byte) uint16 {
	top := int(binary.LittleEndian.Uint16(fp[FPStat:])>>11) & 7
	abridged := fp[FPTag]
	var tag uint16
	for reg := range 8 {
		t := uint16(3)
		if abridged&(1<<reg) != 0 {
			st := fp[FPSt0+16*((reg-top+8)&7):]
			exp := binary.LittleEndian.Uint16(st[8:]) & 0x7fff
			mant := binary.LittleEndian.Uint64(st)
			integer := mant>>63 != 0
			switch {
			case exp == 0x7fff:
				t = 2
			case exp == 0 && mant == 0:
				t = 1
			case exp == 0 || !integer:
				t = 2
			default:
				t = 0
			}
		}
		tag |= t << (2 * reg)
	}
	return tag
}

// Answer answers one read request (a relay.ForwardFunc): "Exx" for an
// error, "" for what a core cannot answer.
func (c *Server) Answer(_ context.Context, pkt string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case pkt == "g":
		t, _ := c.thread(c.sel)
		var b strings.Builder
		for _, r := range c.regs {
			b.WriteString(regHex(t, r))
		}
		return b.String(), nil
	case strings.HasPrefix(pkt, "p"):
		n, err := strconv.ParseUint(pkt[1:], 16, 16)
		if err != nil || int(n) >= len(c.regs) {
			return "E01", nil
		}
		t, _ := c.thread(c.sel)
		return regHex(t, c.regs[n]), nil
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
func (c *Server) xfer(pkt string) (string, error) {
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
		data = c.desc
	case "auxv":
		data = c.f.Auxv
	case "exec-file":
		data = []byte(c.exe)
	case "libraries-svr4":
		if c.libs == nil { // once: GDB reads the list in chunks
			c.libs = []byte(c.libraries())
		}
		data = c.libs
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
	return string(rsp.AppendEscaped([]byte(kind), chunk)), nil
}

// libraries lists the shared objects as a <library-list-svr4>: the
// dynamic linker's list (link_map, through the executable's DT_DEBUG, as
// GDB reads a core: its order and names), or where the core's memory has
// none (a static program, a crash before ld.so ran, a corrupted list)
// the ELF shared objects the core maps at file offset 0 (NT_FILE), with
// the bias and dynamic section their first page's address gives.
func (c *Server) libraries() string {
	var b strings.Builder
	b.WriteString(`<library-list-svr4 version="1.0">`)
	lib := func(name string, lm, bias, dyn uint64) {
		fmt.Fprintf(&b, `<library name="%s" lm="%#x" l_addr="%#x" l_ld="%#x" lmid="0x0"/>`, html.EscapeString(name), lm, bias, dyn)
	}
	if mods, err := c.linkMap(); err == nil && len(mods) > 1 {
		for _, m := range mods[1:] { // the first is the program
			lib(m.Path, m.LM, m.Bias, m.LD)
		}
		b.WriteString(`</library-list-svr4>`)
		return b.String()
	}
	exeInfo, _ := os.Stat(c.exe)
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
		lib(m.Path, 0, bias, dyn)
	}
	b.WriteString(`</library-list-svr4>`)
	return b.String()
}

// linkMap reads the dynamic linker's list of modules from the core's
// memory.
func (c *Server) linkMap() ([]symbols.Module, error) {
	l := symbols.Layout{WordSize: 8, ByteOrder: binary.LittleEndian}
	av, err := symbols.ParseAuxv(c.f.Auxv, l.WordSize, l.ByteOrder)
	if err != nil {
		return nil, err
	}
	// Bounded: every read is of the core file.
	return symbols.LoadedModules(context.Background(), c.f.ReadMemory, av, c.exe, l)
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
