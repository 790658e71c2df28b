package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// i386PeerEnv forces the debug server of i386 programs: "gdbserver" or
// "qemu-i386" (otherwise the kernel is probed).
const i386PeerEnv = "RRMCP_I386_PEER"

// i386Probe remembers whether this kernel executes i386 programs (IA32
// emulation); the probe runs once per Manager, on the first i386 program.
type i386Probe struct {
	once sync.Once
	runs bool
	err  error
}

// i386Server says which debug server runs the i386 program prog, and why
// when it is not gdbserver: "" for gdbserver (every program that is not
// i386, and i386 ones where the kernel runs them), else the qemu-i386
// path and a note for the session. Where the kernel cannot run i386
// programs and qemu-i386 is missing, the error says what to install.
func (m *Manager) i386Server(ctx context.Context, prog string) (qemu, note string, err error) {
	if !proc.IsI386(prog) {
		return "", "", nil
	}
	env := m.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	forced := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, i386PeerEnv+"="); ok {
			forced = v
		}
	}
	switch forced {
	case "gdbserver":
		return "", "", nil
	case "qemu-i386":
		note = fmt.Sprintf("i386 program run under QEMU user mode (%s=qemu-i386)", i386PeerEnv)
	case "":
		m.i386.once.Do(func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			m.i386.runs, m.i386.err = proc.RunsI386(pctx, os.TempDir())
		})
		if m.i386.err != nil {
			return "", "", fmt.Errorf("probe whether this kernel runs i386 programs: %w", m.i386.err)
		}
		if m.i386.runs {
			return "", "", nil
		}
		note = "this kernel cannot execute i386 programs (no IA32 emulation), so the program runs under QEMU user mode (qemu-i386); it has no hardware watchpoints (software ones are used)"
	default:
		return "", "", fmt.Errorf("environment variable %s=%q: want gdbserver or qemu-i386 (or unset: the kernel is probed): %w", i386PeerEnv, forced, ErrUnsupported)
	}
	qemu, err = exec.LookPath("qemu-i386")
	if err != nil {
		return "", "", fmt.Errorf("%s is an i386 program and this kernel cannot execute it; install QEMU user mode (Debian: apt-get install -t bookworm-backports qemu-user) so rrmcp can run it under qemu-i386: %w", prog, ErrUnsupported)
	}
	return qemu, note, nil
}
