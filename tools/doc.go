// Package tools exposes rrmcp's debugger to MCP clients: one tool per
// operation, with karellen-rr-mcp's names and arguments (rr_record,
// rr_replay_start, rr_continue, rr_evaluate, …) plus rrmcp's own
// (rr_live_start, rr_connect, rr_stepi, rr_disassemble, rr_rsp_packet, …).
//
// Handlers are thin: decode and validate the arguments, call one method of
// package internal/session, and return its result both as structured
// content (with an output schema) and as short text for the model. Every
// error becomes a tool error (isError) that says what went wrong and what
// to try next; the server keeps serving.
//
// [New] builds the MCP server; cmd/rrmcp serves it on stdio.
package tools
