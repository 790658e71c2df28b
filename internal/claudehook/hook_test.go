package claudehook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func event(t *testing.T, name, command string, response any, errText string) string {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"hook_event_name": name, "tool_name": "Bash",
		"tool_input": map[string]any{"command": command}, "tool_response": response, "error": errText})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestRun: which command results get a suggestion, and what it says.
func TestRun(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // empty: no output
	}{
		{"segfault text", event(t, "PostToolUse", "./app in.txt", map[string]any{"stdout": "", "stderr": "bash: line 1: 4242 Segmentation fault      (core dumped) ./app in.txt"}, ""),
			[]string{"`./app in.txt` died of SIGSEGV", "rr_record", "rr_live_start", `"hookEventName":"PostToolUse"`}},
		{"exit code 134", event(t, "PostToolUseFailure", "make check", nil, "Exit code 134\nsome output"),
			[]string{"died of SIGABRT", `"hookEventName":"PostToolUseFailure"`}},
		{"asan", event(t, "PostToolUse", "./t", map[string]any{"stderr": "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020"}, ""),
			[]string{"printed a AddressSanitizer report", "ASAN_OPTIONS=abort_on_error=1"}},
		{"ubsan", event(t, "PostToolUse", "./t", map[string]any{"stderr": "x.c:3:7: runtime error: signed integer overflow"}, ""),
			[]string{"UndefinedBehaviorSanitizer"}},
		{"tsan", event(t, "PostToolUse", "./t", map[string]any{"stderr": "WARNING: ThreadSanitizer: data race (pid=1)"}, ""),
			[]string{"ThreadSanitizer", "TSAN_OPTIONS"}},
		{"ok command", event(t, "PostToolUse", "ls", map[string]any{"stdout": "a b c"}, ""), nil},
		{"plain failure", event(t, "PostToolUseFailure", "false", nil, "Exit code 1"), nil},
		{"killed is not a crash", event(t, "PostToolUseFailure", "sleep 99", nil, "Exit code 137"), nil},
		{"already under rr", event(t, "PostToolUse", "rr record ./app", map[string]any{"stderr": "Segmentation fault"}, ""), nil},
		{"already under gdb", event(t, "PostToolUse", "cd x && gdb -batch ./app", map[string]any{"stderr": "Segmentation fault"}, ""), nil},
		{"another tool", `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"x"},"tool_response":"Segmentation fault"}`, nil},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := Run(strings.NewReader(tt.in), &out); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(tt.want) == 0 {
			if out.Len() != 0 {
				t.Errorf("%s: want no output, got %s", tt.name, out.String())
			}
			continue
		}
		var o output
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Errorf("%s: output is not JSON: %v: %s", tt.name, err, out.String())
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: no %q in %s", tt.name, w, out.String())
			}
		}
	}
	if err := Run(strings.NewReader("not json"), new(bytes.Buffer)); err == nil {
		t.Error("malformed event: no error")
	}
}
