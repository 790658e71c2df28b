package rsp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/rsp"
)

// TestMoribundBreakpointHits: after a breakpoint at 0x401000 is removed,
// a pending SIGTRAP of another thread at it is dropped by Continue, which
// resumes again, as GDB does with moribund locations. A server that
// reports swbreak has already put the pc on the breakpoint; one that does
// not leaves it past the int3 (0x401001) and the client writes it back
// (P10=...). A SIGTRAP anywhere else, or at a breakpoint still inserted,
// is the stop. The real-thread version is
// internal/session TestRemovedBreakpointPendingHits against gdbserver.
func TestMoribundBreakpointHits(t *testing.T) {
	const exit = "W00;process:3e8"
	for _, tc := range []struct {
		name      string
		reinsert  bool   // the breakpoint is inserted again before continuing
		stop      string // the first stop reply after removal
		wantPC    string // the P packet the client must send, "" none
		dropped   bool
		wantFinal string // the raw stop Continue returns
	}{
		{name: "swbreak", stop: "T05swbreak:;10:0010400000000000;thread:p3e8.3e9;", dropped: true, wantFinal: exit},
		{name: "no swbreak: pc rewound", stop: "T05thread:p3e8.3e9;10:0110400000000000;", wantPC: "P10=0010400000000000", dropped: true, wantFinal: exit},
		{name: "elsewhere", stop: "T05swbreak:;10:0020400000000000;thread:p3e8.3e9;", wantFinal: "T05swbreak:;10:0020400000000000;thread:p3e8.3e9;"},
		{name: "inserted again", reinsert: true, stop: "T05swbreak:;10:0010400000000000;thread:p3e8.3e9;", wantFinal: "T05swbreak:;10:0010400000000000;thread:p3e8.3e9;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conts := 0
			c, s := dialStub(t, "gdbserver", rsp.Options{}, func(req string) []string {
				switch {
				case strings.HasPrefix(req, "vCont;c"):
					conts++
					if conts == 1 {
						return []string{tc.stop}
					}
					return []string{exit}
				case strings.HasPrefix(req, "vCont;s"): // stepping off the re-inserted breakpoint
					return []string{"T05thread:p3e8.3e8;10:0210400000000000;"}
				case strings.HasPrefix(req, "P"):
					return []string{"OK"}
				}
				return nil
			})
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil {
				t.Fatal(err)
			}
			if err := c.RemoveBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil {
				t.Fatal(err)
			}
			if tc.reinsert {
				if err := c.InsertBreakpoint(ctx, rsp.SoftwareBreakpoint, 0x401000, 0); err != nil {
					t.Fatal(err)
				}
			}
			st, err := c.Continue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Raw != tc.wantFinal {
				t.Errorf("Continue returned %q, want %q (requests %q)", st.Raw, tc.wantFinal, s.requests())
			}
			if got := c.MoribundHits() == 1; got != tc.dropped {
				t.Errorf("MoribundHits = %d, want dropped %v", c.MoribundHits(), tc.dropped)
			}
			hasP := slices.ContainsFunc(s.requests(), func(r string) bool { return strings.HasPrefix(r, "P") })
			if tc.wantPC != "" && !slices.Contains(s.requests(), tc.wantPC) || tc.wantPC == "" && hasP {
				t.Errorf("requests %q: want pc write %q", s.requests(), tc.wantPC)
			}
		})
	}
}
