package rsp

import "testing"

// TestFastTracepointPacket: F carries the displaced length.
func TestFastTracepointPacket(t *testing.T) {
	got := Tracepoint{Number: 1, Addr: 0x40114c, Enabled: true, Pass: 5, Fast: 6}.packets()
	if len(got) != 1 || got[0] != "QTDP:1:40114c:E:0:5:F6" {
		t.Fatalf("packets %q", got)
	}
}

func TestParseRelocRequest(t *testing.T) {
	from, to, err := ParseRelocRequest("qRelocInsn:40114c;7fff0010")
	if err != nil || from != 0x40114c || to != 0x7fff0010 {
		t.Fatalf("%#x %#x %v", from, to, err)
	}
	for _, bad := range []string{"qRelocInsn:", "qRelocInsn:1", "qRelocInsn:x;1", "OK"} {
		if _, _, err := ParseRelocRequest(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
