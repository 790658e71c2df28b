package hwdebug_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/hwdebug"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// The probe's verdict agrees with GDB, the oracle: native GDB's `watch`
// on the same stack word of the same program fires exactly when the
// debug registers work. On a machine where they fire this proves the
// "fires" verdict, on one where they do not (AMD Zen 5 VMs) the other.
func TestProbeAgreesWithGDB(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	gdb := testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	v := hwdebug.Probe(ctx)
	t.Logf("verdict: %+v", v)
	if !v.Ran {
		t.Fatalf("probe did not run: %s", v.Reason)
	}
	prog, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, gdb, "-nx", "-batch", "-ex", "starti",
		"-ex", `eval "watch *(long*)0x%lx", ((long)$rsp-8)&~7`, "-ex", "continue", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	gdbFires := strings.Contains(string(out), "Hardware watchpoint 1: ") && strings.Contains(string(out), "New value")
	if !strings.Contains(string(out), "Hardware watchpoint 1: ") {
		t.Fatalf("gdb did not set a hardware watchpoint:\n%s", out)
	}
	if v.Watch != gdbFires {
		t.Fatalf("probe says hardware watchpoints fire = %v, GDB's watch fired = %v:\n%s", v.Watch, gdbFires, out)
	}
	if v.Watch {
		t.Logf("proved: hardware watchpoints fire here (the probe and GDB agree)")
	} else {
		t.Logf("proved: hardware watchpoints do not fire here (the probe and GDB agree)")
	}
}

func TestOff(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"RRMCP_HW_WATCHPOINTS=off"}, true},
		{[]string{"RRMCP_HW_WATCHPOINTS=0"}, true},
		{[]string{"RRMCP_HW_WATCHPOINTS=on"}, false},
		{[]string{"RRMCP_HW_WATCHPOINTS=off", "RRMCP_HW_WATCHPOINTS=on"}, false},
		{[]string{"X_RRMCP_HW_WATCHPOINTS=off"}, false},
	} {
		if got := hwdebug.Off(tc.env); got != tc.want {
			t.Errorf("Off(%q) = %v, want %v", tc.env, got, tc.want)
		}
	}
	var c hwdebug.Cache
	if v, ok := c.Known(nil); ok {
		t.Errorf("a verdict before the probe began: %+v", v)
	}
	v := c.Get(t.Context(), []string{"RRMCP_HW_WATCHPOINTS=off"})
	if k, ok := c.Known([]string{"RRMCP_HW_WATCHPOINTS=off"}); !ok || k != v {
		t.Errorf("Known after Get: %+v %v, want %+v", k, ok, v)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	var fresh hwdebug.Cache
	if w := fresh.Get(done, nil); w.UseHardwareWatch() || w.Ran {
		t.Errorf("Get with no time to wait: %+v, want software watchpoints until the probe finishes", w)
	}
	if v.UseHardwareWatch() || !v.Forced || !strings.Contains(v.Reason, "turned off") {
		t.Errorf("forced off: %+v", v)
	}
}

// The AVX-512 register probe's verdict agrees with GDB's own gdbserver
// session on the same program, the oracle: GDB stops at the same
// breakpoint and continues, and the program's exit code says whether
// ymm16 and ymm19 came back unchanged. Run natively, the program exits
// 0, so a 1 under gdbserver is gdbserver's doing.
func TestZMMProbeAgreesWithGDB(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	gdb := testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	v := hwdebug.ProbeZMM(ctx)
	t.Logf("verdict: %+v", v)
	if v.AVX512 && !v.Ran {
		t.Fatalf("probe did not run: %s", v.Reason)
	}
	prog, err := hwdebug.ZMMProbeProgram(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !v.AVX512 {
		// The program would die of SIGILL: nothing to compare.
		if err := exec.CommandContext(ctx, prog).Run(); err == nil {
			t.Fatalf("the probe program ran on a processor the verdict says has no AVX-512")
		}
		t.Logf("proved: no AVX-512 on this processor, so no probe (the probe program does not run here)")
		return
	}
	if out, err := exec.CommandContext(ctx, prog).CombinedOutput(); err != nil {
		t.Fatalf("the probe program, run natively: %v %s", err, out)
	}
	out, err := exec.CommandContext(ctx, gdb, "-nx", "-batch",
		"-ex", "target extended-remote | gdbserver --once - "+prog,
		"-ex", fmt.Sprintf("break *%#x", hwdebug.ZMMProbeStop), "-ex", "continue", "-ex", "continue").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Breakpoint 1, ") {
		t.Fatalf("gdb did not stop at the probe's breakpoint:\n%s", out)
	}
	gdbClobbered := strings.Contains(string(out), "exited with code 01")
	if !gdbClobbered && !strings.Contains(string(out), "exited normally") {
		t.Fatalf("the probe program did not exit under gdb:\n%s", out)
	}
	if v.Clobbered != gdbClobbered {
		t.Fatalf("probe says gdbserver clobbers zmm16-19 = %v, under GDB's gdbserver session = %v:\n%s", v.Clobbered, gdbClobbered, out)
	}
	if v.Clobbered {
		t.Logf("proved: gdbserver overwrites zmm16-zmm19 at a stop on this processor (the probe and GDB agree)")
	} else {
		t.Logf("proved: gdbserver keeps zmm16-zmm19 across a stop on this processor (the probe and GDB agree)")
	}
}
