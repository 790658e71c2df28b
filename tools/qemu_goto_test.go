package tools_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestQEMUReverseGotoTool: through a stdio MCP client, on the test kernel's
// QEMU replay: rr_last_write names the planted writer with its icount, and
// rr_goto with that icount puts the session on the writing instruction
// (kernel.c's PLANTED-WRITE line, slot still 7). QEMU 10's replay now and
// then deadlocks in a reverse seek (docs/peers.md §2.5): such an attempt
// runs again on a fresh replay, and two of them are a skip that make test
// lists, never a pass.
func TestQEMUReverseGotoTool(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	defer cancel()
	kernel, rec := testenv.KernelRecording(t, ctx, t.TempDir())
	line := func(marker string) int { return testenv.KernelLine(t, marker) }
	var hangs []string
	for attempt := 1; attempt <= 2; attempt++ {
		hung := func() string {
			rep, err := qemu.StartReplay(ctx, rec.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer rep.Kill()
			// A reverse search that QEMU never finishes ends by the time
			// limit (or the interrupt finds QEMU dead) instead of the call's.
			c := startServer(t, "RR_MCP_TIMEOUT_REVERSE=15")
			defer c.c.Close()
			c.ok("rr_connect", args{"address": rep.Addr(), "program": kernel})
			c.ok("rr_breakpoint_set", args{"location": fmt.Sprintf("kernel.c:%d", line("sum += slot - 0xdead"))})
			c.ok("rr_continue", nil, "breakpoint")
			c.ok("rr_breakpoint_remove", args{"breakpoint_number": 1})
			lw := c.call("rr_last_write", args{"expression": "slot"})
			if lw.isErr || strings.Contains(lw.text, "Interrupted") {
				return lw.text
			}
			res, _ := lw.data["result"].(map[string]any)
			ws, _ := res["writers"].([]any)
			if len(ws) != 1 {
				t.Fatalf("rr_last_write: %v", lw.data)
			}
			icount, _ := ws[0].(map[string]any)["icount"].(float64)
			if icount <= 0 {
				t.Fatalf("writer without icount: %v", ws[0])
			}
			g := c.ok("rr_goto", args{"icount": int64(icount)}, "goto", fmt.Sprintf("kernel.c:%d", line("slot = v; /* PLANTED-WRITE */")))
			if st, _ := g.data["stop"].(map[string]any); st["icount"] != icount {
				t.Errorf("rr_goto's stop: %v, want icount %v", g.data, icount)
			}
			c.ok("rr_evaluate", args{"expression": "slot"}, "7")
			c.fails("rr_goto", args{"event": 3}, "not rr")
			return ""
		}()
		if hung == "" {
			return
		}
		t.Logf("attempt %d: QEMU's reverse search did not finish: %s", attempt, hung)
		hangs = append(hangs, hung)
	}
	t.Skip("SKIP(qemu deadlock): QEMU replay hung in both attempts (known QEMU 10 reverse-seek deadlock, docs/peers.md §2.5): " + strings.Join(hangs, "; "))
}
