package gdbdiff

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/session"
)

// An expression written "x:EXPR" in stops.txt is a memory read, compared
// as one line: the address, the symbol GDB's x command names it by, and
// memBytes bytes. GDB's side runs "x/4xb EXPR"; the session's reads
// memory as rr_read_memory does (Session.ReadMemory).
//
// An expression written "i:EXPR" disassembles insCount instructions at
// EXPR, compared line by line with GDB's x/16i EXPR: the address, its
// <symbol+offset> and the instruction with the addresses it names
// (rr_disassemble's Session.Disassemble), white space collapsed.
//
// "t:EXPR" and "w:EXPR" are GDB's ptype and whatis of EXPR (an expression
// or a type name) against rr_ptype's (Session.Ptype), white space
// collapsed.
const (
	ptypePrefix  = "t:"
	whatisPrefix = "w:"
	memPrefix    = "x:"
	memBytes     = 4
	insPrefix    = "i:"
	insCount     = 16
)

// gdbMemLine turns the first line of GDB's x/Nxb output,
// "0x5555555580e0 <bytes>:\t0x00\t0x01…", into "0x5555555580e0 <bytes>: 00 01…".
func gdbMemLine(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	head, bytes, ok := strings.Cut(line, ":\t")
	if !ok {
		return "unparsed: " + line
	}
	var b []string
	for _, f := range strings.Fields(bytes) {
		b = append(b, strings.TrimPrefix(f, "0x"))
	}
	return head + ": " + strings.Join(b, " ")
}

// sessionMemLine is the same line from a session's Memory.
func sessionMemLine(m session.Memory) string {
	head := m.Address
	if m.Symbol != "" {
		head += " <" + m.Symbol + ">"
	}
	var b []string
	for i := 0; i+2 <= len(m.Hex); i += 2 {
		b = append(b, m.Hex[i:i+2])
	}
	return head + ": " + strings.Join(b, " ")
}

// gdbInsLines turns GDB's x/Ni output into one line per instruction,
// "0x555555555150 <hit+7>: mov 0x2f72(%rip),%eax # 0x5555555580c8 <hits>",
// joined by " | ".
func gdbInsLines(out string) string {
	var ls []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "=> ")
		ls = append(ls, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(ls, " | ")
}

// sessionInsLines is the same from a session's instructions.
func sessionInsLines(ins []session.Instruction) string {
	var ls []string
	for _, in := range ins {
		head := in.Address
		if in.Symbol != "" {
			head += " <" + in.Symbol + ">"
		}
		ls = append(ls, strings.Join(strings.Fields(head+": "+in.Text), " "))
	}
	return strings.Join(ls, " | ")
}

// cliExpr is a kind of stops.txt expression compared as GDB's CLI
// prints it: the GDB command (a format of the argument), how to read its
// output, and the session call that answers it, as one line each.
type cliExpr struct {
	gdb     string
	gdbLine func(out string) string
	session func(ctx context.Context, s *session.Session, arg string) (string, error)
}

var cliExprs = map[string]cliExpr{
	memPrefix: {fmt.Sprintf("x/%dxb %%s", memBytes), gdbMemLine, func(ctx context.Context, s *session.Session, x string) (string, error) {
		m, err := s.ReadMemory(ctx, x, memBytes)
		return sessionMemLine(m), err
	}},
	insPrefix: {fmt.Sprintf("x/%di %%s", insCount), gdbInsLines, func(ctx context.Context, s *session.Session, x string) (string, error) {
		ins, _, err := s.Disassemble(ctx, "*"+x, insCount)
		return sessionInsLines(ins), err
	}},
	ptypePrefix: {"ptype %s", typeLine, func(ctx context.Context, s *session.Session, x string) (string, error) {
		r, err := s.Ptype(ctx, x, false)
		return typeLine(r.Type), err
	}},
	whatisPrefix: {"whatis %s", typeLine, func(ctx context.Context, s *session.Session, x string) (string, error) {
		r, err := s.Ptype(ctx, x, true)
		return typeLine(r.Type), err
	}},
}

// cliExprOf reads e as a cliExpr and its argument.
func cliExprOf(e string) (cliExpr, string, bool) {
	for prefix, c := range cliExprs {
		if x, ok := strings.CutPrefix(e, prefix); ok {
			return c, x, true
		}
	}
	return cliExpr{}, "", false
}

// cliResult is a compared value: the line, or the error as both sides
// write one.
func cliResult(line string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return line
}

// typeLine is GDB's or rr_ptype's type text on one line, without
// "type = ".
func typeLine(out string) string {
	return strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(out), "type = ")), " ")
}

func TestMemLines(t *testing.T) {
	for _, tc := range []struct{ gdb, want string }{
		{"0x5555555580e0 <bytes>:\t0x00\t0x01\t0x02\t0x03\n", "0x5555555580e0 <bytes>: 00 01 02 03"},
		{"0x555555558120:\t0x00\t0x00\t0x00\t0x00\n", "0x555555558120: 00 00 00 00"},
		{"0x401136 <f(int)+4>:\t0x89\t0x7d\t0xfc\t0x8b\n", "0x401136 <f(int)+4>: 89 7d fc 8b"},
	} {
		if got := gdbMemLine(tc.gdb); got != tc.want {
			t.Errorf("gdbMemLine(%q) = %q, want %q", tc.gdb, got, tc.want)
		}
	}
	if got := sessionMemLine(session.Memory{Address: "0x5555555580e0", Symbol: "bytes", Hex: "00010203"}); got != "0x5555555580e0 <bytes>: 00 01 02 03" {
		t.Errorf("sessionMemLine = %q", got)
	}
	gdb := "=> 0x555555555150 <hit+7>:\tmov    0x2f72(%rip),%eax        # 0x5555555580c8 <hits>\n   0x555555555156 <hit+13>:\tadd    $0x1,%eax\n"
	want := "0x555555555150 <hit+7>: mov 0x2f72(%rip),%eax # 0x5555555580c8 <hits> | 0x555555555156 <hit+13>: add $0x1,%eax"
	if got := gdbInsLines(gdb); got != want {
		t.Errorf("gdbInsLines = %q, want %q", got, want)
	}
	ours := []session.Instruction{{Address: "0x555555555150", Symbol: "hit+7", Text: "mov 0x2f72(%rip),%eax        # 0x5555555580c8 <hits>"},
		{Address: "0x555555555156", Symbol: "hit+13", Text: "add $0x1,%eax"}}
	if got := sessionInsLines(ours); got != want {
		t.Errorf("sessionInsLines = %q, want %q", got, want)
	}
}
