package tools_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/testenv"
	"github.com/rrmcp/rrmcp/tools"
)

// TestToolReference fails when docs/TOOLS.md is not what the registered
// tool schemas generate: the reference is never kept by hand.
func TestToolReference(t *testing.T) {
	m := session.NewManager(session.Config{})
	defer m.Close()
	var got bytes.Buffer
	if err := tools.Reference(t.Context(), &got, tools.New(m, tools.Options{})); err != nil {
		t.Fatal(err)
	}
	// Every registered tool has a section.
	for _, name := range []string{"rr_record", "rr_backtrace", "rr_evaluate", "rr_watchpoint_set"} {
		if !strings.Contains(got.String(), "\n## "+name+"\n") {
			t.Errorf("reference has no section for %s", name)
		}
	}
	path := filepath.Join(testenv.Root(t), "docs", "TOOLS.md")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make docs)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("docs/TOOLS.md is stale (run make docs); first difference at line %d:\n committed: %s\n generated: %s", i+1, w, g)
			}
		}
	}
}
