package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rrmcp/rrmcp/internal/rr"
	"github.com/rrmcp/rrmcp/internal/session"
)

// Version is reported to clients in serverInfo.
const Version = "0.1.0"

const instructions = `rrmcp: time-travel debugging of Linux C/C++ programs with rr.
Typical flow: rr_record the failing command -> rr_replay_start -> rr_continue until the crash -> inspect (rr_backtrace, rr_locals, rr_evaluate) -> rr_watchpoint_set on the corrupted value -> rr_continue reverse=true to find the write that caused it.
Without rr (no hardware PMU), rr_live_start runs the program under gdbserver: forward tools work, reverse ones do not.
Every tool that moves the program returns where it stopped (function, file:line, source line, signal, rr event). Session tools take an optional session id (default: the most recent session).`

// Options configures the server.
type Options struct {
	// Log receives diagnostics (stderr in production); nil discards them.
	Log func(format string, args ...any)
	// Timing puts the time the server spent on each tool call (from the
	// decoded request to the built result, in ms) into the result's _meta
	// as "rrmcp/server_ms", so a benchmark can tell server time from the
	// client's and the transport's. Off by default (RRMCP_DEBUG_TIMING=1).
	Timing bool
	// reflectSchemas (tests) builds every tool's schemas by reflection,
	// not from schemas.json.
	reflectSchemas bool
}

// New returns an MCP server with every rrmcp tool registered on m.
func New(m *session.Manager, opts Options) *server.MCPServer {
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	hooks := &server.Hooks{}
	s := server.NewMCPServer("rrmcp", Version,
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(false),
		server.WithInstructions(instructions),
	)
	r := &registry{srv: s, m: m, log: opts.Log, hooks: hooks, timing: opts.Timing,
		subs: &subscriptions{bySub: map[string]map[string]string{}}}
	if !opts.reflectSchemas {
		r.schemas = readSchemas()
	}
	r.recordingTools()
	r.sessionTools()
	r.execTools()
	r.breakpointTools()
	r.stackTools()
	r.inspectTools()
	r.checkpointTools()
	r.rawTools()
	r.timeTravelTools()
	r.signalTools()
	r.coreTools()
	r.resources()
	r.prompts()
	return s
}

type registry struct {
	srv   *server.MCPServer
	hooks *server.Hooks
	m     *session.Manager
	// traces: the recordings the recording tools work on (rr's trace
	// root); no session is involved.
	traces rr.Traces
	log    func(format string, args ...any)
	// timing: report server time per call in _meta (Options.Timing).
	timing bool
	// schemas: the tools' schemas from schemas.json (schemas.go).
	schemas map[string]toolSchemas
	// subs: the clients' resource subscriptions (resources.go).
	subs *subscriptions
}

// ServerTimeMetaKey is the _meta key carrying Options.Timing's figure.
const ServerTimeMetaKey = "rrmcp/server_ms"

// hints are the four MCP tool annotations; every tool sets all of them.
type hints struct {
	readOnly, destructive, idempotent, openWorld bool
}

var (
	// inspect: reads state, changes nothing.
	inspect = hints{readOnly: true, idempotent: true}
	// move: resumes or repositions the debuggee; repeating it moves again.
	move = hints{}
	// edit: changes debugger state (breakpoints, selection) idempotently.
	edit = hints{idempotent: true}
)

// texter is what every tool result implements: the readable text that
// accompanies the structured content.
type texter interface{ Text() string }

// sessionIn is an input that names a session (every input embedding
// sessionArg).
type sessionIn interface{ sessionID() string }

// checker is an input that validates itself (and fills in its defaults)
// before any session is looked up, so a bad argument is reported as such
// whatever state the sessions are in.
type checker interface{ check() error }

// addOn registers a tool that works on one session: the input is checked
// (when it is a checker), the session it names is looked up, and fn gets
// both. Every session tool is registered this way, so its handler is one
// session call and the shaping of its result.
func addOn[In sessionIn, Out texter](r *registry, name, title, desc string, h hints, fn func(ctx context.Context, s *session.Session, in In) (Out, error)) {
	add(r, name, title, desc, h, func(ctx context.Context, in In) (Out, error) {
		var zero Out
		if c, ok := any(&in).(checker); ok {
			if err := c.check(); err != nil {
				return zero, err
			}
		}
		s, err := r.m.Get(in.sessionID())
		if err != nil {
			return zero, err
		}
		return fn(ctx, s, in)
	})
}

// inRange checks an optional count argument: 0 becomes def, anything
// outside 1..max is an argument error.
func inRange(arg string, v *int, def, max int) error {
	if *v == 0 {
		*v = def
	}
	return upTo(arg, *v, max)
}

// upTo checks an optional argument whose 0 the session reads as its
// default: anything outside 0..max is an argument error.
func upTo(arg string, v, max int) error {
	if v < 0 || v > max {
		return &session.ArgError{Arg: arg, Msg: fmt.Sprintf("must be between 1 and %d", max)}
	}
	return nil
}

// notEmpty checks a required text argument.
func notEmpty(arg, v, what string) error {
	if strings.TrimSpace(v) == "" {
		return &session.ArgError{Arg: arg, Msg: "is empty" + what}
	}
	return nil
}

// rawArgs is the JSON text of a call's arguments: as the client sent it
// (mcp-go keeps it when it decodes a message, and rrmcp's transport sets
// it), or encoded from the decoded value of a request made in process.
func rawArgs(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 || req.Params.Arguments == nil {
		return req.Params.RawArguments
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return b
}

// add registers a tool whose input schema is derived from In and output
// schema from Out. h runs with decoded, validated input; an error becomes
// a tool error with advice.
func add[In any, Out texter](r *registry, name, title, desc string, h hints, fn func(ctx context.Context, in In) (Out, error)) {
	tool := mcp.NewTool(name, append(schemaOptions[In, Out](r, name),
		mcp.WithTitleAnnotation(title),
		mcp.WithDescription(desc),
		mcp.WithReadOnlyHintAnnotation(h.readOnly),
		mcp.WithDestructiveHintAnnotation(h.destructive),
		mcp.WithIdempotentHintAnnotation(h.idempotent),
		mcp.WithOpenWorldHintAnnotation(h.openWorld),
	)...)
	fields := newArgFields(reflect.TypeFor[In]())
	r.srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer r.afterCall()
		defer func() {
			if p := recover(); p != nil {
				r.log("rrmcp: panic in %s: %v\n%s", name, p, debug.Stack())
				res, err = mcp.NewToolResultError(fmt.Sprintf(
					"internal error in rrmcp while running %s (%v). The server is still running; the session may be in an unexpected state: check it with rr_backtrace, or stop it with rr_replay_stop. Please report this as a bug.", name, p)), nil
			}
		}()
		if r.timing {
			t0 := time.Now()
			defer func() {
				if res != nil {
					ms := float64(time.Since(t0).Nanoseconds()) / 1e6
					if res.Meta == nil {
						res.Meta = &mcp.Meta{}
					}
					res.Meta.SetMetaField(ServerTimeMetaKey, ms)
				}
			}()
		}
		raw := rawArgs(req)
		var in In
		if err := decodeArgsFields(raw, &in, fields); err != nil {
			return mcp.NewToolResultError(clipEchoes(fmt.Sprintf("%s: %v", name, err), raw)), nil
		}
		pctx, stop := r.withProgress(ctx, req, name)
		out, err := fn(pctx, in)
		stop()
		if err != nil {
			return mcp.NewToolResultError(clipEchoes(explain(name, err), raw)), nil
		}
		return mcp.NewToolResultStructured(out, out.Text()), nil
	})
}
