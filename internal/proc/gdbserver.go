package proc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

var listeningRE = regexp.MustCompile(`^Listening on port (\d+)`)

// StartGDBServer launches `gdbserver --once 127.0.0.1:0 prog args…` and
// returns it with the loopback address it listens on, read from its own
// "Listening on port N" line: a server a test or the benchmark's GDB
// connects to by address. The program's output is drained with
// gdbserver's. env nil means the current environment. A live session's
// gdbserver is StartGDBServerStdio's.
func StartGDBServer(ctx context.Context, prog string, args []string, dir string, env []string) (*Process, string, error) {
	argv := append([]string{"--once", "127.0.0.1:0", prog}, args...)
	p, err := Start(ctx, Config{Path: "gdbserver", Args: argv, Dir: dir, Env: env})
	if err != nil {
		return nil, "", err
	}
	m, err := p.WaitLine(ctx, listeningRE)
	if err != nil {
		p.Stop(0) //nolint:errcheck
		if errors.Is(err, ErrExited) && strings.Contains(p.Tail(20), textBusy) {
			// The program could not be executed: it is open for writing
			// (a probe file just written, whose descriptor another
			// goroutine's fork holds until its child execs).
			return nil, "", fmt.Errorf("start gdbserver: %w: %w", syscall.ETXTBSY, err)
		}
		return nil, "", fmt.Errorf("start gdbserver: %w", err)
	}
	return p, net.JoinHostPort("127.0.0.1", m[1]), nil
}

// textBusy is strerror(ETXTBSY), as gdbserver (or the shell it starts
// the program with) reports a failed exec of a file open for writing.
const textBusy = "Text file busy"

// Stdio says how StartGDBServerStdio runs gdbserver.
type Stdio struct {
	// Prog and Args: the program gdbserver runs, unless AttachPID.
	Prog string
	Args []string
	// AttachPID attaches gdbserver to this process instead.
	AttachPID int
	Dir       string
	Env       []string // gdbserver's and the program's environment; nil: this process's
	// Preload is put in the program's LD_PRELOAD (gdbserver's own
	// environment keeps Env's).
	Preload string
	// Stdout and Stderr, if set, are the program's standard output and
	// error: it writes them itself, apart from gdbserver's messages.
	Stdout, Stderr *os.File
}

// StartGDBServerStdio launches gdbserver speaking the remote protocol on
// its standard input and output ("gdbserver -"), one end of a socket pair
// whose other end it returns: no port to find, none that another process
// can take, and a round trip about half that of loopback TCP. gdbserver's
// own messages go to a file read when asked for (Config.StderrFile): on
// some kernels it warns twice at every trap, which through a pipe woke
// rrmcp twice per breakpoint hit.
//
// gdbserver points the program's stdout at its own stderr and its stdin
// at /dev/null on that connection; the program's own streams are put
// back by a shell wrapper (gdbserver's --wrapper, which execs the program
// once, as gdbserver requires), which also sets Preload.
func StartGDBServerStdio(ctx context.Context, o Stdio) (*Process, net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("start gdbserver: socket pair: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "rsp"), os.NewFile(uintptr(fds[1]), "gdbserver")
	defer theirs.Close()
	conn, err := net.FileConn(mine)
	mine.Close() // FileConn holds a copy
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("start gdbserver: %w", err)
	}
	argv := []string{"--once"}
	var extra []*os.File
	if o.AttachPID > 0 {
		argv = append(argv, "--attach", "-", strconv.Itoa(o.AttachPID))
	} else {
		var script []string
		if o.Preload != "" {
			script = append(script, "export LD_PRELOAD="+shellQuote(o.Preload))
		}
		var redirs []string
		for target, f := range map[int]*os.File{1: o.Stdout, 2: o.Stderr} {
			if f != nil {
				fd := 3 + len(extra) // ExtraFiles[i] is the child's fd 3+i
				extra = append(extra, f)
				redirs = append(redirs, fmt.Sprintf("%d>&%d %d>&-", target, fd, fd))
			}
		}
		if len(redirs) > 0 {
			script = append(script, "exec "+strings.Join(redirs, " "))
		}
		if len(script) > 0 {
			// gdbserver joins the wrapper's words with spaces and hands
			// them to the startup shell: the script is quoted once here.
			script = append(script, `exec "$0" "$@"`)
			argv = append(argv, "--wrapper", "sh", "-c", shellQuote(strings.Join(script, "; ")), "--")
		}
		argv = append(append(argv, "-", o.Prog), o.Args...)
	}
	p, err := Start(ctx, Config{Path: "gdbserver", Args: argv, Dir: o.Dir, Env: o.Env,
		Stdin: theirs, Stdout: theirs, StderrFile: true, ExtraFiles: extra})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return p, conn, nil
}

// shellQuote quotes s as one word for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
