package rr

import (
	"errors"
	"fmt"
	"github.com/rrmcp/rrmcp/internal/errkind"
	"regexp"
	"strconv"
	"strings"
)

// Failure is an rr failure a user can meet, read from rr's own message:
// what went wrong and how to fix it. It matches ErrUnavailable.
type Failure struct {
	Cause string // what is wrong, in one clause
	Fix   string // what to do about it
	Said  string // rr's own line, as printed
	// Microarch, when set, is the microarchitecture to force with rr's
	// -A/--microarch: rr does not know this CPU but supports its family.
	Microarch string
}

func (f *Failure) Error() string {
	s := f.Cause + "; " + f.Fix
	if f.Said != "" {
		s += " (rr said: " + f.Said + ")"
	}
	return s
}

// Is reports whether target is ErrUnavailable or errkind.Unsupported: rr
// cannot do its work on this machine as it is.
func (f *Failure) Is(target error) bool {
	return target == ErrUnavailable || target == errkind.Unsupported
}

// ErrNotInstalled is the Failure for an rr that is not on PATH.
var ErrNotInstalled = &Failure{Cause: "rr is not installed (not on PATH)",
	Fix: "install it (apt-get install rr; rr 5.9 or newer for recent CPUs) or debug without a recording with rr_live_start"}

// noPMUFix is the advice for a machine without usable performance counters.
const noPMUFix = "rr needs hardware performance counters: run on bare metal or in a VM with a virtual PMU " +
	"(KVM/QEMU -cpu host, VMware \"virtualize CPU performance counters\"); in a container also allow " +
	"perf_event_open (--cap-add=SYS_PTRACE --cap-add=PERFMON --security-opt seccomp=unconfined). " +
	"Without them, debug without a recording with rr_live_start"

// diagnosis is one rule: a pattern on one of rr's lines (quoted from rr's
// source, file named) and the Failure it means.
type diagnosis struct {
	re   *regexp.Regexp
	make func(m []string) Failure
}

var diagnoses = []diagnosis{
	// Any FATAL with errno ENOSPC (src/log.cc write_prefix: "[FATAL file:line:function() errno: ENOSPC] ..."),
	// e.g. src/util.cc write_all: "Can't write " << size << " bytes".
	{regexp.MustCompile(`errno: ENOSPC|No space left on device`), func([]string) Failure {
		return Failure{Cause: "the disk holding the trace directory is full",
			Fix: "free space (rr_rm old recordings, `rr ls` lists them) or record to another disk with trace_dir"}
	}},
	// Any FATAL with errno EDQUOT: a quota, as full as a full disk.
	{regexp.MustCompile(`errno: EDQUOT|Disk quota exceeded`), func([]string) Failure {
		return Failure{Cause: "the disk quota for the trace directory is used up",
			Fix: "free space (rr_rm old recordings) or record to another disk with trace_dir"}
	}},
	// src/PerfCounters_x86.h compute_cpu_microarch:
	// CLEAN_FATAL() << "AMD CPU type " << HEX(cpu_type) << " (ext family " << HEX(ext_family) << ") unknown";
	{regexp.MustCompile(`AMD CPU type (0x[0-9a-fA-F]+) \(ext family (0x[0-9a-fA-F]+)\) unknown`), func(m []string) Failure {
		ext, _ := strconv.ParseUint(strings.TrimPrefix(m[2], "0x"), 16, 8)
		gen, ok := zenGeneration[ext]
		if !ok {
			return Failure{Cause: fmt.Sprintf("this rr does not know this AMD CPU (type %s, family %#xh)", m[1], 0xf+ext),
				Fix: "install a newer rr (rr 5.9.0, in Debian 13, knows AMD Zen 1 to 5; rr's master branch knows the newest models) or debug without a recording with rr_live_start"}
		}
		return Failure{Cause: fmt.Sprintf("this rr does not know this AMD CPU (type %s, family %#xh: %s; rr 5.6 predates Zen 2 to 5)", m[1], 0xf+ext, gen),
			Fix: "rr can be told the CPU's family with -A 'AMD Zen' (all Zen cores count with the same event); a newer rr (rr 5.9.0, in Debian 13) knows it", Microarch: "AMD Zen"}
	}},
	// src/PerfCounters_x86.h: CLEAN_FATAL() << "Intel CPU type " << HEX(cpu_type) << " unknown";
	{regexp.MustCompile(`Intel CPU type (0x[0-9a-fA-F]+) unknown`), func(m []string) Failure {
		return Failure{Cause: fmt.Sprintf("this rr does not know this Intel CPU (type %s)", m[1]),
			Fix: "install a newer rr (rr 5.9.0, in Debian 13, knows Intel CPUs up to Arrow Lake and Lunar Lake) or debug without a recording with rr_live_start"}
	}},
	// src/PerfCounters_x86.h: CLEAN_FATAL() << "Unknown CPU vendor '" << vendor << "'";
	{regexp.MustCompile(`Unknown CPU vendor '([^']*)'`), func(m []string) Failure {
		return Failure{Cause: fmt.Sprintf("rr does not support CPUs of vendor %q (only Intel and AMD on x86)", m[1]),
			Fix: "record on an Intel or AMD machine, or debug without a recording with rr_live_start"}
	}},
	// src/PerfCounters.cc: "Forced uarch " << Flags::get().forced_uarch << " isn't known."
	{regexp.MustCompile(`Forced uarch (.*) isn't known`), func(m []string) Failure {
		return Failure{Cause: fmt.Sprintf("this rr does not know the microarchitecture %s either", m[1]),
			Fix: "install a newer rr (rr 5.9.0, in Debian 13) or debug without a recording with rr_live_start"}
	}},
	// src/PerfCounters.cc start_counter, EACCES: "rr needs /proc/sys/kernel/perf_event_paranoid <= 3, but it is " << value
	{regexp.MustCompile(`perf_event_paranoid <= (\d+), but it is (-?\d+)`), func(m []string) Failure {
		return Failure{Cause: fmt.Sprintf("kernel.perf_event_paranoid is %s, too high for rr", m[2]),
			Fix: fmt.Sprintf("run `sudo sysctl kernel.perf_event_paranoid=1` (rr needs <= %s; put it in /etc/sysctl.d/10-rr.conf to keep it)", m[1])}
	}},
	// src/PerfCounters.cc start_counter, EPERM: "Permission denied to use 'perf_event_open'; are hardware perf events available?"
	{regexp.MustCompile(`Permission denied to use 'perf_event_open'`), func([]string) Failure {
		return Failure{Cause: "the kernel refused rr's performance counters (perf_event_open: permission denied: a container's seccomp policy, a missing CAP_PERFMON, or kernel.perf_event_paranoid)",
			Fix: "run `sudo sysctl kernel.perf_event_paranoid=1`; in Docker start the container with --cap-add=SYS_PTRACE --cap-add=PERFMON --security-opt seccomp=unconfined; " + noPMUFix}
	}},
	// src/PerfCounters.cc start_counter, ENOENT: "Unable to open performance counter with 'perf_event_open'; are hardware perf events available?"
	{regexp.MustCompile(`Unable to open performance counter with 'perf_event_open'`), func([]string) Failure {
		return Failure{Cause: "this machine exposes no hardware performance counters (perf_event_open found no PMU: typical of VMs and containers)", Fix: noPMUFix}
	}},
	// src/PerfCounters.cc: FATAL() << "Failed to initialize counter"
	{regexp.MustCompile(`Failed to initialize counter`), func([]string) Failure {
		return Failure{Cause: "rr could not start a hardware performance counter", Fix: noPMUFix}
	}},
	// src/PerfCounters_x86.h check_for_zen_speclockmap: "On Zen CPUs, rr will not work reliably unless you disable the hardware SpecLockMap optimization."
	{regexp.MustCompile(`disable the hardware SpecLockMap optimization`), func([]string) Failure {
		return Failure{Cause: "the AMD Zen SpecLockMap optimization is on, and rr does not work reliably with it",
			Fix: "apply rr's Zen workaround as root (scripts/zen_workaround.py from rr's source, see https://github.com/rr-debugger/rr/wiki/Zen), then record again"}
	}},
	// src/PerfCounters_x86.h check_for_freeze_on_smi: "Freezing performance counters on SMIs should be enabled ..."
	{regexp.MustCompile(`Freezing performance counters on SMIs should be enabled`), func([]string) Failure {
		return Failure{Cause: "the CPU's counters are not frozen during SMIs, which rr needs on Comet Lake and later",
			Fix: "run `echo 1 | sudo tee /sys/devices/cpu/freeze_on_smi`, then record again"}
	}},
	// src/PerfCounters_x86.h check_for_xen_pmi_bug: "Overcount triggered by PMU interrupts detected due to Xen PMU virtualization bug."
	{regexp.MustCompile(`Xen PMU virtualization bug`), func([]string) Failure {
		return Failure{Cause: "this Xen VM's virtual PMU overcounts (a Xen bug rr cannot work around)",
			Fix: "record on another machine (bare metal or KVM), or debug without a recording with rr_live_start"}
	}},
	// src/Task.cc spawn: FATAL() << "PTRACE_SEIZE failed for tid " << tid << hint;
	{regexp.MustCompile(`PTRACE_SEIZE failed|ptrace\(.*\) failed|Operation not permitted.*ptrace|ptrace.*EPERM`), func([]string) Failure {
		return Failure{Cause: "the kernel refused ptrace, which rr needs (Yama kernel.yama.ptrace_scope = 3, or a container's seccomp policy)",
			Fix: "run `sudo sysctl kernel.yama.ptrace_scope=1` (3 cannot be lowered without a reboot); in Docker start the container with --cap-add=SYS_PTRACE --security-opt seccomp=unconfined"}
	}},
	// src/TraceStream.cc make_trace_dir: "Permission denied to create trace directory `" << dir << "'"
	// and "Unable to create trace directory `" << dir << "'"; src/util.cc ensure_dir:
	// "Can't write to " << dir_type << " `" << dir << "'." and "Can't create " << dir_type << " `" << dir << "'"
	{regexp.MustCompile("(?:Permission denied to create|Unable to create) trace directory `([^']*)'|Can't (?:write to|create) (trace directory|temporary file directory[^`]*) `([^']*)'"), func(m []string) Failure {
		dir := m[1] + m[3]
		if strings.HasPrefix(m[2], "temporary") {
			return Failure{Cause: fmt.Sprintf("rr cannot write its temporary directory %s", dir),
				Fix: "make it writable or point TMPDIR (or RR_TMPDIR) at a writable directory"}
		}
		return Failure{Cause: fmt.Sprintf("rr cannot create or write the trace directory %s", dir),
			Fix: "pass a trace_dir in a writable directory, or set _RR_TRACE_DIR to one"}
	}},
	// src/TraceStream.cc make_trace_dir: "Trace directory `" << dir << "' already exists."
	{regexp.MustCompile("Trace directory `([^']*)' already exists"), func(m []string) Failure {
		return Failure{Cause: fmt.Sprintf("the trace directory %s already exists", m[1]),
			Fix: "pass a new trace_dir, or remove the old recording with rr_rm"}
	}},
}

// zenGeneration names the Zen cores of each AMD extended family rr's -A
// 'AMD Zen' can stand in for (src/PerfCounters.cc pmu_configs: every Zen
// counts retired conditional branches with the same event, 0x5100d1).
var zenGeneration = map[uint64]string{
	0x8: "Zen, Zen+ or Zen 2",
	0xa: "Zen 3 or Zen 4",
	0xb: "Zen 5",
}

// Diagnose reads rr's output (stderr and stdout, any number of lines) and
// returns the Failure its fatal message means, or nil when it has none rrmcp
// knows. Only rr's own fatal lines ("[FATAL file:line:function()] ...",
// src/log.cc write_prefix) are read, never the recorded program's output.
// Rules are tried in order; the first that matches a line wins.
func Diagnose(output string) *Failure {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if i := strings.Index(l, "[FATAL "); i >= 0 {
			lines = append(lines, l[i:])
		}
	}
	for _, d := range diagnoses {
		for _, l := range lines {
			if m := d.re.FindStringSubmatch(l); m != nil {
				f := d.make(m)
				f.Said = strings.TrimSpace(l)
				return &f
			}
		}
	}
	return nil
}

// AsFailure returns err's Failure, if it has one.
func AsFailure(err error) (*Failure, bool) {
	var f *Failure
	ok := errors.As(err, &f)
	return f, ok
}

// Explain is the tool error for f: one sentence with the cause and the
// fix, rr's own line, and the way on without rr. what is "record" or
// "replay". It matches errkind.Unsupported and ErrUnavailable, and
// errors.As finds f in it.
func (f *Failure) Explain(what string) error {
	msg := fmt.Sprintf("rr could not %s: %s", what, f.Cause)
	msg += "; fix: " + f.Fix
	if !strings.Contains(f.Fix, "rr_live_start") {
		msg += "; to debug without a recording use rr_live_start"
	}
	if f.Said != "" {
		msg += " (rr said: " + f.Said + ")"
	}
	return fmt.Errorf("%s: %w", msg, &failureErr{f: f})
}

// failureErr carries f and errkind.Unsupported for errors.Is/As; its text
// is the kind's, which the tool layer cuts from messages.
type failureErr struct{ f *Failure }

func (e *failureErr) Error() string { return errkind.Unsupported.Error() }
func (e *failureErr) Unwrap() []error {
	return []error{errkind.Unsupported, e.f}
}
