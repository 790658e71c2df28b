package triage

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// Operand is one operand of the faulting instruction with its value.
type Operand struct {
	Text    string `json:"text" jsonschema:"the operand as disassembled (Intel syntax)"`
	Kind    string `json:"kind" jsonschema:"register, memory or immediate"`
	Value   string `json:"value,omitempty" jsonschema:"register value, or the memory contents (hex) when readable"`
	Address string `json:"address,omitempty" jsonschema:"memory operands: the effective address"`
	Error   string `json:"error,omitempty" jsonschema:"memory operands: why the address cannot be read (the likely fault)"`
}

// FaultInsn is the decoded instruction at the crash.
type FaultInsn struct {
	PC       string    `json:"pc"`
	Text     string    `json:"text" jsonschema:"AT&T syntax, as rr_disassemble prints it"`
	Operands []Operand `json:"operands"`
}

// Frame is a backtrace frame with its arguments.
type Frame struct {
	session.Frame
	Args []session.Value `json:"args,omitempty"`
}

// Report is a crash report: everything an agent asks first, in one reply.
type Report struct {
	Summary       string              `json:"summary" jsonschema:"one sentence: what stopped the program, and where in its own code"`
	Reason        string              `json:"reason" jsonschema:"the stop being triaged: signal, killed, exited, history-end, ..."`
	Signal        string              `json:"signal,omitempty"`
	SignalMeaning string              `json:"signal_meaning,omitempty"`
	Instruction   *FaultInsn          `json:"instruction,omitempty"`
	Backtrace     []Frame             `json:"backtrace"`
	MoreFrames    bool                `json:"more_frames,omitempty" jsonschema:"the backtrace was cut at max_frames; rr_backtrace gives the rest"`
	Locals        []session.Value     `json:"locals,omitempty" jsonschema:"arguments and locals of the crashing frame"`
	MoreLocals    bool                `json:"more_locals,omitempty" jsonschema:"cut at max_locals; rr_locals gives all"`
	Suspect       string              `json:"suspect,omitempty" jsonschema:"the expression whose last writer was searched (the faulting pointer's variable)"`
	LastWriter    *session.LastWrites `json:"last_writer,omitempty"`
	LastWriterWhy string              `json:"last_writer_note,omitempty" jsonschema:"why there is no last writer"`
	// ProgramFrame is where to look first when the stop is inside a
	// library (abort, a string function given a bad pointer, an uncaught
	// exception): the first frame in the program's own code.
	ProgramFrame  *Frame          `json:"program_frame,omitempty" jsonschema:"when frame 0 is in a shared library: the first frame in the program's own code, with its arguments"`
	ProgramLocals []session.Value `json:"program_locals,omitempty" jsonschema:"locals of program_frame (at most max_locals)"`
	Assertion     *Assertion      `json:"assertion,omitempty" jsonschema:"a failed assert(): its condition and where, from glibc's __assert_fail arguments"`
	Exception     *Exception      `json:"exception,omitempty" jsonschema:"an uncaught C++ exception: its type and what(), as libstdc++'s terminate handler wrote them to stderr"`
	StderrTail    string          `json:"stderr_tail,omitempty" jsonschema:"the last lines the program wrote to stderr (sessions that capture its output)"`
	Notes         []string        `json:"notes,omitempty"`

	lastWriterErr error // the last-writer search's error, behind LastWriterWhy
}

// Assertion is a failed assert() as glibc reports it.
type Assertion struct {
	Condition string `json:"condition"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Function  string `json:"function,omitempty"`
}

// Exception is an uncaught C++ exception as libstdc++'s verbose
// terminate handler reports it.
type Exception struct {
	Type string `json:"type"`
	What string `json:"what,omitempty"`
}

// Options bounds the report.
type Options struct {
	MaxFrames int    // default 8
	MaxLocals int    // default 16
	Suspect   string // lvalue whose last writer to find; "" = the local holding the faulting pointer
}

// Run reports on the current stop of s: signal, the faulting instruction
// with operand values, backtrace with arguments, the crashing frame's
// locals and, where the backend keeps history, the last writer of the
// faulting pointer (the session is then at that write). A program that
// has exited gives the report of how it ended and an error matching
// session.ErrExited.
func Run(ctx context.Context, s *session.Session, o Options) (*Report, error) {
	if o.MaxFrames <= 0 {
		o.MaxFrames = 8
	}
	if o.MaxLocals <= 0 {
		o.MaxLocals = 16
	}
	out := &Report{}
	st, err := s.StopState(ctx)
	if err != nil {
		return out, err
	}
	if st.Exited {
		out.Reason = "exited"
		if st.Stop.Kind == rsp.StopTerminated {
			out.Reason, out.Signal, out.SignalMeaning = "killed", st.Stop.Signal.String(), st.Stop.Signal.Meaning()
		}
		out.Summary = "The program " + map[bool]string{true: "was killed by " + out.Signal, false: "has exited"}[out.Reason == "killed"] + "; nothing is left to inspect."
		return out, s.ExitedError("nothing is left to inspect: start again (rr_live_start) and rr_continue to the signal (it stops there, before the program dies), or replay a recording")
	}
	if t, was := st.Stop.Thread, st.Thread; t.Tid > 0 && t != was {
		// The report is of the thread that stopped (got the signal), not
		// of one the client selected since.
		if _, err := s.SelectThread(ctx, t.String()); err == nil {
			if st, err = s.StopState(ctx); err != nil {
				return out, err
			}
			out.Notes = append(out.Notes, fmt.Sprintf("Selected thread %s, the one that stopped (thread %s was selected).", t, was))
		}
	}
	out.Reason = "stopped"
	if last := st.Stop; last.Kind == rsp.StopSignal && last.Signal != rsp.SIGTRAP && last.Signal != rsp.Sig0 {
		out.Reason, out.Signal, out.SignalMeaning = "signal", last.Signal.String(), last.Signal.Meaning()
	} else if last.AboutToExit {
		out.Reason = "history-end"
	}
	if out.Signal == "" {
		out.Notes = append(out.Notes, "The program is not stopped at a signal; this reports the current stop.")
	}
	var fault uint64 // base register value of the faulting memory operand
	out.Instruction, fault = faultInsn(ctx, s, st.Regs)
	// Deeper than the report's backtrace: the program's own frame can be
	// far below the library frames of an uncaught exception.
	frames, more, _, _, err := s.Backtrace(ctx, max(o.MaxFrames, programDepth))
	if err != nil {
		out.Notes = append(out.Notes, "backtrace: "+err.Error())
	}
	out.MoreFrames = more || len(frames) > o.MaxFrames
	prog := programFrame(frames)
	for i, f := range frames {
		assert := assertFunctions[f.Function] && out.Assertion == nil
		if i >= o.MaxFrames && i != prog && !assert {
			continue
		}
		tf := Frame{Frame: f}
		var vals []session.Value
		if _, err := s.SelectFrame(ctx, i); err == nil {
			if vals, _, err = s.Locals(ctx); err == nil {
				for _, v := range vals {
					if v.Kind == "argument" {
						tf.Args = append(tf.Args, v)
					}
				}
			} else if i == 0 {
				out.Notes = append(out.Notes, "locals: "+err.Error())
			}
		}
		if i == 0 {
			out.Locals = vals
		}
		if i < o.MaxFrames {
			out.Backtrace = append(out.Backtrace, tf)
		}
		if i == prog && i > 0 {
			pf := tf
			out.ProgramFrame, out.ProgramLocals = &pf, vals
		}
		if assert {
			out.Assertion = assertionOf(tf.Args)
		}
	}
	if len(frames) > 0 {
		s.SelectFrame(ctx, 0) //nolint:errcheck
	}
	if len(out.Locals) > o.MaxLocals {
		out.Locals, out.MoreLocals = out.Locals[:o.MaxLocals], true
	}
	if len(out.ProgramLocals) > o.MaxLocals {
		out.ProgramLocals = out.ProgramLocals[:o.MaxLocals]
	}
	if o, err := s.Output(ctx, "stderr", -stderrBytes, stderrBytes); err == nil {
		out.StderrTail = lastLines(o.Text, stderrLines)
		if out.Signal == "SIGABRT" {
			out.Exception = uncaught(out.StderrTail)
		}
	}
	out.Summary = summary(out)
	out.Suspect = o.Suspect
	if out.Suspect == "" && fault != 0 {
		out.Suspect = suspectFor(out.Locals, fault)
		if out.Suspect == "" && out.ProgramFrame != nil {
			// A library given a bad pointer: the program's variable that
			// holds it, searched for in the program's frame.
			if out.Suspect = suspectFor(out.ProgramLocals, fault); out.Suspect != "" {
				s.SelectFrame(ctx, out.ProgramFrame.Level) //nolint:errcheck
			}
		}
	}
	switch {
	case !s.Caps().Reverse:
		out.LastWriterWhy = "This backend keeps no history, so the last writer cannot be found here; with rr (or a QEMU replay) rr_last_write answers it. Here: rr_watchpoint_set on the suspect before the crash and run again."
	case out.Suspect == "":
		out.LastWriterWhy = "No local holds the faulting pointer; call rr_last_write on the expression you suspect."
	default:
		lw, err := s.LastWrite(ctx, out.Suspect, 0, 1)
		if err != nil {
			out.LastWriterWhy = "rr_last_write " + out.Suspect + ": " + err.Error()
			out.lastWriterErr = err
		} else {
			out.LastWriter = lw
		}
	}
	return out, nil
}

// faultInsn decodes the instruction at the pc and evaluates its operands
// (nil where the pc holds no instruction it can read). base is the base
// register's value of a memory operand that cannot be read (the faulting
// pointer), or of the first memory operand.
func faultInsn(ctx context.Context, s *session.Session, regs dwarf.Regs) (fi *FaultInsn, base uint64) {
	pc := regs.PC()
	in, err := s.Instruction(ctx, pc)
	if err != nil {
		return nil, 0
	}
	text, _, err := s.Disassemble(ctx, fmt.Sprintf("*%#x", pc), 1)
	if err != nil || len(text) != 1 {
		return nil, 0
	}
	fi = &FaultInsn{PC: hexAddr(pc), Text: text[0].Text}
	var firstBase uint64
	reg := func(r x86asm.Reg) (uint64, bool) {
		if r == 0 {
			return 0, true
		}
		if r == x86asm.RIP {
			return pc + uint64(in.Len), true
		}
		n, ok := dwarf.RegNum(strings.ToLower(x86code.FullReg(r).String()))
		if !ok {
			return 0, false
		}
		v, ok := regs.Get(n)
		return x86code.Truncate(r, v), ok
	}
	for _, a := range in.Args {
		if a == nil {
			break
		}
		op := Operand{Text: a.String()}
		switch a := a.(type) {
		case x86asm.Reg:
			op.Kind = "register"
			if v, ok := reg(a); ok {
				op.Value = hexAddr(v)
			}
		case x86asm.Mem:
			op.Kind = "memory"
			b, ok1 := reg(a.Base)
			x, ok2 := reg(a.Index)
			if !ok1 || !ok2 || a.Segment != 0 {
				op.Error = "effective address not computed (segment or unknown register)"
				break
			}
			ea := b + x*uint64(a.Scale) + uint64(a.Disp)
			op.Address = hexAddr(ea)
			if firstBase == 0 {
				firstBase = b
			}
			size := in.MemBytes
			if size <= 0 || size > 16 {
				size = 8
			}
			if v, err := s.ReadBytes(ctx, ea, size); err == nil {
				op.Value = "0x" + strconv.FormatUint(leUint(v), 16)
			} else {
				op.Error = "cannot read memory at " + hexAddr(ea)
				if base == 0 {
					base = b
				}
			}
		case x86asm.Imm:
			op.Kind, op.Value = "immediate", hexAddr(uint64(a))
		default:
			op.Kind = "other"
		}
		fi.Operands = append(fi.Operands, op)
	}
	if base == 0 {
		base = firstBase
	}
	return fi, base
}

// How deep the report looks for the program's own frame, and how much of
// the program's stderr it quotes.
const (
	programDepth = 64
	stderrBytes  = 2048
	stderrLines  = 8
)

// assertFunctions are glibc's functions that report a failed assert()
// (assert/assert.c) and take its condition, file, line and function.
var assertFunctions = map[string]bool{
	"__assert_fail": true, "__GI___assert_fail": true, "__assert_fail_base": true,
}

// assertionOf reads a failed assertion from the arguments of glibc's
// __assert_fail: assertion, file, line and function, the strings as GDB
// prints a char pointer (0x… "text").
func assertionOf(args []session.Value) *Assertion {
	a := &Assertion{}
	for _, v := range args {
		switch v.Name {
		case "assertion":
			a.Condition = quoted(v.Value)
		case "file":
			a.File = quoted(v.Value)
		case "line":
			a.Line, _ = strconv.Atoi(v.Value)
		case "function":
			a.Function = quoted(v.Value)
		}
	}
	if a.Condition == "" {
		return nil
	}
	return a
}

// quoted is the C string in a value as GDB prints a char pointer
// (0x555555556016 "n > 0"), or "".
func quoted(v string) string {
	i := strings.IndexByte(v, '"')
	j := strings.LastIndexByte(v, '"')
	if i < 0 || j <= i {
		return ""
	}
	if u, err := strconv.Unquote(v[i : j+1]); err == nil {
		return u
	}
	return v[i+1 : j]
}

// programFrame is the index of the first frame in the program's own
// code, -1 for none: the first one in the program's image whose source
// is not a system header (std::map::at inlined into it is not where to
// look), else the first one in its image.
func programFrame(frames []session.Frame) int {
	first := -1
	for i, f := range frames {
		if f.Module != "" || f.Function == "" {
			continue
		}
		if first < 0 {
			first = i
		}
		if !systemHeader(f.File) {
			return i
		}
	}
	return first
}

// systemHeader says whether a source file is a system or compiler header
// (the C++ library's inlined code).
func systemHeader(file string) bool {
	return strings.HasPrefix(file, "/usr/include/") || strings.HasPrefix(file, "/usr/lib/") || strings.HasPrefix(file, "/usr/local/include/")
}

// uncaught reads the last uncaught C++ exception libstdc++'s verbose
// terminate handler (__gnu_cxx::__verbose_terminate_handler) wrote:
// "terminate called after throwing an instance of 'TYPE'" and, for a
// std::exception, "  what():  TEXT".
func uncaught(stderr string) *Exception {
	const head = "terminate called after throwing an instance of '"
	i := strings.LastIndex(stderr, head)
	if i < 0 {
		return nil
	}
	rest := stderr[i+len(head):]
	typ, rest, ok := strings.Cut(rest, "'")
	if !ok || typ == "" {
		return nil
	}
	e := &Exception{Type: typ}
	if _, w, ok := strings.Cut(rest, "what():  "); ok {
		e.What, _, _ = strings.Cut(w, "\n")
	}
	return e
}

// lastLines is at most n last lines of text.
func lastLines(text string, n int) string {
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// summary says in one sentence what stopped the program and where in its
// own code.
func summary(r *Report) string {
	var b strings.Builder
	switch {
	case r.Signal != "":
		b.WriteString(r.Signal)
	case r.Reason == "history-end":
		b.WriteString("The end of the recording")
	default:
		b.WriteString("Stopped (no signal)")
	}
	where := func(f *Frame) string {
		w := f.Function
		if w == "" {
			w = f.PC
		}
		if f.File != "" {
			w += " at " + path.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		return w
	}
	if a := r.Assertion; a != nil {
		fmt.Fprintf(&b, ": assertion `%s' failed", a.Condition)
		if a.Function != "" {
			fmt.Fprintf(&b, " in %s", a.Function)
		}
		if a.File != "" {
			fmt.Fprintf(&b, " at %s:%d", path.Base(a.File), a.Line)
		}
		return b.String() + "."
	}
	if e := r.Exception; e != nil {
		fmt.Fprintf(&b, ": uncaught exception %s", e.Type)
		if e.What != "" {
			fmt.Fprintf(&b, " (what(): %s)", e.What)
		}
		if r.ProgramFrame != nil {
			b.WriteString(", thrown from the program's " + where(r.ProgramFrame))
		}
		return b.String() + "."
	}
	if len(r.Backtrace) > 0 {
		f := r.Backtrace[0]
		b.WriteString(" in " + where(&f))
		if f.Module != "" {
			b.WriteString(" (" + f.Module + ")")
		}
	}
	if r.ProgramFrame != nil {
		b.WriteString(", called from the program's " + where(r.ProgramFrame))
	}
	if in := r.Instruction; in != nil && r.Signal == "SIGSEGV" || in != nil && r.Signal == "SIGBUS" {
		for _, op := range in.Operands {
			if op.Kind == "memory" && op.Error != "" && op.Address != "" {
				b.WriteString(": the instruction's memory operand " + op.Address + " cannot be read")
				break
			}
		}
	}
	return b.String() + "."
}

func hexAddr(a uint64) string { return "0x" + strconv.FormatUint(a, 16) }

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0 && i >= len(b)-8; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// suspectFor names the pointer local or argument whose value is p.
func suspectFor(vals []session.Value, p uint64) string {
	for _, v := range vals {
		if v.Name == "" || !strings.Contains(v.Type, "*") {
			continue
		}
		f := strings.Fields(v.Value)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64); err == nil && n == p {
			return v.Name
		}
		if n, err := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64); err == nil && n == p {
			return v.Name
		}
	}
	return ""
}
