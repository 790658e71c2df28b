package hwdebug

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/rsp"
)

// ZMM is the verdict of the AVX-512 register probe: whether gdbserver
// gives the program back its zmm16-zmm19 registers unchanged after a
// stop. gdbserver before GDB 14 reads and writes the XSAVE area at the
// offsets of Intel's layout; AMD's processors with AVX-512 (Zen 4 and
// later) lay it out otherwise (no MPX components: the opmask registers
// at 832, not 1088). On such a machine gdbserver's write-back at each
// resume zeroes zmm16-zmm19 whenever the upper halves of zmm0-zmm15 are
// unused, as they are in glibc's EVEX string functions, which keep their
// data in ymm16-ymm19: a stop inside strncpy (a single-step, a software
// watchpoint, a signal) makes it copy nothing.
type ZMM struct {
	// Clobbered: gdbserver changed zmm16-zmm19 across a stop.
	Clobbered bool
	// AVX512: the processor has AVX-512 (/proc/cpuinfo's avx512f);
	// without it there is nothing to probe.
	AVX512 bool
	// Ran: the probe ran to its verdict (false without AVX-512, or where
	// it could not run: the registers then count as kept).
	Ran bool
	// Reason says in one sentence what was found.
	Reason string
}

// ZMMCache runs the AVX-512 register probe once per process, on the
// first Get. The zero value is ready to use.
type ZMMCache struct {
	once sync.Once
	v    ZMM
}

// Get returns the verdict, running the probe first if this is the first
// call (one gdbserver start, tens of milliseconds, on a processor with
// AVX-512; nothing elsewhere). The probe runs to its own limit, whatever
// ctx's: its verdict serves every later session.
func (c *ZMMCache) Get(ctx context.Context) ZMM {
	c.once.Do(func() {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeLimit)
		defer cancel()
		c.v = ProbeZMM(pctx)
	})
	return c.v
}

// ProbeZMM runs the AVX-512 register probe where the processor has
// AVX-512 (/proc/cpuinfo's avx512f): a program that puts a pattern in
// ymm16 and ymm19, stops at a breakpoint under gdbserver, and exits with
// 1 when, resumed, it finds them changed. It never fails: when the probe
// cannot run, the verdict says so and counts the registers as kept.
func ProbeZMM(ctx context.Context) ZMM {
	if !cpuHasAVX512() {
		return ZMM{Reason: "no AVX-512 on this processor (nothing for gdbserver to overwrite)"}
	}
	kept, err := probeZMM(ctx)
	switch {
	case err != nil:
		return ZMM{AVX512: true, Reason: fmt.Sprintf("the AVX-512 register probe could not run (%v)", err)}
	case kept:
		return ZMM{AVX512: true, Ran: true, Reason: "gdbserver keeps the AVX-512 registers across a stop on this processor"}
	}
	return ZMM{AVX512: true, Ran: true, Clobbered: true, Reason: "gdbserver overwrites zmm16-zmm19 at each stop on this processor " +
		"(it assumes Intel's XSAVE layout; this processor's differs: AMD with AVX-512, gdbserver before GDB 14)"}
}

// cpuHasAVX512 reports whether /proc/cpuinfo lists avx512f.
func cpuHasAVX512() bool { return cpuFlag("avx512f") }

// cpuFlag reports whether /proc/cpuinfo's flags list flag.
func cpuFlag(flag string) bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(l, []byte(":")); ok && string(bytes.TrimSpace(k)) == "flags" {
			for _, f := range bytes.Fields(v) {
				if string(f) == flag {
					return true
				}
			}
			return false
		}
	}
	return false
}

// UserEnd is where the addresses a process's debug registers may hold
// end (the kernel's TASK_SIZE_MAX): ptrace refuses a debug register at
// or past it, and gdbserver then exits ("Couldn't write debug
// register"). An x86-64 process: 2^47 less a page, 2^56 less a page with
// 5-level paging (la57); an i386 one on a 64-bit kernel: 0xffffe000.
func UserEnd(i386 bool) uint64 {
	switch {
	case i386:
		return 0xffffe000
	case cpuFlag("la57"):
		return 1<<56 - 4096
	}
	return 1<<47 - 4096
}

// zmmProbeCode is the probe program's code:
//
//	vzeroupper                  ; the upper halves of zmm0-zmm15 unused
//	mov    $0x5a5a5a5a,%eax
//	vpbroadcastd %eax,%ymm16
//	vpbroadcastd %eax,%ymm19
//	nop                         ; the stop: a breakpoint here
//	vmovd  %xmm16,%ecx
//	vmovd  %xmm19,%edx
//	xor    %edi,%edi
//	cmp    %eax,%ecx
//	setne  %dil
//	cmp    %eax,%edx
//	setne  %cl
//	or     %cl,%dil
//	mov    $60,%eax             ; exit(ymm16 or ymm19 changed)
//	syscall
var zmmProbeCode = []byte{
	0xc5, 0xf8, 0x77,
	0xb8, 0x5a, 0x5a, 0x5a, 0x5a,
	0x62, 0xe2, 0x7d, 0x28, 0x7c, 0xc0,
	0x62, 0xe2, 0x7d, 0x28, 0x7c, 0xd8,
	0x90,
	0x62, 0xe1, 0x7d, 0x08, 0x7e, 0xc1,
	0x62, 0xe1, 0x7d, 0x08, 0x7e, 0xda,
	0x31, 0xff,
	0x39, 0xc1,
	0x40, 0x0f, 0x95, 0xc7,
	0x39, 0xc2,
	0x0f, 0x95, 0xc1,
	0x40, 0x08, 0xcf,
	0xb8, 0x3c, 0x00, 0x00, 0x00,
	0x0f, 0x05,
}

// ZMMProbeProgram writes the probe program to a new file in dir and
// returns its path (the caller removes it): for tests that run it under
// GDB, the oracle.
func ZMMProbeProgram(dir string) (string, error) {
	return proc.WriteProbe(dir, "rrmcp-zmm-probe-", proc.AMD64ELF(zmmProbeCode))
}

// ZMMProbeStop is where the probe stops: the nop's address.
const ZMMProbeStop = proc.AMD64ELFEntry + 20

// probeZMM runs the probe program under gdbserver: a breakpoint at the
// nop, continue to it, continue to the exit. kept is whether it exited 0.
func probeZMM(ctx context.Context) (kept bool, err error) {
	path, err := ZMMProbeProgram(os.TempDir())
	if err != nil {
		return false, err
	}
	defer os.Remove(path)
	var srv *proc.Process
	var addr string
	err = proc.RunProbe(ctx, 5, func() (err error) {
		srv, addr, err = proc.StartGDBServer(ctx, path, nil, "", nil)
		return err
	})
	if err != nil {
		return false, err
	}
	defer srv.Stop(0) //nolint:errcheck // the verdict is what matters
	c, err := rsp.Dial(ctx, addr, rsp.Options{Dialect: rsp.DialectGDBServer})
	if err != nil {
		return false, err
	}
	defer c.Close()
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, ZMMProbeStop, 1); err != nil {
		return false, fmt.Errorf("breakpoint in the probe: %w", err)
	}
	st, err := c.Continue(ctx)
	if err != nil {
		return false, fmt.Errorf("continue to the probe's breakpoint: %w", err)
	}
	if st.Kind != rsp.StopSignal || st.Signal != rsp.SIGTRAP {
		return false, fmt.Errorf("the probe stopped with %s, not at its breakpoint", st.Raw)
	}
	if st, err = c.Continue(ctx); err != nil {
		return false, fmt.Errorf("continue to the probe's exit: %w", err)
	}
	if st.Kind != rsp.StopExited {
		return false, fmt.Errorf("the probe ended with %s, not an exit", st.Raw)
	}
	return st.ExitCode == 0, nil
}
