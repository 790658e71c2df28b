package gdbdiff

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/rsp"
	"github.com/rrmcp/rrmcp/symbols"
)

// oursSide is rrmcp's own stack: rsp to gdbserver, dwarf and symbols for
// everything the stop shows. It holds only the glue a session would hold
// (module list, register mapping, breakpoint table); resolving, unwinding,
// variables, formatting and evaluation are the packages' own.
type oursSide struct {
	reaper
	prog string
	args []string
	env  []string

	srv  *proc.Process
	c    *rsp.Client
	vdso uint64 // address of the vDSO's ELF header (AT_SYSINFO_EHDR)
	aux  symbols.Auxv

	mods   []*module // main program first
	bps    map[int][]uint64
	watch  map[int]*watch
	thread rsp.Thread
	signal rsp.Signal // to deliver on the next resume
}

type module struct {
	path   string
	img    *dwarf.Image
	sym    *symbols.File
	dbg    *symbols.File // separate debug file, if any
	bias   uint64
	lo, hi uint64 // runtime extent of its PT_LOAD segments
	types  *dwarf.TypeReader
}

type watch struct {
	addr uint64
	size int
	old  []byte
}

func newOursSide(prog string, args, env []string) *oursSide {
	return &oursSide{prog: prog, args: args, env: env, bps: map[int][]uint64{}, watch: map[int]*watch{}}
}

func (o *oursSide) start(ctx context.Context) error {
	srv, addr, err := startServer(ctx, o.prog, o.args, filepath.Dir(o.prog), o.env)
	if err != nil {
		return err
	}
	o.srv = srv
	o.add(srv)
	c, err := rsp.Dial(ctx, addr, rsp.Options{Dialect: rsp.DialectGDBServer})
	if err != nil {
		return err
	}
	o.c = c
	o.addPID(int(c.Pid()))
	av, err := c.Auxv(ctx)
	if err != nil {
		return fmt.Errorf("auxv: %w", err)
	}
	m, err := openModule(o.prog, 0)
	if err != nil {
		return err
	}
	aux, err := symbols.ParseAuxv(av, m.img.PtrSize(), binary.LittleEndian)
	if err != nil {
		return err
	}
	o.vdso, o.aux = aux[symbols.AT_SYSINFO_EHDR], aux
	m.bias = symbols.BiasFromEntry(m.sym, aux[symbols.AT_ENTRY])
	m.setExtent()
	o.mods = []*module{m}
	// Run to main the way "break main" resolves it (GDB: -break-insert -t main).
	addrs, err := o.resolve("main")
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, a, 0); err != nil {
			return err
		}
	}
	st, err := c.Continue(ctx)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, a, 0); err != nil {
			return err
		}
	}
	if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGTRAP {
		return fmt.Errorf("run to main (breakpoint at %s): stopped with %s", hexList(addrs), st.Raw)
	}
	o.thread = st.Thread
	return o.loadLibraries(ctx)
}

// openModule opens an image with its DWARF, from a separate debug file
// (build-id, .gnu_debuglink) when the image has none, as GDB does.
func openModule(path string, bias uint64) (*module, error) {
	sym, err := symbols.Open(path)
	if err != nil {
		return nil, err
	}
	m := &module{path: path, sym: sym, bias: bias}
	if dbg, err := sym.DWARFFile(); err == nil && dbg != sym {
		m.dbg = dbg
		m.img, err = dwarf.LoadSplit(sym.ELF(), dbg.ELF())
		if err == nil {
			m.img.Path = path
		}
	} else {
		m.img, err = dwarf.Open(path)
	}
	if err != nil {
		m.close()
		return nil, err
	}
	if m.img.HasDWARF() {
		m.types = dwarf.NewTypeReader(m.img.DWARF())
	}
	m.setExtent()
	return m, nil
}

func (m *module) setExtent() {
	m.lo, m.hi = ^uint64(0), 0
	for _, p := range m.img.ELF().Progs {
		if p.Type == elf.PT_LOAD {
			m.lo = min(m.lo, p.Vaddr+m.bias)
			m.hi = max(m.hi, p.Vaddr+p.Memsz+m.bias)
		}
	}
}

func (m *module) close() {
	if m.img != nil {
		m.img.Close()
	}
	m.sym.Close() // closes the debug file too
}

// loadLibraries adds the shared libraries gdbserver lists (svr4), or,
// where the server has no library list (QEMU user mode), those of the
// dynamic linker's list in target memory, as GDB reads it then.
func (o *oursSide) loadLibraries(ctx context.Context) error {
	type lib struct {
		name  string
		laddr uint64
	}
	var list []lib
	doc, err := o.c.ReadXfer(ctx, "libraries-svr4", "")
	switch {
	case errors.Is(err, rsp.ErrUnsupported):
		read := func(a uint64, p []byte) (int, error) { return o.c.ReadMemory(ctx, a, p) }
		mods, err := symbols.LoadedModules(ctx, read, o.aux, o.prog, symbols.Layout{WordSize: o.mods[0].img.PtrSize(), ByteOrder: binary.LittleEndian})
		if err != nil {
			return fmt.Errorf("libraries: link map: %w", err)
		}
		for _, m := range mods[1:] {
			list = append(list, lib{m.Path, m.Bias})
		}
	case err != nil:
		return fmt.Errorf("libraries: %w", err)
	default:
		libs, err := symbols.ParseLibrariesSVR4(string(doc))
		if err != nil {
			return fmt.Errorf("libraries: %w", err)
		}
		for _, l := range libs.Libraries {
			list = append(list, lib{l.Name, l.LAddr})
		}
	}
	known := map[string]bool{}
	for _, m := range o.mods {
		known[m.path] = true
	}
	for _, l := range list {
		if l.name == "" || known[l.name] || !strings.HasPrefix(l.name, "/") {
			continue
		}
		m, err := openModule(l.name, l.laddr)
		if err != nil {
			continue // vdso and the like
		}
		known[l.name] = true
		o.mods = append(o.mods, m)
	}
	return o.loadVDSO(ctx)
}

// loadVDSO adds the vDSO, read from memory: i386 system calls and signal
// returns pass through it. A kernel's is linked at 0 (its load bias is its
// address); QEMU user mode relocates its own to where it maps it
// (symbols.VDSOBias).
func (o *oursSide) loadVDSO(ctx context.Context) error {
	if o.vdso == 0 {
		return nil
	}
	buf, err := symbols.ReadImage(func(a uint64, p []byte) (int, error) { return o.c.ReadMemory(ctx, a, p) }, o.vdso)
	if err != nil {
		return fmt.Errorf("vdso: %w", err)
	}
	sym, err := symbols.NewFile(bytes.NewReader(buf))
	if err != nil {
		return fmt.Errorf("vdso: %w", err)
	}
	img, err := dwarf.LoadSplit(sym.ELF(), nil)
	if err != nil {
		return fmt.Errorf("vdso: %w", err)
	}
	bias, ok := symbols.VDSOBias(func(a uint64, p []byte) (int, error) { return o.c.ReadMemory(ctx, a, p) }, o.vdso)
	if !ok {
		bias = o.vdso
	}
	m := &module{path: "[vdso]", img: img, sym: sym, bias: bias}
	m.setExtent()
	o.mods = append(o.mods, m)
	return nil
}

func (o *oursSide) moduleFor(pc uint64) (*module, bool) {
	for _, m := range o.mods {
		if pc >= m.lo && pc < m.hi {
			return m, true
		}
	}
	return nil, false
}

// resolve returns the runtime addresses of a breakpoint location the way
// "break LOCATION" does: every function of that name past its prologue and
// every inlined copy, or every address of FILE:LINE, in every module.
func (o *oursSide) resolve(where string) ([]uint64, error) {
	var out []uint64
	file, line, isLine := strings.Cut(where, ":")
	n, err := strconv.Atoi(line)
	isLine = isLine && err == nil
	for _, m := range o.mods {
		if !m.img.HasDWARF() {
			continue
		}
		if isLine {
			las, err := m.img.LineToAddrs(file, n)
			if err != nil {
				continue
			}
			for _, la := range las {
				out = append(out, la.Addr+m.bias)
			}
			continue
		}
		for _, f := range m.img.FuncsByName(where) {
			pc, _ := m.img.BreakpointAddr(f)
			out = append(out, pc+m.bias)
		}
		for _, c := range m.img.InlinedCopies(where) {
			out = append(out, c.Entry+m.bias)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", where, dwarf.ErrNotFound)
	}
	return out, nil
}

func (o *oursSide) arm(ctx context.Context, i int, sp *stopSpec) ([]uint64, error) {
	if sp.Kind == stopWatch {
		fs, err := o.frameScope(ctx)
		if err != nil {
			return nil, err
		}
		obj, err := dwarf.EvalExpr(ctx, fs, sp.Where)
		if err != nil {
			return nil, err
		}
		addr, ok := obj.Addr()
		if !ok {
			return nil, fmt.Errorf("watch %s: not an lvalue in memory", sp.Where)
		}
		w := &watch{addr: addr, size: int(obj.Type.Size())}
		if w.old, err = o.read(ctx, addr, w.size); err != nil {
			return nil, err
		}
		if err := o.c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, addr, w.size); err != nil {
			return nil, err
		}
		o.watch[i] = w
		return nil, nil
	}
	addrs, err := o.resolve(sp.Where)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if err := o.c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, a, 0); err != nil {
			return nil, err
		}
	}
	o.bps[i] = addrs
	return addrs, nil
}

func (o *oursSide) disarm(ctx context.Context, i int) error {
	if w, ok := o.watch[i]; ok {
		delete(o.watch, i)
		return o.c.RemoveBreakpoint(ctx, rsp.WriteWatchpoint, w.addr, w.size)
	}
	for _, a := range o.bps[i] {
		if err := o.c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, a, 0); err != nil {
			return err
		}
	}
	delete(o.bps, i)
	return nil
}

func (o *oursSide) read(ctx context.Context, addr uint64, n int) ([]byte, error) {
	b := make([]byte, n)
	got, err := o.c.ReadMemory(ctx, addr, b)
	if err == nil && got < n {
		err = errors.New("short read")
	}
	return b, err
}

// nostop are the signals GDB passes without stopping by default.
var nostop = map[rsp.Signal]bool{
	rsp.SIGALRM: true, rsp.SIGCHLD: true, 16 /* SIGURG */ : true, 23 /* SIGIO */ : true,
	26 /* SIGVTALRM */ : true, 27 /* SIGPROF */ : true, 28 /* SIGWINCH */ : true, 44 /* SIGPRIO */ : true,
}

func (o *oursSide) resume(ctx context.Context) (event, error) {
	for {
		var (
			st  rsp.Stop
			err error
		)
		if o.signal != 0 {
			st, err = o.c.ContinueWithSignal(ctx, o.thread, o.signal)
		} else {
			st, err = o.c.Continue(ctx)
		}
		o.signal = 0
		if err != nil {
			return event{}, err
		}
		switch st.Kind {
		case rsp.StopExited:
			return event{exited: fmt.Sprintf("exited with status %d", st.ExitCode)}, nil
		case rsp.StopTerminated:
			return event{exited: "was killed by " + st.Signal.String()}, nil
		case rsp.StopSignal:
		default:
			return event{}, fmt.Errorf("unexpected stop %q", st.Raw)
		}
		if st.Thread != (rsp.Thread{}) {
			o.thread = st.Thread
		}
		if st.Signal != rsp.SIGTRAP {
			o.signal = st.Signal
			if nostop[st.Signal] {
				continue
			}
			return event{signal: st.Signal.String()}, nil
		}
		if st.Watch != rsp.WatchNone {
			var hits []int
			for i, w := range o.watch {
				if st.WatchAddr < w.addr || st.WatchAddr >= w.addr+uint64(w.size) {
					continue
				}
				now, err := o.read(ctx, w.addr, w.size)
				if err != nil {
					return event{}, err
				}
				if !bytes.Equal(now, w.old) { // GDB reports a write watchpoint only on a change
					w.old = now
					hits = append(hits, i)
				}
			}
			if len(hits) == 0 {
				continue
			}
			return event{hits: hits}, nil
		}
		pcName := "rip"
		if o.mods[0].img.Is32Bit() {
			pcName = "eip"
		}
		pc, err := o.c.ReadRegisterUint(ctx, o.thread, pcName)
		if err != nil {
			return event{}, err
		}
		var hits []int
		for i, addrs := range o.bps {
			for _, a := range addrs {
				if a == pc {
					hits = append(hits, i)
				}
			}
		}
		if len(hits) == 0 {
			return event{}, fmt.Errorf("SIGTRAP at %#x, not at a breakpoint (%s)", pc, st.Raw)
		}
		return event{hits: hits}, nil
	}
}

// regs reads the stopped thread's registers into a dwarf.Regs.
func (o *oursSide) regs(ctx context.Context) (dwarf.Regs, error) {
	var r dwarf.Regs
	g, err := o.c.ReadRegisters(ctx, o.thread)
	if err != nil {
		return r, err
	}
	td := o.c.Target()
	for _, reg := range td.Registers {
		n, ok := dwarf.RegNum(reg.Name)
		if o.mods[0].img.Is32Bit() {
			n, ok = dwarf.RegNum32(reg.Name)
		}
		if !ok || reg.Offset+reg.Size() > len(g) {
			continue
		}
		r.SetBytes(n, g[reg.Offset:reg.Offset+reg.Size()])
	}
	return r, nil
}

func (o *oursSide) target(ctx context.Context) *dwarf.Target {
	return &dwarf.Target{
		ReadMemory: o.c.ReadMemory,
		Modules: func(_ context.Context, pc uint64) (*dwarf.Image, uint64, bool) {
			m, ok := o.moduleFor(pc)
			if !ok {
				return nil, 0, false
			}
			return m.img, m.bias, true
		},
	}
}

// unwind returns the frames of the stopped thread. keepInline shows an
// inlined call whose first instruction is the pc, as GDB does after
// stopping at a breakpoint on that (inlined) function.
func (o *oursSide) unwind(ctx context.Context, keepInline bool) ([]*dwarf.Frame, error) {
	regs, err := o.regs(ctx)
	if err != nil {
		return nil, err
	}
	m := o.mods[0]
	bt, err := m.img.Unwind(ctx, o.target(ctx), regs, m.bias, dwarf.UnwindOptions{KeepInlineEntry: keepInline})
	if bt == nil || len(bt.Frames) == 0 {
		return nil, fmt.Errorf("unwind: %v", err)
	}
	return bt.Frames, nil
}

func (o *oursSide) observe(ctx context.Context, sp *stopSpec) *observation {
	funcBreak := sp.Kind == stopBreak && !strings.Contains(sp.Where, ":")
	frames, err := o.unwind(ctx, funcBreak)
	if err != nil {
		return &observation{Err: "backtrace: " + err.Error()}
	}
	if funcBreak {
		frames = trimInlineEntry(frames, sp.Where)
	}
	obs := &observation{Vars: map[string]string{}}
	for _, f := range frames {
		fo := frameObs{Func: f.Name}
		if fo.Func == "" {
			fo.Func = "??"
		}
		if f.File != "" && f.Line > 0 {
			fo.File, fo.Line = filepath.Base(f.File), f.Line
		}
		obs.Frames = append(obs.Frames, fo)
	}
	for _, f := range frames {
		var parts []string
		if f.Function != nil {
			fs := o.scopeOf(ctx, f)
			for _, v := range f.Params(ctx) {
				val := "<error: no type>"
				if obj, err := fs.varObject(v); err == nil {
					val = miValue(fs.env.Format(obj))
				}
				parts = append(parts, v.Name+"="+val)
			}
		}
		obs.Args = append(obs.Args, strings.Join(parts, ", "))
	}
	obs.Vars = o.frameVars(ctx, frames[0])
	for level := 1; level < len(frames) && level <= maxCallerFrames; level++ {
		obs.Callers = append(obs.Callers, o.frameVars(ctx, frames[level]))
	}
	fs := o.scopeOf(ctx, frames[0])
	for _, e := range sp.Exprs {
		obj, err := dwarf.EvalExpr(ctx, fs, e)
		if err != nil {
			obs.Exprs = append(obs.Exprs, "error: "+err.Error())
			continue
		}
		obs.Exprs = append(obs.Exprs, miValue(fs.env.Format(obj)))
	}
	return obs
}

// frameVars lists a frame's arguments (with GDB's NAME@entry where the
// caller's call-site information gives the value at entry) and locals.
// A frame without DWARF gives GDB's error, as a "(error)" entry.
func (o *oursSide) frameVars(ctx context.Context, f *dwarf.Frame) map[string]string {
	m := map[string]string{}
	if f.Function == nil {
		m["(error)"] = "No symbol table info available."
		return m
	}
	fs := o.scopeOf(ctx, f)
	format := func(v dwarf.Variable) string {
		if obj, err := fs.varObject(v); err == nil {
			return miValue(fs.env.Format(obj))
		}
		return "<error: no type>"
	}
	for _, v := range f.Params(ctx) {
		addVar(m, v.Name, format(v))
		if ev, err := f.EntryValue(ctx, v); err == nil {
			addVar(m, ev.Name, format(ev))
		}
	}
	for _, v := range f.Locals(ctx) {
		addVar(m, v.Name, format(v))
	}
	return m
}

// trimInlineEntry drops the inlined calls that start at the stop pc and
// are nested inside the function the breakpoint is on: GDB shows the
// breakpoint's function as frame 0 (stopped_by_user_bp_inline_frame).
// Unwind's KeepInlineEntry keeps every inlined call that starts there.
func trimInlineEntry(frames []*dwarf.Frame, fn string) []*dwarf.Frame {
	for i, f := range frames {
		if f.PC != frames[0].PC || (i > 0 && !frames[i-1].Inlined) {
			break
		}
		if f.Name == fn {
			out := frames[i:]
			for j, g := range out {
				g.Level = j
			}
			return out
		}
	}
	return frames
}

func (o *oursSide) frameScope(ctx context.Context) (*scope, error) {
	frames, err := o.unwind(ctx, false)
	if err != nil {
		return nil, err
	}
	return o.scopeOf(ctx, frames[0]), nil
}

func (o *oursSide) close() {
	if o.c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		o.c.Kill(ctx)
		cancel()
		o.c.Close()
	}
	if o.srv != nil {
		o.srv.Stop(2 * time.Second)
	}
	for _, m := range o.mods {
		m.close()
	}
}

// miValue turns a value formatted as GDB's print command shows it (our
// Format) into what GDB/MI shows: MI prints values with common_val_print,
// which omits the "(TYPE) " that print (value_print) puts before a
// top-level pointer or reference. A top-level value that could not be
// read at all ("<error: …>") is an error in MI.
func miValue(s string) string {
	if msg, ok := strings.CutPrefix(s, "<error: "); ok && strings.HasSuffix(msg, ">") && !strings.Contains(msg, "<error: ") {
		return "error: " + strings.TrimSuffix(msg, ">")
	}
	if !strings.HasPrefix(s, "(") {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				// Format puts a type in parentheses only before a
				// pointer or reference ("0x…", "@0x…", "<synthetic
				// pointer>"); no C value itself starts with '('.
				if rest, ok := strings.CutPrefix(s[i+1:], " "); ok && rest != "" {
					return rest
				}
				return s
			}
		}
	}
	return s
}
