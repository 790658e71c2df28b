// Command nofire is a gdbserver that behaves like one on a VM whose
// hardware debug registers accept breakpoints and watchpoints and never
// fire (AMD Zen 5 guests seen so far): it runs the real gdbserver with
// the same arguments and puts the fault proxy in front of it, which
// answers every Z1–Z4 and z1–z4 request with OK in the server's place.
// Installed as "gdbserver" first on PATH, it lets a test prove the
// software-watchpoint path end to end (probe, fallback, stops) on a
// machine whose hardware works. The real gdbserver is $NOFIRE_GDBSERVER.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/rrmcp/rrmcp/internal/faultproxy"
)

var listening = regexp.MustCompile(`^Listening on port (\d+)$`)

func main() {
	real := os.Getenv("NOFIRE_GDBSERVER")
	if real == "" {
		fmt.Fprintln(os.Stderr, "nofire: NOFIRE_GDBSERVER (the real gdbserver) is not set")
		os.Exit(2)
	}
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	errs, err := cmd.StderrPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "nofire:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "nofire:", err)
		os.Exit(2)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s) //nolint:errcheck
		}
	}()
	sc := bufio.NewScanner(errs)
	for sc.Scan() {
		line := sc.Text()
		m := listening.FindStringSubmatch(line)
		if m == nil {
			fmt.Fprintln(os.Stderr, line)
			continue
		}
		p, err := faultproxy.Start("127.0.0.1:" + m[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "nofire:", err)
			cmd.Process.Kill() //nolint:errcheck
			os.Exit(2)
		}
		for _, z := range []string{"Z1,", "Z2,", "Z3,", "Z4,", "z1,", "z2,", "z3,", "z4,"} {
			p.Arm(faultproxy.Rule{Dir: faultproxy.ToServer, Prefix: z, Action: faultproxy.Answer, Reply: "OK", Every: true})
		}
		_, port, _ := net.SplitHostPort(p.Addr())
		fmt.Fprintf(os.Stderr, "Listening on port %s\n", port)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode() & 0xff)
	}
	os.Exit(1)
}
