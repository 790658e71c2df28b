package gdbdiff

import (
	"context"
	"strings"
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
		return proc.StartQEMUUser(ctx, "qemu-i386", prog, args, dir, env, nil, nil)
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

// entryProg returns the program a known difference's key
// ("prog|id|field", prog maybe "prog@peer") is about, and whether the
// entry holds with the peers of this run.
func entryProg(key string) (string, bool) {
	p, _, _ := strings.Cut(key, "|")
	prog, peer, qualified := strings.Cut(p, "@")
	return prog, !qualified || peerProg(prog) == p && peer != ""
}

// TestPeerQualifiedEntries: an entry named prog@qemu-i386 is looked up and
// can go stale only while that i386 program runs under qemu-i386; plain
// entries hold under every peer.
func TestPeerQualifiedEntries(t *testing.T) {
	savedPeer, savedProgs := i386Peer, i386Progs
	t.Cleanup(func() { i386Peer, i386Progs = savedPeer, savedProgs })
	for _, tc := range []struct {
		peer     string
		prog     string
		wantProg string // peerProg(prog)
		key      string
		wantHere bool
	}{
		{"gdbserver", "cpp_shapes-m32", "cpp_shapes-m32", "cpp_shapes-m32@qemu-i386|abort|engine:bt", false},
		{"gdbserver", "cpp_shapes-m32", "cpp_shapes-m32", "cpp_shapes-m32|abort|engine:vars", true},
		{"qemu-i386", "cpp_shapes-m32", "cpp_shapes-m32@qemu-i386", "cpp_shapes-m32@qemu-i386|abort|engine:bt", true},
		{"qemu-i386", "cpp_shapes-m32", "cpp_shapes-m32@qemu-i386", "cpp_shapes-m32|abort|engine:vars", true},
		{"qemu-i386", "cpp_shapes", "cpp_shapes", "cpp_shapes@qemu-i386|abort|engine:bt", false},
		{"qemu-i386", "cpp_shapes-m32", "cpp_shapes-m32@qemu-i386", "cpp_shapes-m32@gdbserver|abort|engine:bt", false},
	} {
		i386Peer, i386Progs = tc.peer, map[string]bool{"cpp_shapes-m32": true}
		if got := peerProg(tc.prog); got != tc.wantProg {
			t.Errorf("under %s: peerProg(%s) = %s, want %s", tc.peer, tc.prog, got, tc.wantProg)
		}
		if prog, here := entryProg(tc.key); prog != tc.prog {
			t.Errorf("entryProg(%s) = %s, want %s", tc.key, prog, tc.prog)
		} else if here != tc.wantHere {
			t.Errorf("under %s: entryProg(%s) holds here = %v, want %v", tc.peer, tc.key, here, tc.wantHere)
		}
	}
}
