package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/rrmcp/rrmcp/internal/session"
)

type backtraceIn struct {
	sessionArg
	MaxDepth   int  `json:"max_depth,omitempty" jsonschema:"maximum number of frames (default 64; per thread with all_threads)"`
	AllThreads bool `json:"all_threads,omitempty" jsonschema:"every thread's backtrace (GDB's thread apply all bt), for a deadlock or a race; the selected thread and frame stay"`
}

type backtraceOut struct {
	Frames    []session.Frame `json:"frames,omitempty" jsonschema:"the selected thread's frames (not with all_threads)"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"more frames exist beyond max_depth"`
	Selected  int             `json:"selected" jsonschema:"the selected frame level"`
	Stopped   string          `json:"stopped,omitempty" jsonschema:"why the stack ends there where that is no normal end (GDB's Backtrace stopped: a corrupt stack, memory that cannot be read)"`
	// Threads is every thread's backtrace, with all_threads.
	Threads []session.ThreadBacktrace `json:"threads,omitempty" jsonschema:"with all_threads: each thread's frames, in the order of rr_thread_list"`
}

func (b backtraceOut) Text() string {
	if b.Threads != nil {
		var parts []string
		for _, t := range b.Threads {
			head := fmt.Sprintf("Thread %s (tid %d)", t.Thread, t.TID)
			if t.Current {
				head += ", selected"
			}
			lines := []string{head + ":"}
			if t.Error != "" {
				lines = append(lines, "  "+t.Error)
			}
			for _, f := range t.Frames {
				mark := "  "
				if t.Current && f.Level == b.Selected {
					mark = "> "
				}
				lines = append(lines, mark+frameText(f))
			}
			if t.Truncated {
				lines = append(lines, "  (more frames; raise max_depth)")
			}
			parts = append(parts, strings.Join(lines, "\n"))
		}
		return strings.Join(parts, "\n\n")
	}
	if len(b.Frames) == 0 {
		return "No stack frames."
	}
	var lines []string
	for _, f := range b.Frames {
		mark := "  "
		if f.Level == b.Selected {
			mark = "> "
		}
		lines = append(lines, mark+frameText(f))
	}
	if b.Truncated {
		lines = append(lines, "  (more frames; raise max_depth)")
	}
	if b.Stopped != "" {
		lines = append(lines, "Backtrace stopped: "+b.Stopped)
	}
	return strings.Join(lines, "\n")
}

type frameIn struct {
	sessionArg
	FrameLevel int `json:"frame_level" jsonschema:"frame number from rr_backtrace (0 = innermost)"`
}

type frameOut struct {
	Frame session.Frame `json:"frame"`
}

func (f frameOut) Text() string {
	t := "Selected " + frameText(f.Frame)
	if f.Frame.Source != "" {
		t += fmt.Sprintf("\n%d\t%s", f.Frame.Line, f.Frame.Source)
	}
	return t
}

type threadsOut struct {
	Threads []session.Thread `json:"threads"`
	Cut     int              `json:"cut,omitempty" jsonschema:"how many more threads the limit left out"`
}

func (t threadsOut) Text() string {
	if len(t.Threads) == 0 {
		return "No threads."
	}
	var lines []string
	for _, th := range t.Threads {
		mark := "  "
		if th.Current {
			mark = "* "
		}
		l := fmt.Sprintf("%sThread %s (tid %d)", mark, th.ID, th.TID)
		if th.Name != "" {
			l += " \"" + th.Name + "\""
		}
		if th.Frame != nil {
			l += " at " + locText(th.Frame.Location)
		}
		lines = append(lines, l)
	}
	if t.Cut > 0 {
		lines = append(lines, fmt.Sprintf("(%d more threads not shown: raise limit)", t.Cut))
	}
	return strings.Join(lines, "\n")
}

type threadIn struct {
	sessionArg
	ThreadID string `json:"thread_id" jsonschema:"thread id from rr_thread_list (pPID.TID, or the decimal tid)"`
}

type threadOut struct {
	Thread session.Thread `json:"thread"`
}

func (t threadOut) Text() string {
	s := "Switched to thread " + t.Thread.ID
	if t.Thread.Frame != nil {
		s += "\n" + frameText(*t.Thread.Frame)
		if t.Thread.Frame.Source != "" {
			s += fmt.Sprintf("\n%d\t%s", t.Thread.Frame.Line, t.Thread.Frame.Source)
		}
	}
	return s
}

func (in *backtraceIn) check() error { return inRange("max_depth", &in.MaxDepth, 64, 10000) }

func (in *frameIn) check() error {
	if in.FrameLevel < 0 {
		return &session.ArgError{Arg: "frame_level", Msg: "must be >= 0"}
	}
	return nil
}

func (in *threadIn) check() error {
	return notEmpty("thread_id", in.ThreadID, "; see rr_thread_list")
}

func (r *registry) stackTools() {
	addOn(r, "rr_backtrace", "Backtrace",
		"Get the call stack of the current thread: function, file:line and pc of each frame, innermost first. With all_threads, every thread's stack (GDB's thread apply all bt).",
		inspect,
		func(ctx context.Context, s *session.Session, in backtraceIn) (backtraceOut, error) {
			if in.AllThreads {
				th, sel, err := s.BacktraceAll(ctx, in.MaxDepth)
				if th == nil {
					th = []session.ThreadBacktrace{}
				}
				return backtraceOut{Threads: th, Selected: sel}, err
			}
			fr, more, sel, stopped, err := s.Backtrace(ctx, in.MaxDepth)
			return backtraceOut{Frames: fr, Truncated: more, Selected: sel, Stopped: stopped}, err
		})

	addOn(r, "rr_select_frame", "Select frame",
		"Select a stack frame; rr_locals, rr_evaluate, rr_source_lines and rr_finish then use it.",
		edit,
		func(ctx context.Context, s *session.Session, in frameIn) (frameOut, error) {
			f, err := s.SelectFrame(ctx, in.FrameLevel)
			return frameOut{f}, err
		})

	addOn(r, "rr_thread_list", "List threads",
		"List the threads of the debuggee with their current location.",
		inspect,
		func(ctx context.Context, s *session.Session, in listIn) (threadsOut, error) {
			th, err := s.Threads(ctx)
			out := threadsOut{Threads: th}
			if len(th) > in.Limit {
				out.Threads, out.Cut = th[:in.Limit], len(th)-in.Limit
			}
			return out, err
		})

	addOn(r, "rr_thread_select", "Select thread",
		"Make another thread current for inspection and stepping.",
		edit,
		func(ctx context.Context, s *session.Session, in threadIn) (threadOut, error) {
			th, err := s.SelectThread(ctx, in.ThreadID)
			return threadOut{th}, err
		})
}
