package proc

import (
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
)

var listeningRE = regexp.MustCompile(`^Listening on port (\d+)`)

// StartGDBServer launches `gdbserver --once 127.0.0.1:0 prog args…` and
// returns it with the loopback address it listens on, read from its own
// "Listening on port N" line. The program's output is drained with
// gdbserver's. env nil means the current environment.
func StartGDBServer(ctx context.Context, prog string, args []string, dir string, env []string) (*Process, string, error) {
	return StartGDBServerOutput(ctx, prog, args, dir, env, nil, nil)
}

// gdbserverMsgRE matches the lines gdbserver itself writes to stderr
// (gdbserver/server.cc, linux-low.cc); every other stderr line is the
// program's.
var gdbserverMsgRE = regexp.MustCompile(`^(Process .* created; pid = \d+|Listening on port \d+|Remote debugging from host .*|Child exited with status -?\d+|Child terminated with signal = .*|Detaching from process \d+|Killing process\(es\): .*|Killing all inferiors|gdbserver: .*|[Ww]arning: .*)$`)

// gdbserverMsg reports whether line is gdbserver's own (gdbserverMsgRE).
// Its warnings come first: on some kernels gdbserver warns twice at every
// trap ("Warning: ptrace(regsets_store_inferior_registers): Bad
// address"), and a tracepoint run traps 10,000 times a second.
func gdbserverMsg(line string) bool {
	if strings.HasPrefix(line, "Warning: ") || strings.HasPrefix(line, "warning: ") {
		return true
	}
	return gdbserverMsgRE.MatchString(line)
}

// StartGDBServerOutput is StartGDBServer sending the program's stdout to
// stdout (gdbserver writes nothing there; an *os.File is written by the
// program directly, so its size is exact whenever the program is stopped)
// and its stderr, line by line without gdbserver's own messages which
// share that stream, to errLine. nil keeps either with gdbserver's output.
func StartGDBServerOutput(ctx context.Context, prog string, args []string, dir string, env []string, stdout io.Writer, errLine func(b []byte)) (*Process, string, error) {
	return StartGDBServerWrapped(ctx, nil, prog, args, dir, env, stdout, errLine)
}

// StartGDBServerWrapped is StartGDBServerOutput starting the program
// through wrapper (gdbserver's --wrapper WRAPPER --: gdbserver runs
// "wrapper… prog args…", which must exec prog), e.g. ["env",
// "LD_PRELOAD=lib.so"] to change the program's environment and not
// gdbserver's own. The program's argv is the same as without it.
func StartGDBServerWrapped(ctx context.Context, wrapper []string, prog string, args []string, dir string, env []string, stdout io.Writer, errLine func(b []byte)) (*Process, string, error) {
	var argv []string
	if len(wrapper) > 0 {
		argv = append(append(append(argv, "--wrapper"), wrapper...), "--")
	}
	argv = append(append(argv, "--once", "127.0.0.1:0", prog), args...)
	cfg := Config{Path: "gdbserver", Args: argv, Dir: dir, Env: env, Stdout: stdout}
	if out := errLine; out != nil {
		// gdbserver starts some messages with an empty line ("\nChild
		// terminated with signal ..."): an empty line is held until the
		// next one shows whose it is.
		blank := false
		cfg.OnLine = func(l Line) {
			if !l.Stderr {
				return
			}
			switch {
			case gdbserverMsg(l.Text):
				blank = false
			case l.Text == "" && !blank:
				blank = true
			default:
				if blank {
					out([]byte("\n"))
				}
				blank = l.Text == ""
				if !blank {
					out([]byte(l.Text + "\n"))
				}
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
