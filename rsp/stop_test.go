package rsp_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rrmcp/rrmcp/rsp"
)

func TestParseStop(t *testing.T) {
	p1 := rsp.Thread{Pid: 0x1cd6, Tid: 0x1cd6}
	for _, tc := range []struct {
		in   string
		want rsp.Stop
	}{
		// gdbserver 13.1 (peers.md §1.3), after RLE decoding.
		{"T05swbreak:;06:e0e6ffffff7f0000;07:28e4ffffff7f0000;10:60c0fcf7ff7f0000;thread:p1cd6.1cd6;core:0;", rsp.Stop{
			Signal: rsp.SIGTRAP, SWBreak: true, Thread: p1, Core: 0,
			Registers: map[int][]byte{6: {0xe0, 0xe6, 0xff, 0xff, 0xff, 0x7f, 0, 0}, 7: {0x28, 0xe4, 0xff, 0xff, 0xff, 0x7f, 0, 0}, 0x10: {0x60, 0xc0, 0xfc, 0xf7, 0xff, 0x7f, 0, 0}}}},
		{"T05watch:0000555555558028;thread:p1cd6.1cd6;core:1;", rsp.Stop{Signal: rsp.SIGTRAP, Watch: rsp.WatchWrite, WatchAddr: 0x555555558028, Thread: p1, Core: 1}},
		{"T05hwbreak:;thread:p15dc.15fc;", rsp.Stop{Signal: rsp.SIGTRAP, HWBreak: true, Thread: rsp.Thread{Pid: 0x15dc, Tid: 0x15fc}, Core: -1}},
		{"T0206:xxxxxxxxxxxxxxxx;thread:pca2.ca2;core:0;", rsp.Stop{Signal: rsp.SIGINT, Thread: rsp.Thread{Pid: 0xca2, Tid: 0xca2}, Core: 0, Registers: map[int][]byte{6: make([]byte, 8)}}},
		{"W7;process:1cd6", rsp.Stop{Kind: rsp.StopExited, ExitCode: 7, Pid: 0x1cd6, Core: -1}},
		{"W2c;process:6887", rsp.Stop{Kind: rsp.StopExited, ExitCode: 0x2c, Pid: 0x6887, Core: -1}},
		{"W03", rsp.Stop{Kind: rsp.StopExited, ExitCode: 3, Core: -1}},
		{"X06", rsp.Stop{Kind: rsp.StopTerminated, Signal: rsp.SIGABRT, Core: -1}},
		{"X1e;process:10", rsp.Stop{Kind: rsp.StopTerminated, Signal: rsp.SIGUSR1, Pid: 16, Core: -1}},
		{"S0b", rsp.Stop{Signal: rsp.SIGSEGV, Core: -1}},
		{"N", rsp.Stop{Kind: rsp.StopNoResumed, Core: -1}},
		// rr (rr-rsp.md §5): reasons after thread, plain tids on 5.6, replaylog.
		{"T00thread:p3e8.3e8;replaylog:begin;", rsp.Stop{Signal: rsp.Sig0, Thread: rsp.Thread{Pid: 1000, Tid: 1000}, ReplayLog: "begin", Core: -1}},
		{"T05thread:3e9;watch:601040;", rsp.Stop{Signal: rsp.SIGTRAP, Thread: rsp.Thread{Tid: 0x3e9}, Watch: rsp.WatchWrite, WatchAddr: 0x601040, Core: -1}},
		{"T09thread:p3e8.3e8;", rsp.Stop{Signal: rsp.SIGKILL, Thread: rsp.Thread{Pid: 1000, Tid: 1000}, Core: -1}},
		// QEMU: rwatch/awatch spelled out, vCPU ids.
		{"T05thread:p01.02;awatch:100040;", rsp.Stop{Signal: rsp.SIGTRAP, Thread: rsp.Thread{Pid: 1, Tid: 2}, Watch: rsp.WatchAccess, WatchAddr: 0x100040, Core: -1}},
		{"T05rwatch:100040;", rsp.Stop{Signal: rsp.SIGTRAP, Watch: rsp.WatchRead, WatchAddr: 0x100040, Core: -1}},
		// Events land in Extra.
		{"T05fork:p3e9.3e9;thread:p3e8.3e8;", rsp.Stop{Signal: rsp.SIGTRAP, Thread: rsp.Thread{Pid: 1000, Tid: 1000}, Extra: map[string]string{"fork": "p3e9.3e9"}, Core: -1}},
	} {
		got, err := rsp.ParseStop(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		tc.want.Raw = tc.in
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "T", "T0", "Tzz", "T05thread", "T05thread:pzz.1;", "T05watch:xyz;", "W", "Wzz", "X06;process", "Q05", "S05x", "T0506:abc;"} {
		if _, err := rsp.ParseStop(bad); err == nil {
			t.Errorf("%q: no error", bad)
		} else if pe := (*rsp.ProtocolError)(nil); !errors.As(err, &pe) {
			t.Errorf("%q: %T, want *ProtocolError", bad, err)
		}
	}
}

func TestThreadRoundTrip(t *testing.T) {
	for _, s := range []string{"p1cd6.1cd6", "1cd6", "p-1.-1", "-1", "0", "p1.-1"} {
		th, err := rsp.ParseThread(s)
		if err != nil || th.String() != s {
			t.Errorf("%q → %+v (%v) → %q", s, th, err, th.String())
		}
	}
}

func TestSignals(t *testing.T) {
	for _, tc := range []struct {
		linux int
		gdb   rsp.Signal
		name  string
	}{
		{1, 1, "SIGHUP"}, {5, 5, "SIGTRAP"}, {6, 6, "SIGABRT"}, {7, 10, "SIGBUS"}, {9, 9, "SIGKILL"},
		{10, 30, "SIGUSR1"}, {11, 11, "SIGSEGV"}, {12, 31, "SIGUSR2"}, {16, 38, "SIGSTKFLT"}, {17, 20, "SIGCHLD"},
		{19, 17, "SIGSTOP"}, {29, 23, "SIGIO"}, {30, 32, "SIGPWR"}, {31, 12, "SIGSYS"},
		{32, 77, "SIG32"}, {34, 46, "SIG34"}, {63, 75, "SIG63"}, {64, 78, "SIG64"}, {127, 141, "SIG127"},
	} {
		if g := rsp.SignalFromLinux(tc.linux); g != tc.gdb {
			t.Errorf("SignalFromLinux(%d) = %d, want %d", tc.linux, g, tc.gdb)
		}
		if l := tc.gdb.Linux(); l != tc.linux {
			t.Errorf("%v.Linux() = %d, want %d", tc.gdb, l, tc.linux)
		}
		if tc.gdb.String() != tc.name {
			t.Errorf("Signal(%d) = %q, want %q", tc.gdb, tc.gdb.String(), tc.name)
		}
	}
	if rsp.SignalFromLinux(200) != rsp.SigUnknown || rsp.Signal(7).Linux() != -1 {
		t.Error("unknown signals")
	}
}

func FuzzParseStop(f *testing.F) {
	for _, s := range []string{
		"T05swbreak:;06:e0e6ffffff7f0000;07:28e4ffffff7f0000;10:60c0fcf7ff7f0000;thread:p1cd6.1cd6;core:0;",
		"T05watch:0000555555558028;06:a0e6ffffff7f0000;thread:p1cd6.1cd6;core:0;",
		"T0206:xxxxxxxxxxxxxxxx;thread:pca2.ca2;core:0;", "W7;process:1cd6", "W03", "X06", "X1e;process:10",
		"T00thread:p3e8.3e8;replaylog:begin;", "T09thread:p3e8.3e8;", "T05thread:p01.01;", "S0b", "N",
		"T05thread:3e9;watch:601040;", "T05fork:p3e9.3e9;thread:p3e8.3e8;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := rsp.ParseStop(s)
		if err != nil {
			return
		}
		if st.Raw != s {
			t.Fatalf("Raw = %q", st.Raw)
		}
		_ = st.String()
		for _, r := range st.Registers {
			if len(r) > len(s) {
				t.Fatalf("register longer than input")
			}
		}
	})
}

// TestStopRegister: an expedited register's value, only where the reply
// carried it whole.
func TestStopRegister(t *testing.T) {
	st, err := rsp.ParseStop("T0506:20e6ffffff7f0000;07:10e6ff;10:5051555555550000;thread:p1.1;")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    rsp.Register
		want uint64
		ok   bool
	}{
		{rsp.Register{Name: "rbp", Regnum: 6, Bitsize: 64}, 0x7fffffffe620, true},
		{rsp.Register{Name: "rip", Regnum: 16, Bitsize: 64}, 0x555555555150, true},
		{rsp.Register{Name: "rsp", Regnum: 7, Bitsize: 64}, 0, false}, // 3 of 8 bytes
		{rsp.Register{Name: "rax", Regnum: 0, Bitsize: 64}, 0, false}, // not sent
		{rsp.Register{Name: "xmm0", Regnum: 6, Bitsize: 128}, 0, false},
	} {
		if v, ok := st.Register(tc.r); v != tc.want || ok != tc.ok {
			t.Errorf("Register(%s) = %#x, %v; want %#x, %v", tc.r.Name, v, ok, tc.want, tc.ok)
		}
	}
}
