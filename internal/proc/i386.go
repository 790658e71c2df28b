package proc

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// StartQEMUUser is the debug server of an i386 program on a kernel
// without IA32 emulation (exec fails with ENOEXEC there; testenv.I386Peer
// decides).

// StartQEMUUser launches `qemu-i386 -g PORT prog args…` (QEMU user mode,
// the gdbstub waiting for a debugger before the program's first
// instruction) and returns it with the loopback address of the stub once
// it listens. QEMU prints nothing when it is ready and serves a single
// connection (closing it lets the program run on undebugged), so the
// readiness is read from the kernel's socket table, not by connecting.
func StartQEMUUser(ctx context.Context, qemu, prog string, args []string, dir string, env []string) (*Process, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	argv := append([]string{"-g", strconv.Itoa(port), prog}, args...)
	p, err := Start(ctx, Config{Path: qemu, Args: argv, Dir: dir, Env: env})
	if err != nil {
		return nil, "", err
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !listening(port) {
		select {
		case <-ctx.Done():
			p.Stop(0)
			return nil, "", fmt.Errorf("start %s: its gdbstub never listened on port %d: %w", qemu, port, ctx.Err())
		case <-p.Done():
			return nil, "", fmt.Errorf("start %s: exited before listening; output:\n%s", qemu, p.Tail(10))
		case <-tick.C:
		}
	}
	return p, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// listening reports whether a TCP socket listens on 127.0.0.1:port
// (/proc/net/tcp, state 0A).
func listening(port int) bool {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return false
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 3 && strings.HasSuffix(fs[1], want) && fs[3] == "0A" {
			return true
		}
	}
	return false
}
