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
// The protocol is mcp-go's: MCPServer.HandleMessage answers initialize,
// the listings, resources, prompts, pings. A tool call, the message that
// matters for latency, is answered by calling the registered tool's
// handler directly: Serve has already decoded the message's envelope, and
// mcp-go's router would decode its text five more times and encode the
// result through a map (a third of the server's time in a quick call).
// The reply is byte for byte the one HandleMessage gives
// (TestCallToolAsHandleMessage); calls using what only mcp-go's router
// does (task augmentation, multi round trip, the 2026-07-28 protocol's
// per-request _meta, an unknown tool) go through HandleMessage. A handler
// called directly has the client session in its context
// (server.ClientSessionFromContext) but not server.ServerFromContext:
// rrmcp's handlers hold their server.
package stdio
