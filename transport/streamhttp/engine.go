package streamhttp

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/dispatch"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// transportName is the Info.Name of every session this package opens.
const transportName = "streamable-http"

// Output is where Execute writes a response (see sse.Output).
type Output = sse.Output

// Request is one HTTP request as a host received it. Header keys must be in
// canonical form (as net/http stores them); Body is the whole body, which
// the Engine owns from Prepare on.
type Request struct {
	Method   string // "GET", "POST", "DELETE", ...
	Path     string // the URL path, without the query
	RawQuery string // the URL query, without '?'
	Header   http.Header
	// Host is the request's host (the Host header, or the authority of an
	// absolute or HTTP/2 request); empty means Header's "Host".
	Host string
	Body []byte
	// LocalAddr is the address the request arrived on ("127.0.0.1:3000").
	// Empty or not an IP address counts as loopback, which keeps the Host
	// check on (see Options.AllowedHosts).
	LocalAddr string
}

// Response is a complete answer that needs no streaming.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Engine is the Streamable HTTP server with no sockets: Prepare judges a
// request and Execute runs it, writing the answer to an Output. The Handler
// and the Listener are built on it; so is the C ABI's host-owned HTTP entry
// point. An Engine is safe for concurrent use.
type Engine struct {
	srv transport.Server
	o   Options
	pol *policy
	reg *protocol.Registry
	// legacy is a served legacy dialect (their HTTP policies are one), or nil.
	legacy protocol.Dialect
	params paramCache
	sse    *sse.Server

	sessions *sessionTable
	streams  liveSet
	due      dueWheel
	closed   atomic.Bool
	// life ends with Close: every response still being written ends too.
	life context.Context
	stop context.CancelFunc
}

// New returns an Engine serving srv. When srv is a *dispatch.Runtime (what
// mcp.Server uses), its registry decides the served revisions and its tools'
// x-mcp-header annotations are checked against Mcp-Param-* headers.
func New(srv transport.Server, opts *Options) (*Engine, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{srv: srv, o: o, pol: newPolicy(&o), sessions: newSessionTable(o.MaxSessions, o.SessionIdleTimeout),
		due: dueWheel{period: duePeriod(o.StreamAfter)}}
	e.life, e.stop = context.WithCancel(context.Background())
	if rt, ok := srv.(*dispatch.Runtime); ok {
		e.reg = rt.Registry()
		e.params.lookup = rt.Router().Tool
	} else if e.reg, err = protocol.NewRegistry(); err != nil {
		return nil, err
	}
	if revs := e.reg.Legacy(); len(revs) > 0 {
		e.legacy, _ = e.reg.Lookup(revs[0])
	}
	if !o.DisableSSE {
		e.sse = sse.New(srv, &sse.Options{MaxSessions: o.MaxSessions, KeepAlive: o.KeepAlive,
			MaxQueueBytes: o.MaxStreamBytes, WriteTimeout: o.WriteTimeout, Logger: o.Logger})
	}
	return e, nil
}

// Options returns the options in force, defaults filled in.
func (e *Engine) Options() Options { return e.o }

// op is what a prepared request will do.
type op uint8

const (
	opModernCall   op = iota + 1 // 2026-07-28 request: answer JSON or SSE
	opAccepted                   // nothing to run: 202 (a 2026-07-28 notification)
	opLegacyInit                 // initialize: mint a session
	opLegacyCall                 // request (or batch with requests) on a session
	opLegacyNotify               // notifications/responses on a session: 202
	opLegacyGet                  // the session's GET stream, or a resumption
	opLegacyDelete               // end the session
	opSSEStream                  // 2024-11-05 GET /sse
	opSSEPost                    // 2024-11-05 POST /message
)

// Prepared is a request that passed every check Prepare makes; Execute
// runs it. It is used once.
type Prepared struct {
	op          op
	body        []byte
	msg         jsonrpc.Message // body decoded, when decoded is set
	decoded     bool
	method      string // JSON-RPC method, for logs and stream tracking
	dialect     protocol.Dialect
	ls          *legacySession
	lastEventID string
	sseSession  string

	// rep and w are the reply and writer of a request that runs a
	// handler, made with the Prepared rather than on their own.
	rep reply
	w   writer
}

// Prepare checks r (security, method, media types, size, body and the
// 2026-07-28 headers) and returns either what to execute or the complete
// answer when there is nothing to run. It does no I/O and changes no state.
func (e *Engine) Prepare(r *Request) (*Prepared, *Response) {
	ep, resp := e.admit(r)
	if resp != nil {
		return nil, resp
	}
	return e.prepare(r, ep)
}

// Admit makes the checks that need no body: Host (421), Origin (403), path
// (404), method (405), Content-Type (415), Accept (406) and a declared
// Content-Length over MaxBodyBytes (413). A host calls it before reading
// the body; Prepare repeats it. A nil answer means go on.
func (e *Engine) Admit(r *Request) *Response {
	_, resp := e.admit(r)
	return resp
}

// Execute runs p and writes its answer to out. ctx is the request's: it
// ends when the client goes away. On 2026-07-28 that cancels the handler;
// on the legacy revisions it does not (the answer stays available for
// Last-Event-ID resumption when it travels on an SSE stream). The returned
// error is the Output's, or ctx's; the answer is already written or lost.
func (e *Engine) Execute(ctx context.Context, p *Prepared, out Output) error {
	switch p.op {
	case opModernCall:
		return e.execModern(ctx, p, out)
	case opAccepted:
		return accepted().write(out)
	case opLegacyInit:
		return e.execInit(ctx, p, out)
	case opLegacyCall:
		return e.execLegacyCall(ctx, p, out)
	case opLegacyNotify:
		deliver(context.WithoutCancel(ctx), p.ls.sess, p, transport.SinkFunc(discard))
		p.ls.touch()
		return accepted().write(out)
	case opLegacyGet:
		return e.execGet(ctx, p, out)
	case opLegacyDelete:
		e.sessions.end(p.ls)
		return (&Response{Status: http.StatusOK}).write(out)
	case opSSEStream:
		return e.sse.Stream(ctx, e.o.MessagePath, out)
	case opSSEPost:
		status, body := e.sse.Post(ctx, p.sseSession, p.body)
		return (&Response{Status: status, Header: jsonHeader(), Body: body}).write(out)
	}
	return transportError(http.StatusInternalServerError, "unprepared request").write(out)
}

func accepted() *Response { return &Response{Status: http.StatusAccepted} }

// bind returns ctx ended also by Close and, for a legacy request, by the
// end of its session.
func (e *Engine) bind(ctx context.Context, ls *legacySession) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stopLife := context.AfterFunc(e.life, cancel)
	stopSession := func() bool { return false }
	if ls != nil {
		stopSession = context.AfterFunc(ls.ctx, cancel)
	}
	return ctx, func() { stopLife(); stopSession(); cancel() }
}

// ended answers a request whose reply never started because its session
// (404) or the whole server (503) ended first; the client is still there.
func (e *Engine) ended(ctx context.Context, ls *legacySession, out Output) error {
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case ls != nil && ls.ctx.Err() != nil:
		return errorResponse(http.StatusNotFound, jsonrpc.NullID, invalidRequest("the session ended")).write(out)
	}
	return e.unavailable(jsonrpc.NullID, "server is shutting down").write(out)
}

func discard([]byte) error { return nil }

// Drain begins a graceful shutdown: subscriptions/listen streams end with
// their result, legacy GET streams and 2024-11-05 streams close, new
// sessions are refused (503). Requests in flight go on.
func (e *Engine) Drain() {
	if e.closed.Swap(true) {
		return
	}
	e.streams.endListeners()
	e.sessions.drain()
	if e.sse != nil {
		e.sse.Close()
	}
}

// Close ends everything: Drain, then every legacy session and every call,
// and the responses still being written (one that has not started gets 503).
func (e *Engine) Close() {
	e.Drain()
	e.stop()
	e.sessions.closeAll()
	e.streams.closeAll()
}

// liveSet tracks the dispatch sessions of 2026-07-28 requests in flight,
// so that a shutdown can end their listen streams gracefully.
type liveSet struct {
	mu       sync.Mutex
	sessions slots[transport.Session]
}

// add places s in a slot and returns the slot, for remove.
func (l *liveSet) add(s transport.Session) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions.put(s)
}

func (l *liveSet) remove(slot int) {
	l.mu.Lock()
	l.sessions.release(slot)
	l.mu.Unlock()
}

func (l *liveSet) all() []transport.Session {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]transport.Session, 0, l.sessions.len())
	for _, s := range l.sessions.items {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// endListeners finishes open subscriptions/listen streams with their result.
func (l *liveSet) endListeners() {
	for _, s := range l.all() {
		if el, ok := s.(interface{ EndListeners() }); ok {
			el.EndListeners()
		}
	}
}

func (l *liveSet) closeAll() {
	for _, s := range l.all() {
		s.Close()
	}
}

// modernRevision returns the served modern revision a request asks for by
// header, else the newest served one ("" when none is served).
func (e *Engine) modernRevision(hv string) string {
	if d, ok := e.reg.Lookup(hv); ok && d.Era() == protocol.Modern {
		return hv
	}
	if revs := e.reg.Modern(); len(revs) > 0 {
		return revs[len(revs)-1]
	}
	return ""
}

// unsupportedVersion answers a request for a revision not served at all.
func (e *Engine) unsupportedVersion(id jsonrpc.ID, requested string) *Response {
	err := jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeUnsupportedProtocolVersion,
		"unsupported protocol version %q", requested).
		WithData(map[string]any{"supported": e.reg.Supported(), "requested": requested})
	return errorResponse(http.StatusBadRequest, id, err)
}

// decodedDeliverer is implemented by the dispatcher's sessions: they take a
// message Prepare already decoded, instead of scanning the body again (a
// third of the CPU of a 64 KiB call was that second scan).
type decodedDeliverer interface {
	DeliverDecoded(ctx context.Context, frame []byte, msg jsonrpc.Message, lim jsonrpc.Limits, reply transport.Sink)
}

// deliver hands p's body to sess, decoded when Prepare decoded it.
func deliver(ctx context.Context, sess transport.Session, p *Prepared, reply transport.Sink) {
	if d, ok := sess.(decodedDeliverer); ok && p.decoded {
		d.DeliverDecoded(ctx, p.body, p.msg, prepareLimits, reply)
		return
	}
	sess.Deliver(ctx, p.body, reply)
}
