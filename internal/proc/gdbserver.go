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
	return StartGDBServerOutput(ctx, prog, args, dir, env, nil)
}

// gdbserverMsgRE matches the lines gdbserver itself writes to stderr
// (gdbserver/server.cc, linux-low.cc); every other stderr line is the
// program's.
var gdbserverMsgRE = regexp.MustCompile(`^(Process .* created; pid = \d+|Listening on port \d+|Remote debugging from host .*|Child exited with status -?\d+|Child terminated with signal = .*|Detaching from process \d+|Killing process\(es\): .*|Killing all inferiors|gdbserver: .*|[Ww]arning: .*)$`)

// StartGDBServerOutput is StartGDBServer handing the program's output to
// out (nil: kept with gdbserver's): its stdout byte for byte (gdbserver
// writes nothing there), its stderr line by line without gdbserver's own
// messages, which share that stream.
func StartGDBServerOutput(ctx context.Context, prog string, args []string, dir string, env []string, out func(stderr bool, b []byte)) (*Process, string, error) {
	argv := append([]string{"--once", "127.0.0.1:0", prog}, args...)
	cfg := Config{Path: "gdbserver", Args: argv, Dir: dir, Env: env}
	if out != nil {
		cfg.Stdout = writerFunc(func(b []byte) { out(false, b) })
		cfg.OnLine = func(l Line) {
			if l.Stderr && !gdbserverMsgRE.MatchString(l.Text) {
				out(true, []byte(l.Text+"\n"))
			}
		}
	}
	p, err := Start(ctx, cfg)
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

// writerFunc is an io.Writer that hands each write to a function.
type writerFunc func(b []byte)

func (f writerFunc) Write(b []byte) (int, error) {
	f(append([]byte(nil), b...))
	return len(b), nil
}
