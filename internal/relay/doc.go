// Package relay is the read-only RSP server that lets the GDB/MI fallback
// share rrmcp's one connection to the debug server.
//
// rr accepts a single client, and GDB must never move, change or detach the
// target rrmcp is driving. So rrmcp listens on a loopback port of its own
// and points `gdb --interpreter=mi3` at it with `target remote`. The relay:
//
//   - forwards GDB's read requests (m, g, p, the qXfer reads rrmcp advertises,
//     thread queries, Hg) to a [ForwardFunc] the session supplies, which sends
//     them over the session's own RSP connection;
//   - answers the connection handshake locally (qSupported, ?, qAttached,
//     vMustReplyEmpty, QStartNoAckMode, qSymbol);
//   - refuses everything that could resume, write, insert breakpoints,
//     detach or kill: resumes get "E.<reason>", writes and Z/z get E01,
//     k closes the connection, unknown packets get the empty reply.
//
// Forwarded requests are validated strictly first (rr exits on a malformed
// packet, or on a target-description annex that target.xml does not
// include), so no byte sequence GDB or anyone else sends to the relay port
// can reach the backend except a well-formed read. GDB's own Hg is sent
// again before each register read, because the session moves the server's
// thread selection between GDB's requests. The framing is package rsp's
// (rsp.RequestReader, the stub side, runs the same frame scanner as the
// client); acks and no-ack mode toward GDB are the relay's.
package relay
