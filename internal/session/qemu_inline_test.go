package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/qemu"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestQEMUReverseStepInlinedMatchesGDB steps backward (and forward again)
// through the -O2 test kernel (testprogs/kernel/inline.c, whose helpers
// gcc inlines into work and kmain) in a QEMU replay, the reverse-capable
// peer, and compares every stop's pc, file and line with GDB's over the
// same moves on another replay of the same recording: reverse-step and
// reverse-next into, through and out of inlined calls, reverse-finish of
// inlined and real frames (i386: a 4-byte return address), and forward
// moves after them.
func TestQEMUReverseStepInlinedMatchesGDB(t *testing.T) {
	testenv.NeedKernelRecording(t)
	testenv.NeedTool(t, "gdb")
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	dir := t.TempDir()
	if _, err := qemu.BuildKernel(ctx, filepath.Join(testenv.Root(t), "testprogs", "kernel"), dir); err != nil {
		t.Fatal(err)
	}
	kernel := filepath.Join(dir, "kernel-inline.elf")
	rec, err := qemu.Record(ctx, filepath.Join(dir, "rec"), kernel)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []struct{ loc, moves string }{
		{"serial_puts", "reverse-finish reverse-next reverse-next reverse-next reverse-next reverse-step reverse-next reverse-next reverse-next reverse-next reverse-next"},
		{"serial_puts", "reverse-finish reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step"},
		{"work", "next next next next next next next reverse-next reverse-next reverse-step reverse-step reverse-finish reverse-next reverse-next step step finish next"},
		{"inline.c:60", "reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step reverse-next reverse-next reverse-next"},
		{"scale", "reverse-finish reverse-next reverse-next reverse-step reverse-step reverse-step finish next next step step reverse-finish"},
		{"inline.c:57", "next reverse-finish reverse-next next step step"},
		{"note", "reverse-next reverse-next reverse-next reverse-finish reverse-step reverse-step reverse-finish reverse-next next next step"},
	} {
		moves := strings.Fields(seq.moves)
		replay := func() string {
			rep, err := qemu.StartReplay(ctx, rec.Dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rep.Kill)
			return rep.Addr()
		}
		want := gdbMovesAfter(t, kernel, []string{"target remote " + replay(), "break " + seq.loc, "continue"}, moves)
		t.Logf("break %s, then %s\nGDB: %v", seq.loc, seq.moves, want)
		m := NewManager(Config{})
		t.Cleanup(m.Close)
		s, _, err := m.Connect(ctx, ConnectOptions{Address: replay(), Program: kernel})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetBreakpoint(ctx, seq.loc, "", false); err != nil {
			t.Fatal(err)
		}
		st, err := s.Continue(ctx, false)
		if err != nil || st.Frame == nil {
			t.Fatalf("continue to %s: %+v %v", seq.loc, st, err)
		}
		got := movesOn(t, ctx, s, st, moves[:len(want)-1])
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("move %d (%s): stopped at %v, GDB at %v\nrrmcp: %v", i, append([]string{"break " + seq.loc}, moves...)[i], got[i], want[i], got)
				break
			}
		}
	}
}
