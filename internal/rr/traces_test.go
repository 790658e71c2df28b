package rr

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestIsTraceDir(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "good")
	makeFakeTrace(good)
	onlyVersion := filepath.Join(root, "v")
	os.Mkdir(onlyVersion, 0o755)
	os.WriteFile(filepath.Join(onlyVersion, "version"), []byte("85"), 0o644)
	versionDir := filepath.Join(root, "vd")
	os.MkdirAll(filepath.Join(versionDir, "version"), 0o755)
	os.WriteFile(filepath.Join(versionDir, "events"), nil, 0o644)
	os.WriteFile(filepath.Join(versionDir, "data"), nil, 0o644)
	file := filepath.Join(root, "f")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(root, "link")
	os.Symlink(good, link)
	tests := map[string]bool{
		good: true, link: true, onlyVersion: false, versionDir: false, file: false,
		filepath.Join(root, "missing"): false, "/": false, root: false,
	}
	for p, want := range tests {
		if got := IsTraceDir(p); got != want {
			t.Errorf("IsTraceDir(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestListTraces(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, "prog-0")
	recent := filepath.Join(root, "prog-1")
	makeFakeTrace(old)
	makeFakeTrace(recent)
	os.Mkdir(filepath.Join(root, "junk"), 0o755)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)
	os.Symlink("prog-0", filepath.Join(root, "latest-trace"))
	got, err := ListTraces(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "prog-1" || got[1].Name != "prog-0" {
		t.Fatalf("ListTraces = %+v", got)
	}
	if got[0].Latest || !got[1].Latest {
		t.Errorf("latest-trace flag wrong: %+v", got)
	}
	if got[0].Size != 5*3 {
		t.Errorf("size %d, want 15", got[0].Size)
	}
	if l, err := ListTraces(filepath.Join(root, "nope")); err != nil || l != nil {
		t.Errorf("missing root: %v, %v", l, err)
	}
}

func TestTraceRoot(t *testing.T) {
	t.Setenv("_RR_TRACE_DIR", "/x/traces")
	if got := TraceRoot(); got != "/x/traces" {
		t.Errorf("TraceRoot = %q", got)
	}
	home := t.TempDir()
	t.Setenv("_RR_TRACE_DIR", "")
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	if got := TraceRoot(); got != filepath.Join(home, ".local/share/rr") {
		t.Errorf("TraceRoot = %q", got)
	}
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if got := TraceRoot(); got != "/xdg/rr" {
		t.Errorf("TraceRoot with XDG = %q", got)
	}
	os.Mkdir(filepath.Join(home, ".rr"), 0o755)
	if got := TraceRoot(); got != filepath.Join(home, ".rr") {
		t.Errorf("TraceRoot with ~/.rr = %q", got)
	}
}

func TestParsePS(t *testing.T) {
	out := "PID\tPPID\tEXIT\tCMD\n4242\t--\t0\t/bin/prog a b\n4250\t4242\t-11\t/bin/child\n"
	got, err := ParsePS(out)
	want := []TraceProcess{{4242, 0, "0", "/bin/prog a b"}, {4250, 4242, "-11", "/bin/child"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParsePS = %+v, %v", got, err)
	}
	if _, err := ParsePS("PID\tPPID\tEXIT\tCMD\ngarbage\n"); err == nil {
		t.Error("ParsePS accepted garbage")
	}
}

func TestPSAndTraceInfo(t *testing.T) {
	for _, kv := range fakeEnv("ok") {
		k, v, _ := splitKV(kv)
		t.Setenv(k, v)
	}
	trace := fakeTrace(t)
	ctx := testCtx(t, 20*time.Second)
	ps, err := PS(ctx, fakeRRPath(t), trace)
	if err != nil || len(ps) != 2 || ps[1].Exit != "-11" {
		t.Errorf("PS = %+v, %v", ps, err)
	}
	info, err := TraceInfo(ctx, fakeRRPath(t), trace)
	if err != nil || info["xcr0"] != float64(231) {
		t.Errorf("TraceInfo = %v, %v", info, err)
	}
	if _, err := PS(ctx, fakeRRPath(t), t.TempDir()); err == nil {
		t.Error("PS on a non-trace directory succeeded")
	}
}

func splitKV(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

func FuzzParsePS(f *testing.F) {
	f.Add("PID\tPPID\tEXIT\tCMD\n4242\t--\t0\t/bin/prog a b\n")
	f.Add("PID\tPPID\tEXIT\tCMD\n1\t2\t-11\tx\ty\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		ps, err := ParsePS(out)
		if err == nil {
			for _, p := range ps {
				if strings.Contains(p.Exit, "\t") {
					t.Fatalf("tab inside a field: %+v", p)
				}
			}
		}
	})
}
