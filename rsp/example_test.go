package rsp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// exampleServer serves a scripted rr-like stub on a loopback port, standing
// in for `rr replay -s PORT`.
func exampleServer() (addr string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hits := 0
	handle := stubHandler("rr", func(req string) []string {
		switch {
		case req == "m601040,8":
			return []string{"2a00000000000000"}
		case req == "vCont;c":
			hits++
			return []string{"T05thread:p3e8.3e8;swbreak:;"}
		case req == "bc":
			return []string{"T00thread:p3e8.3e8;replaylog:begin;"}
		case strings.HasPrefix(req, "qRRCmd:when:"):
			return []string{stubHex("Completed event: 42\n")}
		}
		return nil
	})
	return ln.Addr().String(), serveStubOnce(ln, handle)
}

// exampleClient dials a fresh exampleServer with opts (panicking if it
// cannot, as exampleServer does); done closes the client and stops the
// server.
func exampleClient(ctx context.Context, opts rsp.Options) (c *rsp.Client, done func()) {
	addr, stop := exampleServer()
	c, err := rsp.Dial(ctx, addr, opts)
	if err != nil {
		stop()
		panic(err)
	}
	return c, func() { c.Close(); stop() }
}

func ExampleDial() {
	addr, stop := exampleServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	c, err := rsp.Dial(ctx, addr, rsp.Options{Dialect: rsp.DialectRR, RRVersion: "5.9.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	rip, _ := c.Target().Lookup("rip")
	fmt.Println("dialect:", c.Dialect(), "no-ack:", c.NoAckMode(), "reverse:", c.Supports("ReverseContinue"))
	fmt.Printf("rip: regnum %d, offset %d, %d bits\n", rip.Regnum, rip.Offset, rip.Bitsize)
	fmt.Println("stopped:", c.LastStop())
	// Output:
	// dialect: rr no-ack: true reverse: true
	// rip: regnum 16, offset 128, 64 bits
	// stopped: SIG0 thread p3e8.3e8
}

func ExampleClient_ReadMemory() {
	ctx := context.Background()
	c, done := exampleClient(ctx, rsp.Options{})
	defer done()
	buf := make([]byte, 8)
	n, err := c.ReadMemory(ctx, 0x601040, buf)
	fmt.Println(n, err, buf)
	// Output:
	// 8 <nil> [42 0 0 0 0 0 0 0]
}

func ExampleClient_Continue() {
	ctx := context.Background()
	c, done := exampleClient(ctx, rsp.Options{})
	defer done()
	if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401100, 0); err != nil {
		fmt.Println(err)
		return
	}
	st, err := c.Continue(ctx)
	fmt.Println(st, err)
	pc, _ := c.ReadRegisterUint(ctx, st.Thread, "rip")
	fmt.Printf("pc %#x\n", pc)
	// Output:
	// SIGTRAP thread p3e8.3e8 swbreak <nil>
	// pc 0x401000
}

func ExampleClient_ReverseContinue() {
	ctx := context.Background()
	c, done := exampleClient(ctx, rsp.Options{})
	defer done()
	st, err := c.ReverseContinue(ctx)
	fmt.Println(st.Direction, st.AtHistoryStart, err)
	// Output:
	// reverse true <nil>
}

func ExampleClient_When() {
	ctx := context.Background()
	c, done := exampleClient(ctx, rsp.Options{RRVersion: "5.9.0"})
	defer done()
	ev, err := c.When(ctx)
	fmt.Println(ev, err)
	// Output:
	// 42 <nil>
}

func ExampleClient_Exchange() {
	ctx := context.Background()
	c, done := exampleClient(ctx, rsp.Options{})
	defer done()
	reply, err := c.Exchange(ctx, "qC", false)
	fmt.Printf("%q %v\n", reply, err)
	_, err = c.Exchange(ctx, "qGetTLSAddr:p3e8.3e8,0,0", false)
	fmt.Println(errors.Is(err, rsp.ErrRefused))
	_, err = c.Exchange(ctx, "vCont;c", false)
	fmt.Println(errors.Is(err, rsp.ErrRefused))
	// Output:
	// "QCp3e8.3e8" <nil>
	// true
	// true
}

func ExampleParseStop() {
	st, err := rsp.ParseStop("T05watch:0000555555558028;06:a0e6ffffff7f0000;thread:p1cd6.1cd6;core:0;")
	fmt.Println(st, err)
	fmt.Printf("%v at %#x, thread %d, rbp %x\n", st.Watch, st.WatchAddr, st.Thread.Tid, st.Registers[6])
	st, _ = rsp.ParseStop("W2c;process:6887")
	fmt.Println(st.Exited(), st.ExitCode, st.Pid)
	// Output:
	// SIGTRAP thread p1cd6.1cd6 watch 0x555555558028 <nil>
	// watch at 0x555555558028, thread 7382, rbp a0e6ffffff7f0000
	// true 44 26759
}

func ExampleSignalFromLinux() {
	s := rsp.SignalFromLinux(10) // Linux SIGUSR1
	fmt.Println(int(s), s, s.Linux())
	// Output:
	// 30 SIGUSR1 10
}

func ExampleSignal_Meaning() {
	for _, s := range []rsp.Signal{rsp.SIGSEGV, rsp.SIGABRT, rsp.Sig0} {
		fmt.Printf("%s: %q\n", s, s.Meaning())
	}
	// Output:
	// SIGSEGV: "Segmentation fault: invalid memory access"
	// SIGABRT: "Aborted (abort(), assert failure or detected heap corruption)"
	// SIG0: ""
}
