package session

import "testing"

// TestShareFrames: a page says a row's frame only where it differs from
// the row before's, and a later change of place is said again.
func TestShareFrames(t *testing.T) {
	at := func(pc string, line int) *Frame {
		return &Frame{Location: Location{PC: pc, Function: "f", File: "f.c", Line: line}}
	}
	res := &QueryResult{Rows: []QueryRow{
		{N: 1, Frame: at("0x10", 3)},
		{N: 2, Frame: at("0x10", 3)},
		{N: 3, Frame: at("0x18", 4)},
		{N: 4},
		{N: 5, Frame: at("0x18", 4)},
		{N: 6, Frame: at("0x10", 3)},
	}}
	res.shareFrames()
	want := []string{"0x10", "", "0x18", "", "", "0x10"}
	for i, r := range res.Rows {
		got := ""
		if r.Frame != nil {
			got = r.Frame.PC
		}
		if got != want[i] {
			t.Errorf("row %d: frame %q, want %q", r.N, got, want[i])
		}
	}
}
