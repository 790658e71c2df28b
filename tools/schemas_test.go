package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/rrmcp/rrmcp/internal/session"
)

var updateSchemas = flag.Bool("update", false, "write schemas.json from the tools' types")

// TestSchemasFile: schemas.json holds exactly what reflection over the
// tools' argument and result types gives, and a server built from it
// lists every tool with the very bytes of a server that reflects.
func TestSchemasFile(t *testing.T) {
	m := session.NewManager(session.Config{})
	t.Cleanup(m.Close)
	reflected := New(m, Options{reflectSchemas: true}).ListTools()
	want := map[string]toolSchemas{}
	for name, st := range reflected {
		out, err := json.Marshal(st.Tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = toolSchemas{Input: st.Tool.RawInputSchema, Output: out}
	}
	if *updateSchemas {
		b, err := json.MarshalIndent(want, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("schemas.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote schemas.json; rebuild for the embedded copy")
		return
	}
	compact := func(b []byte) string {
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil {
			return "invalid: " + err.Error()
		}
		return out.String()
	}
	got := readSchemas()
	for name, w := range want {
		g, ok := got[name]
		if !ok || compact(g.Input) != compact(w.Input) || compact(g.Output) != compact(w.Output) {
			t.Errorf("%s: schemas.json is not what its types give: run go test ./tools -run TestSchemasFile -update", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("schemas.json has %s, which is no tool: run go test ./tools -run TestSchemasFile -update", name)
		}
	}
	fromFile := New(m, Options{}).ListTools()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range reflected {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		a, errA := json.Marshal(reflected[name].Tool)
		b, errB := json.Marshal(fromFile[name].Tool)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s lists differently from schemas.json (%v, %v):\n%s\n%s", name, errA, errB, a, b)
		}
	}
	if len(names) < 40 {
		t.Errorf("%d tools", len(names))
	}
}
