package tools_test

import (
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestBadInput calls every tool with input it must reject and checks for a
// clear tool error (isError, what was wrong, no Go internals); the server
// must keep serving after each.
func TestBadInput(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	prog := testenv.Prog(t, "null_deref")
	traceRoot := t.TempDir()
	c := startServer(t, "_RR_TRACE_DIR="+traceRoot)

	// Before any session exists.
	for _, tool := range []string{"rr_continue", "rr_backtrace", "rr_locals", "rr_evaluate", "rr_when",
		"rr_breakpoint_list", "rr_thread_list", "rr_replay_stop", "rr_interrupt"} {
		a := args{}
		if tool == "rr_evaluate" {
			a["expression"] = "1"
		}
		c.fails(tool, a, "no session is active", "rr_live_start")
	}

	c.ok("rr_live_start", args{"command": []string{prog}})
	c.ok("rr_breakpoint_set", args{"location": "lookup"})
	c.ok("rr_continue", nil, "lookup")

	damaged := filepath.Join(traceRoot, "damaged")
	os.Mkdir(damaged, 0o755)
	for _, f := range []string{"version", "events", "data", "mmaps", "tasks"} {
		os.WriteFile(filepath.Join(damaged, f), []byte("85\n"), 0o644)
	}
	notTrace := t.TempDir()
	os.WriteFile(filepath.Join(notTrace, "file"), []byte("x"), 0o644)

	// A "server" that accepts a connection and closes it at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	closer := ln.Addr().String()

	cases := []struct {
		tool string
		args args
		want []string
	}{
		{"rr_record", args{}, []string{`missing required argument "command"`}},
		{"rr_record", args{"command": []string{""}}, []string{"command"}},
		{"rr_record", args{"command": "ls"}, []string{`argument "command" must be an array of strings`}},
		// a part of the argument of the wrong type: the argument's own type, and which part
		{"rr_record", args{"command": []any{"/bin/true", 5}}, []string{`argument "command" must be an array of strings: an element of it is a number`}},
		{"rr_live_start", args{"command": []string{"/bin/true"}, "env": map[string]any{"A": 1}}, []string{`argument "env" must be an object whose values are strings: a value in it is a number`}},
		{"rr_replay_start", args{"trace_dir": "/nonexistent/trace"}, []string{"does not exist"}},
		{"rr_replay_start", args{"trace_dir": notTrace}, []string{"not an rr trace directory"}},
		{"rr_replay_start", args{"pid": -1}, []string{"pid"}},
		{"rr_replay_stop", args{"session": "s99"}, []string{`session "s99" does not exist`}},
		{"rr_list_recordings", args{"trace_base_dir": filepath.Join(notTrace, "file")}, []string{"cannot read"}},
		{"rr_ps", args{"trace_dir": notTrace}, []string{"not an rr trace directory"}},
		{"rr_traceinfo", args{"trace_dir": "/etc"}, []string{"not an rr trace directory"}},
		{"rr_rm", args{"trace_dir": "/etc"}, []string{"not an rr trace directory"}},
		{"rr_rm", args{"trace_dir": "/"}, []string{"not an rr trace directory"}},
		{"rr_rm", args{"trace_dir": notTrace}, []string{"not an rr trace directory"}},
		{"rr_pack", args{"trace_dir": ""}, []string{"empty"}},
		{"rr_when", nil, []string{"needs an rr replay", "live"}},
		{"rr_breakpoint_set", args{"location": "lokup"}, []string{`no function named "lokup"`, "did you mean", "lookup"}},
		{"rr_breakpoint_set", args{"location": "nosuch.c:3"}, []string{"no code at nosuch.c:3", "null_deref.c"}},
		{"rr_breakpoint_set", args{"location": ""}, []string{"location"}},
		{"rr_breakpoint_set", args{"location": "lookup", "condition": "name =="}, []string{"not a valid expression"}},
		{"rr_breakpoint_set", args{"location": "*0x1"}, []string{"0x1"}},
		{"rr_breakpoint_remove", args{"breakpoint_number": 99}, []string{"no breakpoint number 99", "existing: 1"}},
		{"rr_breakpoint_enable", args{"breakpoint_number": 42}, []string{"no breakpoint number 42"}},
		{"rr_breakpoint_disable", args{}, []string{`missing required argument "breakpoint_number"`}},
		{"rr_breakpoint_condition", args{"breakpoint_number": 7, "condition": "1"}, []string{"no breakpoint number 7"}},
		{"rr_breakpoint_list", args{"session": "nope"}, []string{`session "nope" does not exist`}},
		{"rr_watchpoint_set", args{"expression": "1 +"}, []string{"expression"}},
		{"rr_watchpoint_set", args{"expression": "u", "access_type": "sideways"}, []string{"not one of write, read, access"}},
		{"rr_watchpoint_set", args{"expression": "nosuchvar"}, []string{"nosuchvar"}},
		{"rr_watchpoint_set", args{"expression": "1 + 2"}, []string{"not in memory"}},
		{"rr_continue", args{"reverse": true}, []string{"reverse execution needs an rr recording", "live gdbserver session", "rr_record"}},
		{"rr_continue", args{"reverse": "yes"}, []string{`argument "reverse" must be true or false`}},
		{"rr_step", args{"count": -1}, []string{"count", "between 1 and"}},
		{"rr_step", args{"reverse": true}, []string{"reverse execution needs an rr recording"}},
		{"rr_next", args{"count": "two"}, []string{`argument "count" must be an integer`}},
		{"rr_next", args{"reverse": true}, []string{"reverse execution needs an rr recording"}},
		{"rr_stepi", args{"reverse": true}, []string{"reverse execution needs an rr recording"}},
		{"rr_nexti", args{"count": 0.5}, []string{"count"}},
		{"rr_finish", args{"reverse": true}, []string{"reverse execution needs an rr recording"}},
		{"rr_run_to_event", args{"event_number": 10}, []string{"needs an rr replay"}},
		{"rr_run_to_event", args{"event_number": -3}, []string{"event_number", ">= 0"}},
		{"rr_interrupt", args{"session": "s7"}, []string{"does not exist"}},
		{"rr_thread_list", args{"bogus": 1}, []string{`unknown argument "bogus"`, "session"}},
		{"rr_thread_select", args{"thread_id": "p1.99999"}, []string{`no thread "p1.99999"`}},
		{"rr_select_frame", args{"frame_level": 99}, []string{"no frame 99", "0 to 2"}},
		{"rr_select_frame", args{"frame_level": -1}, []string{"frame_level"}},
		{"rr_backtrace", args{"max_depth": -1}, []string{"max_depth"}},
		{"rr_evaluate", args{"expression": "nosuchvar"}, []string{"nosuchvar"}},
		{"rr_evaluate", args{"expression": "name +* ("}, []string{"expression"}},
		{"rr_evaluate", args{"expression": "*(int *)0"}, []string{"Cannot access memory at address 0x0"}},
		{"rr_evaluate", args{}, []string{`missing required argument "expression"`}},
		{"rr_evaluate", args{"expression": "name", "expand": 5}, []string{"expand", "between 1 and 4"}},
		{"rr_read_memory", args{"address": "0x0"}, []string{"cannot access memory at 0x0"}},
		{"rr_read_memory", args{"address": "0x1000", "count": -5}, []string{"count"}},
		{"rr_read_memory", args{"address": "nosuchvar"}, []string{"nosuchvar"}},
		{"rr_registers", args{"register_names": []string{"nosuchreg"}}, []string{`no register "nosuchreg"`, "rip"}},
		{"rr_source_lines", args{"file": "nosuch.c", "line": 3}, []string{`no source file "nosuch.c"`}},
		{"rr_source_lines", args{"line": 100000}, []string{"has only"}},
		{"rr_disassemble", args{"location": "nosuchfunc"}, []string{"nosuchfunc"}},
		{"rr_disassemble", args{"location": "0x8"}, []string{"cannot read code at 0x8"}},
		{"rr_checkpoint_save", nil, []string{"checkpoints need an rr replay"}},
		{"rr_checkpoint_restore", args{"checkpoint_id": 1}, []string{"checkpoints need an rr replay"}},
		{"rr_checkpoint_list", nil, []string{"checkpoints need an rr replay"}},
		{"rr_checkpoint_delete", args{"checkpoint_id": 1}, []string{"checkpoints need an rr replay"}},
		{"rr_rsp_packet", args{"packet": "vCont;c"}, []string{"refused", "allow_resume"}},
		{"rr_rsp_packet", args{"packet": "vFile:unlink:" + hexString(notTrace+"/file")}, []string{"refused", "host's files"}},
		{"rr_rsp_packet", args{"packet": "vFile:open:" + hexString("/etc/shadow") + ",0,0"}, []string{"refused", "host's files"}},
		{"rr_rsp_packet", args{"packet": "QNonStop:1"}, []string{"refused", "protocol mode"}},
		{"rr_rsp_packet", args{"packet": "QStartNoAckMode"}, []string{"refused", "protocol mode"}},
		{"rr_rsp_packet", args{"packet": "k", "allow_resume": true, "allow_write": true}, []string{"refused", "kills the program"}},
		{"rr_rsp_packet", args{"packet": "vKill;1"}, []string{"refused", "kills the program"}},
		{"rr_rsp_packet", args{"packet": "D"}, []string{"refused", "detaches"}},
		{"rr_rsp_packet", args{"packet": "qRcmd," + hexString("exit"), "allow_write": true}, []string{"refused", "stops or detaches the server"}},
		{"rr_rsp_packet", args{"packet": "M401000,1:00"}, []string{"refused", "allow_write"}},
		{"rr_rsp_packet", args{"packet": "Z0,401000,1"}, []string{"refused", "allow_write"}},
		{"rr_rsp_packet", args{"packet": "qX" + strings.Repeat("a", 100000)}, []string{"refused", "PacketSize"}},
		{"rr_rsp_packet", args{"packet": ""}, []string{"packet"}},
		// gdbserver asserts and exits on a read longer than a reply
		// holds while breakpoints are inserted
		{"rr_rsp_packet", args{"packet": "m401000,10000"}, []string{"refused", "65536 bytes", "PacketSize", "rr_read_memory"}},
		// the kernel refuses a debug register past user space, and
		// gdbserver exits when it cannot write one
		{"rr_breakpoint_set", args{"location": "*0xffffffffffffffff", "hardware": true}, []string{"0xffffffffffffffff"}},
		{"rr_watchpoint_set", args{"expression": "*0xfffffffffffffff8"}, []string{"0xfffffffffffffff8 is not a user-space address"}},
		// the size is checked before the value is read (it was read
		// first: a panic, or gigabytes)
		{"rr_watchpoint_set", args{"expression": "*(char (*)[0x7fffffffffffffff])0x1000"}, []string{"bytes"}},
		{"rr_watchpoint_set", args{"expression": "*(char (*)[0x10000000])0x1000"}, []string{"268435456 bytes"}},
		{"rr_live_start", args{"command": []string{"/nonexistent/prog"}}, []string{"does not exist"}},
		{"rr_live_start", args{}, []string{"command"}},
		{"rr_live_start", args{"command": []string{prog}, "working_directory": "/nonexistent/dir"}, []string{"working_directory", "/nonexistent/dir does not exist"}},
		{"rr_live_start", args{"command": []string{prog, "a\x00b"}}, []string{"argument 1", "NUL byte"}},
		{"rr_live_start", args{"command": []string{prog}, "attach_pid": 1 << 30}, []string{"attach_pid"}},
		{"rr_record", args{"command": []string{prog}, "working_directory": "/nonexistent/dir"}, []string{"working_directory", "does not exist"}},
		{"rr_replay_start", args{}, []string{"no recordings in " + traceRoot, "rr_record"}},
		{"rr_replay_start", args{"pid": 1 << 30}, []string{"pid"}},
		{"rr_signal_handle", args{"signal": "SIGNOPE", "stop": true}, []string{"not a signal name"}},
		{"rr_signal_handle", args{"signal": "SIGTRAP", "stop": false}, []string{"always stops"}},
		{"rr_evaluate", args{"expression": "nosuchvar_" + strings.Repeat("x", 1<<20)}, []string{"nosuchvar_xxx", "bytes)"}},
		{"rr_breakpoint_set", args{"location": strings.Repeat("f", 1<<20)}, []string{"bytes)"}},
		{"rr_source_lines", args{"file": "/etc/passwd", "line": 1}, []string{"no source file", "debug information"}},
		{"rr_source_lines", args{"file": "/proc/self/environ", "line": 1}, []string{"debug information"}},
		{"rr_source_lines", args{"file": "/x/../../etc/passwd", "line": 1}, []string{"debug information"}},
		{"rr_source_lines", args{"file": "/dev/zero", "line": 1}, []string{"debug information"}},
		{"rr_read_memory", args{"address": "0x8"}, []string{"0x8"}},
		{"rr_live_start", args{"command": []string{prog}, "attach_pid": 1}, []string{"either command or attach_pid"}},
		{"rr_connect", args{"address": "nohost"}, []string{"neither host:port nor the absolute path of a Unix-domain socket"}},
		{"rr_connect", args{"address": "/nonexistent/gdb.sock"}, []string{"/nonexistent/gdb.sock"}},
		{"rr_connect", args{"address": "127.0.0.1:1"}, []string{"connect to the debug server at 127.0.0.1:1"}},
		// a server that takes the connection and closes it: no session to stop
		{"rr_connect", args{"address": closer}, []string{"the server closed the connection", "No session was started"}},
		{"rr_session_list", args{"x": 1}, []string{"takes no arguments"}},
	}
	if _, err := exec.LookPath("rr"); err == nil {
		// rr pack on a damaged trace: a clean error, not rr's C++
		// exception dump with its stack addresses.
		cases = append(cases, struct {
			tool string
			args args
			want []string
		}{"rr_pack", args{"trace_dir": damaged}, []string{"rr pack", "damaged trace"}})
	}
	if _, err := exec.LookPath("rr"); err == nil && rr.Probe(t.Context()) != nil {
		// rr is installed but cannot record here (no PMU): a clear error
		// that points at the live backend, and no half-written trace.
		trace := filepath.Join(t.TempDir(), "trace")
		cases = append(cases, struct {
			tool string
			args args
			want []string
		}{"rr_record", args{"command": []string{prog}, "trace_dir": trace}, []string{"rr could not record", "rr_live_start"}})
		defer func() {
			if _, err := os.Stat(trace); err == nil {
				t.Errorf("failed rr_record left %s behind", trace)
			}
		}()
	}
	for _, tc := range cases {
		r := c.fails(tc.tool, tc.args, tc.want...)
		// A live session's errors never use rr's wording.
		if strings.Contains(r.text, "point of the replay") {
			t.Errorf("%s: a live session's error speaks of the replay:\n%s", tc.tool, r.text)
		}
	}
	os.RemoveAll(damaged)
	// rr_list_recordings and rr_rm on directories laid out like rr's (no
	// rr needed): only a recording directly under the trace root is
	// removed; a look-alike elsewhere (a project directory, <root>/../x) is
	// refused and kept; a symbolic link is removed as a link.
	fakeTrace := func(dir string) string {
		os.MkdirAll(dir, 0o755)
		for _, f := range []string{"version", "events", "data", "mmaps", "tasks"} {
			os.WriteFile(filepath.Join(dir, f), []byte("85\n"), 0o644)
		}
		return dir
	}
	fake := fakeTrace(filepath.Join(traceRoot, "prog-0"))
	project := fakeTrace(filepath.Join(t.TempDir(), "project"))
	os.WriteFile(filepath.Join(project, "main.c"), []byte("int main(){}\n"), 0o644)
	sibling := fakeTrace(filepath.Join(filepath.Dir(traceRoot), filepath.Base(traceRoot)+"-sibling"))
	t.Cleanup(func() { os.RemoveAll(sibling) })
	link := filepath.Join(traceRoot, "latest-trace")
	os.Symlink(fake, link)
	outsideLink := filepath.Join(t.TempDir(), "link")
	os.Symlink(fake, outsideLink)
	c.ok("rr_list_recordings", args{"trace_base_dir": traceRoot}, "prog-0")
	c.fails("rr_rm", args{"trace_dir": traceRoot}, "not an rr trace directory")
	// what is missing, said as it is
	half := filepath.Join(traceRoot, "half")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "version"), []byte("85\n"), 0o644)
	os.WriteFile(filepath.Join(half, "events"), []byte("x"), 0o644)
	c.fails("rr_rm", args{"trace_dir": half}, "not an rr trace directory (it has none of rr's data, mmaps and tasks files)")
	os.Remove(filepath.Join(half, "events"))
	c.fails("rr_rm", args{"trace_dir": half}, "it has no events file")
	c.fails("rr_rm", args{"trace_dir": project}, "not a recording directly under the trace root")
	c.fails("rr_rm", args{"trace_dir": filepath.Join(traceRoot, "..", filepath.Base(sibling))}, "not a recording directly under the trace root")
	c.fails("rr_rm", args{"trace_dir": outsideLink}, "symbolic link outside the trace root")
	for _, d := range []string{project, sibling, fake} {
		if _, err := os.Stat(filepath.Join(d, "version")); err != nil {
			t.Errorf("refused rr_rm removed %s: %v", d, err)
		}
	}
	c.ok("rr_rm", args{"trace_dir": link}, "Symbolic link removed", "is kept")
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("rr_rm did not remove the link %s", link)
	}
	c.ok("rr_rm", args{"trace_dir": fake}, "Trace removed")
	if _, err := os.Stat(fake); !os.IsNotExist(err) {
		t.Errorf("rr_rm did not remove %s", fake)
	}
	c.ok("rr_list_recordings", args{"trace_base_dir": traceRoot}, "No recordings")

	// Still serving, still at the same place.
	c.ok("rr_backtrace", nil, "#0  lookup")
	c.ok("rr_rsp_packet", args{"packet": "qC"}, "QC")
	// '#', '$', '}' and '*' are escaped: the frame stays intact (the old
	// code sent them raw: a bad checksum and a dead session).
	c.ok("rr_rsp_packet", args{"packet": "qRrmcp#$}*"}, "Reply: (empty")
	c.ok("rr_backtrace", nil, "#0  lookup")
	if _, err := os.Stat(filepath.Join(notTrace, "file")); err != nil {
		t.Errorf("vFile:unlink through rr_rsp_packet removed a file: %v", err)
	}
	c.ok("rr_interrupt", nil, "Nothing is running")
	c.ok("rr_session_list", nil, "s1", "live")
	c.ok("rr_breakpoint_set", args{"location": "main"})
	c.fails("rr_finish", args{"frame_level": 1}, "unknown argument")
	c.ok("rr_select_frame", args{"frame_level": 2}, "main")
	c.fails("rr_finish", nil, "outermost frame")
}

func hexString(s string) string { return hex.EncodeToString([]byte(s)) }
