package rsptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestFakeServerCatches proves the fake fails on what it must catch: a
// packet that differs from the script, a packet after the script ended,
// and a script exchange with no citation of rr's source.
func TestFakeServerCatches(t *testing.T) {
	noInclude := func(string) (string, string, error) { return "", "", errors.New("no includes") }
	steps, err := ParseScript("t", "# GSC:618-641\n-> qRRCmd:when:-1\n<- OK\n", noInclude)
	if err != nil {
		t.Fatal(err)
	}
	// run sends packets in order; a packet is sent only after the previous
	// one was read, and the client hangs up once all were read (or the
	// fake gave up), so the fake sees exactly what a real client would do.
	run := func(scripted int, send ...string) *Server {
		cli, srv := net.Pipe()
		f := Start(srv, steps)
		go io.Copy(io.Discard, cli) // the fake's acks and replies
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		for i, p := range send {
			if i == scripted {
				// The script is played out (replies written) before the extras.
				f.WaitFor(ctx, ScriptEnd) //nolint:errcheck
			}
			var sum byte
			for i := range len(p) {
				sum += p[i]
			}
			fmt.Fprintf(cli, "$%s#%02x", p, sum)
			if f.WaitReceived(ctx, i+1) != nil {
				break
			}
		}
		if scripted <= len(send) {
			f.WaitFor(ctx, ScriptEnd) //nolint:errcheck // fails at once if the fake gave up
		}
		cli.Close()
		<-f.done
		srv.Close()
		return f
	}
	if f := run(1, "qRRCmd:when:-1"); len(f.failures)+len(f.extra) != 0 {
		t.Errorf("matching client flagged: %v %v", f.failures, f.extra)
	}
	if f := run(1, "qRRCmd:7768656e"); len(f.failures) == 0 || !strings.Contains(f.failures[0], "script wants") {
		t.Errorf("mismatch not caught: %v", f.failures)
	}
	if f := run(1, "qRRCmd:when:-1", "bc"); len(f.extra) != 1 || f.extra[0] != "bc" {
		t.Errorf("packet after the script not caught: %v", f.extra)
	}
	if f := run(1); len(f.failures) == 0 {
		t.Error("unfinished script not caught")
	}
	if _, err := ParseScript("t", "-> qRRCmd:when:-1\n<- OK\n", noInclude); err == nil {
		t.Error("uncited exchange accepted")
	}
	if _, err := ParseScript("t", "# GS:1\n-> ~qSupported:(\n", noInclude); err == nil {
		t.Error("bad regexp accepted")
	}
}
