package qemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// MinMajor is the oldest QEMU major version whose reverse execution is
// usable (7.2 deadlocks in about half of all reverse-continues).
const MinMajor = 10

// ErrTooOld: the QEMU found is older than MinMajor.
var ErrTooOld = errors.New("qemu too old for reverse execution")

var versionRE = regexp.MustCompile(`QEMU emulator version (\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion reads `qemu-system-* --version` output.
func ParseVersion(out string) (major, minor int, err error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("qemu --version: unrecognised output %q", strings.SplitN(out, "\n", 2)[0])
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, nil
}

// Find returns the path and version ("10.0") of qemu-system-i386, which
// must be at least MinMajor (error wraps ErrTooOld otherwise).
func Find(ctx context.Context) (path, version string, err error) {
	path, err = exec.LookPath("qemu-system-i386")
	if err != nil {
		return "", "", fmt.Errorf("qemu-system-i386 is not installed: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s --version: %w", path, err)
	}
	major, minor, err := ParseVersion(string(out))
	if err != nil {
		return "", "", err
	}
	version = fmt.Sprintf("%d.%d", major, minor)
	if major < MinMajor {
		return path, version, fmt.Errorf("%s is QEMU %s, need >= %d (Debian: bookworm-backports): %w", path, version, MinMajor, ErrTooOld)
	}
	return path, version, nil
}

// Recording is a QEMU record/replay log with what is needed to replay it
// on an identical machine. It is saved as recording.json in Dir.
type Recording struct {
	Dir    string `json:"-"`
	QEMU   string `json:"qemu"`   // qemu-system-i386 used to record
	Kernel string `json:"kernel"` // multiboot kernel (absolute path)
	Icount int64  `json:"icount"` // instruction count when recording stopped
	Serial string `json:"serial"` // what the guest printed
}

const (
	logFile      = "replay.bin"
	diskFile     = "disk.qcow2" // holds only the "init" snapshot
	metaFile     = "recording.json"
	snapshotName = "init"
	icountShift  = "7"
)

// escapeOpt doubles commas, QEMU's quoting inside option values.
func escapeOpt(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// machineArgs are the devices; record and replay must use the same set.
func machineArgs(kernel, disk, mode, log string) []string {
	return []string{
		"-M", "pc", "-display", "none", "-vga", "none", "-net", "none",
		"-serial", "stdio", // COM1 = our stdout pipe, read line by line
		"-drive", "file=" + escapeOpt(disk) + ",if=none",
		"-kernel", kernel,
		"-icount", "shift=" + icountShift + ",rr=" + mode + ",rrfile=" + escapeOpt(log) + ",rrsnapshot=" + snapshotName,
	}
}

// listen makes a loopback listener and the file QEMU will inherit.
func listen() (addr string, f *os.File, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	defer ln.Close() // QEMU keeps its own copy of the socket
	f, err = ln.(*net.TCPListener).File()
	return ln.Addr().String(), f, err
}

// socketArgs hands fd (counted from 3 in ExtraFiles order) to QEMU as a
// listening chardev named id.
func socketArg(id string, fd int) string {
	return fmt.Sprintf("socket,id=%s,fd=%d,server=on,wait=off,nodelay=on", id, fd)
}

var doneRE = regexp.MustCompile(`\bdone\b`)

// DefaultRecordTimeout bounds Record when ctx has no deadline.
const DefaultRecordTimeout = time.Minute

// Record boots kernel under QEMU in record mode into dir (created if
// needed) until the guest prints a line containing "done" on its serial
// port, then stops and quits QEMU through QMP. ctx bounds the whole run
// (DefaultRecordTimeout if it has no deadline).
func Record(ctx context.Context, dir, kernel string) (*Recording, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRecordTimeout)
		defer cancel()
	}
	qemuPath, _, err := Find(ctx)
	if err != nil {
		return nil, err
	}
	if kernel, err = filepath.Abs(kernel); err != nil {
		return nil, err
	}
	if _, err := os.Stat(kernel); err != nil {
		return nil, fmt.Errorf("qemu record: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	disk := filepath.Join(dir, diskFile)
	os.Remove(disk)
	if out, err := exec.CommandContext(ctx, "qemu-img", "create", "-q", "-f", "qcow2", disk, "128M").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("qemu-img create: %w: %s", err, out)
	}
	qmpAddr, qmpFile, err := listen()
	if err != nil {
		return nil, fmt.Errorf("qemu record: %w", err)
	}
	args := append(machineArgs(kernel, disk, "record", filepath.Join(dir, logFile)),
		"-chardev", socketArg("qmp", 3), "-mon", "chardev=qmp,mode=control")
	p, err := proc.Start(ctx, proc.Config{Path: qemuPath, Args: args, ExtraFiles: []*os.File{qmpFile}})
	qmpFile.Close()
	if err != nil {
		return nil, fmt.Errorf("qemu record: %w", err)
	}
	rec := &Recording{Dir: dir, QEMU: qemuPath, Kernel: kernel}
	fail := func(err error) (*Recording, error) {
		p.Kill()
		return nil, fmt.Errorf("qemu record: %w; output:\n%s", err, p.Tail(20))
	}
	if _, err := p.WaitLine(ctx, doneRE); err != nil {
		return fail(err)
	}
	q, err := dialQMP(ctx, qmpAddr)
	if err != nil {
		return fail(err)
	}
	defer q.close()
	if _, err := q.execute(ctx, "stop", nil); err != nil {
		return fail(err)
	}
	if r, err := q.execute(ctx, "query-replay", nil); err == nil {
		var st struct {
			Icount int64 `json:"icount"`
		}
		if json.Unmarshal(r, &st) == nil {
			rec.Icount = st.Icount
		}
	}
	if err := quit(ctx, p, q); err != nil {
		return fail(err)
	}
	rec.Serial = p.Tail(100)
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, metaFile), b, 0o644); err != nil {
		return nil, err
	}
	return rec, nil
}

// quit asks QEMU to quit over QMP and waits (5 s at most) for the exit.
func quit(ctx context.Context, p *proc.Process, q *qmp) error {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// QEMU may close the socket before its reply arrives: only a QMP
	// error reply counts; otherwise the exit is what we wait for.
	if _, err := q.execute(qctx, "quit", nil); err != nil {
		var qe *QMPError
		if errors.As(err, &qe) {
			return err
		}
	}
	select {
	case <-p.Done():
		return nil
	case <-qctx.Done():
		return fmt.Errorf("qemu did not exit after quit: %w", qctx.Err())
	}
}

// LoadRecording reads the recording.json that Record wrote in dir.
func LoadRecording(dir string) (*Recording, error) {
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, fmt.Errorf("qemu recording: %w", err)
	}
	rec := &Recording{}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("qemu recording %s: %w", dir, err)
	}
	rec.Dir = dir
	return rec, nil
}

// Replay is a QEMU replaying a Recording, paused before the first
// instruction, with its gdbstub listening on Addr. Its methods are safe
// for concurrent use.
type Replay struct {
	p    *proc.Process
	q    *qmp
	addr string
	disk string
}

// StartReplay starts a replay of the recording in dir on its own copy of
// the disk image (so several replays can run at once), with the gdbstub
// on a loopback port (-S: nothing runs until the client says so).
// Connect to Addr with package rsp (QEMU keeps acknowledgements on).
func StartReplay(ctx context.Context, dir string) (*Replay, error) {
	rec, err := LoadRecording(dir)
	if err != nil {
		return nil, err
	}
	disk, err := copyDisk(filepath.Join(rec.Dir, diskFile), rec.Dir)
	if err != nil {
		return nil, fmt.Errorf("qemu replay: %w", err)
	}
	qmpAddr, qmpFile, err := listen()
	if err != nil {
		os.Remove(disk)
		return nil, err
	}
	defer qmpFile.Close()
	gdbAddr, gdbFile, err := listen()
	if err != nil {
		os.Remove(disk)
		return nil, err
	}
	defer gdbFile.Close()
	args := append(machineArgs(rec.Kernel, disk, "replay", filepath.Join(rec.Dir, logFile)),
		"-chardev", socketArg("qmp", 3), "-mon", "chardev=qmp,mode=control",
		"-chardev", socketArg("gdb", 4), "-gdb", "chardev:gdb", "-S")
	p, err := proc.Start(ctx, proc.Config{Path: rec.QEMU, Args: args, ExtraFiles: []*os.File{qmpFile, gdbFile}})
	if err != nil {
		os.Remove(disk)
		return nil, fmt.Errorf("qemu replay: %w", err)
	}
	r := &Replay{p: p, addr: gdbAddr, disk: disk}
	if r.q, err = dialQMP(ctx, qmpAddr); err != nil {
		r.Kill()
		return nil, fmt.Errorf("qemu replay: %w; output:\n%s", err, p.Tail(20))
	}
	return r, nil
}

func copyDisk(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, "replay-*.qcow2")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), out.Close()
}

// Addr is the gdbstub's address, "127.0.0.1:PORT".
func (r *Replay) Addr() string { return r.addr }

// Done is closed once QEMU has exited and was waited for.
func (r *Replay) Done() <-chan struct{} { return r.p.Done() }

// Output returns the last n lines of QEMU's output (the guest's serial
// port and QEMU's messages).
func (r *Replay) Output(n int) string { return r.p.Tail(n) }

// Status asks QMP for the run state ("debug", "paused", "running", ...).
// A deadlocked QEMU does not answer; ctx bounds the wait.
func (r *Replay) Status(ctx context.Context) (string, error) {
	b, err := r.q.execute(ctx, "query-status", nil)
	if err != nil {
		return "", err
	}
	var st struct {
		Status string `json:"status"`
	}
	err = json.Unmarshal(b, &st)
	return st.Status, err
}

// Stop ends QEMU: QMP quit, up to 5 s for it to exit, then SIGKILL. It
// always waits for QEMU and removes the replay's disk copy. Idempotent.
func (r *Replay) Stop() error {
	var err error
	if ok, _ := r.p.Exited(); !ok {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = quit(ctx, r.p, r.q)
		cancel()
	}
	r.Kill()
	return err
}

// Kill ends QEMU at once with SIGKILL (the only way out of a deadlocked
// replay), waits for it and removes the disk copy.
func (r *Replay) Kill() {
	r.p.Kill()
	if r.q != nil {
		r.q.close()
	}
	os.Remove(r.disk)
}
