// Package hwdebug finds out what debugging on this machine's processor
// really does, where gdbserver says one thing and the hardware another.
// Two probes, each run once per process:
//
//   - whether the hardware debug registers work: whether a hardware
//     watchpoint (Z2) and a hardware breakpoint (Z1) that gdbserver
//     accepts actually fire (Cache, Probe);
//   - whether gdbserver gives the program back its AVX-512 registers
//     unchanged after a stop (ZMMCache, ProbeZMM; zmm.go).
//
// Some VMs (AMD Zen 5 guests among them) accept hardware watchpoints and
// breakpoints and never trigger them; a debugger that trusts them lets
// the program run to its exit. The session falls back to software
// watchpoints when the verdict says so. That probe runs `true` under gdbserver, stopped at its first instruction
// (the dynamic linker's entry, `mov %rsp,%rdi; call _dl_start`): a Z1 on
// the second instruction and a Z2 on the stack word just below the
// initial stack pointer, which the first call writes. It costs one
// gdbserver start (tens of milliseconds) and is cached per process by a
// Cache.
//
// gdbserver before GDB 14 reads and writes the XSAVE area at Intel's
// offsets, and AMD's processors with AVX-512 lay it out otherwise: at
// each resume it zeroes zmm16-zmm19, where glibc's EVEX string functions
// keep their data. The session then runs a live program with glibc's
// AVX-512 functions masked (see ZMM).
package hwdebug

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/x86code"
	"github.com/rrmcp/rrmcp/rsp"
)

// EnvVar forces the software path when set to "off" (or "0", "no",
// "false"): hardware watchpoints are then never used, whatever the probe
// says. Tests use it to prove the software path on machines whose
// hardware works.
const EnvVar = "RRMCP_HW_WATCHPOINTS"

// Verdict is what the probe found.
type Verdict struct {
	// Watch: a hardware write watchpoint fired on the write it watched.
	Watch bool
	// Break: a hardware breakpoint fired at its address.
	Break bool
	// Forced: EnvVar turned hardware watchpoints off.
	Forced bool
	// Ran: the probe ran to its verdict. False where it could not run or
	// has not finished; Watch and Break are then false for want of proof.
	Ran bool
	// Reason says in one sentence what was found and what is used.
	Reason string
}

// UseHardwareWatch reports whether watchpoints should use the debug
// registers.
func (v Verdict) UseHardwareWatch() bool { return v.Watch && !v.Forced }

// Off reports whether an environment (KEY=VALUE entries) turns hardware
// watchpoints off through EnvVar.
func Off(env []string) bool {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == EnvVar {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "off", "0", "no", "false":
				return true
			}
			return false
		}
	}
	return false
}

// Cache runs the probe once and remembers the verdict. The zero value is
// ready to use; one Cache per server process.
type Cache struct {
	mu   sync.Mutex
	done chan struct{} // nil until Start; closed when v is set
	v    Verdict
}

// Start begins the probe in the background unless it has begun: a
// session that may need the verdict starts it when it opens, so that the
// probe's own gdbserver runs beside the session's start instead of
// before it.
func (c *Cache) Start() {
	c.started(true)
}

// started returns the channel closed when the verdict is known, starting
// the probe if start and it has not begun; nil if it has not begun.
func (c *Cache) started(start bool) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil && start {
		done := make(chan struct{})
		c.done = done
		go func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(context.Background(), probeLimit)
			defer cancel()
			v := Probe(ctx)
			c.mu.Lock()
			c.v = v
			c.mu.Unlock()
		}()
	}
	return c.done
}

// probeLimit bounds one run of the probe.
const probeLimit = 20 * time.Second

// Get returns the verdict, starting the probe if nothing has and waiting
// for it while ctx allows (a verdict saying the probe has not finished
// otherwise: hardware is then not used). env decides Forced (see Off);
// nil means os.Environ().
func (c *Cache) Get(ctx context.Context, env []string) Verdict {
	done := c.started(true)
	select {
	case <-done:
	case <-ctx.Done():
	}
	var v Verdict
	select {
	case <-done: // (also where ctx ended as the probe finished)
		c.mu.Lock()
		v = c.v
		c.mu.Unlock()
	default:
		v = Verdict{Reason: fmt.Sprintf("the hardware debug register probe has not finished (%v); using software watchpoints", context.Cause(ctx))}
	}
	if env == nil {
		env = os.Environ()
	}
	if Off(env) {
		v.Forced = true
		v.Reason = fmt.Sprintf("hardware watchpoints turned off (%s=off); using software watchpoints (probe: %s)", EnvVar, v.Reason)
	}
	return v
}

// Known returns the verdict as Get does if the probe has finished, and
// false (without waiting) if it has not.
func (c *Cache) Known(env []string) (Verdict, bool) {
	select {
	case <-c.started(false): // (nil before Start: never ready)
		return c.Get(context.Background(), env), true
	default:
		return Verdict{}, false
	}
}

// Probe runs the probe (see the package comment). It never fails: when
// the probe cannot run, the verdict says hardware is not known to work
// and why.
func Probe(ctx context.Context) Verdict {
	v, err := probe(ctx)
	if err != nil {
		return Verdict{Reason: fmt.Sprintf("the hardware debug register probe could not run (%v); using software watchpoints", err)}
	}
	return v
}

func probe(ctx context.Context) (Verdict, error) {
	prog, err := exec.LookPath("true")
	if err != nil {
		return Verdict{}, fmt.Errorf("no `true` program on PATH: %w", err)
	}
	srv, addr, err := proc.StartGDBServer(ctx, prog, nil, "", nil)
	if err != nil {
		return Verdict{}, err
	}
	defer srv.Stop(0) //nolint:errcheck // the verdict is what matters
	c, err := rsp.Dial(ctx, addr, rsp.Options{Dialect: rsp.DialectGDBServer})
	if err != nil {
		return Verdict{}, err
	}
	defer c.Close()
	defer c.Kill(context.WithoutCancel(ctx)) //nolint:errcheck
	return Run(ctx, c)
}

// Run probes through c, a client of a gdbserver stopped at the first
// instruction of a program whose first instructions do not write memory
// before a call or push (any dynamically linked program: ld.so's entry).
func Run(ctx context.Context, c *rsp.Client) (Verdict, error) {
	pc, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "rip")
	if err != nil {
		return Verdict{}, err
	}
	sp, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "rsp")
	if err != nil {
		return Verdict{}, err
	}
	code := make([]byte, 16)
	if _, err := c.ReadMemory(ctx, pc, code); err != nil {
		return Verdict{}, err
	}
	in, err := x86code.Decode(code, 64)
	if err != nil {
		return Verdict{}, fmt.Errorf("decode the entry instruction: %w", err)
	}
	if in.Op == x86asm.CALL || in.Op == x86asm.PUSH {
		return Verdict{}, errors.New("the entry instruction writes the stack; no room for the hardware breakpoint probe")
	}
	second := pc + uint64(in.Len)
	slot := (sp - 8) &^ 7
	v := Verdict{Ran: true}
	zerr := c.InsertBreakpoint(ctx, rsp.WriteWatchpoint, slot, 8)
	berr := c.InsertBreakpoint(ctx, rsp.HardwareBreakpoint, second, 1)
	if zerr != nil && berr != nil {
		v.Reason = fmt.Sprintf("gdbserver refused hardware watchpoints (%v) and breakpoints (%v); using software watchpoints", zerr, berr)
		return v, nil
	}
	for range 2 {
		st, err := c.Continue(ctx)
		if err != nil {
			return Verdict{}, fmt.Errorf("continue: %w", err)
		}
		if st.Kind != rsp.StopSignal {
			break // the program ran to its end: whatever is left did not fire
		}
		switch {
		case st.Watch != rsp.WatchNone:
			v.Watch = true
		case st.HWBreak:
			v.Break = true
		default:
			if p, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "rip"); err == nil && p == second && berr == nil {
				v.Break = true // a server that does not say hwbreak
			} else {
				return v, fmt.Errorf("unexpected stop %s", st.Raw)
			}
		}
		if v.Watch || zerr != nil {
			break // a watch stop comes after the breakpoint's
		}
	}
	v.Reason = strings.Join([]string{
		probeNote(zerr, v.Watch,
			"gdbserver refused a hardware watchpoint (%v); using software watchpoints",
			"hardware watchpoints fire on this machine; using them (software watchpoints when more than 4 are set or the range is longer than 8 bytes)",
			"hardware watchpoints do not fire on this machine (gdbserver accepts them but the debug registers never trigger, as in VMs that do not virtualize them); using software watchpoints"),
		probeNote(berr, v.Break,
			"hardware breakpoints refused (%v)",
			"hardware breakpoints fire",
			"hardware breakpoints do not fire (breakpoints are software breakpoints)"),
	}, "; ")
	return v, nil
}

// probeNote says how one kind of hardware trap fared in the probe: the
// server refused it (refused, a format for the server's error), it fired,
// or it was accepted and stayed silent.
func probeNote(refusal error, fired bool, refused, fires, silent string) string {
	switch {
	case refusal != nil:
		return fmt.Sprintf(refused, refusal)
	case fired:
		return fires
	}
	return silent
}
