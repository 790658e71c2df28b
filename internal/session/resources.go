package session

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/rrmcp/rrmcp/internal/outlog"
	"github.com/rrmcp/rrmcp/internal/proc"
)

// packetRingLines bounds the packet log a session keeps for its packets
// resource: the most recent packets.
const packetRingLines = 4000

// PacketLog is the retained part of a session's packet log.
type PacketLog struct {
	Lines []string // oldest first: "15:04:05.000000 -> $qSupported... "
	Total int64    // packets logged since the session started
}

// PacketLog returns the session's raw RSP packet log (the last
// packetRingLines packets). It does not wait for a running operation.
func (s *Session) PacketLog() PacketLog {
	if s.pkts == nil {
		return PacketLog{}
	}
	lines, total := s.pkts.Lines()
	return PacketLog{Lines: lines, Total: total}
}

// OutputLine is one line the session's debug server process printed.
type OutputLine = proc.Line

// ServerOutput returns the retained output of the session's server
// process: gdbserver's own messages (live: the program's stdout and
// stderr are captured apart, see Output), or rr replay's, which replays
// the program's writes (its stderr among rr's messages). A session
// connected to an address has no process and no output (ErrUnsupported).
func (s *Session) ServerOutput() ([]OutputLine, error) {
	switch {
	case s.srv != nil:
		return s.srv.Lines(0), nil
	case s.replay != nil:
		return s.replay.Lines(0), nil
	}
	return nil, fmt.Errorf("session %s is connected to %s, whose output rrmcp does not see: %w", s.id, s.addr, ErrUnsupported)
}

// StderrApart reports whether the program's stderr is captured apart
// from the server's messages (live sessions that started the program);
// otherwise it is among ServerOutput's lines.
func (s *Session) StderrApart() bool { return s.out != nil && s.out.Stderr() != nil }

// OutputStamp changes whenever the session's output does: the captured
// streams' sizes (which the program writes directly, so only a look
// tells) and the server's line counter.
func (s *Session) OutputStamp() string {
	var sz outlog.Size
	if s.out != nil {
		sz = *s.out.Size()
	}
	var seq int64
	switch {
	case s.srv != nil:
		s.srv.Scan()
		seq = s.srv.LastSeq()
	case s.replay != nil:
		seq = s.replay.LastSeq()
	}
	return fmt.Sprint(sz.Stdout, "/", sz.Stderr, "/", seq)
}

// OutputChanged returns a channel closed when the session's server
// process prints its next line; nil for a session without a process.
// Writes to the captured files (live: the program's stdout and stderr)
// and gdbserver's messages, kept in a file, do not signal it (see
// OutputStamp).
func (s *Session) OutputChanged() <-chan struct{} {
	switch {
	case s.srv != nil:
		return s.srv.Changed()
	case s.replay != nil:
		return s.replay.Changed()
	}
	return nil
}

// SourceFiles lists the source files the program's line tables name
// (main program and loaded libraries), sorted.
func (s *Session) SourceFiles(ctx context.Context) ([]string, error) {
	var out []string
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		if s.inf.Img == nil {
			return fmt.Errorf("%s has no line tables (%v): %w", s.program, s.inf.ImgErr, ErrNoDebugInfo)
		}
		seen := map[string]bool{}
		add := func(fs []string) {
			for _, f := range fs {
				if f != "" && !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
		for _, img := range s.inf.Images() {
			add(img.Files())
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// SourceFile returns the full name and text of a source file the debug
// information names (package sources has the policy).
func (s *Session) SourceFile(ctx context.Context, file string) (string, string, error) {
	var path, text string
	err := s.do(ctx, s.to.Eval, func(ctx context.Context) error {
		path = s.findSource(file)
		if path == "" {
			return fmt.Errorf("no source file %q in the debug information of %s (list them with the sources resource): %w", file, s.program, ErrNotFound)
		}
		lines, err := s.readSource(path)
		if err != nil {
			return err
		}
		text = strings.Join(lines, "\n")
		return nil
	})
	return path, text, err
}
