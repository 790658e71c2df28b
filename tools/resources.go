package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Resource URIs. Session resources are templates over the session id
// (rr_session_list, or the rrmcp://sessions resource).
const (
	uriRecordings = "rrmcp://recordings"
	uriSessions   = "rrmcp://sessions"
	tmplRecording = "rrmcp://recordings/{name}"
	tmplSources   = "rrmcp://sessions/{session}/sources"
	tmplSource    = "rrmcp://sessions/{session}/source/{+path}"
	tmplOutput    = "rrmcp://sessions/{session}/output"

	// resourceStdoutMax bounds the captured stdout the output resource
	// shows (its tail).
	resourceStdoutMax = 64 << 10
	tmplPackets       = "rrmcp://sessions/{session}/packets"
)

// resources registers the MCP resources and the subscription tracking:
// a client subscribed to a resource gets notifications/resources/updated
// after a tool call that changed it.
func (r *registry) resources() {
	subs := r.subs
	r.srv.AddResource(mcp.NewResource(uriRecordings, "recordings",
		mcp.WithResourceDescription("The rr recordings under the trace root ($_RR_TRACE_DIR or ~/.local/share/rr), as rr_list_recordings returns them. Updated after rr_record, rr_rm and rr_pack."),
		mcp.WithMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			base, recs, err := r.traces.List("")
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, listRecOut{BaseDir: base, Recordings: recs})
		})
	r.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmplRecording, "recording",
		mcp.WithTemplateDescription("One rr recording by name (a directory under the trace root) or path: rr traceinfo and rr ps."),
		mcp.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			name := templateArg(req, "name")
			info, err := r.traces.TraceInfo(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("recording %q: %w", name, err)
			}
			ps, err := r.traces.PS(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("recording %q: %w", name, err)
			}
			return jsonContents(req.Params.URI, map[string]any{"traceinfo": info, "processes": ps})
		})
	r.srv.AddResource(mcp.NewResource(uriSessions, "sessions",
		mcp.WithResourceDescription("The open debugging sessions (as rr_session_list). Updated when a session starts, stops or changes state."),
		mcp.WithMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			r.m.Settle(ctx)
			return jsonContents(req.Params.URI, sessionsOut{Sessions: r.m.List()})
		})
	r.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmplSources, "session source files",
		mcp.WithTemplateDescription("The source files the session's debug information names (main program and loaded libraries); read one with rrmcp://sessions/{session}/source/{path}."),
		mcp.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			s, err := r.m.Get(templateArg(req, "session"))
			if err != nil {
				return nil, err
			}
			files, err := s.SourceFiles(ctx)
			if err != nil {
				return nil, err
			}
			return jsonContents(req.Params.URI, map[string]any{"session": s.ID(), "files": files})
		})
	r.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmplSource, "session source file",
		mcp.WithTemplateDescription("One source file of the session's program, by the full path its debug information names or a tail of it (e.g. src/main.c). Only files the debug information names are served."),
		mcp.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			s, err := r.m.Get(templateArg(req, "session"))
			if err != nil {
				return nil, err
			}
			_, text, err := s.SourceFile(ctx, templateArg(req, "path"))
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})
	r.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmplOutput, "session output",
		mcp.WithTemplateDescription("What the program printed: for rr_live_start sessions the captured stdout and stderr (the last 64 KiB of each; rr_output reads all of them by offset), then gdbserver's own messages (marked \"[gdbserver]\"); for rr replay sessions the stdout rr echoes as it replays the program's writes forward, then rr's stderr lines (marked \"[stderr]\": the program's stderr among rr's own messages). Updated after each tool call, and for rr replay sessions as rr prints. Sessions made by rr_connect have no output here."),
		mcp.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			s, err := r.m.Get(templateArg(req, "session"))
			if err != nil {
				return nil, err
			}
			lines, err := s.ServerOutput()
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			streams, mark := []string{"stdout"}, "[stderr] "
			if s.StderrApart() {
				streams, mark = append(streams, "stderr"), "[gdbserver] "
			}
			for _, stream := range streams {
				o, err := s.Output(ctx, stream, -resourceStdoutMax, resourceStdoutMax)
				if err != nil || o.Total == 0 && stream == "stderr" {
					continue
				}
				if stream == "stderr" {
					b.WriteString("[stderr]\n")
				}
				if o.Offset > 0 {
					fmt.Fprintf(&b, "[%s: %d earlier bytes not shown; rr_output reads them]\n", stream, o.Offset)
				}
				b.WriteString(o.Text)
				if o.Text != "" && !strings.HasSuffix(o.Text, "\n") {
					b.WriteByte('\n')
				}
			}
			for _, l := range lines {
				if l.Stderr {
					b.WriteString(mark)
				}
				b.WriteString(l.Text)
				b.WriteByte('\n')
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: b.String()}}, nil
		})
	r.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmplPackets, "session packet log",
		mcp.WithTemplateDescription("The raw GDB Remote Serial Protocol packets of the session (the last 4000; time, -> sent / <- received, payload). Updated after each tool call that exchanged packets."),
		mcp.WithTemplateMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			s, err := r.m.Get(templateArg(req, "session"))
			if err != nil {
				return nil, err
			}
			log := s.PacketLog()
			text := fmt.Sprintf("# session %s: %d packets, the last %d below\n%s\n", s.ID(), log.Total, len(log.Lines), strings.Join(log.Lines, "\n"))
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})

	hooks := r.hooks
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			subs.add(cs.SessionID(), req.Params.URI, r.stamp(req.Params.URI))
			r.watchOutput(subs, cs.SessionID(), req.Params.URI)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			subs.remove(cs.SessionID(), req.Params.URI)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { subs.drop(cs.SessionID()) })
}

// afterCall notifies the clients subscribed to a resource that a tool
// call changed. It runs at the end of every tool call (add), so the
// notification is queued before the call's reply is written.
func (r *registry) afterCall() {
	for _, c := range r.subs.changed(r.stamp) {
		if err := r.srv.SendNotificationToSpecificClient(c.client, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": c.uri}); err != nil {
			r.log("rrmcp: notify %s of %s: %v", c.client, c.uri, err)
		}
	}
}

// watchOutput notifies a client subscribed to a session's output as lines
// arrive, not only after tool calls: the program prints while it runs. It
// ends when the client unsubscribes or goes away.
func (r *registry) watchOutput(subs *subscriptions, client, uri string) {
	rest, ok := strings.CutPrefix(uri, "rrmcp://sessions/")
	if !ok || !strings.HasSuffix(rest, "/output") {
		return
	}
	s, err := r.m.Get(strings.TrimSuffix(rest, "/output"))
	if err != nil || s.OutputChanged() == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	subs.setCancel(client, uri, cancel)
	go func() {
		for {
			select {
			case <-s.OutputChanged():
			case <-ctx.Done():
				return
			}
			if subs.update(client, uri, r.stamp(uri)) {
				if err := r.srv.SendNotificationToSpecificClient(client, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
					r.log("rrmcp: notify %s of %s: %v", client, uri, err)
				}
			}
		}
	}()
}

// stamp is a cheap summary of a resource's state: it changes when the
// resource's content does (recordings: the listing; session resources: the
// line and packet counters).
func (r *registry) stamp(uri string) string {
	switch {
	case uri == uriRecordings:
		base, recs, err := r.traces.List("")
		raw, _ := json.Marshal(recs)
		return fmt.Sprint(base, string(raw), err)
	case uri == uriSessions:
		raw, _ := json.Marshal(r.m.List())
		return string(raw)
	}
	rest, ok := strings.CutPrefix(uri, "rrmcp://sessions/")
	if !ok {
		return ""
	}
	id, what, _ := strings.Cut(rest, "/")
	s, err := r.m.Get(id)
	if err != nil {
		return "gone"
	}
	switch what {
	case "output":
		return s.OutputStamp()
	case "packets":
		return fmt.Sprint(s.PacketLog().Total)
	}
	return "" // sources: fixed for the session
}

// subscriptions: per client session, the subscribed URIs and the stamp
// each had when the client last heard of it.
type subscriptions struct {
	mu      sync.Mutex
	bySub   map[string]map[string]string // client session id -> uri -> stamp
	cancels map[[2]string]func()         // {client, uri} -> stops its watcher
}

func (s *subscriptions) setCancel(client, uri string, cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancels == nil {
		s.cancels = map[[2]string]func(){}
	}
	if old := s.cancels[[2]string{client, uri}]; old != nil {
		old()
	}
	s.cancels[[2]string{client, uri}] = cancel
}

// update records uri's new stamp for client; true if it changed and the
// client is still subscribed.
func (s *subscriptions) update(client, uri, stamp string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.bySub[client][uri]
	if !ok || old == stamp {
		return false
	}
	s.bySub[client][uri] = stamp
	return true
}

type update struct{ client, uri string }

func (s *subscriptions) add(client, uri, stamp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bySub[client] == nil {
		s.bySub[client] = map[string]string{}
	}
	s.bySub[client][uri] = stamp
}

func (s *subscriptions) remove(client, uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySub[client], uri)
	if c := s.cancels[[2]string{client, uri}]; c != nil {
		c()
		delete(s.cancels, [2]string{client, uri})
	}
}

func (s *subscriptions) drop(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySub, client)
	for k, c := range s.cancels {
		if k[0] == client {
			c()
			delete(s.cancels, k)
		}
	}
}

// changed returns the subscriptions whose stamp moved, remembering the
// new stamps.
func (s *subscriptions) changed(stamp func(uri string) string) []update {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []update
	now := map[string]string{}
	for client, uris := range s.bySub {
		for uri, old := range uris {
			st, ok := now[uri]
			if !ok {
				st = stamp(uri)
				now[uri] = st
			}
			if st != old {
				uris[uri] = st
				out = append(out, update{client, uri})
			}
		}
	}
	return out
}

// templateArg is one variable of a matched resource template.
func templateArg(req mcp.ReadResourceRequest, name string) string {
	switch v := req.Params.Arguments[name].(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, "/")
	}
	return ""
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", uri, err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(raw)}}, nil
}
