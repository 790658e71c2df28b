package x86code

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// GNU is the text of instruction in, decoded from code at pc in mode
// (64 or 32), in AT&T syntax as GDB 13 prints it (binutils 2.40's
// disassembler): x86asm's GNU syntax, which follows an older objdump,
// brought up to date. Suffixes that the operands make plain are gone
// (call, ret, leave, push, pop, jmp), cltq and movslq keep their AT&T
// names, an index scaled by 1 says so ("(%rdx,%rax,1)"), an encoded
// displacement of zero is printed ("0x0(%rax,%rax,1)"), a base with no
// index is not given %riz, and a CS prefix in 64-bit code is a prefix
// ("cs nopw"). Addresses are not named here (the caller knows symbols).
func GNU(code []byte, in x86asm.Inst, pc uint64, mode int) string {
	text := x86asm.GNUSyntax(in, pc, nil)
	if text == "data16 nop" {
		return "xchg %ax,%ax"
	}
	// A negative immediate is printed unsigned, in its operand's width.
	for _, a := range in.Args {
		if imm, ok := a.(x86asm.Imm); ok && imm < 0 {
			bits := immBits(in, mode)
			u := uint64(imm)
			if bits < 64 {
				u &= 1<<bits - 1
			}
			text = strings.Replace(text, fmt.Sprintf("$%#x", int64(imm)), fmt.Sprintf("$%#x", u), 1)
		}
	}
	// Prefixes before the mnemonic ("rep", "lock", "data16"…) stay.
	words := strings.SplitN(text, " ", 2)
	pre := ""
	for len(words) == 2 && gnuPrefixes[words[0]] {
		pre += words[0] + " "
		words = strings.SplitN(words[1], " ", 2)
	}
	op, args := words[0], ""
	if len(words) == 2 {
		args = words[1]
	}
	if n, ok := gnuNames[op]; ok {
		op = n
	}
	if op == "mov" && in.MemBytes == 0 && in.Len >= 10 && hasImm(in) {
		op = "movabs" // a 64-bit immediate into a register
	}
	if op == "ret" && strings.HasSuffix(pre, "rep ") {
		pre = strings.TrimSuffix(pre, "rep ") + "repz " // the AMD branch-predictor idiom
	}
	if strings.Contains(args, "%riz") || strings.Contains(args, "%eiz") {
		args = strings.NewReplacer(",%riz)", ")", ",%eiz)", ")").Replace(args)
	}
	args = scaleOne.ReplaceAllString(args, "($1,$2,1)")
	if mode == 64 && strings.Contains(args, "%cs:") {
		args = strings.Replace(args, "%cs:", "", 1)
		pre += "cs "
	}
	if zeroDisp(code, in, mode) {
		if j := strings.Index(args, "("); j >= 0 && (j == 0 || strings.IndexByte(" ,:*", args[j-1]) >= 0) {
			args = args[:j] + "0x0" + args[j:]
		}
	}
	pre = strings.Replace(pre, "data32 ", "data16 ", 1)
	if args == "" {
		return pre + op
	}
	return pre + op + " " + args
}

// immBits is the width of in's immediate as objdump prints it: that of
// the operand it goes with (a register's, or the memory's), else the
// operand size (a push).
func immBits(in x86asm.Inst, mode int) int {
	if in.Op == x86asm.PUSH && in.DataSize != 16 {
		return mode // a stack slot
	}
	for _, a := range in.Args {
		switch a := a.(type) {
		case x86asm.Reg:
			switch {
			case a >= x86asm.AL && a <= x86asm.R15B:
				return 8
			case a >= x86asm.AX && a <= x86asm.R15W:
				return 16
			case a >= x86asm.EAX && a <= x86asm.R15L:
				return 32
			case a >= x86asm.RAX && a <= x86asm.R15:
				return 64
			}
		case x86asm.Mem:
			if in.MemBytes > 0 {
				return 8 * in.MemBytes
			}
		}
	}
	if in.DataSize > 0 {
		return in.DataSize
	}
	return mode
}

func hasImm(in x86asm.Inst) bool {
	for _, a := range in.Args {
		if _, ok := a.(x86asm.Imm); ok {
			return true
		}
	}
	return false
}

// gnuPrefixes are the words x86asm's GNU syntax puts before a mnemonic.
var gnuPrefixes = map[string]bool{
	"rep": true, "repz": true, "repnz": true, "repe": true, "repne": true, "lock": true,
	"data16": true, "data32": true, "addr16": true, "addr32": true, "bnd": true, "notrack": true,
	"xacquire": true, "xrelease": true, "rex": true, "rex.W": true, "cs": true, "ds": true,
	"es": true, "ss": true, "fs": true, "gs": true,
}

// gnuNames are the mnemonics binutils 2.40 prints otherwise than x86asm.
var gnuNames = map[string]string{
	"callq": "call", "calll": "call", "retq": "ret", "retl": "ret",
	"leaveq": "leave", "leavel": "leave", "jmpq": "jmp", "jmpl": "jmp",
	"pushq": "push", "pushl": "push", "popq": "pop", "popl": "pop",
	"cdqe": "cltq", "cwde": "cwtl", "cdq": "cltd", "cqo": "cqto", "cbw": "cbtw", "cwd": "cwtd",
	"movsxd": "movslq",
}

// scaleOne is a base and an index with no scale: objdump writes ",1".
var scaleOne = regexp.MustCompile(`\((%[a-z0-9]*),(%[a-z0-9]+)\)`)

// zeroDisp reports whether a memory operand of in has an encoded
// displacement of zero (objdump prints it, "0x0(%rax)"; x86asm leaves it
// out). The displacement byte is found by flipping each byte in turn:
// the one that makes that operand's displacement 1, all else the same,
// is it.
func zeroDisp(code []byte, in x86asm.Inst, mode int) bool {
	for i, a := range in.Args {
		m, ok := a.(x86asm.Mem)
		if !ok || m.Disp != 0 || m.Base == x86asm.RIP || m.Base == x86asm.EIP || m.Base == 0 && m.Index == 0 {
			continue
		}
		b := make([]byte, in.Len)
		for p := 1; p < in.Len; p++ {
			copy(b, code[:in.Len])
			b[p] ^= 1
			d, err := x86asm.Decode(b, mode)
			if err != nil || d.Len != in.Len || d.Op != in.Op {
				continue
			}
			if dm, ok := d.Args[i].(x86asm.Mem); ok && dm.Disp == 1 && dm.Base == m.Base && dm.Index == m.Index && dm.Scale == m.Scale {
				return true
			}
		}
	}
	return false
}
