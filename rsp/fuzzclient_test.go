package rsp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// FuzzClientReplies drives a whole client session against a server whose
// replies come from the fuzzer (one reply per request, split on '\n';
// "RAW:" replies are written unframed). Whatever the server says, the
// client must return errors, never panic or hang.
func FuzzClientReplies(f *testing.F) {
	f.Add("PacketSize=100;qXfer:features:read+;QStartNoAckMode+;multiprocess+\nOK\nvCont;c;s\nT05thread:p1.1;\nl<target><feature><reg name=\"rip\" bitsize=\"64\"/></feature></target>\n0100000000000000\n41\nmp1.1,p1.2\nl\nT05thread:p1.2;swbreak:;\nW00")
	f.Add(stubRRFeatures + "\nOK\nvCont;c;C;s;S;\nT00thread:p3e8.3e8;\nl" + stubXML["target.xml"] + "\nE01\nE01\n" + stubRegs() + "\nm\n\nT00thread:p3e8.3e8;replaylog:begin;")
	f.Add("RAW:$garbage#00\nRAW:+++\nRAW:$0*\x01#00\nO41\nX09;process:1\nF-1,2\nb}")
	f.Add("")
	f.Fuzz(func(t *testing.T, script string) {
		replies := strings.Split(script, "\n")
		i := 0
		cli, _ := newPipeStub(t, func(req string) []string {
			if req == "\x03" {
				return []string{"T02"}
			}
			if i >= len(replies) {
				return []string{""}
			}
			r := replies[i]
			i++
			return []string{r}
		})
		// Short deadlines: a reply that is not a packet leaves the client
		// waiting until its context ends.
		hctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		c, err := rsp.NewClient(hctx, cli, rsp.Options{InterruptTimeout: 20 * time.Millisecond})
		if err != nil {
			return
		}
		defer c.Close()
		short := func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}
		c.ReadRegisters(short(), rsp.AnyThread)
		c.ReadRegisterByName(short(), rsp.AnyThread, "rip")
		var b [16]byte
		c.ReadMemory(short(), 0x1000, b[:])
		c.Threads(short())
		c.InsertBreakpoint(short(), rsp.SoftwareBreakpoint, 0x1000, 0)
		c.Continue(short())
		c.ReverseContinue(short())
		c.Step(short(), rsp.AnyThread)
		c.Auxv(short())
		c.ReadFile(short(), "/x", 64)
		c.Monitor(short(), "x")
	})
}
