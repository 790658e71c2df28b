package gdbdiff

import (
	"context"
	"testing"

	"github.com/rrmcp/rrmcp/internal/proc"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// i386Peer is the debug server of i386 programs on this machine
// (testenv.I386Peer): gdbserver, or qemu-i386 where the kernel cannot
// execute them. TestGDBDifferential sets it before any side starts.
var i386Peer = "gdbserver"

// startServer starts the debug server every side of a program uses.
func startServer(ctx context.Context, prog string, args []string, dir string, env []string) (*proc.Process, string, error) {
	if i386Peer == "qemu-i386" && testenv.IsI386(prog) {
		return proc.StartQEMUUser(ctx, "qemu-i386", prog, args, dir, env)
	}
	return proc.StartGDBServer(ctx, prog, args, dir, env)
}

// i386Progs are the programs compared that are i386 ELF files; set with
// i386Peer by setI386Peer.
var i386Progs = map[string]bool{}

// setI386Peer picks the peer of the i386 programs among progs (path gives
// a program's file) once, before any side starts, and records them.
func setI386Peer(t *testing.T, progs []string, path func(string) string) {
	t.Helper()
	for _, p := range progs {
		if !testenv.IsI386(path(p)) {
			continue
		}
		if len(i386Progs) == 0 {
			i386Peer = testenv.I386Peer(t)
			t.Logf("i386 programs (%s, ...) run under %s", p, i386Peer)
		}
		i386Progs[p] = true
	}
}

// peerProg is how known_differences.txt names prog in an entry that holds
// only under the peer that runs it here: "prog@qemu-i386" for an i386
// program under QEMU user mode, prog itself otherwise (gdbserver, the
// peer of every other entry).
func peerProg(prog string) string {
	if i386Peer != "gdbserver" && i386Progs[prog] {
		return prog + "@" + i386Peer
	}
	return prog
}
