package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rrmcp/rrmcp/internal/outlog"
)

// Config describes a child process.
type Config struct {
	Path       string   // executable (looked up on PATH if it has no slash)
	Args       []string // arguments, without argv[0]
	Dir        string   // working directory; "" = inherit
	Env        []string // full environment; nil = inherit os.Environ()
	Stdin      io.Reader
	ExtraFiles []*os.File
	// KeepLines bounds the retained output; 0 means 2000 lines.
	KeepLines int
	// OnLine, if set, sees every output line (stdout and stderr) as it arrives.
	OnLine func(Line)
	// Stdout, if set, receives the child's stdout instead of the line ring.
	Stdout io.Writer
	// StderrFile sends the child's stderr to an unlinked temporary file
	// instead of a pipe: the child writes it without waking rrmcp, and
	// its lines are read from the file when asked for (Lines, LastSeq,
	// Tail, Scan). For a child that writes much nobody reads at once:
	// gdbserver warns twice at every trap on some kernels.
	StderrFile bool
}

// Line is one line of a child's output.
type Line struct {
	Seq    int64 // 1-based, in arrival order
	Stderr bool
	Text   string
}

// ErrExited reports that the process ended while something waited for it.
var ErrExited = errors.New("process exited")

// Process is a running child. Its methods are safe for concurrent use.
type Process struct {
	cfg  Config
	cmd  *exec.Cmd
	done chan struct{} // closed after Wait returned
	err  error         // Wait's result, valid after done

	mu      sync.Mutex
	lines   []Line // the last KeepLines lines (retained), and up to as many older
	seq     int64
	changed chan struct{} // closed and replaced on every new line
	waits   []*lineWait   // WaitLine's, each seeing every line as it is added

	errFile  *os.File // StderrFile: the child's stderr, until it exited (scanMu)
	scanMu   sync.Mutex
	errRead  lineWriter // the lines of errFile read so far (scanMu)
	errOff   int64      // bytes of errFile read or skipped so far (scanMu)
	errFreed int64      // bytes at its start whose disk space was given back (scanMu)
}

// Start launches the child described by cfg. ctx only bounds the start-up;
// the child lives until Stop, or until it exits by itself.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.KeepLines <= 0 {
		cfg.KeepLines = 2000
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	cmd.Stdin = cfg.Stdin
	cmd.ExtraFiles = cfg.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &Process{cfg: cfg, cmd: cmd, done: make(chan struct{}), changed: make(chan struct{})}
	stdout, stderr := &lineWriter{p: p}, &lineWriter{p: p, stderr: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if cfg.Stdout != nil {
		cmd.Stdout = cfg.Stdout
	}
	if cfg.StderrFile {
		f, err := os.CreateTemp("", "rrmcp-stderr-")
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", cfg.Path, err)
		}
		os.Remove(f.Name()) //nolint:errcheck // kept open; gone with the process
		p.errFile, p.errRead = f, lineWriter{p: p, stderr: true}
		cmd.Stderr = f
	}
	// A grandchild outside the process group (a debuggee that gdbserver put
	// in a group of its own) may hold the output pipes open after the child
	// exited: stop waiting for it after WaitDelay rather than forever.
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		if p.errFile != nil {
			p.errFile.Close()
		}
		return nil, fmt.Errorf("start %s: %w", cfg.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		stdout.flush()
		stderr.flush()
		if p.errFile != nil {
			// Read what is left, then close the file: its disk space
			// goes with it, and the lines stay in the ring.
			p.Scan()
			p.scanMu.Lock()
			p.errRead.flush()
			p.errFile.Close()
			p.errFile = nil
			p.scanMu.Unlock()
		}
		close(p.done)
		p.notify()
	}()
	return p, nil
}

// Scan reads what the child wrote to its stderr file (Config.StderrFile)
// since the last look and reports whether a line came; without a file
// there is nothing to scan (lines arrive as they are written). Of more
// than maxUnread new bytes only the last maxUnread are read (Trim).
func (p *Process) Scan() bool {
	p.scanMu.Lock()
	defer p.scanMu.Unlock()
	if p.errFile == nil {
		return false // none, or closed once the child exited
	}
	_, end := p.trim()
	seq := p.LastSeq()
	// Up to the size seen by trim: a child that writes faster than the
	// lines are read does not keep one Scan going.
	var buf [32 << 10]byte
	for p.errOff < end {
		n, err := p.errFile.ReadAt(buf[:min(int64(len(buf)), end-p.errOff)], p.errOff)
		p.errOff += int64(n)
		p.errRead.Write(buf[:n]) //nolint:errcheck // never fails
		if err != nil || n == 0 {
			break
		}
	}
	p.release()
	return p.LastSeq() != seq
}

// Trim bounds what the stderr file holds and what the next Scan reads,
// without reading: more than maxUnread bytes written since the last look
// are skipped but for the last maxUnread (a line says how many were),
// and the disk space of what was read or skipped is given back. Cheap
// (a stat) when there is little: called at every stop, since a child
// that writes at every trap (gdbserver's warnings) would fill the disk
// over a long run that nobody reads.
func (p *Process) Trim() {
	p.scanMu.Lock()
	defer p.scanMu.Unlock()
	if p.errFile == nil {
		return
	}
	if skipped, _ := p.trim(); skipped {
		p.release()
	}
}

// maxUnread bounds the bytes of a stderr file a Scan reads.
const maxUnread = 1 << 20

// trim skips all but the last maxUnread unread bytes (scanMu held),
// reports whether it did, and returns the file's size.
func (p *Process) trim() (bool, int64) {
	fi, err := p.errFile.Stat()
	if err != nil {
		return false, p.errOff
	}
	if fi.Size()-p.errOff <= maxUnread {
		return false, fi.Size()
	}
	skip := fi.Size() - maxUnread - p.errOff
	p.errRead.buf = p.errRead.buf[:0]
	p.add(fmt.Sprintf("[%d bytes of output not kept]", skip), true)
	p.errOff += skip
	return true, fi.Size()
}

// release gives back the disk space of the bytes before errOff (scanMu
// held): the file keeps its size and offsets, with a hole where they
// were.
func (p *Process) release() {
	p.errFreed = outlog.FreeBefore(p.errFile, p.errFreed, p.errOff)
}

// waitDelay bounds how long Wait keeps reading output after the child exited.
const waitDelay = time.Second

// lineWriter splits a child's output into lines for Process.add. os/exec
// calls Write from one goroutine per stream.
type lineWriter struct {
	p      *Process
	stderr bool
	buf    []byte
}

// maxLine bounds a line kept in the ring; longer lines are cut there. One
// GDB/MI record is one line: a 1,000-frame -stack-list-frames is ~150 KB.
const maxLine = 1 << 20

func (w *lineWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.p.add(string(w.buf[:min(i, maxLine)]), w.stderr)
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		w.p.add(string(w.buf[:maxLine]), w.stderr)
		w.buf = w.buf[:0]
	}
	return len(b), nil
}

// flush hands on a last line that had no newline; called after Wait.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.p.add(string(w.buf), w.stderr)
		w.buf = nil
	}
}

func (p *Process) add(text string, isErr bool) {
	p.mu.Lock()
	p.seq++
	l := Line{Seq: p.seq, Stderr: isErr, Text: text}
	// Up to twice KeepLines are held, then the older half is dropped at
	// once: dropping one line per line copied KeepLines lines each time,
	// which gdbserver's two warnings per tracepoint hit made a CPU cost.
	if len(p.lines) >= 2*p.cfg.KeepLines {
		n := copy(p.lines, p.lines[len(p.lines)-p.cfg.KeepLines+1:])
		p.lines = p.lines[:n]
	}
	p.lines = append(p.lines, l)
	for i := 0; i < len(p.waits); {
		if w := p.waits[i]; w.match(l) {
			p.waits = slices.Delete(p.waits, i, i+1)
		} else {
			i++
		}
	}
	p.mu.Unlock()
	if p.cfg.OnLine != nil {
		p.cfg.OnLine(l)
	}
	p.notify()
}

func (p *Process) notify() {
	p.mu.Lock()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// Changed returns a channel closed when the next output line arrives;
// with a stderr file, when a Scan finds it.
func (p *Process) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// Pid returns the child's process id (also its process-group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the child has exited and been waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited, and its Wait error.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// ExitCode returns the exit status after the child exited, or -1.
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// Lines returns the retained output lines with Seq > after.
func (p *Process) Lines(after int64) []Line {
	p.Scan()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Line
	for _, l := range p.retained() {
		if l.Seq > after {
			out = append(out, l)
		}
	}
	return out
}

// retained is the last KeepLines lines (p.mu held).
func (p *Process) retained() []Line {
	if len(p.lines) > p.cfg.KeepLines {
		return p.lines[len(p.lines)-p.cfg.KeepLines:]
	}
	return p.lines
}

// LastSeq is the Seq of the newest line, 0 before the first; it does
// not scan a stderr file (Scan does).
func (p *Process) LastSeq() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lines) == 0 {
		return 0
	}
	return p.lines[len(p.lines)-1].Seq
}

// Tail returns the last n retained output lines joined by newlines.
func (p *Process) Tail(n int) string {
	p.Scan()
	p.mu.Lock()
	defer p.mu.Unlock()
	ls := p.retained()
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// WaitLine waits until an output line (stdout or stderr, retained or new)
// matches re and returns its submatches. It fails with ErrExited, wrapped
// with the output tail, if the child exits first, and with ctx's error on
// deadline. A line is matched as it arrives, so however many lines come
// after it before WaitLine looks, it is not missed.
func (p *Process) WaitLine(ctx context.Context, re *regexp.Regexp) ([]string, error) {
	w := &lineWait{re: re, found: make(chan []string, 1)}
	p.mu.Lock()
	for _, l := range p.retained() {
		if w.match(l) {
			p.mu.Unlock()
			return <-w.found, nil
		}
	}
	p.waits = append(p.waits, w)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if i := slices.Index(p.waits, w); i >= 0 {
			p.waits = slices.Delete(p.waits, i, i+1)
		}
		p.mu.Unlock()
	}()
	for {
		// A stderr file's lines come when it is scanned: at the start,
		// and whenever something else woke us. Not when this Scan found
		// lines (ch is taken after it): each is matched as it is added,
		// and a child flooding its file would keep this loop reading it
		// for as long as it writes, every line of it, where Trim's bound
		// should hold.
		p.Scan()
		ch := p.Changed()
		select {
		case m := <-w.found:
			return m, nil
		case <-p.done:
			// The last lines were read before done was closed.
			select {
			case m := <-w.found:
				return m, nil
			default:
			}
			return nil, fmt.Errorf("%s: %w (status %d) before printing %q; output:\n%s",
				p.cfg.Path, ErrExited, p.ExitCode(), re, p.Tail(20))
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: waiting for %q: %w; output:\n%s", p.cfg.Path, re, ctx.Err(), p.Tail(20))
		case <-ch:
		}
	}
}

// lineWait is one WaitLine's: the first line matching re sends its
// submatches on found (p.mu held).
type lineWait struct {
	re    *regexp.Regexp
	found chan []string // buffered: one send
}

func (w *lineWait) match(l Line) bool {
	m := w.re.FindStringSubmatch(l.Text)
	if m != nil {
		w.found <- m
	}
	return m != nil
}

// Signal sends sig to the child's whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Stop ends the child: SIGTERM to its process group, then SIGKILL after
// grace (0 means 2 s), and waits until it has exited. Members of the group
// that outlive the leader are killed too. Stop is idempotent.
func (p *Process) Stop(grace time.Duration) error {
	if grace <= 0 {
		grace = 2 * time.Second
	}
	if ok, _ := p.Exited(); !ok {
		p.Signal(syscall.SIGTERM)
		t := time.NewTimer(grace)
		select {
		case <-p.done:
			t.Stop()
		case <-t.C:
		}
	}
	p.Signal(syscall.SIGKILL)
	<-p.done
	return nil
}

// Kill ends the child's process group at once with SIGKILL and waits.
func (p *Process) Kill() {
	p.Signal(syscall.SIGKILL)
	<-p.done
}
