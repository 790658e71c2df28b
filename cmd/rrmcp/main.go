// Command rrmcp is an MCP server (stdio) for time-travel debugging of Linux
// C/C++ programs with rr. Register it with an MCP client, e.g.
//
//	claude mcp add --transport stdio rrmcp -- rrmcp
//
// It reads the RR_MCP_TIMEOUT_* environment variables (seconds): STARTUP
// (30), CONNECT (60), FORWARD (120), REVERSE (300), BREAKPOINT (30), EVAL
// (30), and RRMCP_SOURCE_MAP ("from=to;…", where to read the sources the
// debug information names). Diagnostics go to stderr; stdout carries only
// MCP messages. One JSON-RPC line is at most 4 MiB (a longer one gets a
// "request too large" error).
//
// On SIGINT, SIGTERM, SIGHUP or end of input every session is stopped and no rr,
// gdbserver or gdb process is left behind.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/rrmcp/rrmcp/internal/claudehook"
	"github.com/rrmcp/rrmcp/internal/session"
	"github.com/rrmcp/rrmcp/internal/sources"
	"github.com/rrmcp/rrmcp/internal/stdio"
	"github.com/rrmcp/rrmcp/tools"
)

// release is the release the binary was built as (make dist sets it with
// -ldflags -X main.release=...); empty in a development build.
var release string

func main() {
	version := flag.Bool("version", false, "print the version and exit")
	reference := flag.Bool("tool-reference", false, "print the Markdown tool reference (docs/TOOLS.md) and exit")
	hook := flag.Bool("claude-hook", false, "run as the Claude Code plugin's hook: read a PostToolUse event on stdin, suggest rr after a crash")
	verbose := flag.Bool("v", os.Getenv("RRMCP_DEBUG") != "", "log diagnostics to stderr (also RRMCP_DEBUG=1)")
	flag.Parse()
	if *version {
		if release != "" {
			fmt.Println("rrmcp", tools.Version, release)
		} else {
			fmt.Println("rrmcp", tools.Version)
		}
		return
	}
	if *hook {
		if err := claudehook.Run(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "rrmcp:", err)
			os.Exit(1)
		}
		return
	}
	if *reference {
		m := session.NewManager(session.Config{})
		defer m.Close()
		if err := tools.Reference(context.Background(), os.Stdout, tools.New(m, tools.Options{})); err != nil {
			fmt.Fprintln(os.Stderr, "rrmcp:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(*verbose))
}

func run(verbose bool) int {
	logf := func(string, ...any) {}
	if verbose {
		logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "rrmcp: "+format+"\n", args...) }
	}
	to, err := session.TimeoutsFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rrmcp:", err)
		return 2
	}
	srcMap, err := sources.ParseMap(os.Getenv("RRMCP_SOURCE_MAP"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "rrmcp:", err)
		return 2
	}
	if path := os.Getenv("RRMCP_CPUPROFILE"); path != "" {
		// A CPU profile of the whole server run (go tool pprof it), for
		// finding where a tool call's time goes.
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rrmcp: RRMCP_CPUPROFILE:", err)
			return 2
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "rrmcp: RRMCP_CPUPROFILE:", err)
			return 2
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	m := session.NewManager(session.Config{Timeouts: to, Log: logf, SourceMap: srcMap})
	defer m.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A closed stdout (client gone) must not kill us with SIGPIPE before
	// the sessions are stopped.
	signal.Ignore(syscall.SIGPIPE)

	warn := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "rrmcp: "+format+"\n", args...) }
	srv := tools.New(m, tools.Options{Log: warn, Timing: os.Getenv("RRMCP_DEBUG_TIMING") != ""})
	err = stdio.Serve(ctx, srv, os.Stdin, os.Stdout, stdio.Options{Log: warn, Idle: m.Idle})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "rrmcp:", err)
		m.Close()
		return 1
	}
	logf("shutting down: stopping all sessions")
	return 0
}
