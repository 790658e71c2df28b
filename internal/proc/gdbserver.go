package proc

import (
	"context"
	"fmt"
	"net"
	"regexp"
)

var listeningRE = regexp.MustCompile(`^Listening on port (\d+)`)

// StartGDBServer launches `gdbserver --once 127.0.0.1:0 prog args…` and
// returns it with the loopback address it listens on, read from its own
// "Listening on port N" line. The program's output is drained with
// gdbserver's. env nil means the current environment.
func StartGDBServer(ctx context.Context, prog string, args []string, dir string, env []string) (*Process, string, error) {
	argv := append([]string{"--once", "127.0.0.1:0", prog}, args...)
	p, err := Start(ctx, Config{Path: "gdbserver", Args: argv, Dir: dir, Env: env})
	if err != nil {
		return nil, "", err
	}
	m, err := p.WaitLine(ctx, listeningRE)
	if err != nil {
		p.Stop(0)
		return nil, "", fmt.Errorf("start gdbserver: %w", err)
	}
	return p, net.JoinHostPort("127.0.0.1", m[1]), nil
}
