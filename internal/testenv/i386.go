package testenv

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/proc"
)

// I386Peer says which debug server runs i386 (-m32) programs here:
// "gdbserver" where the kernel executes them (IA32 emulation), else
// "qemu-i386" (QEMU user mode: Debian's qemu-user). RRMCP_I386_PEER set
// to one of the two forces it (to test the other path). It fails the test
// when the chosen peer is not installed.
func I386Peer(t testing.TB) string {
	t.Helper()
	peer, err := i386Peer()
	if err != nil {
		t.Fatalf("testenv: probing whether this kernel runs i386 programs: %v", err)
	}
	if peer == "qemu-i386" {
		NeedTool(t, "qemu-i386")
	} else {
		NeedTool(t, "gdbserver")
	}
	return peer
}

var i386Peer = sync.OnceValues(func() (string, error) {
	switch p := os.Getenv("RRMCP_I386_PEER"); p {
	case "gdbserver", "qemu-i386":
		return p, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "rrmcp-i386-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ok, err := proc.RunsI386(ctx, dir)
	if err != nil {
		return "", err
	}
	if ok {
		return "gdbserver", nil
	}
	return "qemu-i386", nil
})

// IsI386 reports whether prog is an i386 ELF file.
func IsI386(prog string) bool { return proc.IsI386(prog) }
