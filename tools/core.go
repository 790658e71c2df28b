package tools

import (
	"context"

	"github.com/rrmcp/rrmcp/internal/session"
)

type coreOpenIn struct {
	CoreFile   string `json:"core_file" jsonschema:"path of the core dump (ELF core of a Linux x86-64 process: kernel core, systemd-coredump output extracted with coredumpctl dump, or gdb's gcore)"`
	Executable string `json:"executable" jsonschema:"the program that dumped the core, with its debug information"`
}

// coreTools registers rr_core_open.
func (r *registry) coreTools() {
	add(r, "rr_core_open", "Open a core dump",
		"Open a post-mortem session on a core dump: no process, no debug server. The inspection tools work on it (rr_backtrace, rr_select_frame, rr_locals, rr_evaluate, rr_read_memory, rr_registers, rr_thread_list, rr_thread_select, rr_disassemble, rr_source_lines); tools that would run the program say they cannot. Stop it with rr_replay_stop.",
		hints{idempotent: false},
		func(ctx context.Context, in coreOpenIn) (started, error) {
			if in.CoreFile == "" {
				return started{}, &session.ArgError{Arg: "core_file", Msg: "is required: the path of the core dump"}
			}
			if in.Executable == "" {
				return started{}, &session.ArgError{Arg: "executable", Msg: "is required: the program that dumped the core"}
			}
			s, st, err := r.m.OpenCore(ctx, in.CoreFile, in.Executable)
			if err != nil {
				return started{}, err
			}
			return started{Session: s.Info(), Stop: st}, nil
		})
}
