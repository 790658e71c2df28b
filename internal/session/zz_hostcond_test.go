package session

import (
	"context"
	"testing"
)

func BenchmarkZZHostCond(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := liveSessionWith(b, Config{}, "counter", "main")
		ctx := context.Background()
		if _, err := s.SetBreakpoint(ctx, "hit", "ratio * i < 0", false); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := s.Continue(ctx, false)
		if err != nil || st.Reason != "exited" {
			b.Fatalf("%+v %v", st, err)
		}
	}
}
