package qemu_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		out          string
		major, minor int
		ok           bool
	}{
		{"QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\nCopyright", 10, 0, true},
		{"QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18)", 7, 2, true},
		{"QEMU emulator version 9.1", 9, 1, true},
		{"qemu-img version 10.0.2", 0, 0, false},
	}
	for _, tt := range tests {
		major, minor, err := qemu.ParseVersion(tt.out)
		if (err == nil) != tt.ok || major != tt.major || minor != tt.minor {
			t.Errorf("ParseVersion(%q) = %d, %d, %v", tt.out, major, minor, err)
		}
	}
}

// recorded is the test kernel's recording, made once per test binary.
var recorded testenv.Shared[*qemu.Recording]

func recording(t *testing.T) *qemu.Recording {
	t.Helper()
	testenv.NeedKernelRecording(t)
	return recorded.Get(t, func(dir string) (*qemu.Recording, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, rec, err := testenv.RecordKernel(ctx, dir)
		return rec, err
	})
}

func TestMain(m *testing.M) { os.Exit(recorded.Run(m)) }

func TestRecord(t *testing.T) {
	rec := recording(t)
	if !strings.Contains(rec.Serial, "kernel: done sum=15") {
		t.Errorf("serial output %q lacks the kernel's done line", rec.Serial)
	}
	if rec.Icount <= 0 {
		t.Errorf("icount %d", rec.Icount)
	}
	again, err := qemu.LoadRecording(rec.Dir)
	if err != nil || again.Kernel != rec.Kernel || again.Icount != rec.Icount {
		t.Errorf("LoadRecording = %+v, %v", again, err)
	}
}

// rawPacket sends one RSP packet in ack mode and returns the reply payload.
func rawPacket(t *testing.T, c net.Conn, r *bufio.Reader, payload string) string {
	t.Helper()
	var sum byte
	for i := range len(payload) {
		sum += payload[i]
	}
	fmt.Fprintf(c, "$%s#%02x", payload, sum)
	for {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("read reply to %s: %v", payload, err)
		}
		if b != '$' {
			continue // '+' acks
		}
		reply, err := r.ReadString('#')
		if err != nil {
			t.Fatal(err)
		}
		r.Discard(2)
		c.Write([]byte("+"))
		return strings.TrimSuffix(reply, "#")
	}
}

// TestReplaysInParallel starts two replays of one recording at once (each
// on its own disk copy) and checks both serve the gdbstub with reverse
// execution, are paused, and stop cleanly.
func TestReplaysInParallel(t *testing.T) {
	rec := recording(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var reps []*qemu.Replay
	for range 2 {
		r, err := qemu.StartReplay(ctx, rec.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Stop()
		reps = append(reps, r)
	}
	for i, r := range reps {
		st, err := r.Status(ctx)
		if err != nil || st != "prelaunch" && st != "paused" && st != "debug" {
			t.Errorf("replay %d status %q, %v", i, st, err)
		}
		c, err := net.Dial("tcp", r.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		feats := rawPacket(t, c, br, "qSupported:multiprocess+")
		if !strings.Contains(feats, "ReverseContinue+") || !strings.Contains(feats, "ReverseStep+") {
			t.Errorf("replay %d does not offer reverse execution: %q", i, feats)
		}
		if stop := rawPacket(t, c, br, "?"); !strings.HasPrefix(stop, "T05") {
			t.Errorf("replay %d initial stop %q", i, stop)
		}
		c.Close()
	}
	for i, r := range reps {
		if err := r.Stop(); err != nil {
			t.Errorf("stop replay %d: %v", i, err)
		}
		select {
		case <-r.Done():
		default:
			t.Errorf("replay %d still running after Stop", i)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(rec.Dir, "replay-*.qcow2")); len(m) != 0 {
		t.Errorf("disk copies left behind: %v", m)
	}
}

func TestStartReplayMissing(t *testing.T) {
	if _, err := qemu.StartReplay(t.Context(), t.TempDir()); err == nil {
		t.Fatal("StartReplay of an empty directory succeeded")
	}
}
