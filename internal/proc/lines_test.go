package proc

import (
	"fmt"
	"strings"
	"testing"
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

// TestGDBServerMsg: gdbserver's own stderr lines are told from the
// program's, the warnings' shortcut included.
func TestGDBServerMsg(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"Warning: ptrace(regsets_store_inferior_registers): Bad address", true},
		{"warning: no symbol", true},
		{"Warning:", false}, // the pattern wants "Warning: "
		{"Process /bin/true created; pid = 12", true},
		{"Listening on port 4242", true},
		{"Child exited with status 3", true},
		{"Child terminated with signal = 0xb (SIGSEGV)", true},
		{"gdbserver: something", true},
		{"hello from the program", false},
		{"WARNING: the program's own", false},
		{" Warning: indented", false},
		{"", false},
	} {
		if got := gdbserverMsg(tc.line); got != tc.want {
			t.Errorf("gdbserverMsg(%q) = %v, want %v", tc.line, got, tc.want)
		}
		if got := gdbserverMsgRE.MatchString(tc.line); got != tc.want {
			t.Errorf("gdbserverMsgRE on %q = %v, want %v (the shortcut must agree with the pattern)", tc.line, got, tc.want)
		}
	}
}
