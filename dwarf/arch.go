package dwarf

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/regnum"
)

// arch is what differs between the x86 targets an Image may be built for.
// Regs always uses the amd64 DWARF numbering: an i386 image translates its
// own DWARF register numbers (in location expressions and CFI) onto the
// amd64 register of the same role (eax -> rax, esp -> rsp, eip -> rip),
// so that unwinding, register lookup and the session's register cache have
// one numbering. 32-bit values are stored zero-extended.
type arch struct {
	name    string
	ptrSize int
	// fromDWARF maps this architecture's DWARF register numbers onto
	// Regs' numbering; nil: identity (amd64).
	fromDWARF map[int]int
}

var (
	archAMD64 = &arch{name: "amd64", ptrSize: 8}
	archI386  = &arch{name: "i386", ptrSize: 4, fromDWARF: i386Regs()}
)

// i386Regs maps i386 DWARF register numbers (System V i386 psABI, as
// GCC and GDB's i386_svr4_dwarf_reg_to_regnum number them) onto amd64 ones.
func i386Regs() map[int]int {
	m := map[int]int{
		0: regnum.AMD64_Rax, 1: regnum.AMD64_Rcx, 2: regnum.AMD64_Rdx, 3: regnum.AMD64_Rbx,
		4: regnum.AMD64_Rsp, 5: regnum.AMD64_Rbp, 6: regnum.AMD64_Rsi, 7: regnum.AMD64_Rdi,
		8: regnum.AMD64_Rip, 9: regnum.AMD64_Rflags,
		40: regnum.AMD64_Es, 41: regnum.AMD64_Cs, 42: regnum.AMD64_Ss,
		43: regnum.AMD64_Ds, 44: regnum.AMD64_Fs, 45: regnum.AMD64_Gs,
	}
	for i := 0; i < 8; i++ {
		m[11+i] = regnum.AMD64_ST0 + i  // st0-7
		m[21+i] = regnum.AMD64_XMM0 + i // xmm0-7
	}
	return m
}

// archFor returns the architecture of an ELF machine, or an error
// wrapping ErrUnsupported.
func archFor(m elf.Machine) (*arch, error) {
	switch m {
	case elf.EM_X86_64:
		return archAMD64, nil
	case elf.EM_386:
		return archI386, nil
	}
	return nil, fmt.Errorf("load image: machine %v: %w", m, ErrUnsupported)
}

// reg translates a DWARF register number of the architecture onto Regs'
// numbering; an i386 number with no amd64 counterpart maps past NumRegs
// (never known).
func (a *arch) reg(n int) int {
	if a == nil || a.fromDWARF == nil {
		return n
	}
	if r, ok := a.fromDWARF[n]; ok {
		return r
	}
	return NumRegs + n
}

// ptr returns the pointer size in bytes (8 for a nil arch).
func (a *arch) ptr() int {
	if a == nil {
		return 8
	}
	return a.ptrSize
}

// frameContext translates the register numbers of a CFI row onto Regs'
// numbering (a copy; amd64 rows are returned as they are).
func (a *arch) frameContext(fc *frame.FrameContext) *frame.FrameContext {
	if a == nil || a.fromDWARF == nil || fc == nil {
		return fc
	}
	out := *fc
	out.CFA.Reg = uint64(a.reg(int(fc.CFA.Reg)))
	out.RetAddrReg = uint64(a.reg(int(fc.RetAddrReg)))
	out.Regs = make(map[uint64]frame.DWRule, len(fc.Regs))
	for r, rule := range fc.Regs {
		if rule.Rule == frame.RuleRegister || rule.Rule == frame.RuleCFA {
			rule.Reg = uint64(a.reg(int(rule.Reg)))
		}
		out.Regs[uint64(a.reg(int(r)))] = rule
	}
	return &out
}

// PtrSize returns the size of a pointer of the image's target in bytes:
// 8 for x86-64, 4 for i386 (8 for a nil Image).
func (img *Image) PtrSize() int {
	if img == nil {
		return 8
	}
	return img.arch.ptr()
}

// Is32Bit reports whether the image is an i386 one.
func (img *Image) Is32Bit() bool { return img != nil && img.arch == archI386 }

// i386Names are the i386 target-description names of the registers that
// have a Regs slot, by Regs number (GDB's 32bit-core and 32bit-sse).
var i386Names = func() map[int]string {
	m := map[int]string{
		regnum.AMD64_Rax: "eax", regnum.AMD64_Rcx: "ecx", regnum.AMD64_Rdx: "edx", regnum.AMD64_Rbx: "ebx",
		regnum.AMD64_Rsp: "esp", regnum.AMD64_Rbp: "ebp", regnum.AMD64_Rsi: "esi", regnum.AMD64_Rdi: "edi",
		regnum.AMD64_Rip: "eip", regnum.AMD64_Rflags: "eflags",
		regnum.AMD64_Es: "es", regnum.AMD64_Cs: "cs", regnum.AMD64_Ss: "ss",
		regnum.AMD64_Ds: "ds", regnum.AMD64_Fs: "fs", regnum.AMD64_Gs: "gs",
		regnum.AMD64_Fs_base: "fs_base", regnum.AMD64_Gs_base: "gs_base",
	}
	for i := 0; i < 8; i++ {
		m[regnum.AMD64_ST0+i] = fmt.Sprintf("st%d", i)
		m[regnum.AMD64_XMM0+i] = fmt.Sprintf("xmm%d", i)
	}
	return m
}()

// RegName32 is RegName for an i386 target: the name GDB gives the
// register of Regs number reg there ("eax", "eip", "eflags"), or "".
func RegName32(reg int) string { return i386Names[reg] }

// RegNum32 is RegNum for an i386 target: the Regs number of an i386
// register name ("eax", "$eip", "pc", "sp", "fp", "xmm3").
func RegNum32(name string) (int, bool) {
	name = strings.ToLower(strings.TrimPrefix(name, "$"))
	switch name {
	case "pc":
		return regnum.AMD64_Rip, true
	case "sp":
		return regnum.AMD64_Rsp, true
	case "fp":
		return regnum.AMD64_Rbp, true
	}
	for n, s := range i386Names {
		if s == name {
			return n, true
		}
	}
	return 0, false
}

// analyzePrologue32 is GDB's i386 prologue analysis
// (i386_analyze_prologue): an optional endbr32, the stack realignment of
// main (lea 4(%esp),%reg; and $-N,%esp; pushl -4(%reg)), push %ebp; mov
// %esp,%ebp, a sub $N,%esp right after it, then pushes of saved
// registers. It returns the address after them, or entry when there is
// no frame pointer setup (GDB then breaks at the entry).
func (img *Image) analyzePrologue32(entry uint64) uint64 {
	code := img.code(entry, 48)
	pc := 0
	at := func(b ...byte) bool {
		if pc+len(b) > len(code) {
			return false
		}
		for i, c := range b {
			if code[pc+i] != c {
				return false
			}
		}
		return true
	}
	if at(0xf3, 0x0f, 0x1e, 0xfb) { // endbr32
		pc += 4
	}
	// lea 0x4(%esp),%reg: 8d /r with mod=01, rm=100 (SIB), SIB 0x24, disp 4
	if pc+4 <= len(code) && code[pc] == 0x8d && code[pc+1]&0xc7 == 0x44 && code[pc+2] == 0x24 && code[pc+3] == 4 {
		reg := (code[pc+1] >> 3) & 7
		q := pc + 4
		switch {
		case q+3 <= len(code) && code[q] == 0x83 && code[q+1] == 0xe4: // and $imm8,%esp
			q += 3
		case q+6 <= len(code) && code[q] == 0x81 && code[q+1] == 0xe4: // and $imm32,%esp
			q += 6
		default:
			q = -1
		}
		// pushl -0x4(%reg): ff /6 with mod=01, disp -4
		if q > 0 && q+3 <= len(code) && code[q] == 0xff && code[q+1] == 0x70|reg && code[q+2] == 0xfc {
			pc = q + 3
		}
	}
	if !at(0x55) {
		return entry
	}
	pc++
	if !at(0x89, 0xe5) && !at(0x8b, 0xec) {
		return entry
	}
	pc += 2
	switch {
	case at(0x83, 0xec) && pc+3 <= len(code):
		pc += 3
	case at(0x81, 0xec) && pc+6 <= len(code):
		pc += 6
	}
	for pc < len(code) && code[pc] >= 0x50 && code[pc] <= 0x57 { // push %reg
		pc++
	}
	return entry + uint64(pc)
}
