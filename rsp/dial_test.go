package rsp_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// TestDialUnixSocket: an absolute path is a Unix-domain socket, as GDB's
// target remote takes it (qemu-i386 -g /path).
func TestDialUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gdb.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	handle := stubHandler("gdbserver", func(req string) []string {
		if req == "m601040,8" {
			return []string{"2a00000000000000"}
		}
		return nil
	})
	defer serveStubOnce(ln, handle)()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := rsp.Dial(ctx, path, rsp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 8)
	if _, err := c.ReadMemory(ctx, 0x601040, b); err != nil || b[0] != 0x2a {
		t.Fatalf("read over the socket: %x, %v", b, err)
	}
	if _, err := rsp.Dial(ctx, path+".none", rsp.Options{}); err == nil || !strings.Contains(err.Error(), "dial") {
		t.Errorf("a missing socket: %v", err)
	}
}
