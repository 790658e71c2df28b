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
