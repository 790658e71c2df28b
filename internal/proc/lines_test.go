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
