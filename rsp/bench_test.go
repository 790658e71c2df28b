package rsp_test

import (
	"context"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/rsp"
)

// BenchmarkGDBServerRoundTrip measures one m request/reply against real
// gdbserver in no-ack mode (peers.md §5 measured 13-18 µs median with a raw
// client on this kind of machine) and with acks on.
func BenchmarkGDBServerRoundTrip(b *testing.B) {
	testenv.NeedTool(b, "gdbserver")
	exe := testenv.Prog(b, "counter")
	for _, mode := range []struct {
		name string
		opts rsp.Options
	}{{"noack", rsp.Options{}}, {"ack", rsp.Options{KeepAckMode: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, addr := testenv.GDBServer(b, ctx, exe)
			c, err := rsp.Dial(ctx, addr, mode.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			sp, err := c.ReadRegisterUint(ctx, rsp.AnyThread, "rsp")
			if err != nil {
				b.Fatal(err)
			}
			var buf [8]byte
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.ReadMemory(ctx, sp, buf[:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseStop(b *testing.B) {
	const s = "T05swbreak:;06:e0e6ffffff7f0000;07:28e4ffffff7f0000;10:60c0fcf7ff7f0000;thread:p1cd6.1cd6;core:0;"
	for b.Loop() {
		if _, err := rsp.ParseStop(s); err != nil {
			b.Fatal(err)
		}
	}
}
