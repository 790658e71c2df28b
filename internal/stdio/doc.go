// Package stdio serves an MCP server (mark3labs/mcp-go's MCPServer) to one
// client over newline-delimited JSON-RPC on a reader and a writer: the
// stdio transport of rrmcp.
//
// It replaces mcp-go's own stdio server for three reasons, each measured
// or seen: a quick tool call crossed four goroutines there (a reader per
// line, the read loop, a worker pool, the writer), and on a two-core VM each
// crossing is a thread wake-up, so the transport cost more than most of
// the calls it carried; notifications went out on their own goroutine, so a
// call's progress often arrived after its result, and a full queue dropped
// them; and a line had no length limit. Here a request is answered on the
// goroutine that read it (reading passes to a new goroutine first), the
// notifications a call sent are written before its reply, and a line over
// the limit is dropped with an error reply.
//
// Messages themselves are mcp-go's: each goes through
// MCPServer.HandleMessage, which does the protocol (initialize, tools,
// resources, prompts, cancellation of in-flight requests).
package stdio
