package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Bounds of numeric arguments not bounded where they are checked.
const (
	maxPID           = 1 << 22 // Linux's PID_MAX_LIMIT
	maxRecordSeconds = 7 * 24 * 3600
)

const (
	echoLimit = 120     // an argument longer than this is cut where an error echoes it
	msgLimit  = 8 << 10 // a tool error message is cut to this
)

// clipEchoes cuts every long string argument that msg repeats to a short
// prefix saying how long it was, and msg itself to msgLimit: an error never
// echoes a whole (possibly huge) input.
func clipEchoes(msg string, raw json.RawMessage) string {
	var args any
	json.Unmarshal(raw, &args) //nolint:errcheck // nothing to clip in what does not decode
	var long []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) > echoLimit {
				long = append(long, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(args)
	for _, s := range long {
		if strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, errkind.Shorten(s, echoLimit/2))
		}
		// Quoted forms (%q) of the argument.
		if q := fmt.Sprintf("%q", s); strings.Contains(msg, q) {
			msg = strings.ReplaceAll(msg, q, fmt.Sprintf("%q", errkind.Shorten(s, echoLimit/2)))
		}
	}
	return errkind.Shorten(msg, msgLimit)
}
