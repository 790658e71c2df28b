package rr

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The test binary doubles as a fake rr: with RRMCP_FAKE_RR=1 in its
// environment TestMain runs fakeRR instead of the tests. FAKE_RR_MODE picks
// the behaviour, FAKE_RR_VERSION the version it claims.
func TestMain(m *testing.M) {
	if os.Getenv("RRMCP_FAKE_RR") == "1" {
		os.Exit(fakeRR(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeRRPath is the rr executable to use in tests: this test binary.
func fakeRRPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func fakeEnv(mode string, more ...string) []string {
	return append([]string{"RRMCP_FAKE_RR=1", "FAKE_RR_MODE=" + mode}, more...)
}

func fakeRR(args []string) int {
	mode := os.Getenv("FAKE_RR_MODE")
	if len(args) > 0 && args[0] == "--non-interactive" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "fake rr: no command")
		return 1
	}
	switch args[0] {
	case "--version":
		v := os.Getenv("FAKE_RR_VERSION")
		if v == "" {
			v = "5.8.0"
		}
		fmt.Printf("rr version %s\n", v)
		return 0
	case "record":
		return fakeRecord(mode, args[1:])
	case "replay":
		return fakeReplay(mode, args[1:])
	case "ps":
		fmt.Print("PID\tPPID\tEXIT\tCMD\n4242\t--\t0\t/bin/prog a b\n4250\t4242\t-11\t/bin/child\n")
		return 0
	case "traceinfo":
		fmt.Print(`{"uuid":[1,2,3],"xcr0":231,"cpuidFaulting":false}` + "\n")
		return 0
	}
	fmt.Fprintf(os.Stderr, "fake rr: unknown command %q\n", args[0])
	return 1
}

func fakeRecord(mode string, args []string) int {
	if mode == "nopmu" {
		fmt.Fprintln(os.Stderr, "[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available?")
		return 1
	}
	dir := ""
	var argv []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-o":
			i++
			dir = args[i]
		case strings.HasPrefix(args[i], "-"):
		default:
			argv = args[i:]
			i = len(args)
		}
	}
	if dir == "" {
		dir = filepath.Join(os.Getenv("_RR_TRACE_DIR"), filepath.Base(argv[0])+"-0")
	}
	if err := makeFakeTrace(dir); err != nil {
		fmt.Fprintln(os.Stderr, "fake rr:", err)
		return 1
	}
	fmt.Printf("tracee says hello: %s\n", strings.Join(argv, " "))
	fmt.Fprintln(os.Stderr, "rr: Saving execution to trace directory `"+dir+"'.")
	if mode != "nodir" {
		f := os.NewFile(3, "trace-dir")
		fmt.Fprintln(f, dir)
		f.Close()
	}
	code, _ := strconv.Atoi(os.Getenv("FAKE_RR_EXIT"))
	return code
}

func makeFakeTrace(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"version", "events", "data", "mmaps", "tasks"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("85\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fakeReplay(mode string, args []string) int {
	fmt.Printf("fake rr args: %s\n", strings.Join(args, " "))
	fmt.Println("tracee output: target extended-remote 10.9.9.9:1 is not rr's line")
	fmt.Fprintln(os.Stderr, "rr: Warning: You appear to be running in a VMWare guest with a bug ...")
	switch mode {
	case "noprocess":
		fmt.Fprintln(os.Stderr, "No process 99 found. Try 'rr ps'.")
		return 2
	case "nopmu":
		fmt.Fprintln(os.Stderr, "[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available?")
		return 1
	case "silent":
		select {} // never listens; the caller's deadline must fire
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake rr:", err)
		return 1
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM) // before the launch line, so Stop's SIGTERM meets it
	}
	if os.Getenv("FAKE_RR_VERSION") == "5.6.0" {
		fmt.Fprintf(os.Stderr, "Launch gdb with\n  gdb '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:%d' /tmp/bin/prog\n", port)
	} else {
		fmt.Fprintf(os.Stderr, "Launch debugger with\n  'gdb' '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:%d' '/tmp/my prog' \n", port)
	}
	if mode == "stubborn" {
		select {}
	}
	c, err := ln.Accept()
	if err != nil {
		return 1
	}
	// Echo one line back, then exit when the client hangs up, as rr does on EOF.
	line, _ := bufio.NewReader(c).ReadString('\n')
	if mode == "output" {
		// What a replay running forward echoes of the program's writes
		// (StdioMonitor::did_write), with rr's own messages among the
		// stderr lines; the reply waits until they are written.
		os.Stdout.WriteString("out 1\nout 2 without a newline")
		fmt.Fprintln(os.Stderr, "[WARN src/ReplaySession.cc:123:f()] rr's own warning")
		fmt.Fprintln(os.Stderr, "prog: something went wrong")
		fmt.Fprintln(os.Stderr, "Launch gdb with")
	}
	fmt.Fprint(c, "echo:"+line)
	io.Copy(io.Discard, c)
	return 0
}
