package tools_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rrmcp/rrmcp/tools"
)

// TestServerTiming checks Options.Timing (RRMCP_DEBUG_TIMING): with it each
// tool result, success or tool error, carries the server time in _meta
// beside what mcp-go puts there; without it the key is absent. Only presence and sign are checked, never
// a duration.
func TestServerTiming(t *testing.T) {
	for _, tc := range []struct {
		name   string
		timing bool
		tool   string
	}{
		{"on, success", true, "rr_session_list"},
		{"on, tool error", true, "rr_backtrace"}, // no session
		{"off", false, "rr_session_list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := inProcessOpts(t, tools.Options{Timing: tc.timing}, mcp.LATEST_PROTOCOL_VERSION)
			var req mcp.CallToolRequest
			req.Params.Name = tc.tool
			res, err := c.CallTool(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if res.Meta != nil {
				v = res.Meta.AdditionalFields[tools.ServerTimeMetaKey]
			}
			ms, ok := v.(float64)
			switch {
			case tc.timing && (!ok || ms < 0):
				t.Errorf("_meta %s = %#v, want a non-negative number", tools.ServerTimeMetaKey, v)
			case !tc.timing && v != nil:
				t.Errorf("_meta %s = %#v without Timing", tools.ServerTimeMetaKey, v)
			}
		})
	}
}
