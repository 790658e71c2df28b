package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestStepIntoIFUNC: a step into strlen through the PLT does not stop in
// its IFUNC's resolver (strlen_ifunc, called by the dynamic linker's
// lazy binding, round-9 differential: the following finish returned
// into _dl_fixup): the first call, which the dynamic linker binds, is
// stepped over; the second, bound, steps into the function the resolver
// chose (__strlen_avx2 where glibc's debug information is installed, as
// GDB's step does; without it, over).
func TestStepIntoIFUNC(t *testing.T) {
	exe := buildTestdata(t, "gcc", "-O0", "stepifunc.c")
	src := filepath.Join("testdata", "stepifunc.c")
	first, second := markerLine(t, src, "first"), markerLine(t, src, "second")
	s, ctx := liveAt(t, Config{}, []string{exe}, fmt.Sprintf("stepifunc.c:%d", first))
	st, err := s.Step(ctx, 1, false)
	if err != nil || st.Frame == nil {
		t.Fatal(st, err)
	}
	if f := st.Frame.Function; strings.Contains(f, "ifunc") || strings.HasPrefix(f, "_dl_") || st.Frame.Line != second && !strings.HasPrefix(f, "__strlen") {
		t.Fatalf("step into the first strlen stopped in %s (%s:%d), want line %d or glibc's strlen", f, st.Frame.File, st.Frame.Line, second)
	}
	if st.Frame.Line != second {
		if _, err := s.Finish(ctx, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(ctx, 1, false); err != nil {
			t.Fatal(err)
		}
	}
	st, err = s.Step(ctx, 1, false)
	if err != nil || st.Frame == nil {
		t.Fatal(st, err)
	}
	f := st.Frame.Function
	if strings.Contains(f, "ifunc") || strings.HasPrefix(f, "_dl_") {
		t.Fatalf("step into the bound strlen stopped in %s", f)
	}
	if strings.HasPrefix(f, "__strlen") {
		t.Logf("stepped into %s at %s:%d", f, st.Frame.File, st.Frame.Line)
	} else {
		t.Logf("stepped over the bound strlen to %s:%d (glibc's debug information not installed)", f, st.Frame.Line)
	}
}
