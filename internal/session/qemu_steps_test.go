package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestQEMUReverseStepsMatchGDB steps backward (and forward again) through
// the test kernels in a QEMU replay, the reverse-capable peer, and
// compares every stop's pc, file and line with GDB's over the same moves
// on another replay of the same recording: reverse-step and reverse-next
// into, through and out of inlined calls (kernel-inline.elf,
// testprogs/kernel/inline.c at -O2, whose helpers gcc inlines into work
// and kmain) and real calls (kernel.elf, -O0), reverse-finish of inlined
// and real frames (i386: a 4-byte return address), stepi and nexti both
// ways, continue and reverse-continue between breakpoint hits, write
// watchpoints, finish from frame 1 (an inlined frame's caller), forward
// moves after them. A sequence whose replay hangs (QEMU 10's reverse-seek
// deadlock) runs once more; two hangs skip the test saying so.
func TestQEMUReverseStepsMatchGDB(t *testing.T) {
	testenv.NeedKernelRecording(t)
	testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 400*time.Second)
	defer cancel()
	dir := t.TempDir()
	if _, err := qemu.BuildKernel(ctx, filepath.Join(testenv.Root(t), "testprogs", "kernel"), dir); err != nil {
		t.Fatal(err)
	}
	recs := map[string]string{} // recording directory by kernel
	for _, seq := range []struct{ kernel, loc, moves string }{
		{"kernel-inline.elf", "serial_puts", "reverse-finish reverse-next reverse-next reverse-next reverse-next reverse-step reverse-next reverse-next reverse-next reverse-next reverse-next"},
		{"kernel-inline.elf", "serial_puts", "reverse-finish reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step"},
		{"kernel-inline.elf", "work", "next next next next next next next reverse-next reverse-next reverse-step reverse-step reverse-finish reverse-next reverse-next step step finish next"},
		{"kernel-inline.elf", "inline.c:60", "reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-next reverse-next reverse-next"},
		{"kernel-inline.elf", "scale", "reverse-finish reverse-next reverse-next reverse-step reverse-step reverse-step finish next next step step reverse-finish"},
		{"kernel-inline.elf", "inline.c:57", "next reverse-finish reverse-next next step step"},
		{"kernel-inline.elf", "note", "reverse-next reverse-next reverse-next reverse-finish reverse-step reverse-step reverse-finish reverse-next next next step"},
		{"kernel.elf", "kmain", "nexti nexti stepi stepi stepi reverse-stepi reverse-nexti reverse-stepi reverse-stepi reverse-nexti next next step reverse-nexti reverse-nexti reverse-stepi"},
		{"kernel-inline.elf", "kmain", "nexti nexti nexti stepi stepi reverse-stepi reverse-stepi reverse-nexti reverse-nexti stepi nexti"},
		{"kernel.elf", "bump", "continue continue continue reverse-continue reverse-continue next reverse-next reverse-step continue reverse-finish"},
		{"kernel-inline.elf", "note", "continue continue reverse-continue reverse-next reverse-continue continue"},
		{"kernel-inline.elf", "serial_puts", "watch:counter reverse-continue reverse-continue reverse-next reverse-step continue reverse-finish reverse-continue next"},
		// Not compared: a continue that runs forward again over a write
		// a reverse move went back before. GDB compares the value with
		// the one at the watchpoint's last trigger, which after reverse
		// moves is a later state, and does not stop at the write;
		// rrmcp compares with the value at the last stop and stops.
		{"kernel-inline.elf", "serial_puts", "watch:seen[2] reverse-continue reverse-step reverse-next reverse-continue reverse-next reverse-step"},
		{"kernel.elf", "kmain", "watch:other continue continue next next reverse-continue reverse-next reverse-continue finish"},
		// Not compared: reverse-finish from a frame other than 0. GDB's
		// finish_backward runs back to the call of frame 0's function
		// whichever frame is selected; rrmcp, as both do forward, to the
		// call of the selected frame's.
		{"kernel-inline.elf", "work", "next next reverse-step up+finish reverse-step reverse-step up+finish"},
		{"kernel-inline.elf", "serial_puts", "reverse-finish reverse-step reverse-step up+finish reverse-step reverse-step up+finish"},
		{"kernel.elf", "add", "up+finish reverse-step step up+finish next"},
		{"kernel.elf", "corrupt", "watch:counter reverse-continue reverse-continue reverse-step continue reverse-finish reverse-continue"},
		{"kernel.elf", "corrupt", "reverse-finish reverse-next reverse-next reverse-step reverse-step reverse-step reverse-finish reverse-next reverse-next reverse-next"},
		{"kernel.elf", "bump", "next next reverse-next reverse-next reverse-finish reverse-step reverse-next reverse-step reverse-finish"},
	} {
		kernel := filepath.Join(dir, seq.kernel)
		if recs[seq.kernel] == "" {
			rec, err := qemu.Record(ctx, filepath.Join(dir, "rec-"+seq.kernel), kernel)
			if err != nil {
				t.Fatal(err)
			}
			recs[seq.kernel] = rec.Dir
		}
		moves := strings.Fields(seq.moves)
		var hangs []error
		for attempt := 1; attempt <= 2; attempt++ {
			err := reverseMovesVsGDB(t, ctx, kernel, recs[seq.kernel], seq.loc, moves)
			if err == nil {
				break
			}
			if !errors.Is(err, errQEMUHung) {
				t.Fatalf("%s, break %s, then %s: %v", seq.kernel, seq.loc, seq.moves, err)
			}
			t.Logf("attempt %d: %v; QEMU was killed", attempt, err)
			if hangs = append(hangs, err); len(hangs) == 2 {
				t.Skip("SKIP(qemu deadlock): QEMU replay hung in both attempts (known QEMU 10 reverse-seek deadlock, docs/peers.md §2.5): " + errors.Join(hangs...).Error())
			}
		}
	}
}

// reverseMovesVsGDB breaks at loc in a replay of the recording rec of
// kernel, makes the moves under GDB, then through a session on another
// replay, and compares the stops. A replay that hangs is errQEMUHung.
func reverseMovesVsGDB(t *testing.T, ctx context.Context, kernel, rec, loc string, moves []string) error {
	replay := func() (*qemu.Replay, error) {
		rep, err := qemu.StartReplay(ctx, rec)
		if err != nil {
			return nil, err
		}
		t.Cleanup(rep.Kill)
		return rep, nil
	}
	rep, err := replay()
	if err != nil {
		return err
	}
	gctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	want, err := tryGDBMoves(t, gctx, kernel, []string{"target remote " + rep.Addr(), "break " + loc, "continue"}, moves)
	rep.Kill()
	if err != nil {
		return err
	}
	if rep, err = replay(); err != nil {
		return err
	}
	defer rep.Kill()
	m := NewManager(Config{})
	defer m.Close()
	s, _, err := m.Connect(ctx, ConnectOptions{Address: rep.Addr(), Program: kernel})
	if err != nil {
		return err
	}
	if _, err := s.SetBreakpoint(ctx, loc, "", false); err != nil {
		return err
	}
	st, err := qemuOp(ctx, "continue", func(ctx context.Context) (*Stop, error) { return s.Continue(ctx, false) })
	if err != nil {
		return err
	}
	if st.Frame == nil {
		return fmt.Errorf("continue to %s: %+v", loc, st)
	}
	got, err := tryMoves(t, ctx, s, st, moves[:len(want)-1], qemuOpTimeout)
	if err != nil {
		return err
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Errorf("move %d (%s): stopped at %v, GDB at %v\nrrmcp: %v\nGDB:   %v", i, append([]string{"break " + loc}, moves...)[i], got[i], want[i], got, want)
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d stops, GDB %d\nrrmcp: %v\nGDB:   %v", len(got), len(want), got, want)
	}
	t.Logf("%s, break %s: %d stops agree with GDB's", filepath.Base(kernel), loc, len(got))
	return nil
}
