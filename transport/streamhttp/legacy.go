package streamhttp

import (
	"context"
	"net/http"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// The initialize-era shape of Streamable HTTP (2025-03-26, 2025-06-18,
// 2025-11-25): initialize mints a session; every later request names it in
// Mcp-Session-Id; GET opens the session's stream; DELETE ends it. A client
// going away is not a cancel: the answer stays in the stream's store for a
// GET with Last-Event-ID.

func (e *Engine) prepareLegacy(r *Request, v version, msg jsonrpc.Message, derr *jsonrpc.Error) (*Prepared, *Response) {
	if msg.Method == "initialize" && !msg.ID.IsAbsent() {
		if derr != nil {
			return nil, errorResponse(e.legacyStatus(derr), msg.ID, derr)
		}
		return &Prepared{op: opLegacyInit, body: r.Body, method: msg.Method}, nil
	}
	ls, resp := e.session(r.Header, v, msg.ID)
	if resp != nil {
		return nil, resp
	}
	switch {
	case derr != nil && msg.ID.IsAbsent():
		return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID, derr)
	case derr != nil:
		return nil, errorResponse(e.legacyStatus(derr), msg.ID, derr)
	case msg.Kind == jsonrpc.KindRequest:
		return &Prepared{op: opLegacyCall, body: r.Body, method: msg.Method, ls: ls}, nil
	}
	return &Prepared{op: opLegacyNotify, body: r.Body, ls: ls}, nil
}

// prepareLegacyBatch admits a JSON-RPC batch on a session initialized at
// 2025-03-26, the only revision that has them. One with requests is
// answered with the array of answers; one without is accepted (202).
func (e *Engine) prepareLegacyBatch(r *Request, v version) (*Prepared, *Response) {
	ls, resp := e.session(r.Header, v, jsonrpc.NullID)
	if resp != nil {
		return nil, resp
	}
	if ls.rev != spec.Rev20250326 {
		return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID,
			invalidRequest("%s", protocol.BatchRefusal(ls.rev)))
	}
	items, _, err := jsonrpc.SplitBatch(r.Body, jsonrpc.Limits{})
	if err != nil {
		return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID, err)
	}
	p := &Prepared{op: opLegacyNotify, body: r.Body, ls: ls}
	for _, item := range items {
		m, derr := jsonrpc.Decode(item, jsonrpc.Limits{})
		if (derr == nil && m.Kind == jsonrpc.KindRequest) || (derr != nil && !m.ID.IsAbsent()) {
			p.op = opLegacyCall
		}
	}
	return p, nil
}

// session finds the session a request names: 400 without one, 404 for one
// that ended or expired (the client must initialize again), 400 when the
// MCP-Protocol-Version header names another revision than it negotiated.
func (e *Engine) session(h http.Header, v version, id jsonrpc.ID) (*legacySession, *Response) {
	sid := headerOne(h, hdrSessionID)
	if sid == "" {
		return nil, errorResponse(http.StatusBadRequest, id,
			invalidRequest("header %s is required: send initialize first", hdrSessionID))
	}
	ls := e.sessions.get(sid)
	if ls == nil {
		return nil, errorResponse(http.StatusNotFound, id,
			invalidRequest("session not found (ended or expired): initialize again"))
	}
	if v.present && v.value != ls.rev {
		return nil, errorResponse(http.StatusBadRequest, id,
			invalidRequest("header %s is %q but the session negotiated %q", hdrProtocolVersion, v.value, ls.rev))
	}
	return ls, nil
}

// prepareStream judges GET and DELETE on the endpoint. 2026-07-28 has
// neither (405); without a session there is nothing to stream or end.
func (e *Engine) prepareStream(r *Request) (*Prepared, *Response) {
	v := versionOf(r.Header)
	sid := headerOne(r.Header, hdrSessionID)
	if (v.present && e.era(v, nil) == protocol.Modern) || (sid == "" && !v.present) {
		return nil, methodNotAllowed("POST", "%s needs a legacy session (Mcp-Session-Id); at 2026-07-28 only POST is served", r.Method)
	}
	ls, resp := e.session(r.Header, v, jsonrpc.NullID)
	if resp != nil {
		return nil, resp
	}
	if r.Method == http.MethodDelete {
		return &Prepared{op: opLegacyDelete, ls: ls}, nil
	}
	if !accepts(r.Header, "text/event-stream") {
		return nil, transportError(http.StatusNotAcceptable, "Accept must list text/event-stream")
	}
	return &Prepared{op: opLegacyGet, ls: ls, lastEventID: headerOne(r.Header, hdrLastEventID)}, nil
}

func (e *Engine) legacyStatus(err *jsonrpc.Error) int {
	if e.legacy == nil {
		return http.StatusBadRequest
	}
	return e.legacy.HTTPStatus(err)
}

// execInit opens a session, runs initialize on it and, when it succeeds,
// registers the session and names it in Mcp-Session-Id.
func (e *Engine) execInit(ctx context.Context, p *Prepared, out Output) error {
	if e.closed.Load() {
		return e.unavailable(jsonrpc.NullID, "server is shutting down").write(out)
	}
	ls := newLegacySession(&e.o)
	ls.sess = e.srv.NewSession(transport.Info{Name: transportName, Batches: true}, transport.SinkFunc(ls.out))
	rep := p.reply(e)
	defer rep.leave()
	deliver(context.WithoutCancel(ctx), ls.sess, p, rep)
	answer, err := waitAnswer(ctx, rep)
	if err != nil {
		ls.close()
		return err
	}
	if classify(answer) != kindResult {
		ls.close()
		return (&Response{Status: e.status(e.legacy, answer), Header: jsonHeader(), Body: answer}).write(out)
	}
	result, _ := jsonrpc.Member(answer, "result")
	ls.rev, _ = stringMember(result, "protocolVersion")
	if err := e.sessions.add(ls); err != nil {
		ls.close()
		return e.unavailable(jsonrpc.NullID, err.Error()).write(out)
	}
	h := jsonHeader()
	h.Set(hdrSessionID, ls.id)
	return (&Response{Status: http.StatusOK, Header: h, Body: answer}).write(out)
}

// waitAnswer returns the answer of a request that sends nothing else.
func waitAnswer(ctx context.Context, rep *reply) ([]byte, error) {
	var wake <-chan struct{} // made by the first wait
	for {
		msgs, _, overflow := rep.take()
		if overflow {
			return nil, errSlowClient
		}
		for _, m := range msgs {
			if isFinal(m) {
				return m, nil
			}
		}
		if wake == nil {
			wake = rep.wakeup()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// execLegacyCall runs a request (or a batch) on its session. The handler
// outlives the POST; once the reply is an SSE stream it is resumable.
func (e *Engine) execLegacyCall(ctx context.Context, p *Prepared, out Output) error {
	ls := p.ls
	ls.begin()
	defer ls.done()
	// The writer watches the Engine and the session itself; a context bound
	// to both is made only if the reply becomes a resumable stream.
	w := &p.w
	*w = writer{e: e, out: out, rep: p.reply(e), dialect: e.legacy, life: e.life.Done(), ls: ls, resumable: true}
	// A disconnect is not a cancel on the legacy revisions: the handler's
	// context does not end with the request's.
	return e.serveReply(ctx, context.WithoutCancel(ctx), ls.sess, p, w)
}

// newStream makes the store a reply on ls moves into once it is an SSE
// stream, and reports whether the stream opens with a priming event.
func (e *Engine) newStream(ls *legacySession) (*sse.Store, bool) {
	st := sse.NewStore(e.o.MaxStreamEvents, e.o.MaxStreamBytes)
	ls.addStream(st, e.o.MaxStoredStreams)
	return st, primes(ls.rev)
}

// primes reports whether a revision opens SSE streams with a priming event
// (an id and empty data) so that the client can resume from the start.
func primes(rev string) bool { return rev >= spec.Rev20251125 }

// execGet serves the session's GET stream or, with Last-Event-ID, resumes
// the stream that id belongs to from the event after it. An id that is
// unknown or whose successors were evicted cannot be resumed; the client
// gets the session's plain GET stream instead.
func (e *Engine) execGet(ctx context.Context, p *Prepared, out Output) error {
	ls := p.ls
	ls.begin()
	defer ls.done()
	ctx, stop := e.bind(ctx, ls)
	defer stop()
	var buf []byte
	if st := ls.stream(sse.StreamOf(p.lastEventID)); st != nil {
		if _, _, ok := st.After(p.lastEventID); ok {
			if err := out.Start(http.StatusOK, sse.Header()); err != nil {
				return err
			}
			return follow(ctx, out, st, p.lastEventID, e.o.KeepAlive, &buf)
		}
	}
	if !ls.openGet() {
		return transportError(http.StatusConflict, "a GET stream is already open for this session").write(out)
	}
	defer ls.closeGet()
	// An empty event marks where this stream starts; on 2025-11-25 it is
	// sent as the priming event.
	start := ls.get.Append(nil)
	if start == "" {
		return e.unavailable(jsonrpc.NullID, "server is shutting down").write(out)
	}
	if err := out.Start(http.StatusOK, sse.Header()); err != nil {
		return err
	}
	if primes(ls.rev) {
		buf = sse.AppendPriming(buf, start, e.o.SSERetry)
	} else {
		buf = sse.AppendComment(buf, "stream open")
	}
	if err := writeFlush(out, buf); err != nil {
		return err
	}
	return follow(ctx, out, ls.get, start, e.o.KeepAlive, &buf)
}
