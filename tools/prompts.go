package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// prompts registers the workflow prompts: each turns a few arguments into
// the sequence of rrmcp tool calls that answers one kind of question.
func (r *registry) prompts() {
	type prompt struct {
		name, desc string
		args       []mcp.PromptOption
		text       func(a map[string]string) (string, error)
	}
	ps := []prompt{
		{
			name: "investigate_crash",
			desc: "Record a crashing command once and find the root cause: where it crashed, with what state, and who made that state bad.",
			args: []mcp.PromptOption{
				mcp.WithArgument("command", mcp.RequiredArgument(), mcp.ArgumentDescription("the command that crashes, e.g. ./build/app --input bad.txt")),
				mcp.WithArgument("working_directory", mcp.ArgumentDescription("where to run it (default: the server's directory)")),
			},
			text: func(a map[string]string) (string, error) {
				cmd, err := need(a, "command")
				if err != nil {
					return "", err
				}
				return fmt.Sprintf(`Investigate why this command crashes: %s%s

1. Record it once: rr_record with argv split from the command%s. If rr cannot record on this machine (no hardware PMU), use rr_live_start with the same command instead: forward execution, breakpoints and inspection work; reverse steps below do not.
2. rr_replay_start on the recording (or use the live session), then rr_continue: it stops at the crash and returns the signal and the frame.
3. Inspect the crash: rr_backtrace, rr_locals in the crashing frame, rr_evaluate on the pointer or value that is wrong (e.g. the pointer dereferenced at the faulting line), rr_disassemble and rr_registers if the source line is not enough.
4. Find who made it wrong: rr_watchpoint_set on the bad lvalue (or its address), then rr_continue reverse=true: it stops at the last write, with old and new value and the writer's frame. Repeat on the writer's inputs until you reach the root cause.
5. Report: the crash (signal, file:line), the bad value, the write that caused it (function, file:line, source line), and the fix you propose. Stop the session with rr_replay_stop.`, cmd, dirText(a), dirArg(a)), nil
			},
		},
		{
			name: "find_corruption",
			desc: "Find who last wrote a value that is wrong, by watching it and running backwards in a replay.",
			args: []mcp.PromptOption{
				mcp.WithArgument("expression", mcp.RequiredArgument(), mcp.ArgumentDescription("the lvalue whose value is wrong, e.g. node->next or g_config.size")),
				mcp.WithArgument("location", mcp.ArgumentDescription("where the value is seen wrong: function, file:line (default: where the session is stopped)")),
				mcp.WithArgument("session", mcp.ArgumentDescription("session id (default: the most recent session)")),
			},
			text: func(a map[string]string) (string, error) {
				expr, err := need(a, "expression")
				if err != nil {
					return "", err
				}
				var b strings.Builder
				fmt.Fprintf(&b, "Find who corrupted `%s`%s.\n\n", expr, sessionText(a))
				if loc := a["location"]; loc != "" {
					fmt.Fprintf(&b, "1. Get to where the value is wrong: rr_breakpoint_set at %s, rr_continue until it stops there.\n", loc)
				} else {
					b.WriteString("1. The session is where the value is wrong; check with rr_backtrace.\n")
				}
				fmt.Fprintf(&b, `2. rr_evaluate %q: note its value and address (the result's address field).
3. rr_watchpoint_set on the expression (kind write), then rr_continue reverse=true. The stop names the writer (function, file:line, source line) and the old and new value.
4. If that write only copied a bad value from elsewhere, repeat 2-3 on the source of the copy. If the watchpoint is out of scope, watch the address with a cast (*(type *)0x...).
5. Without reverse execution (live backend), restart the program, set the watchpoint before the value is first written, and continue forward; each stop is one write.
6. Report the chain of writes from the root cause to the wrong value.`, expr)
				return b.String(), nil
			},
		},
		{
			name: "reproduce_flaky",
			desc: "Record a flaky command under rr's chaos mode until a run fails, keep that recording, and debug it.",
			args: []mcp.PromptOption{
				mcp.WithArgument("command", mcp.RequiredArgument(), mcp.ArgumentDescription("the flaky command, e.g. ./build/test_queue --gtest_filter=Race.*")),
				mcp.WithArgument("attempts", mcp.ArgumentDescription("how many recordings to try before giving up (default 20)")),
				mcp.WithArgument("working_directory", mcp.ArgumentDescription("where to run it")),
			},
			text: func(a map[string]string) (string, error) {
				cmd, err := need(a, "command")
				if err != nil {
					return "", err
				}
				n := a["attempts"]
				if n == "" {
					n = "20"
				}
				return fmt.Sprintf(`Reproduce a flaky failure of: %s%s

1. Call rr_record with argv split from the command%s and chaos=true (rr's chaos mode randomizes scheduling to expose races). Look at the exit code and signal in the result.
2. If the run passed, remove its recording with rr_rm and record again; stop after %s attempts and report that it did not fail.
3. When a run fails, keep that recording and note its trace directory and the attempt number.
4. Debug it: rr_replay_start on the failing trace, rr_continue to the failure, rr_backtrace all_threads=true for every thread's stack, then rr_watchpoint_set on the shared data that is wrong and rr_continue reverse=true to find the racing write.
5. Report the interleaving that fails (which thread wrote what, in which order) and how to fix it. rr needs a hardware PMU: where rr_record says it cannot record, say so; a live session cannot reproduce scheduling.`, cmd, dirText(a), dirArg(a), n), nil
			},
		},
		{
			name: "compare_runs",
			desc: "Compare a passing and a failing recording of the same program to find where they diverge.",
			args: []mcp.PromptOption{
				mcp.WithArgument("good_trace", mcp.RequiredArgument(), mcp.ArgumentDescription("trace directory of the passing run")),
				mcp.WithArgument("bad_trace", mcp.RequiredArgument(), mcp.ArgumentDescription("trace directory of the failing run")),
				mcp.WithArgument("function", mcp.ArgumentDescription("a function to compare at, e.g. parse_header (default: main's callees, top down)")),
			},
			text: func(a map[string]string) (string, error) {
				good, err := need(a, "good_trace")
				if err != nil {
					return "", err
				}
				bad, err := need(a, "bad_trace")
				if err != nil {
					return "", err
				}
				fn := a["function"]
				if fn == "" {
					fn = "main, then the functions main calls, top down"
				}
				return fmt.Sprintf(`Compare two runs of the same program: the passing %s and the failing %s.

1. Open both: rr_replay_start trace_dir=%s and rr_replay_start trace_dir=%s. Each returns a session id; pass it as session to every call below.
2. In both sessions set the same breakpoint (rr_breakpoint_set at %s) and rr_continue.
3. At each stop compare rr_backtrace, rr_locals and rr_evaluate of the interesting values side by side. The first stop where they differ is the divergence; go one level deeper (a breakpoint in the callee that produced the differing value) and repeat.
4. In the failing session, rr_watchpoint_set on the first differing value and rr_continue reverse=true to find the write that made it differ.
5. Report the first divergence (function, file:line, the two values) and its cause. rr_replay_stop both sessions at the end.`, good, bad, good, bad, fn), nil
			},
		},
	}
	for _, p := range ps {
		opts := append([]mcp.PromptOption{mcp.WithPromptDescription(p.desc)}, p.args...)
		r.srv.AddPrompt(mcp.NewPrompt(p.name, opts...), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := p.text(req.Params.Arguments)
			if err != nil {
				return nil, fmt.Errorf("prompt %s: %w", p.name, err)
			}
			return mcp.NewGetPromptResult(p.desc, []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
			}), nil
		})
	}
}

func need(a map[string]string, name string) (string, error) {
	v := strings.TrimSpace(a[name])
	if v == "" {
		return "", fmt.Errorf("the argument %q is required", name)
	}
	return v, nil
}

func dirText(a map[string]string) string {
	if d := a["working_directory"]; d != "" {
		return " (in " + d + ")"
	}
	return ""
}

func dirArg(a map[string]string) string {
	if d := a["working_directory"]; d != "" {
		return fmt.Sprintf(" and working_directory=%q", d)
	}
	return ""
}

func sessionText(a map[string]string) string {
	if s := a["session"]; s != "" {
		return " in session " + s
	}
	return ""
}
