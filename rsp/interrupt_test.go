package rsp

import "testing"

// TestWithoutSignal: resuming past a stale SIGINT repeats the resume
// without the signal the first one delivered.
func TestWithoutSignal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"vCont;c", "vCont;c"},
		{"vCont;C0b:p1.1;c", "vCont;c:p1.1;c"},
		{"vCont;S1e:p1.2", "vCont;s:p1.2"},
		{"vCont;s:p1.1", "vCont;s:p1.1"},
		{"C0b", "c"},
		{"S05;401000", "s401000"},
		{"c", "c"},
	} {
		if got := withoutSignal(tc.in); got != tc.want {
			t.Errorf("withoutSignal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClassify: the raw packet classes of rr_rsp_packet.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		pkt  string
		want PacketClass
	}{
		{"qC", ClassRead}, {"m401000,10", ClassRead}, {"p10", ClassRead}, {"g", ClassRead}, {"?", ClassRead},
		{"Hg1", ClassRead}, {"qXfer:features:read:target.xml:0,fff", ClassRead}, {"vCont?", ClassRead},
		{"M401000,1:00", ClassWrite}, {"X401000,1:a", ClassWrite}, {"P10=00", ClassWrite}, {"G00", ClassWrite},
		{"Z0,401000,1", ClassWrite}, {"z0,401000,1", ClassWrite}, {"QPassSignals:0e", ClassWrite},
		{"qRcmd,68656c70", ClassWrite},
		{"vCont;c", ClassResume}, {"c", ClassResume}, {"s", ClassResume}, {"C0b", ClassResume},
		{"bc", ClassResume}, {"vRun;", ClassResume},
		{"vFile:open:2f6574632f736861646f77,0,0", ClassRefused}, {"vFile:unlink:2f78", ClassRefused},
		{"QNonStop:1", ClassRefused}, {"QStartNoAckMode", ClassRefused}, {"!", ClassRefused},
		{"k", ClassRefused}, {"vKill;1", ClassRefused}, {"D", ClassRefused}, {"D;1", ClassRefused},
		{"qRcmd,65786974", ClassRefused}, {"R00", ClassRefused}, {"vCtrlC", ClassRefused}, {"", ClassRefused},
	} {
		if got, why := Classify(tc.pkt); got != tc.want {
			t.Errorf("Classify(%q) = %v (%s), want %v", tc.pkt, got, why, tc.want)
		}
	}
	if got := escapeText("a#b$c}d*e"); got != "a}\x03b}\x04c}]d}\ne" {
		t.Errorf("escapeText = %q", got)
	}
}
