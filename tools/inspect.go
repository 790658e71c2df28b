package tools

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type evalIn struct {
	sessionArg
	Expression string `json:"expression" jsonschema:"C/C++ expression in the selected frame, e.g. n->next->name, a[i] + 1, *p, sizeof(struct foo), $rip, $3.next (an earlier result: each result is numbered $N in the value history; $ is the last)"`
	Expand     int    `json:"expand,omitempty" jsonschema:"also return the value's members, elements or pointee as parts, this many levels deep (0-4; default 0: the text only); at most 500 parts in all"`
}

type ptypeIn struct {
	sessionArg
	Expression string `json:"expression" jsonschema:"an expression (n->next, shapes[0]) or a type name (struct node, node_t, geo::Shape)"`
	Whatis     bool   `json:"whatis,omitempty" jsonschema:"only the type's name, as GDB's whatis (default: ptype, with struct/union/enum members expanded)"`
}

type ptypeOut struct {
	Result session.TypeResult `json:"result"`
}

func (p ptypeOut) Text() string {
	t := "type = " + p.Result.Type
	if p.Result.Size > 0 {
		t += fmt.Sprintf("\n(sizeof %d)", p.Result.Size)
	}
	if p.Result.Engine == "gdb" {
		t += "\n[ptype by GDB]"
	}
	return t
}

type evalOut struct {
	Result session.EvalResult `json:"result"`
}

func (e evalOut) Text() string {
	var t string
	for _, w := range e.Result.Warnings {
		t += "warning: " + w + "\n" // before the value, as GDB prints them
	}
	t += fmt.Sprintf("%s = %s", e.Result.Expression, e.Result.Value)
	if e.Result.Type != "" {
		t += "  (" + e.Result.Type + ")"
	}
	if e.Result.Engine == "gdb" {
		t += "  [evaluated by GDB]"
	}
	if e.Result.History > 0 {
		t += fmt.Sprintf("  [$%d]", e.Result.History)
	}
	for _, p := range e.Result.Parts {
		t += "\n" + strings.Repeat("  ", p.Level) + p.Name + " = " + p.Value
		if p.Error != "" {
			t += "  [" + p.Error + "]"
		}
		if p.Cut {
			t += "  (parts cut)"
		}
	}
	if e.Result.PartsCut {
		t += "\n  ... (parts cut: raise expand, or evaluate a part)"
	}
	return t
}

type localsOut struct {
	Frame  session.Frame   `json:"frame"`
	Locals []session.Value `json:"locals" jsonschema:"arguments first, then locals in scope at the pc"`
	Cut    int             `json:"cut,omitempty" jsonschema:"how many more variables the limit left out"`
}

func (l localsOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "In %s:\n", frameText(l.Frame))
	if len(l.Locals) == 0 {
		b.WriteString("No local variables.")
	}
	for _, v := range l.Locals {
		val := v.Value // "<optimized out>" as GDB prints it, where it has one
		if val == "" && v.Error != "" {
			val = "<" + v.Error + ">"
		}
		kind := ""
		if v.Kind == "argument" {
			kind = " [arg]"
		}
		fmt.Fprintf(&b, "%s = %s  (%s)%s\n", v.Name, val, v.Type, kind)
	}
	if l.Cut > 0 {
		fmt.Fprintf(&b, "(%d more not shown: raise limit)\n", l.Cut)
	}
	return strings.TrimRight(b.String(), "\n")
}

type memIn struct {
	sessionArg
	Address string `json:"address" jsonschema:"address (0x7ffd1234) or an expression giving one (&x, p->buf)"`
	Count   int    `json:"count,omitempty" jsonschema:"number of bytes (default 64, max 65536)"`
}

type memOut struct {
	Memory session.Memory `json:"memory"`
}

func (m memOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory at %s", m.Memory.Address)
	if m.Memory.Symbol != "" {
		fmt.Fprintf(&b, " <%s>", m.Memory.Symbol)
	}
	fmt.Fprintf(&b, " (%d bytes):\n", m.Memory.Count)
	b.WriteString(hexdump(m.Memory.Address, m.Memory.Hex))
	if m.Memory.Stopped != "" {
		b.WriteString("The read stopped there: " + m.Memory.Stopped + ".\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

type regsIn struct {
	sessionArg
	RegisterNames []string `json:"register_names,omitempty" jsonschema:"registers to read (rip, rsp, rax, eflags, xmm0, fs_base …); default: the general-purpose ones"`
}

type regsOut struct {
	Registers []session.Register `json:"registers"`
}

func (r regsOut) Text() string {
	var b strings.Builder
	for i, g := range r.Registers {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(g.Name) // as "%-8s %s"
		for n := len(g.Name); n < 8; n++ {
			b.WriteByte(' ')
		}
		b.WriteByte(' ')
		b.WriteString(g.Value)
		if g.Natural != "" {
			b.WriteString("  ")
			b.WriteString(g.Natural)
		}
	}
	return b.String()
}

type srcIn struct {
	sessionArg
	File  string `json:"file,omitempty" jsonschema:"source file (as in backtraces; a base name is enough); default: the selected frame's file"`
	Line  int    `json:"line,omitempty" jsonschema:"center line; default: the selected frame's line"`
	Count int    `json:"count,omitempty" jsonschema:"number of lines (default 10)"`
}

type srcOut struct {
	Source session.Source `json:"source"`
}

func (s srcOut) Text() string {
	var b strings.Builder
	b.WriteString(s.Source.File + ":\n")
	for _, l := range s.Source.Lines {
		mark := "  "
		if l.Current {
			mark = "=>"
		}
		fmt.Fprintf(&b, "%s%5d  %s\n", mark, l.Line, l.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

type disIn struct {
	sessionArg
	Location string `json:"location,omitempty" jsonschema:"function name, *address or expression; default: the selected frame's pc"`
	Count    int    `json:"count,omitempty" jsonschema:"number of instructions (default 16; with a function name and no count: the whole function up to 512)"`
}

type disOut struct {
	Instructions []session.Instruction `json:"instructions"`
	Stopped      string                `json:"stopped,omitempty" jsonschema:"why there are fewer instructions than asked: the first address whose code cannot be read"`
}

func (d disOut) Text() string {
	var lines []string
	for _, in := range d.Instructions {
		mark := "  "
		if in.Current {
			mark = "=>"
		}
		sym := ""
		if in.Symbol != "" {
			sym = " <" + in.Symbol + ">"
		}
		lines = append(lines, fmt.Sprintf("%s %s%s:\t%-24s %s", mark, in.Address, sym, in.Bytes, in.Text))
	}
	if d.Stopped != "" {
		lines = append(lines, d.Stopped+".")
	}
	return strings.Join(lines, "\n")
}

func (in *evalIn) check() error {
	if err := upTo("expand", in.Expand, 4); err != nil {
		return err
	}
	return notEmpty("expression", in.Expression, "")
}

func (in *memIn) check() error {
	if err := inRange("count", &in.Count, 64, 65536); err != nil {
		return err
	}
	return notEmpty("address", in.Address, "")
}

func (in *srcIn) check() error {
	if in.Line < 0 {
		return &session.ArgError{Arg: "line", Msg: "must be >= 1"}
	}
	return inRange("count", &in.Count, 10, 1000)
}

func (in *disIn) check() error { return upTo("count", in.Count, 4096) }

func (r *registry) inspectTools() {
	addOn(r, "rr_evaluate", "Evaluate expression",
		"Evaluate a C/C++ expression in the selected frame (variables, members, array elements, pointer arithmetic, casts, registers as $rip; C++ containers without calling the program: v[i], v.size(), m[\"key\"], m.at(k), m.count(k), s.contains(k), l.front(), d.back(), *it and it->second for iterators, p->x for smart pointers, *opt, str == \"text\"; GDB's convenience variables: $v = expr keeps a copy of the value for later expressions and breakpoint conditions, $_exitcode once the program has ended). rrmcp's own evaluator answers; expressions it cannot handle go to GDB, and the result says which engine answered. expand=N also returns the value's members, elements or pointee as parts, N levels deep (rrmcp's evaluator only).",
		inspect,
		func(ctx context.Context, s *session.Session, in evalIn) (evalOut, error) {
			v, err := s.EvaluateWith(ctx, in.Expression, session.EvalOptions{Expand: in.Expand, Record: true})
			return evalOut{v}, err
		})

	addOn(r, "rr_ptype", "Type of an expression",
		"Show the type of an expression or a type name as GDB's ptype does (typedefs resolved, struct/union/enum members and C++ class members expanded), or only its name (whatis=true). C++ library types print by libstdc++'s type printers, as in GDB: std::string, std::vector<int>, std::map<std::string, int> (ptype of a library container is that name alone). Use it to learn a structure's layout before reading memory or writing conditions.",
		inspect,
		func(ctx context.Context, s *session.Session, in ptypeIn) (ptypeOut, error) {
			v, err := s.Ptype(ctx, in.Expression, in.Whatis)
			return ptypeOut{v}, err
		})

	addOn(r, "rr_locals", "Local variables",
		"List the arguments and local variables of the selected frame with their values, printed as GDB's info locals prints them (a pointer without the type print puts first: each variable's type is its own field).",
		inspect,
		func(ctx context.Context, s *session.Session, in listIn) (localsOut, error) {
			vs, f, err := s.Locals(ctx)
			out := localsOut{Frame: f, Locals: vs}
			if len(vs) > in.Limit {
				out.Locals, out.Cut = vs[:in.Limit], len(vs)-in.Limit
			}
			return out, err
		})

	addOn(r, "rr_read_memory", "Read memory",
		"Read raw bytes of target memory (hex dump).",
		inspect,
		func(ctx context.Context, s *session.Session, in memIn) (memOut, error) {
			m, err := s.ReadMemory(ctx, in.Address, in.Count)
			return memOut{m}, err
		})

	addOn(r, "rr_registers", "Registers",
		"Read CPU registers of the selected frame (caller frames show the values the unwinder recovered).",
		inspect,
		func(ctx context.Context, s *session.Session, in regsIn) (regsOut, error) {
			rs, err := s.Registers(ctx, in.RegisterNames)
			return regsOut{rs}, err
		})

	addOn(r, "rr_source_lines", "Source lines",
		"List source lines around the selected frame's line, or around file:line.",
		inspect,
		func(ctx context.Context, s *session.Session, in srcIn) (srcOut, error) {
			src, err := s.SourceLines(ctx, in.File, in.Line, in.Count)
			return srcOut{src}, err
		})

	addOn(r, "rr_disassemble", "Disassemble",
		"Disassemble machine code (x86-64 or i386, AT&T syntax as GDB prints it) at the pc, a function or an address; call and jump targets and RIP-relative operands are named <symbol+offset>.",
		inspect,
		func(ctx context.Context, s *session.Session, in disIn) (disOut, error) {
			ins, stopped, err := s.Disassemble(ctx, in.Location, in.Count)
			return disOut{ins, stopped}, err
		})
}

// hexdump formats hex bytes 16 per line with addresses and ASCII. It
// runs on every rr_read_memory reply (up to 64 KiB), so it formats by
// hand: no fmt call per byte.
func hexdump(addr, hx string) string {
	start, _ := strconv.ParseUint(strings.TrimPrefix(addr, "0x"), 16, 64)
	data, err := hex.DecodeString(hx)
	if err != nil {
		return hx
	}
	const digits = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(data)/16*80 + 80)
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(start+uint64(off), 16))
		b.WriteString(": ")
		for _, c := range line {
			b.WriteByte(digits[c>>4])
			b.WriteByte(digits[c&15])
			b.WriteByte(' ')
		}
		b.WriteString(strings.Repeat("   ", 16-len(line)))
		b.WriteByte(' ')
		for _, c := range line {
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
