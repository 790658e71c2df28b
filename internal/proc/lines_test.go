package proc

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRetainedLines: whatever the number of lines, the last KeepLines
// are retained, in order, and no others.
func TestRetainedLines(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 20} {
		p := &Process{cfg: Config{KeepLines: 4}, changed: make(chan struct{})}
		for i := 1; i <= n; i++ {
			p.add(fmt.Sprint(i), false)
		}
		var want, got []string
		for i := max(1, n-3); i <= n; i++ {
			want = append(want, fmt.Sprint(i))
		}
		for _, l := range p.Lines(0) {
			got = append(got, l.Text)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%d lines: retained %v, want %v", n, got, want)
		}
		if tail := p.Tail(10); tail != strings.Join(append(want, ""), "\n") && n > 0 {
			t.Errorf("%d lines: Tail = %q", n, tail)
		}
		if n > 0 && p.LastSeq() != int64(n) {
			t.Errorf("%d lines: LastSeq = %d", n, p.LastSeq())
		}
	}
}

// TestStderrFileBounded: a child that writes much to its stderr file
// (gdbserver warns twice at every trap on some kernels) neither fills
// the disk nor makes a Scan read it all: past maxUnread unread bytes
// Trim skips the older ones (a line says how many) and gives back the
// disk space of what was read or skipped; the last lines stay readable.
func TestStderrFileBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	// 5 MB of numbered lines, then the last one; then the child waits
	// for its stdin to close.
	stdin, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p, err := Start(ctx, Config{Path: "sh", Args: []string{"-c", `seq 1 700000 >&2; echo the-end >&2; echo written; read x`},
		Stdin: stdin, StderrFile: true, KeepLines: 300000})
	stdin.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitLine(ctx, regexp.MustCompile(`^written$`)); err != nil {
		t.Fatal(err)
	}
	p.Trim()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(p.errFile.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if used := st.Blocks * 512; st.Size < 4<<20 || used > 2<<20+64<<10 {
		t.Errorf("the stderr file is %d bytes long and uses %d on disk; want more than 4 MiB long and at most about 2 MiB used", st.Size, used)
	}
	lines := p.Lines(0)
	if len(lines) == 0 || lines[len(lines)-1].Text != "the-end" {
		t.Fatalf("last lines %v", lines[max(0, len(lines)-3):])
	}
	// The older lines are skipped, one line saying so.
	skipped := slices.ContainsFunc(lines, func(l Line) bool { return strings.HasSuffix(l.Text, "bytes of output not kept]") })
	if n := p.LastSeq(); n > 300000 || !skipped {
		t.Errorf("%d lines read of 700,001 (a line says what was skipped: %v): the older ones should have been skipped", n, skipped)
	}
	// The child gone, the file is closed (its space with it); the lines
	// stay.
	w.Close()
	<-p.Done()
	p.scanMu.Lock()
	closed := p.errFile == nil
	p.scanMu.Unlock()
	if !closed || p.Tail(1) != "the-end\n" {
		t.Errorf("after the exit: file closed %v, last line %q", closed, p.Tail(1))
	}
}

// TestWaitLineLinesAfter: a line WaitLine waits for is matched even when
// more lines than are retained come after it before WaitLine looks
// (here: stderr lines read from the file in one Scan after the stdout
// line). WaitLine once looked only at the retained lines, and waited
// for ever.
func TestWaitLineLinesAfter(t *testing.T) {
	for _, file := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		stdin, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := Start(ctx, Config{Path: "sh", Args: []string{"-c", `seq 1 10 >&2; echo marker 7; seq 1 100 >&2; read x`},
			Stdin: stdin, StderrFile: file, KeepLines: 4})
		stdin.Close()
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.WaitLine(ctx, regexp.MustCompile(`^marker (\d+)$`))
		if err != nil || m[1] != "7" {
			t.Errorf("stderr file %v: WaitLine = %q, %v", file, m, err)
		}
		w.Close()
		<-p.Done()
		cancel()
	}
}
