package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressKey carries a request's progress token in its context.
type progressKey struct{}

// withProgress remembers the request's progress token, if the client sent
// one, for progressFunc.
func withProgress(ctx context.Context, req mcp.CallToolRequest) context.Context {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, req.Params.Meta.ProgressToken)
}

// progressFunc returns what reports progress of a long operation as MCP
// notifications/progress, or nil when the client asked for none. mcp-go
// queues notifications apart from results (docs: they can arrive after
// the result, and a full queue drops them), so progress is advisory.
func progressFunc(ctx context.Context) func(done int, msg string) {
	tok, ok := ctx.Value(progressKey{}).(mcp.ProgressToken)
	srv := server.ServerFromContext(ctx)
	if !ok || tok == nil || srv == nil {
		return nil
	}
	return func(done int, msg string) {
		srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{ //nolint:errcheck // advisory
			"progressToken": tok, "progress": done, "message": msg,
		})
	}
}
