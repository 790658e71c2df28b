package gdbdiff

import (
	"context"

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

// i386Progs are the programs of stops.txt that are i386 ELF files; set
// with i386Peer.
var i386Progs = map[string]bool{}

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
