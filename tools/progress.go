package tools

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressKey carries a call's progress reporter in its context.
type progressKey struct{}

// reporter sends notifications/progress for one call; progress counts
// up by one per notification, so it only ever increases.
type reporter struct {
	srv *server.MCPServer
	tok mcp.ProgressToken
	n   atomic.Int64
}

func (r *reporter) send(ctx context.Context, msg string) {
	r.srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{ //nolint:errcheck // advisory
		"progressToken": r.tok, "progress": r.n.Add(1), "message": msg,
	})
}

// withProgress attaches a reporter when the client sent a progress token,
// and starts a heartbeat that says every second that the call still runs
// (continue, reverse continue, software watchpoints, last-writer searches
// give no other sign). The returned stop ends the heartbeat. Progress is
// advisory: mcp-go drops a notification when the transport's queue (1024
// on rrmcp's stdio, internal/stdio) is full; those it queued before the
// result are written before it.
func (reg *registry) withProgress(ctx context.Context, req mcp.CallToolRequest, name string) (context.Context, func()) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return ctx, func() {}
	}
	r := &reporter{srv: reg.srv, tok: req.Params.Meta.ProgressToken}
	ctx = context.WithValue(ctx, progressKey{}, r)
	done := make(chan struct{})
	go func() {
		t0 := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				r.send(ctx, fmt.Sprintf("%s still running after %v", name, time.Since(t0).Round(time.Second)))
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, func() { close(done) }
}

// progressFunc returns what reports the steps of a long operation, or nil
// when the client asked for no progress.
func progressFunc(ctx context.Context) func(done int, msg string) {
	r, ok := ctx.Value(progressKey{}).(*reporter)
	if !ok {
		return nil
	}
	return func(_ int, msg string) { r.send(ctx, msg) }
}
