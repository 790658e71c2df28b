package session

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTimeoutsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		want    func(*Timeouts)
		wantErr string
	}{
		{nil, func(*Timeouts) {}, ""},
		{map[string]string{"RR_MCP_TIMEOUT_FORWARD": "300"}, func(t *Timeouts) { t.Forward = 300 * time.Second }, ""},
		{map[string]string{"RR_MCP_TIMEOUT_REVERSE": "0.5", "RR_MCP_TIMEOUT_EVAL": " 2 "}, func(t *Timeouts) {
			t.Reverse, t.Eval = 500*time.Millisecond, 2*time.Second
		}, ""},
		{map[string]string{"RR_MCP_TIMEOUT_STARTUP": "soon"}, nil, "RR_MCP_TIMEOUT_STARTUP"},
		{map[string]string{"RR_MCP_TIMEOUT_CONNECT": "-1"}, nil, "positive"},
		{map[string]string{"RR_MCP_TIMEOUT_BREAKPOINT": "0"}, nil, "positive"},
	} {
		got, err := TimeoutsFromEnv(func(k string) string { return tc.env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.env, err, tc.wantErr)
			}
			continue
		}
		want := DefaultTimeouts()
		tc.want(&want)
		if err != nil || got != want {
			t.Errorf("%v: got %+v, %v; want %+v", tc.env, got, err, want)
		}
	}
	d := DefaultTimeouts()
	if d.Startup != 30*time.Second || d.Connect != 60*time.Second || d.Forward != 120*time.Second ||
		d.Reverse != 300*time.Second || d.Breakpoint != 30*time.Second || d.Eval != 30*time.Second {
		t.Errorf("defaults differ from karellen-rr-mcp's: %+v", d)
	}
}

func TestManagerGet(t *testing.T) {
	m := NewManager(Config{})
	if _, err := m.Get(""); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Get on empty manager: %v", err)
	}
	a, b := m.newSession(KindLive), m.newSession(KindConnect)
	if err := m.add(a); err != nil {
		t.Fatal(err)
	}
	if err := m.add(b); err != nil {
		t.Fatal(err)
	}
	if s, _ := m.Get(""); s != b {
		t.Errorf("default session is %s, want the most recent %s", s.ID(), b.ID())
	}
	if s, _ := m.Get(a.ID()); s != a {
		t.Errorf("Get(%s) = %v", a.ID(), s)
	}
	if _, err := m.Get("s9"); !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), "s1") {
		t.Errorf("Get(s9) = %v", err)
	}
	m.remove(b.ID())
	if s, _ := m.Get(""); s != a {
		t.Errorf("after removing %s the default is %v, want %s", b.ID(), s, a.ID())
	}
	m.Close()
	if err := m.add(m.newSession(KindLive)); !errors.Is(err, ErrNoSession) {
		t.Errorf("add after Close: %v", err)
	}
}
