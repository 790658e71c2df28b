package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// TestDynamicCast: dynamic_cast is evaluated by rrmcp from the object's
// vtable and checked against the program's own casts, which it stored
// (testdata/dyncast.cpp): GDB 13, whose answer rrmcp passed on, gives
// the vtable's address (dynamic_cast<const Derived*>(&b) = <vtable for
// Derived+16>, round-8 differential on yaml-cpp).
func TestDynamicCast(t *testing.T) {
	testenv.NeedTool(t, "gdbserver")
	line := markerLine(t, filepath.Join("testdata", "dyncast.cpp"), "here")
	for _, b := range []struct{ cc, opt string }{{"g++", "-O0"}, {"clang++", "-O0"}, {"g++", "-m32"}} {
		t.Run(b.cc+b.opt, func(t *testing.T) {
			exe := buildTestdata(t, b.cc, b.opt, "dyncast.cpp")
			s, ctx := liveAt(t, Config{}, []string{exe}, fmt.Sprintf("dyncast.cpp:%d", line))
			value := func(e string) string {
				t.Helper()
				r, err := s.Evaluate(ctx, e)
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				if r.Engine == "gdb" {
					t.Errorf("%s was evaluated by %s, not natively", e, r.Engine)
				}
				return r.Value
			}
			for e, want := range map[string]string{
				"dynamic_cast<C *>(pb)":    "want_down",
				"dynamic_cast<A *>(pb)":    "want_cross",
				"dynamic_cast<void *>(pb)": "want_void",
				"dynamic_cast<C *>(pa)":    "want_null",
			} {
				if got, w := value(e), value(want); got != w {
					t.Errorf("%s = %s, the program's %s", e, got, w)
				}
			}
			if got, w := value("&dynamic_cast<C &>(*pb)"), value("want_down"); got != w {
				t.Errorf("&dynamic_cast<C &>(*pb) = %s, want %s", got, w)
			}
			if got := value("dynamic_cast<const C *>(pb)->c"); got != "3" {
				t.Errorf("dynamic_cast<const C *>(pb)->c = %s, want 3", got)
			}
			if _, err := s.Evaluate(ctx, "dynamic_cast<C &>(*pa)"); err == nil || !strings.Contains(err.Error(), "dynamic_cast failed") {
				t.Errorf("dynamic_cast<C &>(*pa): %v, want dynamic_cast failed", err)
			}
		})
	}
}
