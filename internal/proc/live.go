package proc

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Live says which program a live session debugs and how its debug server
// starts: the program run under gdbserver, or gdbserver attached to a
// running process.
type Live struct {
	Command []string // program and arguments (unless AttachPID)
	Dir     string
	// Env is the environment the program inherits (nil: this process's),
	// Extra what the session adds to it.
	Env   []string
	Extra map[string]string
	// AttachPID attaches gdbserver to this process instead of running
	// Command.
	AttachPID int
	// Agent preloads gdbserver's in-process agent (libinproctrace.so)
	// into the program, for fast tracepoints.
	Agent bool
	// MaskAVX512 keeps glibc from choosing its AVX-512 functions in a
	// program run under gdbserver (MaskAVX512Tunables), where gdbserver
	// overwrites AVX-512 registers at stops (hwdebug.ZMM).
	MaskAVX512 bool
	// Stdout and Stderr receive the program's output; the program
	// writes them itself (under qemu-i386, which shares its stderr with
	// its own messages, stderr is copied line by line).
	Stdout, Stderr *os.File
	// I386 is the kernel's verdict on i386 programs, probed once and
	// shared between starts; nil probes each time.
	I386 *I386Probe
}

// LiveServer is a debug server started for a live program.
type LiveServer struct {
	*Process
	// Conn is the connection to gdbserver (StartGDBServerStdio); Addr
	// the loopback address of a server that listens (qemu-i386).
	Conn     net.Conn
	Addr     string
	Program  string // the program's absolute path
	Attached bool   // attached to a running process (which outlives the session)
	Agent    string // the in-process agent preloaded, "" without
	// Note says why the server is not gdbserver (an i386 program on a
	// kernel that cannot run it: qemu-i386's stub).
	Note string
}

// StartLive checks l and starts its debug server: gdbserver running the
// program (with the in-process agent preloaded when asked), gdbserver
// attached to l.AttachPID, or, for an i386 program on a kernel without
// IA32 emulation, qemu-i386's gdbstub. Bad input is an *errkind.ArgError
// naming the argument; a missing server is errkind.Unsupported.
func StartLive(ctx context.Context, l Live) (*LiveServer, error) {
	if _, err := exec.LookPath("gdbserver"); err != nil {
		return nil, fmt.Errorf("gdbserver is not installed (apt install gdbserver): %w", errkind.Unsupported)
	}
	if l.AttachPID > 0 {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", l.AttachPID))
		if err != nil {
			return nil, errkind.Argf("attach_pid", "no process %d that this user can debug: %v", l.AttachPID, err)
		}
		p, conn, err := StartGDBServerStdio(ctx, Stdio{AttachPID: l.AttachPID, Env: l.Env})
		if err != nil {
			return nil, fmt.Errorf("start gdbserver: %w", err)
		}
		return &LiveServer{Process: p, Conn: conn, Program: exe, Attached: true}, nil
	}
	if err := CheckLaunch(l.Command, l.Dir, l.Extra); err != nil {
		return nil, err
	}
	prog, err := ResolveProgram(l.Command[0], l.Dir)
	if err != nil {
		return nil, err
	}
	env := l.Env
	if len(l.Extra) > 0 {
		if env == nil {
			env = os.Environ()
		}
		env = append([]string(nil), env...)
		for k, v := range l.Extra {
			env = append(env, k+"="+v)
		}
	}
	s := &LiveServer{Program: prog}
	qemu, note, err := l.I386.server(ctx, prog, l.Env)
	switch {
	case err != nil:
		return nil, err
	case qemu != "" && l.Agent:
		return nil, errkind.Argf("in_process_agent", "the 32-bit program runs under qemu-i386's stub, which has no in-process agent")
	case qemu != "":
		s.Note = note
		var errLine func([]byte)
		if l.Stderr != nil {
			errLine = func(b []byte) { l.Stderr.Write(b) } //nolint:errcheck // a full disk loses output, not the session
		}
		var stdout io.Writer
		if l.Stdout != nil {
			stdout = l.Stdout
		}
		s.Process, s.Addr, err = StartQEMUUser(ctx, qemu, prog, l.Command[1:], l.Dir, env, stdout, errLine)
		if err != nil {
			return nil, fmt.Errorf("start qemu-i386: %w", err)
		}
		return s, nil
	}
	if l.MaskAVX512 {
		if env == nil {
			env = os.Environ()
		}
		env = append(env[:len(env):len(env)], "GLIBC_TUNABLES="+MaskAVX512Tunables(envValue(l.Env, l.Extra, "GLIBC_TUNABLES")))
	}
	o := Stdio{Prog: prog, Args: l.Command[1:], Dir: l.Dir, Env: env, Stdout: l.Stdout, Stderr: l.Stderr}
	if l.Agent {
		if s.Agent, err = findInProcessAgent(); err != nil {
			return nil, err
		}
		o.Preload = s.Agent
		if old := envValue(l.Env, l.Extra, "LD_PRELOAD"); old != "" {
			o.Preload += ":" + old
		}
	}
	s.Process, s.Conn, err = StartGDBServerStdio(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("start gdbserver: %w", err)
	}
	return s, nil
}

// findInProcessAgent is the path of libinproctrace.so, looked for where
// Debian, Fedora and a default build of GDB install it.
func findInProcessAgent() (string, error) {
	dirs := []string{"/usr/lib", "/usr/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/local/lib64"}
	for _, d := range dirs {
		p := filepath.Join(d, "libinproctrace.so")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errkind.Argf("in_process_agent", "gdbserver's in-process agent libinproctrace.so is not in %s (Debian and Ubuntu ship it in the gdbserver package; Fedora in gdb-gdbserver)", strings.Join(dirs, ", "))
}

// envValue is the value of variable k for the program: extra's, else
// env's (nil env: this process's environment).
func envValue(env []string, extra map[string]string, k string) string {
	if v, ok := extra[k]; ok {
		return v
	}
	if env == nil {
		return os.Getenv(k)
	}
	v := ""
	for _, e := range env {
		if name, val, ok := strings.Cut(e, "="); ok && name == k {
			v = val
		}
	}
	return v
}

// avx512Hwcaps are the processor features glibc's IFUNC resolvers test
// before they pick an AVX-512 (EVEX) string or memory function.
const avx512Hwcaps = "-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD"

// MaskAVX512Tunables returns the value of GLIBC_TUNABLES, given its value
// old ("" if unset), with the AVX-512 features masked out of
// glibc.cpu.hwcaps: glibc then picks its AVX2 functions, which never
// touch zmm16-zmm31 or the opmask registers. The program computes what it
// did; only which of glibc's equivalent implementations runs changes.
func MaskAVX512Tunables(old string) string {
	if old == "" {
		return "glibc.cpu.hwcaps=" + avx512Hwcaps
	}
	parts := strings.Split(old, ":")
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, "glibc.cpu.hwcaps="); ok {
			if strings.Contains(v, avx512Hwcaps) {
				return old // masked already (a program started by one that rrmcp started)
			}
			if v != "" {
				v += ","
			}
			parts[i] = "glibc.cpu.hwcaps=" + v + avx512Hwcaps
			return strings.Join(parts, ":")
		}
	}
	return old + ":glibc.cpu.hwcaps=" + avx512Hwcaps
}

// I386PeerEnv forces the debug server of i386 programs: "gdbserver" or
// "qemu-i386" (otherwise the kernel is probed).
const I386PeerEnv = "RRMCP_I386_PEER"

// I386Probe remembers whether this kernel executes i386 programs (IA32
// emulation); the probe runs once, on the first i386 program.
type I386Probe struct {
	once sync.Once
	runs bool
	err  error
}

// server says which debug server runs the i386 program prog, and why
// when it is not gdbserver: "" for gdbserver (every program that is not
// i386, and i386 ones where the kernel runs them), else the qemu-i386
// path and a note for the session. Where the kernel cannot run i386
// programs and qemu-i386 is missing, the error says what to install.
// env is where I386PeerEnv is looked up (nil: this process's).
func (pr *I386Probe) server(ctx context.Context, prog string, env []string) (qemu, note string, err error) {
	if !IsI386(prog) {
		return "", "", nil
	}
	if env == nil {
		env = os.Environ()
	}
	forced := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, I386PeerEnv+"="); ok {
			forced = v
		}
	}
	switch forced {
	case "gdbserver":
		return "", "", nil
	case "qemu-i386":
		note = fmt.Sprintf("i386 program run under QEMU user mode (%s=qemu-i386)", I386PeerEnv)
	case "":
		if pr == nil {
			pr = &I386Probe{}
		}
		pr.once.Do(func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			pr.runs, pr.err = RunsI386(pctx, os.TempDir())
		})
		if pr.err != nil {
			return "", "", fmt.Errorf("probe whether this kernel runs i386 programs: %w", pr.err)
		}
		if pr.runs {
			return "", "", nil
		}
		note = "this kernel cannot execute i386 programs (no IA32 emulation), so the program runs under QEMU user mode (qemu-i386); it has no hardware watchpoints (software ones are used)"
	default:
		return "", "", fmt.Errorf("environment variable %s=%q: want gdbserver or qemu-i386 (or unset: the kernel is probed): %w", I386PeerEnv, forced, errkind.Unsupported)
	}
	qemu, err = exec.LookPath("qemu-i386")
	if err != nil {
		return "", "", fmt.Errorf("%s is an i386 program and this kernel cannot execute it; install QEMU user mode (Debian: apt-get install -t bookworm-backports qemu-user) so rrmcp can run it under qemu-i386: %w", prog, errkind.Unsupported)
	}
	return qemu, note, nil
}
