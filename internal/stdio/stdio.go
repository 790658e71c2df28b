package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rrmcp/rrmcp/internal/errkind"
)

// Options tune Serve.
type Options struct {
	// MaxLine caps one JSON-RPC message (one line) in bytes; a longer one
	// is dropped and answered with a "request too large" error. Default
	// 4 MiB.
	MaxLine int
	// MaxInFlight caps the requests served at once; past it the server
	// reads no more input until one ends. Default 256.
	MaxInFlight int
	// Grace bounds the wait, at the end, for the requests still running
	// to return once cancelled. Default 10 s.
	Grace time.Duration
	// Log reports what the client cannot be told (a write that failed, a
	// handler that panicked). Default: silent.
	Log func(format string, args ...any)
	// Idle, if set, is called after a request's reply is written, when no
	// further input is buffered, by the goroutine that answered it: work
	// the next request would otherwise do first (reading replies the
	// debug server sent since), done while the client reads the reply.
	// It must return quickly; past handOn the next message is read by
	// another goroutine while it runs.
	Idle func(ctx context.Context)
}

// Serve answers the MCP messages of one client read from in with srv,
// writing replies and notifications to out, until in ends or ctx is done.
// Then it cancels the requests still running and waits for them to return.
//
// Each request runs on the goroutine that read it, which reads on after
// it when the answer was quick, and otherwise hands reading on to
// another goroutine once the request has run for handOn: a quick call's
// reply leaves without waking another thread on its way (a wake-up costs
// more than the rest of a quick call: after a continue, when the threads
// went to sleep, half of an rr_locals round trip), while a long call (a
// continue) never stops the next message (rr_interrupt, a cancel) being
// read.
// Notifications a call sent before its reply are written before the reply.
func Serve(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, o Options) error {
	if o.MaxLine <= 0 {
		o.MaxLine = 4 << 20
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 256
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	sess := &session{notes: make(chan mcp.JSONRPCNotification, 1024)}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("stdio: register the client's session: %w", err)
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), sess.SessionID())
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()
	c := &conn{
		srv: srv, sess: sess, opt: o, out: out,
		in:        bufio.NewReaderSize(in, 64<<10),
		slots:     make(chan struct{}, o.MaxInFlight),
		inflight:  map[string]context.CancelFunc{},
		ended:     make(chan error, 1),
		pause:     make(chan chan struct{}),
		notesDone: make(chan struct{}),
	}
	stopNotes := make(chan struct{})
	go c.writeNotes(stopNotes)
	c.turn = make(chan struct{}, 1)
	c.turn <- struct{}{}
	c.idle.Add(1)
	go c.serve(ctx)
	var err error
	select {
	case err = <-c.ended:
	case <-ctx.Done():
	}
	// The reader may still be blocked in a read: it ends with the input
	// (or the process). Requests end with their context; one that does
	// not within the grace period is left to the process's exit.
	cancel()
	waited := make(chan struct{})
	go func() {
		c.requests.Wait()
		close(waited)
	}()
	grace := time.NewTimer(o.Grace)
	defer grace.Stop()
	select {
	case <-waited:
	case <-grace.C:
		o.Log("stdio: requests still running %v after the end of input; not waiting for them", o.Grace)
	}
	close(stopNotes)
	<-c.notesDone
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// conn is one client's connection.
type conn struct {
	srv  *server.MCPServer
	sess *session
	opt  Options
	in   *bufio.Reader // read by the goroutine holding the turn only
	out  io.Writer

	wmu       sync.Mutex         // one message per Write
	pause     chan chan struct{} // a reply pauses writeNotes until it is written
	written   uint64             // notifications taken from the queue (wmu)
	notesDone chan struct{}      // writeNotes has returned

	slots    chan struct{} // one per request being served
	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by request id (its JSON text)
	requests sync.WaitGroup
	ended    chan error // the input's end, once

	turn chan struct{} // the right to read the input, held by one goroutine
	idle atomic.Int32  // goroutines waiting for the turn
}

// envelope is what Serve reads of a message: enough to route it, and
// for a tool call, to make it (callTool). The values stay JSON text until
// a route needs them, so a message of any shape decodes.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		RequestID json.RawMessage `json:"requestId"` // notifications/cancelled
		// tools/call
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
		// tools/call features left to mcp-go (task augmentation, multi
		// round trip)
		Task           json.RawMessage `json:"task"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	} `json:"params"`
}

// serve is one of the connection's goroutines. In its turn it reads
// messages up to a request, passes the turn to an idle goroutine (starting
// one when none is), answers the request, and waits for its turn again.
func (c *conn) serve(ctx context.Context) {
	for {
		select {
		case <-c.turn:
		case <-ctx.Done():
			return
		}
		c.idle.Add(-1)
		for c.serveOne(ctx) {
		}
		if c.idle.Add(1) > maxIdle {
			c.idle.Add(-1)
			return
		}
	}
}

// serveOne reads up to the next request and answers it. Reading passes
// to another goroutine only if the answer takes longer than handOn (a
// timer hands the turn on then), so a quick call keeps the turn and wakes
// no other thread; it reports whether this goroutine still holds the
// turn.
func (c *conn) serveOne(ctx context.Context) (kept bool) {
	env, msg, ok := c.nextRequest(ctx)
	if !ok {
		return false // the input ended: no turn to pass on
	}
	// Track the request before reading on: a cancel right behind it
	// finds it.
	key := string(env.ID)
	rctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.inflight[key] = cancel
	c.mu.Unlock()
	c.requests.Add(1)
	handing := time.AfterFunc(handOn, func() {
		if c.idle.Load() == 0 {
			c.idle.Add(1)
			go c.serve(ctx)
		}
		c.turn <- struct{}{}
	})
	c.answer(rctx, env, msg)
	kept = handing.Stop()
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	cancel()
	<-c.slots
	c.requests.Done()
	if kept && c.opt.Idle != nil && c.in.Buffered() == 0 {
		// The reply is out and the input is still ours to read: a
		// message arriving meanwhile waits at most handOn for it.
		handing.Reset(handOn)
		c.opt.Idle(ctx)
		kept = handing.Stop()
	}
	return kept
}

// handOn is how long a request may keep the turn to read: past it, the
// next message (a cancel, rr_interrupt, another call) is read by another
// goroutine while this one still answers.
const handOn = time.Millisecond

// maxIdle is how many goroutines wait for a turn to read at most.
const maxIdle = 4

// nextRequest reads messages until a request, serving the others (a
// notification, a parse error) on the way; it returns the request's
// envelope and text with a slot taken for it, or ok false when the input
// ended.
func (c *conn) nextRequest(ctx context.Context) (env *envelope, msg []byte, ok bool) {
	for {
		line, err := c.readLine()
		if err != nil {
			c.ended <- err
			return nil, nil, false
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		// The line is the reader's buffer until the next read: what
		// outlives it is a copy (the envelope's values point into it).
		line = bytes.Clone(line)
		env = new(envelope)
		if err := json.Unmarshal(line, env); err != nil {
			c.write(invalidReply(line, err))
			continue
		}
		isRequest := len(env.ID) > 0 && !bytes.Equal(env.ID, []byte("null"))
		switch {
		case len(env.ID) > 0 && !plainID(env.ID):
			// JSON-RPC: an id is a string or a number (MCP: never null)
			c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":%q}}`, "Invalid Request: the id must be a string or an integer, not "+errkind.Shorten(string(env.ID), 40)))
			continue
		case env.Method == "":
			// A reply to a request of ours (we send none) or junk.
			if isRequest {
				c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"Invalid Request: no method"}}`, env.ID))
			}
			continue
		case !isRequest:
			if env.Method == string(mcp.MethodNotificationCancelled) {
				c.cancel(env.Params.RequestID)
			}
			// Notifications carry no reply; they are quick and keep
			// their order (initialized before what follows).
			c.answer(ctx, env, line)
			continue
		}
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			c.ended <- ctx.Err()
			return nil, nil, false
		}
		return env, line, true
	}
}

// invalidReply answers a line whose envelope does not decode: not JSON
// at all is a parse error (JSON-RPC's -32700, no id known); valid JSON of
// the wrong shape (a method that is no string, params that are no object,
// not an object at all) is an invalid request (-32600), answered with the
// request's id where it has a usable one, so that a client waiting on
// that id hears of it.
func invalidReply(line []byte, err error) []byte {
	if !json.Valid(line) {
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	}
	var idOnly struct {
		ID json.RawMessage `json:"id"`
	}
	id := []byte("null")
	if json.Unmarshal(line, &idOnly) == nil && plainID(idOnly.ID) {
		id = idOnly.ID
	}
	msg := "Invalid Request"
	var te *json.UnmarshalTypeError
	switch {
	case !errors.As(err, &te):
	case te.Field == "":
		msg = fmt.Sprintf("Invalid Request: a message is a JSON object, not %s", te.Value)
	case te.Type.Kind() == reflect.String:
		msg = fmt.Sprintf("Invalid Request: %s must be a JSON string, not %s", te.Field, te.Value)
	default: // (the envelope's other typed part is params, a struct)
		msg = fmt.Sprintf("Invalid Request: %s must be a JSON object, not %s", te.Field, te.Value)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":%q}}`, id, msg)
}

// cancel ends the request with the given id, if it is running.
func (c *conn) cancel(id json.RawMessage) {
	c.mu.Lock()
	cancel := c.inflight[string(id)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answer runs one message through the server and writes its reply (a
// request's; a notification has none).
func (c *conn) answer(ctx context.Context, env *envelope, msg []byte) {
	var id json.RawMessage
	if len(env.ID) > 0 && !bytes.Equal(env.ID, []byte("null")) {
		id = env.ID
	}
	var b []byte
	func() {
		defer func() {
			if p := recover(); p != nil {
				c.opt.Log("stdio: panic serving a message: %v", p)
				b = internalError(id, fmt.Sprintf("internal error: %v", p))
			}
		}()
		if id == nil {
			c.srv.HandleMessage(ctx, msg)
			return
		}
		if b = c.callTool(ctx, env); b != nil {
			return
		}
		resp := c.srv.HandleMessage(ctx, msg)
		if resp == nil {
			return
		}
		var err error
		if b, err = encodeReply(resp); err != nil {
			c.opt.Log("stdio: encode a reply: %v", err)
			b = internalError(id, "internal error: the reply could not be encoded: "+err.Error())
		}
	}()
	if b != nil && id != nil {
		c.write(b)
	}
}

// internalError is a JSON-RPC internal error reply.
func internalError(id json.RawMessage, msg string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, id, msg)
}

// callTool answers a tools/call of a registered tool by calling the
// tool's handler, and returns the reply; nil when the message is anything
// else, or a call that uses what mcp-go's router adds (task augmentation,
// multi round trip, the 2026-07-28 protocol's per-request _meta), which
// HandleMessage then serves. The reply is the one HandleMessage gives
// (TestCallToolAsHandleMessage): the call's work is all in the handler
// (package tools: arguments, progress, the result, the resource
// notifications), so what is left out here is mcp-go's routing, which
// decodes a tool call's text five times over (the envelope, the protocol
// era, the trace context, the request, the arguments into a map) before
// the handler decodes the arguments once more.
func (c *conn) callTool(ctx context.Context, env *envelope) []byte {
	p := &env.Params
	if env.Method != string(mcp.MethodToolsCall) || env.JSONRPC != mcp.JSONRPC_VERSION || !plainID(env.ID) ||
		len(p.Task) > 0 || len(p.InputResponses) > 0 || len(p.RequestState) > 0 {
		return nil
	}
	var req mcp.CallToolRequest
	if json.Unmarshal(p.Name, &req.Params.Name) != nil {
		return nil
	}
	if len(p.Meta) > 0 {
		if json.Unmarshal(p.Meta, &req.Params.Meta) != nil || mcp.IsModernProtocol(req.Params.Meta.ProtocolVersion()) {
			return nil
		}
	}
	tool := c.srv.GetTool(req.Params.Name)
	if tool == nil {
		return nil // HandleMessage says it is unknown
	}
	req.Method = env.Method
	req.Params.RawArguments = p.Arguments
	res, err := tool.Handler(ctx, req)
	if err != nil || res == nil {
		// rrmcp's handlers answer every failure with a tool error.
		return internalError(env.ID, fmt.Sprintf("internal error: tool %s returned no result: %v", req.Params.Name, err))
	}
	b, err := encodeResponse(env.ID, res)
	if err != nil {
		return internalError(env.ID, "internal error: the reply could not be encoded: "+err.Error())
	}
	return b
}

// plainID reports whether a request id is a JSON string or integer, which
// a reply carries back as it came. Other ids are HandleMessage's to
// judge.
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		return true
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// encodeReply encodes a reply of HandleMessage as json.Marshal does,
// a tool call's result as encodeResponse does.
func encodeReply(resp mcp.JSONRPCMessage) ([]byte, error) {
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok || r.JSONRPC != mcp.JSONRPC_VERSION {
		return json.Marshal(resp)
	}
	var res *mcp.CallToolResult
	switch v := r.Result.(type) {
	case *mcp.CallToolResult:
		res = v
	case mcp.CallToolResult:
		res = &v
	}
	if res == nil {
		return json.Marshal(resp)
	}
	id, err := r.ID.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return encodeResponse(id, res)
}

// encodeResponse encodes the reply carrying a tool call's result,
// byte for byte as json.Marshal of mcp-go's JSONRPCResponse does.
// mcp.CallToolResult's MarshalJSON builds a map and has it sorted and
// encoded; the result's fields are written here in that order from a
// struct instead. Results using other fields (resultType, multi round
// trip, raw structured content) take MarshalJSON.
func encodeResponse(id json.RawMessage, res *mcp.CallToolResult) ([]byte, error) {
	var body []byte
	var err error
	if res.ResultType != "" || len(res.InputRequests) > 0 || res.RequestState != "" || len(res.RawStructuredContent) > 0 {
		body, err = res.MarshalJSON()
	} else {
		w := wireResult{Meta: res.Meta, Content: res.Content, IsError: res.IsError, StructuredContent: res.StructuredContent}
		if w.Content == nil {
			w.Content = []mcp.Content{}
		}
		body, err = json.Marshal(w)
	}
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(body)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, body...)
	return append(b, '}'), nil
}

// wireResult is mcp.CallToolResult as its MarshalJSON writes it, the
// fields in the sorted order of its map's keys.
type wireResult struct {
	Meta              *mcp.Meta     `json:"_meta,omitempty"`
	Content           []mcp.Content `json:"content"`
	IsError           bool          `json:"isError,omitempty"`
	StructuredContent any           `json:"structuredContent,omitempty"`
}

// write writes one message line, after the notifications sent before
// it: when every notification sent has been written (the usual case of a
// reply), at once, costing no goroutine switch; otherwise writeNotes is
// paused (it never holds a notification taken from the queue while a
// reply is written) and the queue is written out first, so that what a
// call sent before its reply comes before it, in order.
func (c *conn) write(msg []byte) {
	c.wmu.Lock()
	if c.sess.sent.Load() == c.written {
		c.writeLine(msg)
		c.wmu.Unlock()
		return
	}
	c.wmu.Unlock()
	done := make(chan struct{})
	select {
	case c.pause <- done:
		defer close(done)
	case <-c.notesDone:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.drainNotes()
	c.writeLine(msg)
}

// drainNotes writes the notifications in the queue; wmu is held.
func (c *conn) drainNotes() {
	for {
		select {
		case n := <-c.sess.notes:
			c.writeNote(n)
		default:
			return
		}
	}
}

// writeNotes writes notifications as they come, until stop is closed.
func (c *conn) writeNotes(stop <-chan struct{}) {
	defer close(c.notesDone)
	for {
		select {
		case n := <-c.sess.notes:
			c.wmu.Lock()
			c.writeNote(n)
			c.wmu.Unlock()
		case done := <-c.pause:
			<-done // a reply is being written
		case <-stop:
			return
		}
	}
}

// writeNote writes a notification taken from the queue; wmu is held.
func (c *conn) writeNote(n mcp.JSONRPCNotification) {
	c.written++
	b, err := json.Marshal(n)
	if err != nil {
		c.opt.Log("stdio: encode a notification %s: %v", n.Method, err)
		return
	}
	c.writeLine(b)
}

// writeLine writes msg and its newline with one Write; wmu is held.
func (c *conn) writeLine(msg []byte) {
	msg = append(msg, '\n')
	if _, err := c.out.Write(msg); err != nil {
		c.opt.Log("stdio: write: %v", err)
	}
}

// readLine returns the next line without its newline. A line over
// MaxLine is dropped (read to its end but not kept) and answered with an
// error naming the limit.
func (c *conn) readLine() ([]byte, error) {
	for {
		line, err := c.in.ReadSlice('\n')
		n := len(line)
		if err == bufio.ErrBufferFull {
			// Longer than the buffer: gather it, up to the limit.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = c.in.ReadSlice('\n')
				n += len(line)
				if len(long) <= c.opt.MaxLine {
					long = append(long, line...)
				}
			}
			line = long
		}
		if err == nil {
			n--
			line = line[:len(line)-1]
		}
		if n > c.opt.MaxLine {
			c.write(tooLongReply(line[:min(len(line), 512)], n, c.opt.MaxLine))
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && !(err == io.EOF && len(line) > 0) {
			return nil, err // a last line without its newline is still served
		}
		return line, nil
	}
}

var idRE = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?[0-9]{1,20})`)

// tooLongReply is the JSON-RPC error for a dropped line, with the
// request's id when its first bytes carry one.
func tooLongReply(prefix []byte, n, max int) []byte {
	id := "null"
	if m := idRE.FindSubmatch(prefix); m != nil {
		id = string(m[1])
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"request too large: the message is over rrmcp's limit of %d bytes per JSON-RPC line (it was %d bytes long and was dropped); send smaller arguments"}}`, id, max, n)
}

// session is the one client of a stdio server, as mcp-go's server sees
// it: where its notifications go and whether it has initialized.
type session struct {
	notes chan mcp.JSONRPCNotification
	// sent counts the calls of NotificationChannel, which mcp-go makes
	// for each notification right before it sends it: a reply written
	// when as many were taken from the queue has none to wait for. (One
	// dropped because the queue was full leaves sent ahead for good:
	// each reply then pauses writeNotes, which is slower, not wrong.)
	sent        atomic.Uint64
	initialized atomic.Bool
}

func (s *session) SessionID() string { return "stdio" }
func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification {
	s.sent.Add(1)
	return s.notes
}
func (s *session) Initialize()       { s.initialized.Store(true) }
func (s *session) Initialized() bool { return s.initialized.Load() }
