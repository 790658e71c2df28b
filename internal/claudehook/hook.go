// Package claudehook is the Claude Code hook of the rrmcp plugin
// (hooks/hooks.json runs `rrmcp -claude-hook`): after a Bash command dies of
// a signal or prints a sanitizer report, it adds a note to Claude's context
// suggesting to record the command with rr (rr_record) or to run it under
// the live backend (rr_live_start), instead of guessing from the code.
package claudehook

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// input is the part of a PostToolUse / PostToolUseFailure hook event the
// hook reads (Claude Code writes it as JSON on stdin).
type input struct {
	Event     string `json:"hook_event_name"`
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		Command string `json:"command"`
	} `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	Error        string          `json:"error"`
}

// output is the hook's answer: additionalContext reaches the model.
type output struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Signals that mean a crash, by the shell's exit status 128+n.
var crashStatus = map[int]string{132: "SIGILL", 133: "SIGTRAP", 134: "SIGABRT", 135: "SIGBUS", 136: "SIGFPE", 139: "SIGSEGV"}

var (
	// What shells and runtimes print when a child dies of a signal.
	crashText = []struct {
		re  *regexp.Regexp
		sig string
	}{
		{regexp.MustCompile(`Segmentation fault`), "SIGSEGV"},
		{regexp.MustCompile(`\bAborted\b`), "SIGABRT"},
		{regexp.MustCompile(`Bus error`), "SIGBUS"},
		{regexp.MustCompile(`Illegal instruction`), "SIGILL"},
		{regexp.MustCompile(`Floating point exception`), "SIGFPE"},
		{regexp.MustCompile(`Trace/breakpoint trap`), "SIGTRAP"},
	}
	exitCode  = regexp.MustCompile(`(?i)exit (?:code|status)[: ]+(\d+)`)
	sanitizer = regexp.MustCompile(`(?:ERROR|WARNING): (AddressSanitizer|HWAddressSanitizer|ThreadSanitizer|MemorySanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|(runtime error): `)
	// Commands already under a debugger or a recorder.
	debugged = regexp.MustCompile(`(^|[\s;&|(])(rr|gdb|gdbserver|lldb|valgrind)(\s|$)`)
)

// Run reads one hook event from r and writes the suggestion to w, or
// nothing when the command did not crash. Only a malformed event is an
// error (Claude Code shows it to the user, the session goes on).
func Run(r io.Reader, w io.Writer) error {
	var in input
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return fmt.Errorf("claude hook: decode the event on stdin: %w", err)
	}
	if in.ToolName != "Bash" || in.ToolInput.Command == "" || debugged.MatchString(in.ToolInput.Command) {
		return nil
	}
	text := in.Error + "\n" + strings.Join(texts(in.ToolResponse), "\n")
	what := diagnose(text)
	if what == "" {
		return nil
	}
	var out output
	out.HookSpecificOutput.HookEventName = in.Event
	if out.HookSpecificOutput.HookEventName == "" {
		out.HookSpecificOutput.HookEventName = "PostToolUse"
	}
	out.HookSpecificOutput.AdditionalContext = advice(in.ToolInput.Command, what)
	return json.NewEncoder(w).Encode(out)
}

// diagnose names the crash or sanitizer report in a command's output: ""
// when there is none.
func diagnose(text string) string {
	if m := sanitizer.FindStringSubmatch(text); m != nil {
		name := m[1]
		if name == "" {
			name = "UndefinedBehaviorSanitizer (runtime error)"
		}
		return "a " + name + " report"
	}
	for _, c := range crashText {
		if c.re.MatchString(text) {
			return c.sig
		}
	}
	for _, m := range exitCode.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && crashStatus[n] != "" {
			return crashStatus[n]
		}
	}
	return ""
}

func advice(command, what string) string {
	var b strings.Builder
	if strings.HasPrefix(what, "a ") {
		fmt.Fprintf(&b, "The command `%s` printed %s. ", command, what)
	} else {
		fmt.Fprintf(&b, "The command `%s` died of %s. ", command, what)
	}
	b.WriteString("Instead of guessing from the code, debug the run with the rrmcp tools: record it once with rr_record " +
		"(argv split from the command; chaos=true if it fails only sometimes), then rr_replay_start, rr_continue to the failure, " +
		"rr_backtrace and rr_locals, and rr_watchpoint_set on the bad value with rr_continue reverse=true to find the write that caused it. " +
		"Where rr cannot record (no hardware performance counters, e.g. in a VM), run it with rr_live_start: forward execution, breakpoints and inspection work.")
	if strings.HasPrefix(what, "a ") {
		b.WriteString(" To stop at the report, pass env ASAN_OPTIONS=abort_on_error=1 (UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1, TSAN_OPTIONS=halt_on_error=1).")
	}
	b.WriteString(" The rr-debugging skill and the rr-investigator agent describe the workflow.")
	return b.String()
}

// texts collects every string in a JSON value (the tool response's stdout,
// stderr, error fields, whatever their names).
func texts(raw json.RawMessage) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
