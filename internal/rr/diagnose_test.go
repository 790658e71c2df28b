package rr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every rr failure a user can meet, as rr prints it (each line is rr's
// wording from the source file named; "captured" rows were printed by a
// real rr), maps to a Failure naming the cause and the fix.
func TestDiagnose(t *testing.T) {
	for _, tc := range []struct {
		name      string
		out       string
		cause     string
		fix       string
		microarch string
	}{
		{"unknown AMD Zen 5 (captured: rr 5.6 on an AMD EPYC Zen 5 VM; src/PerfCounters_x86.h)",
			"[FATAL ./src/PerfCounters_x86.h:114:compute_cpu_microarch()] AMD CPU type 0xf20 (ext family 0xb) unknown",
			"family 0x1ah: Zen 5", "-A 'AMD Zen'", "AMD Zen"},
		{"unknown AMD Zen 3 (src/PerfCounters_x86.h)",
			"[FATAL ./src/PerfCounters_x86.h:114:compute_cpu_microarch()] AMD CPU type 0x20f10 (ext family 0xa) unknown",
			"Zen 3 or Zen 4", "rr 5.9.0", "AMD Zen"},
		{"unknown AMD family rr cannot force (src/PerfCounters_x86.h)",
			"[FATAL ./src/PerfCounters_x86.h:114:compute_cpu_microarch()] AMD CPU type 0x10f00 (ext family 0x1) unknown",
			"does not know this AMD CPU", "install a newer rr", ""},
		{"unknown Intel (src/PerfCounters_x86.h)",
			"[FATAL ./src/PerfCounters_x86.h:120:compute_cpu_microarch()] Intel CPU type 0xd06d0 unknown",
			"Intel CPU (type 0xd06d0)", "install a newer rr", ""},
		{"unknown vendor (src/PerfCounters_x86.h)",
			"[FATAL ./src/PerfCounters_x86.h:20:compute_cpu_microarch()] Unknown CPU vendor 'HygonGenuine'",
			`vendor "HygonGenuine"`, "rr_live_start", ""},
		{"forced uarch unknown (captured: rr 5.6 -A Nope; src/PerfCounters.cc)",
			"[FATAL ./src/PerfCounters.cc:421:get_cpu_microarchs()] Forced uarch Nope isn't known.",
			"microarchitecture Nope", "newer rr", ""},
		{"no PMU (captured: rr 5.6 on this Intel Xeon VM; src/PerfCounters.cc start_counter ENOENT)",
			"[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available? See https://github.com/rr-debugger/rr/wiki/Will-rr-work-on-my-system",
			"no hardware performance counters", "virtual PMU", ""},
		{"perf_event_open forbidden (src/PerfCounters.cc start_counter EPERM)",
			"[FATAL ./src/PerfCounters.cc:299:start_counter() errno: EPERM] Permission denied to use 'perf_event_open'; are hardware perf events available? See https://github.com/rr-debugger/rr/wiki/Will-rr-work-on-my-system",
			"refused rr's performance counters", "seccomp=unconfined", ""},
		{"perf_event_paranoid (src/PerfCounters.cc start_counter EACCES)",
			"[FATAL ./src/PerfCounters.cc:290:start_counter() errno: EACCES] rr needs /proc/sys/kernel/perf_event_paranoid <= 3, but it is 4.\nChange it to <= 3.\nConsider putting 'kernel.perf_event_paranoid = 3' in /etc/sysctl.d/10-rr.conf.",
			"perf_event_paranoid is 4", "sysctl kernel.perf_event_paranoid=1", ""},
		{"Zen SpecLockMap (src/PerfCounters_x86.h check_for_zen_speclockmap)",
			"[FATAL ./src/PerfCounters_x86.h:230:check_for_zen_speclockmap()] On Zen CPUs, rr will not work reliably unless you disable the hardware SpecLockMap optimization.\nFor instructions on how to do this, see https://github.com/rr-debugger/rr/wiki/Zen",
			"SpecLockMap", "zen_workaround.py", ""},
		{"freeze_on_smi (src/PerfCounters_x86.h check_for_freeze_on_smi)",
			"[FATAL ./src/PerfCounters_x86.h:270:check_for_freeze_on_smi()] Freezing performance counters on SMIs should be enabled for maximum rr\nreliability on Comet Lake and later CPUs.",
			"SMIs", "/sys/devices/cpu/freeze_on_smi", ""},
		{"Xen PMI bug (src/PerfCounters_x86.h check_for_xen_pmi_bug)",
			"[FATAL ./src/PerfCounters_x86.h:200:check_for_xen_pmi_bug()] Overcount triggered by PMU interrupts detected due to Xen PMU virtualization bug.\nAborting. Retry with -F to override, but it will probably\nfail.",
			"Xen", "another machine", ""},
		{"ptrace forbidden (src/Task.cc spawn)",
			"[FATAL ./src/Task.cc:3898:spawn() errno: EPERM] PTRACE_SEIZE failed for tid 4242; child probably died before reaching SIGSTOP\nChild's message: ",
			"refused ptrace", "--cap-add=SYS_PTRACE --security-opt seccomp=unconfined", ""},
		{"trace dir not creatable (captured: rr 5.6 with _RR_TRACE_DIR=/proc/nope; src/util.cc ensure_dir)",
			"[FATAL ./src/util.cc:1788:ensure_dir() errno: ENOENT] Can't create trace directory `/proc/nope'\n=== Start rr backtrace:\nrr(_ZN2rr13dump_rr_stackEv+0x41)[0x565022afb511]",
			"trace directory /proc/nope", "writable", ""},
		{"trace dir not writable (src/util.cc ensure_dir)",
			"[FATAL ./src/util.cc:1861:ensure_dir()] Can't write to trace directory `/home/u/.local/share/rr'.",
			"/home/u/.local/share/rr", "_RR_TRACE_DIR", ""},
		{"-o not writable (src/TraceStream.cc make_trace_dir EACCES)",
			"[FATAL ./src/TraceStream.cc:1334:make_trace_dir() errno: EACCES] Permission denied to create trace directory `/root/t'",
			"trace directory /root/t", "trace_dir", ""},
		{"temporary dir (src/util.cc tmp_dir via ensure_dir)",
			"[FATAL ./src/util.cc:1861:ensure_dir()] Can't write to temporary file directory (TMPDIR) `/ro'.",
			"temporary directory /ro", "TMPDIR", ""},
		{"disk full (src/util.cc write_all, errno from src/log.cc write_prefix)",
			"[FATAL ./src/util.cc:2279:write_all() errno: ENOSPC] Can't write 4096 bytes",
			"disk holding the trace directory is full", "free space", ""},
		{"disk full while creating the trace dir",
			"[FATAL ./src/util.cc:1849:ensure_dir() errno: ENOSPC] Can't create trace directory `/full/rr'",
			"full", "another disk", ""},
		{"quota (src/util.cc write_all)",
			"[FATAL ./src/util.cc:2279:write_all() errno: EDQUOT] Can't write 512 bytes",
			"quota", "free space", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Diagnose("program output\n" + tc.out + "\n")
			if f == nil {
				t.Fatalf("no diagnosis for %q", tc.out)
			}
			if !strings.Contains(f.Cause, tc.cause) || !strings.Contains(f.Fix, tc.fix) || f.Microarch != tc.microarch {
				t.Errorf("Diagnose = cause %q, fix %q, microarch %q; want cause ~%q, fix ~%q, microarch %q", f.Cause, f.Fix, f.Microarch, tc.cause, tc.fix, tc.microarch)
			}
			if !strings.HasPrefix(f.Said, "[FATAL") || !errors.Is(f, ErrUnavailable) {
				t.Errorf("Said %q, Is(ErrUnavailable) %v", f.Said, errors.Is(f, ErrUnavailable))
			}
		})
	}
	// The recorded program's output is never read as rr's.
	if f := Diagnose("Unable to open performance counter with 'perf_event_open'\nerrno: ENOSPC"); f != nil {
		t.Errorf("program output diagnosed as %v", f)
	}
}

// An rr that does not know the CPU is retried once with rr -A and its
// family; the error then tells both stories. The fake rr prints rr 5.6's
// captured lines (src/PerfCounters_x86.h, src/PerfCounters.cc) and logs
// its arguments.
func TestRecordRetriesUnknownCPU(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "args")
	fake := filepath.Join(dir, "rr")
	script := `#!/bin/sh
echo "$@" >> ` + log + `
if [ "$1" = "-A" ]; then
  echo "[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available?" >&2
else
  echo "[FATAL ./src/PerfCounters_x86.h:114:compute_cpu_microarch()] AMD CPU type 0xf20 (ext family 0xb) unknown" >&2
fi
exit 1
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := Record(ctx, RecordOptions{Argv: []string{"/bin/true"}, RR: fake})
	f, ok := AsFailure(err)
	if !ok {
		t.Fatalf("err = %v, want a Failure", err)
	}
	if !strings.Contains(f.Cause, "Zen 5") || !strings.Contains(f.Cause, "with rr -A 'AMD Zen'") ||
		!strings.Contains(f.Cause, "no hardware performance counters") {
		t.Errorf("cause = %q", f.Cause)
	}
	b, _ := os.ReadFile(log)
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(calls) != 2 || !strings.HasPrefix(calls[0], "record ") || !strings.HasPrefix(calls[1], "-A AMD Zen record ") {
		t.Errorf("rr was run as %q, want a plain run and one with -A 'AMD Zen'", calls)
	}
}
