package outlog

import (
	"bytes"
	"errors"
	"syscall"
	"testing"
)

// TestRead: stdout as the program wrote its file, stderr as the pipe
// brought it; reads by offset, from the end, cut at the limit, past the
// end, and before what is still kept.
func TestRead(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Stdout().WriteString("hello, world\n"); err != nil {
		t.Fatal(err)
	}
	l.AddStderr([]byte("warn 1\n"))
	l.AddStderr([]byte("warn 2\n"))
	if sz := l.Size(); sz.Stdout != 13 || sz.Stderr != 14 {
		t.Fatalf("Size = %+v, want 13 and 14", sz)
	}
	if sz := l.Trim(); *sz != *l.Size() {
		t.Fatalf("Trim's sizes %+v, Size's %+v", *sz, *l.Size())
	}
	for _, tc := range []struct {
		stream        Stream
		offset        int64
		limit         int
		text          string
		at, next, gap int64
	}{
		{Stdout, 0, 100, "hello, world\n", 0, 0, 0},
		{Stdout, 7, 5, "world", 7, 12, 0},
		{Stdout, -6, 100, "world\n", 7, 0, 0},
		{Stdout, -100, 5, "hello", 0, 5, 0},
		{Stderr, 0, 7, "warn 1\n", 0, 7, 0},
		{Stderr, -7, 100, "warn 2\n", 7, 0, 0},
		{Stdout, 13, 100, "", 13, 0, 0},
	} {
		sl, err := l.Read(tc.stream, tc.offset, tc.limit)
		if err != nil || string(sl.Text) != tc.text || sl.Offset != tc.at || sl.NextOffset != tc.next || sl.Dropped != tc.gap {
			t.Errorf("Read(%v, %d, %d) = %+v %q, %v; want %q at %d, next %d, dropped %d", tc.stream, tc.offset, tc.limit, sl, sl.Text, err, tc.text, tc.at, tc.next, tc.gap)
		}
	}
	if sl, err := l.Read(Stderr, 15, 10); !errors.Is(err, ErrPastEnd) || sl.Total != 14 {
		t.Errorf("past the end: %+v %v, want ErrPastEnd with the total", sl, err)
	}
	// Past MaxKept the oldest stderr bytes go; their offsets stay valid.
	l.AddStderr(bytes.Repeat([]byte("x"), MaxKept))
	sl, err := l.Read(Stderr, 0, 10)
	if err != nil || sl.Dropped != 14 || sl.Offset != 14 || string(sl.Text) != "xxxxxxxxxx" || sl.Total != MaxKept+14 {
		t.Errorf("after dropping: %+v, %v; want 14 bytes dropped, x's from offset 14", sl, err)
	}
	if !l.FirstDrain() || l.FirstDrain() {
		t.Error("FirstDrain: want true once, then false")
	}
}

// TestTrim: a captured file keeps its last MaxKept bytes (and at most a
// MiB more) on disk; a read of older offsets says they are gone instead
// of returning the hole's zeros, and the sizes stay what was written.
func TestTrim(t *testing.T) {
	l, err := NewFiles()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for range 160 {                                         // 10 MiB
		if _, err := l.Stdout().Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	const total = 160 << 16
	if sz := l.Trim(); *sz != (Size{Stdout: total}) {
		t.Fatalf("Trim's sizes %+v, want %d bytes of stdout", *sz, total)
	}
	if sz := l.Size(); sz.Stdout != total {
		t.Fatalf("size %d after Trim, want %d", sz.Stdout, total)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(l.Stdout().Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if used := st.Blocks * 512; used > MaxKept+2<<20 {
		t.Errorf("%d bytes on disk after Trim, want at most about %d", used, MaxKept+1<<20)
	}
	sl, err := l.Read(Stdout, 0, 16)
	if err != nil || sl.Dropped == 0 || sl.Offset < total-MaxKept-1<<20 || string(sl.Text) != "0123456789abcdef" {
		t.Errorf("read at 0 after Trim: %+v %v", sl, err)
	}
	if sl, err := l.Read(Stdout, -16, 16); err != nil || string(sl.Text) != "0123456789abcdef" || sl.Dropped != 0 {
		t.Errorf("read of the last bytes: %+v %v", sl, err)
	}
}
