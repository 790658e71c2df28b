// Package faultproxy is a GDB remote-protocol proxy that injects faults
// between a client (rrmcp) and a real server (gdbserver): it delays, drops,
// duplicates, truncates and garbles chosen packets, holds a stop reply until
// the client's interrupt has reached the server, and cuts the connection.
// Tests put it between a session and gdbserver and check that after each
// fault the session is correct or says precisely that it is not.
//
// The tests of this package are the fault suite: each injects faults at a
// chosen point (mid-step-over, mid-stepi-count, mid-breakpoint-insert,
// mid-continue) between a session and gdbserver and checks the session
// afterwards; TestMain prints "hostile-faults: injected survived" for the
// figures line of make test.
package faultproxy
