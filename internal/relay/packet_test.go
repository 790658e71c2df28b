package relay

import (
	"regexp"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		pkt   string
		mp    bool
		act   action
		reply string // checked for actLocal/actRefuse/actNoAck
	}{
		// forwarded reads
		{"m401000,40", false, actForward, ""},
		{"mffffffffffffffff,1", false, actForward, ""},
		{"g", false, actForward, ""},
		{"p10", false, actForward, ""},
		{"Hg0", false, actForward, ""},
		{"Hg-1", false, actForward, ""},
		{"Hgp0.0", true, actForward, ""},
		{"Hgp1cd6.1cd6", true, actForward, ""},
		{"T1cd6", false, actForward, ""},
		{"Tp1cd6.1cd7", true, actForward, ""},
		{"qfThreadInfo", false, actForward, ""},
		{"qsThreadInfo", false, actForward, ""},
		{"qC", false, actForward, ""},
		{"qXfer:features:read:target.xml:0,ffb", false, actForward, ""},
		{"qXfer:features:read:64bit-core.xml:0,ffb", false, actForward, ""},
		{"qXfer:auxv:read::0,1000", false, actForward, ""},
		{"qXfer:exec-file:read:1cd6:0,1000", false, actForward, ""},
		{"qXfer:exec-file:read::0,1000", false, actForward, ""},
		{"qXfer:libraries-svr4:read::0,1000", false, actForward, ""},
		// malformed reads are answered locally, never forwarded
		{"m401000", false, actLocal, "E01"},
		{"m,40", false, actLocal, "E01"},
		{"m401000,0", false, actLocal, "E01"},
		{"m401000,100000", false, actLocal, "E01"},
		{"mzz,1", false, actLocal, "E01"},
		{"m11112222333344445,1", false, actLocal, "E01"},
		{"gjunk", false, actLocal, "E01"},
		{"p", false, actLocal, "E01"},
		{"pxyz", false, actLocal, "E01"},
		{"Hgjunk", false, actLocal, "E01"},
		{"Hgp1.", true, actLocal, "E01"},
		{"H", false, actLocal, "E01"},
		{"Hx1", false, actLocal, "E01"},
		{"T", false, actLocal, "E01"},
		{"qXfer:features:read:../etc/passwd:0,10", false, actLocal, "E01"},
		{"qXfer:features:read::0,10", false, actLocal, "E01"},
		{"qXfer:auxv:read:x:0,10", false, actLocal, "E01"},
		{"qXfer:auxv:read::0", false, actLocal, "E01"},
		{"qXfer:auxv", false, actLocal, "E01"},
		// unsupported objects, queries and settings
		{"qXfer:siginfo:read::0,100", false, actLocal, ""},
		{"qXfer:threads:read::0,100", false, actLocal, ""},
		{"qGetTLSAddr:1,2,3", false, actLocal, ""},
		{"qThreadExtraInfo,1cd6", false, actLocal, ""},
		{"qTStatus", false, actLocal, ""},
		{"qOffsets", false, actLocal, ""},
		{"QPassSignals:e;10", false, actLocal, ""},
		{"QNonStop:1", false, actLocal, ""},
		{"vFile:setfs:0", false, actLocal, ""},
		{"x401000,40", false, actLocal, ""},
		{"vMustReplyEmpty", false, actLocal, ""},
		{"vCont?", false, actLocal, ""},
		{"", false, actLocal, ""},
		{"bx", false, actLocal, ""},
		{"?x", false, actLocal, ""},
		// local answers
		{"?", false, actStop, ""},
		{"qAttached", false, actLocal, "1"},
		{"qAttached:1cd6", false, actLocal, "1"},
		{"qSymbol::", false, actLocal, "OK"},
		{"Hc-1", false, actLocal, "OK"},
		{"Hcp1.1", true, actLocal, "OK"},
		{"QStartNoAckMode", false, actNoAck, "OK"},
		// refused: anything that moves, changes, detaches or kills
		{"c", false, actRefuse, refusedResume},
		{"c401000", false, actRefuse, refusedResume},
		{"C05", false, actRefuse, refusedResume},
		{"s", false, actRefuse, refusedResume},
		{"S05", false, actRefuse, refusedResume},
		{"vCont;c", false, actRefuse, refusedResume},
		{"vCont;s:p1.1;c", false, actRefuse, refusedResume},
		{"vRun;", false, actRefuse, refusedResume},
		{"vAttach;1", false, actRefuse, refusedResume},
		{"bc", false, actRefuse, refusedResume},
		{"bs", false, actRefuse, refusedResume},
		{"i", false, actRefuse, refusedResume},
		{"Z0,401000,1", false, actRefuse, "E01"},
		{"z0,401000,1", false, actRefuse, "E01"},
		{"Z2,601000,4", false, actRefuse, "E01"},
		{"M601000,4:01000000", false, actRefuse, "E01"},
		{"X601000,4:abcd", false, actRefuse, "E01"},
		{"P10=0000000000000000", false, actRefuse, "E01"},
		{"G00", false, actRefuse, "E01"},
		{"D", false, actRefuse, "E01"},
		{"D;1cd6", false, actRefuse, "E01"},
		{"vKill;1cd6", false, actRefuse, "E01"},
		{"vCtrlC", false, actRefuse, "E01"},
		{"R00", false, actRefuse, "E01"},
		{"!", false, actRefuse, "E01"},
		{"qRcmd,7768656e", false, actRefuse, "E01"},
		{"qRRCmd:when", false, actRefuse, "E01"},
		{"qXfer:siginfo:write::0:abcd", false, actRefuse, "E01"},
		{"qXfer:siginfo:read::0,fff", false, actLocal, ""}, // not offered (rr: a diversion)
		{"k", false, actClose, ""},
	}
	for _, tt := range tests {
		act, reply := classify(tt.pkt, offer{multiprocess: tt.mp})
		if act != tt.act {
			t.Errorf("classify(%q) action = %d, want %d", tt.pkt, act, tt.act)
			continue
		}
		if act != actForward && act != actStop && reply != tt.reply {
			t.Errorf("classify(%q) reply = %q, want %q", tt.pkt, reply, tt.reply)
		}
	}
}

func TestSupported(t *testing.T) {
	gdb := "qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vContSupported+;xmlRegisters=i386"
	got := supported(gdb, offer{})
	if strings.Contains(got, "multiprocess") {
		t.Errorf("multiprocess offered to GDB though the backend does not use it: %q", got)
	}
	if !strings.HasPrefix(got, "PacketSize=4000;") {
		t.Errorf("reply %q does not start with PacketSize=4000", got)
	}
	for _, f := range []string{"qXfer:features:read+", "qXfer:auxv:read+", "qXfer:libraries-svr4:read+", "QStartNoAckMode+"} {
		if !strings.Contains(got, f) {
			t.Errorf("reply %q lacks %s", got, f)
		}
	}
	for _, f := range []string{"swbreak", "vContSupported", "fork-events", "QPassSignals", "siginfo"} {
		if strings.Contains(got, f) {
			t.Errorf("reply %q offers %s, which the relay does not serve", got, f)
		}
	}
	if got := supported(gdb, offer{siginfo: true}); !strings.Contains(got, ";qXfer:siginfo:read+") {
		t.Errorf("supported with the siginfo offer = %q", got)
	}
	if act, _ := classify("qXfer:siginfo:read::0,fff", offer{siginfo: true}); act != actForward {
		t.Errorf("qXfer:siginfo:read with the siginfo offer: action %d, want forwarded", act)
	}
	if got := supported(gdb, offer{multiprocess: true}); !strings.HasSuffix(got, ";multiprocess+") {
		t.Errorf("multiprocess backend: reply %q lacks multiprocess+", got)
	}
	if got := supported("qSupported:swbreak+", offer{multiprocess: true}); strings.Contains(got, "multiprocess") {
		t.Errorf("GDB did not offer multiprocess, reply %q has it", got)
	}
}

// safeForward lists, independently of classify, the only packet shapes that
// may ever reach the backend.
var safeForward = regexp.MustCompile(`^(?:` +
	`m[0-9a-fA-F]{1,16},[0-9a-fA-F]{1,8}` +
	`|g` +
	`|p[0-9a-fA-F]{1,8}` +
	`|Hg(?:-1|[0-9a-fA-F]{1,16}|p(?:-1|[0-9a-fA-F]{1,16})(?:\.(?:-1|[0-9a-fA-F]{1,16}))?)` +
	`|T(?:-1|[0-9a-fA-F]{1,16}|p(?:-1|[0-9a-fA-F]{1,16})(?:\.(?:-1|[0-9a-fA-F]{1,16}))?)` +
	`|qfThreadInfo|qsThreadInfo|qC` +
	`|qXfer:features:read:[A-Za-z0-9._-]{1,128}:[0-9a-fA-F]{1,16},[0-9a-fA-F]{1,8}` +
	`|qXfer:(?:auxv|libraries-svr4):read::[0-9a-fA-F]{1,16},[0-9a-fA-F]{1,8}` +
	`|qXfer:exec-file:read:[0-9a-fA-F]{0,16}:[0-9a-fA-F]{1,16},[0-9a-fA-F]{1,8}` +
	`|qXfer:siginfo:read::[0-9a-fA-F]{1,16},[0-9a-fA-F]{1,8}` + // with the siginfo offer only
	`)$`)

// FuzzClassify checks that nothing but a well-formed read is forwarded and
// that resumes and writes are never answered as if they succeeded.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"m0,1", "g", "p10", "Hgp1.2", "T-1", "qC", "c", "vCont;c", "Z0,1,1",
		"qXfer:features:read:target.xml:0,ffb", "qXfer:auxv:read::0,1", "M0,1:00", "qSupported:multiprocess+", "k", "?"} {
		f.Add(s, false, false)
	}
	f.Add("qXfer:siginfo:read::0,fff", false, true)
	f.Fuzz(func(t *testing.T, pkt string, mp, si bool) {
		act, reply := classify(pkt, offer{multiprocess: mp, siginfo: si})
		if act == actForward && strings.HasPrefix(pkt, "qXfer:siginfo") && !si {
			t.Fatalf("forwarded %q without the siginfo offer", pkt)
		}
		if act == actForward && !safeForward.MatchString(pkt) {
			t.Fatalf("forwarded unsafe packet %q", pkt)
		}
		if pkt != "" && strings.ContainsRune("cCsSiIZzMXPGDR!", rune(pkt[0])) && act != actRefuse {
			t.Fatalf("packet %q not refused: action %d reply %q", pkt, act, reply)
		}
		if act == actRefuse && !strings.HasPrefix(reply, "E") {
			t.Fatalf("refusal of %q answered %q, not an error", pkt, reply)
		}
	})
}

func TestSanitizeStop(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "S05"},
		{"S05", "S05"},
		{"W00", "W00"},
		{"X09", "X09"},
		{"T05swbreak:;06:e0e6ffffff7f0000;07:28e4ffffff7f0000;10:60c0fcf7ff7f0000;thread:p1cd6.1cd6;core:0;",
			"T0506:e0e6ffffff7f0000;07:28e4ffffff7f0000;10:60c0fcf7ff7f0000;thread:p1cd6.1cd6;core:0;"},
		{"T05watch:0000555555558028;thread:p1.1;", "T05thread:p1.1;"},
		{"T05replaylog:begin;thread:p1.1;", "T05thread:p1.1;"},
		{"T00thread:1a;", "T00thread:1a;"},
		{"T05", "T05"},
		{"Tzz", "Tzz"},
	}
	for _, tt := range tests {
		if got := sanitizeStop(tt.in); got != tt.want {
			t.Errorf("sanitizeStop(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnyThreadAndStopThread(t *testing.T) {
	for pkt, want := range map[string]bool{"Hg0": true, "Hgp0.0": true, "Hgp12.0": true, "Hgp12.13": false, "Hg13": false, "Hc0": false, "g": false} {
		if got := anyThread(pkt); got != want {
			t.Errorf("anyThread(%q) = %v, want %v", pkt, got, want)
		}
	}
	for st, want := range map[string]string{
		"T05swbreak:;06:e0e6ffffff7f0000;thread:p1cd6.1cd7;core:0;": "p1cd6.1cd7",
		"T0506:00;thread:4d2;": "4d2",
		"T05":                  "",
		"S05":                  "",
		"W00":                  "",
	} {
		if got := stopThread(st); got != want {
			t.Errorf("stopThread(%q) = %q, want %q", st, got, want)
		}
	}
}
