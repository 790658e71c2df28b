package hwdebug_test

import (
	"context"
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
	if strings.Contains(v.Reason, "could not run") {
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
	if w := fresh.Get(done, nil); w.UseHardwareWatch() || !strings.Contains(w.Reason, "has not finished") {
		t.Errorf("Get with no time to wait: %+v, want software watchpoints until the probe finishes", w)
	}
	if v.UseHardwareWatch() || !v.Forced || !strings.Contains(v.Reason, "turned off") {
		t.Errorf("forced off: %+v", v)
	}
}
