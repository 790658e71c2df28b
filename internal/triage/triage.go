package triage

import (
	"context"
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
	Text     string    `json:"text" jsonschema:"GNU syntax, as rr_disassemble prints it"`
	Operands []Operand `json:"operands"`
}

// Frame is a backtrace frame with its arguments.
type Frame struct {
	session.Frame
	Args []session.Value `json:"args,omitempty"`
}

// Report is a crash report: everything an agent asks first, in one reply.
type Report struct {
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
	Notes         []string            `json:"notes,omitempty"`

	lastWriterErr error // the last-writer search's error, behind LastWriterWhy
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
		return out, s.ExitedError("nothing is left to inspect: start again (rr_live_start) and rr_continue to the signal (it stops there, before the program dies), or replay a recording")
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
	frames, more, _, err := s.Backtrace(ctx, o.MaxFrames)
	if err != nil {
		out.Notes = append(out.Notes, "backtrace: "+err.Error())
	}
	out.MoreFrames = more
	for i, f := range frames {
		tf := Frame{Frame: f}
		if _, err := s.SelectFrame(ctx, i); err == nil {
			if vals, _, err := s.Locals(ctx); err == nil {
				for _, v := range vals {
					if v.Kind == "argument" {
						tf.Args = append(tf.Args, v)
					}
				}
				if i == 0 {
					out.Locals = vals
				}
			} else if i == 0 {
				out.Notes = append(out.Notes, "locals: "+err.Error())
			}
		}
		out.Backtrace = append(out.Backtrace, tf)
	}
	if len(frames) > 0 {
		s.SelectFrame(ctx, 0) //nolint:errcheck
	}
	if len(out.Locals) > o.MaxLocals {
		out.Locals, out.MoreLocals = out.Locals[:o.MaxLocals], true
	}
	out.Suspect = o.Suspect
	if out.Suspect == "" && fault != 0 {
		out.Suspect = suspectFor(out.Locals, fault)
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
	fi = &FaultInsn{PC: hexAddr(pc), Text: x86asm.GNUSyntax(in, pc, nil)}
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
