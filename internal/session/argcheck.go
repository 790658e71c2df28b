package session

import (
	"fmt"
	"path/filepath"

	"github.com/rrmcp/rrmcp/internal/rr"
)

// checkHaveRecording is rr_replay_start without trace_dir: it needs the
// latest recording, which must exist before rr is run.
func checkHaveRecording() error {
	root := rr.TraceRoot()
	if rr.IsTraceDir(filepath.Join(root, "latest-trace")) {
		return nil
	}
	return argErrorf("trace_dir", "%s", fmt.Sprintf("there are no recordings in %s (no latest-trace); record one with rr_record, or give trace_dir (rr_list_recordings shows what exists)", root))
}
