package rr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrUnavailable is matched (errors.Is) by every error Probe returns: rr
// cannot record or replay on this machine.
var ErrUnavailable = errors.New("rr unavailable")

// Probe checks names for ProbeError.Check, in the order Probe runs them.
const (
	CheckPath     = "path"     // rr is on PATH
	CheckPMU      = "pmu"      // a hardware PMU is exposed
	CheckParanoid = "paranoid" // perf_event_paranoid <= 1, or root
	CheckRecord   = "record"   // `rr record -n /bin/true` succeeds
)

// ProbeError says which check of Probe failed and why. It matches
// ErrUnavailable.
type ProbeError struct {
	Check  string // one of the Check* constants
	Detail string // what was found, and how to fix it
	Output string // rr's own message (the last lines it printed), if rr ran
}

func (e *ProbeError) Error() string {
	s := "rr unavailable (" + e.Check + " check): " + e.Detail
	if e.Output != "" {
		s += ": " + e.Output
	}
	return s
}

// Is reports whether target is ErrUnavailable.
func (e *ProbeError) Is(target error) bool { return target == ErrUnavailable }

// probeEnv is what Probe looks at; tests point it elsewhere.
type probeEnv struct {
	rrPath       string // "" = look up "rr" on PATH
	devicesDir   string // /sys/bus/event_source/devices
	paranoidFile string // /proc/sys/kernel/perf_event_paranoid
	euid         int
}

func defaultProbeEnv() probeEnv {
	return probeEnv{
		devicesDir:   "/sys/bus/event_source/devices",
		paranoidFile: "/proc/sys/kernel/perf_event_paranoid",
		euid:         os.Geteuid(),
	}
}

// Probe decides whether rr works here. In order: rr is on PATH; the kernel
// exposes a hardware PMU (a cpu, cpu_core or cpu_atom entry under
// /sys/bus/event_source/devices); kernel.perf_event_paranoid is <= 1 (or we
// are root); and `rr record -n /bin/true` into a temporary trace directory
// succeeds. The returned *ProbeError names the first check that failed and
// carries rr's message.
func Probe(ctx context.Context) error {
	return probe(ctx, defaultProbeEnv())
}

func probe(ctx context.Context, env probeEnv) error {
	rr := env.rrPath
	if rr == "" {
		p, err := exec.LookPath("rr")
		if err != nil {
			return &ProbeError{Check: CheckPath, Detail: "rr is not on PATH (apt-get install rr)"}
		}
		rr = p
	}
	if !hasPMU(env.devicesDir) {
		return &ProbeError{Check: CheckPMU, Detail: "no hardware PMU: " + env.devicesDir +
			" has no cpu, cpu_core or cpu_atom entry; rr needs CPU performance counters, which this machine (often a VM or container) does not expose"}
	}
	if b, err := os.ReadFile(env.paranoidFile); err == nil && env.euid != 0 {
		v, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && v > 1 {
			return &ProbeError{Check: CheckParanoid, Detail: fmt.Sprintf(
				"kernel.perf_event_paranoid is %d; rr needs <= 1 (sudo sysctl kernel.perf_event_paranoid=1)", v)}
		}
	}
	dir, err := os.MkdirTemp("", "rrmcp-probe-")
	if err != nil {
		return fmt.Errorf("rr probe: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// The same launch as every recording (Record: rr's failures
	// diagnosed, an unknown CPU retried with its family).
	res, err := Record(ctx, RecordOptions{Argv: []string{"/bin/true"}, RR: rr, TraceDir: filepath.Join(dir, "t")})
	if err != nil {
		if f, ok := AsFailure(err); ok {
			return &ProbeError{Check: CheckRecord, Detail: f.Error()}
		}
		return &ProbeError{Check: CheckRecord, Detail: fmt.Sprintf("rr record /bin/true: %v", err), Output: lastLines(res.Output, 3)}
	}
	return nil
}

func hasPMU(devicesDir string) bool {
	for _, d := range []string{"cpu", "cpu_core", "cpu_atom"} {
		if _, err := os.Stat(filepath.Join(devicesDir, d)); err == nil {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
