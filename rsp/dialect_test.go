package rsp

import (
	"errors"
	"testing"
)

func rrGuard(newCmd bool) *guard {
	return &guard{
		dialect:  DialectRR,
		rrNewCmd: newCmd,
		bpKind:   1,
		annexes:  map[string]bool{"target.xml": true, "64bit-core.xml": true},
		features: map[string]string{"ReverseContinue": "+", "ReverseStep": "+"},
	}
}

// Each request below makes rr exit, ASSERT or FATAL (rr-rsp.md §12.1, §4);
// the allowed ones are their well-formed neighbours, to show the guard
// does not refuse too much.
func TestGuardRR(t *testing.T) {
	for _, tc := range []struct {
		pkt     string
		refused bool
	}{
		{"qSupported", true},
		{"qSupported:multiprocess+", false},
		{"vRun", true},
		{"vRun;/bin/ls", true},
		{"vRun;/bin/ls;", true},
		{"vRun;;zz", true},
		{"vRun;", false},
		{"vRun;;3432", false},
		{"vRun;;6331", false},
		{"Z0,401000,2", true},
		{"Z0,401000,1", false},
		{"Z1,401000,4", true},
		{"Z2,601000,4", false},
		{"Z0,401000", true},
		{"Z0,xyz,1", true},
		{"Z0,401000,1;X3,220100", false},
		{"qThreadExtraInfo,p1.1", true},
		{"qGetTLSAddr:p1.1,0,0", true},
		{"qXfer:siginfo:read::0,fff", true},
		{"qXfer:siginfo:write::0:", false},
		{"qXfer:features:read:target.xml:0,fff", false},
		{"qXfer:features:read:64bit-core.xml:0,fff", false},
		{"qXfer:features:read:64bit-avx.xml:0,fff", true},
		{"qXfer:auxv:read::0,fff", false},
		{"qRRCmd:when:-1", false},
		{"qRRCmd:info checkpoints:-1", false},
		{"qRRCmd:7768656e", true}, // old format on >= 5.8
		{"qRRCmd:when", true},
		{"qRRCmd:checkpoint:-1", true},
		{"qRRCmd:checkpoint:-1:6d61696e", false},
		{"qRRCmd:checkpoint:-1:xyz", true},
		{"m401000,10", false},
		{"m401000", true},
		{"M401000,1:zz", false}, // hex content is rr's business; length parity only
		{"M401000,1:a", true},
		{"X401000,1", true},
		{"X401000,1:\x00", false},
		{"Hg0", false},
		{"Hgp3e8.3e8", false},
		{"Hcp-1.-1", false},
		{"Hc-1", false},
		{"Hgxyz", true},
		{"Hx1", true},
		{"vFile:open:2f6574632f706173737764,0,0", false},
		{"vFile:open:2f6574632f706173737764,0,1000", true},
		{"vFile:open:zz,0,0", true},
		{"bc", false},
		{"", true},
	} {
		err := rrGuard(true).check(tc.pkt)
		if got := err != nil; got != tc.refused {
			t.Errorf("%q: refused = %v (%v), want %v", tc.pkt, got, err, tc.refused)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("%q: %v does not match ErrRefused", tc.pkt, err)
		}
	}
	old := rrGuard(false)
	for pkt, refused := range map[string]bool{
		"qRRCmd:7768656e":                  false,
		"qRRCmd:when:-1":                   true,
		"qRRCmd:636865636b706f696e74":      true, // checkpoint without argument
		"qRRCmd:636865636b706f696e74:6d61": false,
	} {
		if got := old.check(pkt) != nil; got != refused {
			t.Errorf("rr < 5.8 %q: refused = %v, want %v", pkt, got, refused)
		}
	}
	exited := rrGuard(true)
	exited.exited = true
	for pkt, refused := range map[string]bool{
		"vCont;c": true, "vCont;s:p1.1": true, "c": true, "s": true, "bc": true, "bs": true, "C05": true,
		"vRun;": false, "D": false, "qC": false, "k": false,
	} {
		if got := exited.check(pkt) != nil; got != refused {
			t.Errorf("after W00 %q: refused = %v, want %v", pkt, got, refused)
		}
	}
}

func TestGuardOthers(t *testing.T) {
	g := &guard{dialect: DialectQEMU, features: map[string]string{}}
	for pkt, refused := range map[string]bool{"bc": true, "bs": true, "qGetTLSAddr:1,0,0": false, "Z0,1000,2": false} {
		if got := g.check(pkt) != nil; got != refused {
			t.Errorf("qemu-user %q: refused = %v, want %v", pkt, got, refused)
		}
	}
	gs := &guard{dialect: DialectGDBServer, features: map[string]string{}}
	if gs.check("vCont;r1,2:p-1.-1") == nil {
		t.Error("gdbserver p-1.-1 in vCont not refused")
	}
	if gs.check("vCont;c") != nil {
		t.Error("gdbserver vCont;c refused")
	}
}

func TestDetectDialect(t *testing.T) {
	for feats, want := range map[string]Dialect{
		"PacketSize=100000;QStartNoAckMode+;qXfer:features:read+;qXfer:siginfo:read+;multiprocess+;ConditionalBreakpoints+;ReverseContinue+;ReverseStep+": DialectRR,
		"PacketSize=100000;QStartNoAckMode+;qXfer:features:read+;qXfer:siginfo:read+;multiprocess+;ConditionalBreakpoints+":                               DialectRR, // emergency mode
		// gdbserver 13.1's real list (it also has ConditionalBreakpoints+ and siginfo).
		"PacketSize=47ff;QPassSignals+;QProgramSignals+;QStartupWithShell+;qXfer:siginfo:read+;qXfer:features:read+;QStartNoAckMode+;QNonStop+;QDisableRandomization+;ConditionalBreakpoints+": DialectGDBServer,
		"PacketSize=47ff;QStartupWithShell+;QStartNoAckMode+;qXfer:features:read+":                                                                                                             DialectGDBServer,
		"PacketSize=1000;qXfer:features:read+;ReverseStep+;ReverseContinue+":                                                                                                                   DialectQEMU,
		"PacketSize=1000;qXfer:features:read+;qXfer:auxv:read+;vContSupported+;multiprocess+":                                                                                                  DialectQEMU,
		"PacketSize=20000;QStartNoAckMode+;qXfer:features:read+":                                                                                                                               DialectGeneric,
		"": DialectGeneric,
	} {
		if got := detectDialect(parseFeatures(feats)); got != want {
			t.Errorf("%q: %v, want %v", feats, got, want)
		}
	}
}

func TestParsers(t *testing.T) {
	f := parseFeatures("PacketSize=47ff;QStartNoAckMode+;qRelocInsn-;foo?;bare;;")
	if f["PacketSize"] != "47ff" || f["QStartNoAckMode"] != "+" || f["qRelocInsn"] != "-" || f["foo"] != "?" || f["bare"] != "+" {
		t.Errorf("features = %v", f)
	}
	for in, want := range map[string]int{"47ff": 0x47ff, "1000": 0x1000, "100000": 1 << 20, "1048576": 1 << 20, "10": 256, "": 1024, "zz": 1024, "ffffffffffffffffff": 1024} {
		if got := parsePacketSize(in); got != want {
			t.Errorf("PacketSize %q = %#x, want %#x", in, got, want)
		}
	}
	for in, want := range map[string][3]int{"5.6.0": {5, 6, 0}, "rr version 5.9.0": {5, 9, 0}, "5.8.0-dev": {5, 8, 0}, "5.10": {5, 10, 0}} {
		if got, ok := parseVersion(in); !ok || got != want {
			t.Errorf("version %q = %v %v", in, got, ok)
		}
	}
	if _, ok := parseVersion("rr"); ok {
		t.Error("bad version accepted")
	}
	if !versionAtLeast([3]int{5, 8, 0}, 5, 8) || versionAtLeast([3]int{5, 7, 9}, 5, 8) || !versionAtLeast([3]int{6, 0, 0}, 5, 8) {
		t.Error("versionAtLeast")
	}
	if v := parseVContActions("vCont;c;C;s;S;"); !v["c"] || !v["s"] || v["t"] || len(v) != 4 {
		t.Errorf("vCont actions = %v", v)
	}
	for pkt, resume := range map[string]bool{"vCont;c": true, "vCont?": false, "c": true, "s": true, "C05": true, "S0b": true, "bc": true, "bs": true, "vRun;": true, "k": true, "qC": false, "m0,1": false, "QStartNoAckMode": false, "vAttach;1": true} {
		if isResume(pkt) != resume {
			t.Errorf("isResume(%q) = %v", pkt, !resume)
		}
	}
}

func TestParseFReply(t *testing.T) {
	if n, data, err := parseFReply("pread", []byte("F4;\x7fELF")); err != nil || n != 4 || string(data) != "\x7fELF" {
		t.Errorf("pread = %d %q %v", n, data, err)
	}
	var fe *FileError
	if _, _, err := parseFReply("open", []byte("F-1,2")); !errors.As(err, &fe) || fe.Errno != 2 {
		t.Errorf("F-1,2 = %v", err)
	}
	if _, _, err := parseFReply("open", []byte("")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("empty = %v", err)
	}
	if _, _, err := parseFReply("open", []byte("Fzz")); err == nil {
		t.Error("Fzz accepted")
	}
}

func TestParseCheckpoints(t *testing.T) {
	list, err := parseCheckpoints("ID\tWhen\tWhere\n1\t57\tmain.c:10\n2\t99\tfoo")
	if err != nil || len(list) != 2 || list[1] != (CheckpointInfo{2, "99", "foo"}) {
		t.Errorf("%+v %v", list, err)
	}
	if list, err := parseCheckpoints("No checkpoints."); err != nil || list != nil {
		t.Errorf("%+v %v", list, err)
	}
	if _, err := parseCheckpoints("garbage"); err == nil {
		t.Error("garbage accepted")
	}
}
