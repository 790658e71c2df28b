// Package testenv holds the helpers that every rrmcp test package shares:
// where the module root is, building the programs in testprogs/ once, and
// deciding honestly whether a peer (gdbserver, QEMU, rr) can be used.
//
// A missing tool makes a test skip with the reason, except where the
// environment says the tool must be there: with CI=true (set by .ci/run) a
// missing gdb, gdbserver or QEMU fails the test, and with RRMCP_REQUIRE_RR=1
// a machine where rr cannot record fails every rr test instead of skipping it.
package testenv
