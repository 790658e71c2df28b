package session

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/internal/errkind"
	"github.com/rrmcp/rrmcp/internal/linespec"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// ReadMemory reads n bytes at an address or address expression.
func (s *Session) ReadMemory(ctx context.Context, addr string, n int) (Memory, error) {
	var out Memory
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("there is no memory to read")
		}
		a, err := s.addressOf(ctx, addr)
		if err != nil {
			return err
		}
		b := make([]byte, n)
		got, err := s.inf.ReadMem(ctx, a, b)
		if got == 0 && err != nil {
			var re *rsp.Error
			if errors.As(err, &re) {
				return argErrorf("address", "cannot access memory at %#x (not mapped in the debuggee)", a)
			}
			return err
		}
		// Named as GDB's x command names it: by the symbol that covers
		// the address, not by the last function before it.
		out = Memory{Address: hexAddr(a), Count: got, Hex: hex.EncodeToString(b[:got]), Symbol: s.inf.AddrName(ctx, a)}
		if got < n {
			// as GDB's x, which prints what it read, then the error
			out.Stopped = fmt.Sprintf("Cannot access memory at address %#x", a+uint64(got))
		}
		return nil
	})
	return out, err
}

// Registers reads registers of the selected frame. Frame 0 reads the
// server's full register set; outer frames show what unwinding recovered.
func (s *Session) Registers(ctx context.Context, names []string) ([]Register, error) {
	var out []Register
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("there are no registers")
		}
		td := s.c.Target()
		if td == nil {
			return fmt.Errorf("the server sent no register description: %w", ErrUnsupported)
		}
		g, err := s.c.ReadRegisters(ctx, s.inf.Cur)
		if err != nil {
			return err
		}
		var fr *dwarf.Frame
		if s.frame > 0 {
			if fr, err = s.curFrame(ctx); err != nil {
				return err
			}
		}
		if len(names) == 0 {
			names = s.inf.DefaultRegisters()
		}
		pcName, spName, fpName := s.inf.PCName(), s.inf.SPName(), s.inf.FPName()
		for _, n := range names {
			n = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(n), "$"))
			switch n {
			case "pc":
				n = pcName
			case "sp":
				n = spName
			case "fp":
				n = fpName
			}
			r, ok := td.Lookup(n)
			if !ok {
				if v, isYMM := ymm(td, g, n); isYMM {
					// GDB's ymmN: xmmN and the upper half the server
					// sends as ymmNh. Frame 0's: the unwinder recovers
					// no vector registers.
					if fr != nil {
						v = "<not saved>"
					}
					out = append(out, Register{Name: n, Value: v})
					continue
				}
				return argErrorf("register_names", "no register %q on this target (known: %s)", n, strings.Join(regNames(td), ", "))
			}
			val := g[r.Offset : r.Offset+r.Size()]
			if fr != nil {
				num, ok := s.inf.RegNum(n)
				b, known := fr.Regs.Bytes(num)
				if n == pcName {
					b, known = le64(fr.PC), true
				}
				if known && len(b) > r.Size() {
					b = b[:r.Size()] // i386: 32-bit registers in 64-bit slots
				}
				if !ok || !known {
					out = append(out, Register{Name: n, Value: "<not saved>"})
					continue
				}
				val = b
			}
			reg := Register{Name: n, Value: leHex(val)}
			if len(val) <= 8 {
				var v uint64
				for i := len(val) - 1; i >= 0; i-- {
					v = v<<8 | uint64(val[i])
				}
				switch n {
				case pcName:
					reg.Natural = s.inf.AddrName(ctx, v)
				case "eflags":
					reg.Natural = dwarf.EflagsText(v)
				default:
					if r.Group == "general" || strings.HasPrefix(n, "r") || strings.HasPrefix(n, "e") {
						reg.Natural = strconv.FormatInt(int64(v), 10)
					}
				}
			}
			out = append(out, reg)
		}
		return nil
	})
	return out, err
}

func le64(v uint64) []byte {
	return binary.LittleEndian.AppendUint64(nil, v)
}

// leHex prints little-endian bytes as a 0x number.
func leHex(b []byte) string {
	if len(b) <= 8 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return "0x" + strconv.FormatUint(v, 16)
	}
	// Wider registers (x87, xmm): the most significant byte without its
	// leading zero, as GDB prints p/x of a 128-bit value.
	var sb strings.Builder
	sb.WriteString("0x")
	started := false
	for i := len(b) - 1; i >= 0; i-- {
		switch {
		case !started && b[i] == 0 && i > 0:
			continue
		case !started:
			sb.WriteString(strconv.FormatUint(uint64(b[i]), 16))
		default:
			fmt.Fprintf(&sb, "%02x", b[i])
		}
		started = true
	}
	return sb.String()
}

// ymm composes the AVX register name (ymm0 … ymm15, the pseudo register
// GDB builds) from xmmN and the server's ymmNh in the 'g' reply g; false
// where name is no such register or the target has no AVX state.
func ymm(td *rsp.TargetDesc, g []byte, name string) (string, bool) {
	num, ok := strings.CutPrefix(name, "ymm")
	if !ok || strings.HasSuffix(num, "h") {
		return "", false
	}
	lo, ok1 := td.Lookup("xmm" + num)
	hi, ok2 := td.Lookup("ymm" + num + "h")
	if !ok1 || !ok2 || lo.Size() != 16 || hi.Size() != 16 || hi.Offset+16 > len(g) || lo.Offset+16 > len(g) {
		return "", false
	}
	b := append(append([]byte(nil), g[lo.Offset:lo.Offset+16]...), g[hi.Offset:hi.Offset+16]...)
	return leHex(b), true
}

func regNames(td *rsp.TargetDesc) []string {
	var out []string
	for i, r := range td.Registers {
		if i > 40 {
			out = append(out, "…")
			break
		}
		out = append(out, r.Name)
	}
	return out
}

// SourceLines lists count lines around file:line (default: the selected
// frame's position).
func (s *Session) SourceLines(ctx context.Context, file string, line, count int) (Source, error) {
	var out Source
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		cur := 0
		if file == "" || line == 0 {
			f, err := s.selectedFrame(ctx)
			if err != nil && file == "" {
				return err
			}
			if file == "" {
				if f.File == "" {
					return fmt.Errorf("%s has no line information; give file and line: %w", orUnknown(f.Function), ErrNoDebugInfo)
				}
				file = f.File
			}
			if line == 0 && sameFile(file, f.File) {
				line, cur = f.Line, f.Line
			}
			if line == 0 {
				line = 1
			}
		} else if f, err := s.selectedFrame(ctx); err == nil && sameFile(file, f.File) {
			cur = f.Line
		}
		path := s.findSource(file)
		if path == "" {
			return fmt.Errorf("no source file %q in the program's debug information%s (rr_source_lines reads only the sources the program was built from): %w", errkind.Shorten(file, 200), linespec.SuggestFile(s.inf.Img, file), ErrNotFound)
		}
		lines, err := s.readSource(path)
		if err != nil {
			return err
		}
		if line > len(lines) {
			return argErrorf("line", "%s has only %d lines", path, len(lines))
		}
		from := max(1, line-count/2)
		to := min(len(lines), from+count-1)
		out.File = path
		for n := from; n <= to; n++ {
			out.Lines = append(out.Lines, SourceLine{Line: n, Text: strings.TrimRight(lines[n-1], " \t\r"), Current: n == cur})
		}
		return nil
	})
	return out, err
}

func sameFile(a, b string) bool {
	return a != "" && b != "" && (a == b || filepath.Base(a) == filepath.Base(b) && (!strings.Contains(a, "/") || !strings.Contains(b, "/")))
}

// Disassemble decodes count instructions at loc (default: the pc of the
// selected frame; a function name disassembles the function). stopped
// says why there are fewer, where memory could not be read.
func (s *Session) Disassemble(ctx context.Context, loc string, count int) (out []Instruction, stopped string, err error) {
	err = s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.exited != nil {
			return s.exitedErr("there is no code to disassemble")
		}
		var start, end, pc uint64
		if f, err := s.curFrame(ctx); err == nil {
			pc = f.PC
		}
		loc = strings.TrimSpace(loc)
		switch {
		case loc == "":
			start = pc
		default:
			if s.inf.Img != nil && !strings.HasPrefix(loc, "*") {
				if fns := s.inf.Img.FuncsByName(loc); len(fns) > 0 {
					start = fns[0].Entry + s.inf.Bias
					end = fns[0].End() + s.inf.Bias
					break
				}
			}
			a, err := s.addressOf(ctx, strings.TrimPrefix(loc, "*"))
			if err != nil {
				return err
			}
			start = a
		}
		if count == 0 {
			count = 16
			if end != 0 {
				count = 512
			}
		}
		buf := make([]byte, 16*count)
		n, err := s.inf.ReadMem(ctx, start, buf)
		if n == 0 {
			return argErrorf("location", "cannot read code at %#x: %v", start, err)
		}
		partial := n < len(buf)
		buf = buf[:n]
		mode := 64
		if s.inf.PtrSize() == 4 {
			mode = 32
		}
		a := start
		for len(out) < count && len(buf) > 0 && (end == 0 || a < end) {
			in, err := x86code.Decode(buf, mode)
			if err != nil && partial && len(buf) < 15 {
				break // an instruction that runs into memory that cannot be read
			}
			ins := Instruction{Address: hexAddr(a), Current: a == pc, Symbol: s.inf.AddrName(ctx, a)}
			size := 1
			if err != nil {
				ins.Text, ins.Bytes = "(bad)", hex.EncodeToString(buf[:1])
			} else {
				size = in.Len
				ins.Bytes = hex.EncodeToString(buf[:size])
				ins.Text = x86code.GNU(buf, in, a, mode) + s.operandNames(ctx, in, a)
			}
			out = append(out, ins)
			buf = buf[size:]
			a += uint64(size)
		}
		if partial && len(out) < count && (end == 0 || a < end) {
			// as GDB's disassembly, which ends with the error
			stopped = fmt.Sprintf("Cannot access memory at address %#x", start+uint64(n))
		}
		return nil
	})
	return out, stopped, err
}

// operandNames names the addresses an instruction at a refers to as GDB's
// disassembly does: a branch target after it ("call 0x… <hit>"), a
// RIP-relative operand's address in a comment ("# 0x… <hits>").
func (s *Session) operandNames(ctx context.Context, in x86asm.Inst, a uint64) string {
	var b strings.Builder
	for _, arg := range in.Args {
		switch arg := arg.(type) {
		case x86asm.Rel:
			if name := s.inf.AddrName(ctx, a+uint64(in.Len)+uint64(int64(arg))); name != "" {
				b.WriteString(" <" + name + ">")
			}
		case x86asm.Mem:
			if arg.Base == x86asm.RIP {
				target := a + uint64(in.Len) + uint64(arg.Disp)
				fmt.Fprintf(&b, "        # %#x", target)
				if name := s.inf.AddrName(ctx, target); name != "" {
					b.WriteString(" <" + name + ">")
				}
			}
		}
	}
	return b.String()
}

// Threads lists the debuggee's threads with their top frame.
func (s *Session) Threads(ctx context.Context) ([]Thread, error) {
	var out []Thread
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		ts, err := s.threadList(ctx)
		if err != nil {
			return err
		}
		for _, t := range ts {
			th := Thread{ID: t.String(), TID: int(t.Tid), Current: t == s.inf.Cur}
			if pc, err := s.inf.PC(ctx, t); err == nil {
				l := s.locate(ctx, pc)
				th.Frame = &Frame{Location: l}
			}
			out = append(out, th)
		}
		return nil
	})
	return out, err
}

func (s *Session) threadList(ctx context.Context) ([]rsp.Thread, error) {
	if s.exited != nil {
		return nil, s.exitedErr("there are no threads")
	}
	if s.threads == nil {
		ts, err := s.c.Threads(ctx)
		if err != nil {
			return nil, err
		}
		s.threads = ts
	}
	return s.threads, nil
}

// SelectThread makes thread id current (pPID.TID, TID in hex as the
// protocol writes it, or a decimal tid).
func (s *Session) SelectThread(ctx context.Context, id string) (Thread, error) {
	var out Thread
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		ts, err := s.threadList(ctx)
		if err != nil {
			return err
		}
		var pick *rsp.Thread
		for i, t := range ts {
			if t.String() == id || fmt.Sprint(t.Tid) == id {
				pick = &ts[i]
				break
			}
		}
		if pick == nil {
			if want, err := rsp.ParseThread(id); err == nil {
				for i, t := range ts {
					if t.Tid == want.Tid && (want.Pid == 0 || want.Pid == t.Pid) {
						pick = &ts[i]
					}
				}
			}
		}
		if pick == nil {
			var have []string
			for _, t := range ts {
				have = append(have, fmt.Sprintf("%s (tid %d)", t, t.Tid))
			}
			return fmt.Errorf("no thread %q; threads: %s: %w", id, strings.Join(have, ", "), ErrNotFound)
		}
		if s.inf.Cur != *pick {
			s.stepIn = 0 // it was the stepping thread's
		}
		s.inf.Cur = *pick
		s.frames, s.frame = nil, 0
		out = Thread{ID: pick.String(), TID: int(pick.Tid), Current: true}
		if f, err := s.selectedFrame(ctx); err == nil {
			out.Frame = &f
		}
		return nil
	})
	return out, err
}
