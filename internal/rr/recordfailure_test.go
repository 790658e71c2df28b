package rr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Traces.Record turns each rr failure into one tool error: "rr could not
// record: CAUSE; fix: FIX ... (rr said: LINE)", matching
// errkind.Unsupported and carrying the *Failure. The fake rr on PATH
// prints rr's own fatal line (wording from the rr source file each row
// names; TestDiagnose covers every cause).
func TestRecordFailureErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string // "" = no rr on PATH
		want []string
	}{
		{"not installed", "", []string{"rr could not record: rr is not installed", "apt-get install rr", "rr_live_start"}},
		{"no PMU (src/PerfCounters.cc)", "[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available?",
			[]string{"rr could not record: this machine exposes no hardware performance counters", "fix: ", "virtual PMU", "rr_live_start", "(rr said: [FATAL"}},
		{"paranoid (src/PerfCounters.cc)", "[FATAL ./src/PerfCounters.cc:290:start_counter() errno: EACCES] rr needs /proc/sys/kernel/perf_event_paranoid <= 3, but it is 4.",
			[]string{"perf_event_paranoid is 4", "sudo sysctl kernel.perf_event_paranoid=1", "rr_live_start"}},
		{"disk full (src/util.cc)", "[FATAL ./src/util.cc:2279:write_all() errno: ENOSPC] Can't write 4096 bytes",
			[]string{"disk holding the trace directory is full", "free space"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			if tc.line != "" {
				script := "#!/bin/sh\ncat >&2 <<'EOF'\n" + tc.line + "\nEOF\nexit 1\n"
				if err := os.WriteFile(filepath.Join(bin, "rr"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin+":/usr/bin:/bin")
			if tc.line == "" {
				t.Setenv("PATH", bin)
			}
			_, err := Traces{}.Record(t.Context(), RecordRequest{Command: []string{"/bin/true"}})
			if err == nil {
				t.Fatal("Record succeeded")
			}
			if !errors.Is(err, errkind.Unsupported) || !errors.Is(err, ErrUnavailable) {
				t.Errorf("error %v: Is(errkind.Unsupported) %v, Is(ErrUnavailable) %v", err, errors.Is(err, errkind.Unsupported), errors.Is(err, ErrUnavailable))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
