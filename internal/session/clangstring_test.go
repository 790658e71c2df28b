package session

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestClangStdString: std::string in a clang build, whose debug
// information only declares it (libstdc++ instantiates std::string
// itself, and clang without -fstandalone-debug emits no definition),
// prints the program's strings, by libstdc++'s layout: it printed as
// <incomplete type>, a vector of strings had length 0, and GDB's
// printers fail there ("There is no member named _M_dataplus"). The
// program's own values are the reference.
func TestClangStdString(t *testing.T) {
	exe := buildTestdata(t, "clang++", "-O0", "stltypes.cpp")
	line := markerLine(t, filepath.Join("testdata", "stltypes.cpp"), "here")
	s, ctx := liveAt(t, Config{}, []string{exe}, fmt.Sprintf("stltypes.cpp:%d", line))
	for e, want := range map[string]string{
		"s":             `"x"`,
		"r.name":        `""`,
		"vs":            `std::vector of length 1, capacity 1 = {"a"}`,
		"vs.size()":     "1",
		"m":             `std::map with 1 element = {["a"] = 1}`,
		"s[0] + 0":      "120",
		`s == "x"`:      "true",
		"vs[0].size()":  "1",
		"sizeof(vs[0])": "32",
	} {
		r, err := s.Evaluate(ctx, e)
		if err != nil || r.Value != want {
			t.Errorf("%s = %q %v, want %s", e, r.Value, err, want)
		}
	}
}
