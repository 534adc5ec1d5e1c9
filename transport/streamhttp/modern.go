package streamhttp

import (
	"context"
	"net/http"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/transport"
)

// prepareModern judges a 2026-07-28 POST: one request or notification,
// whose MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* headers
// agree with the body. What the headers cannot tell (an unsupported
// version, a missing _meta member, an unknown method) the dispatcher
// answers, and its error decides the status.
func (e *Engine) prepareModern(r *Request, v version, msg jsonrpc.Message, derr *jsonrpc.Error) (*Prepared, *Response) {
	rev := e.modernRevision(v.value)
	if rev == "" {
		return nil, e.unsupportedVersion(msg.ID, v.value)
	}
	d, _ := e.reg.Lookup(rev)
	switch {
	case derr != nil:
		return nil, errorResponse(d.HTTPStatus(derr), msg.ID, derr)
	case msg.Kind == jsonrpc.KindNotification:
		// No client notification has an effect on HTTP at this revision
		// (cancelling is closing the stream); header rules are undefined
		// for them, so they are accepted as they come.
		return &Prepared{op: opAccepted}, nil
	case msg.Kind != jsonrpc.KindRequest:
		return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID,
			invalidRequest("clients send no responses at revision 2026-07-28"))
	}
	if err := e.checkModernHeaders(r.Header, v, d, msg); err != nil {
		return nil, errorResponse(http.StatusBadRequest, msg.ID, err)
	}
	return &Prepared{op: opModernCall, body: r.Body, method: msg.Method, dialect: d}, nil
}

// checkModernHeaders compares the mirrored headers with the body (SEP-2243).
func (e *Engine) checkModernHeaders(h http.Header, v version, d protocol.Dialect, msg jsonrpc.Message) *jsonrpc.Error {
	// The revision's catalogue names the member Mcp-Name mirrors, if any.
	// The decoder located _meta and name as it read params; any other
	// member takes one pass over params, which finds both.
	m, _ := d.Catalogue().Lookup(msg.Method)
	member := m.NameParam
	var vals [2][]byte
	if spans, ok := msg.LocatedParams(); ok && (member == "" || member == jsonrpc.ParamNames[jsonrpc.ParamName]) {
		vals[0] = spans.Value(msg.Params, jsonrpc.ParamMeta)
		if member != "" {
			vals[1] = spans.Value(msg.Params, jsonrpc.ParamName)
		}
	} else {
		names := [2]string{"_meta", member}
		if member == "" {
			jsonrpc.Members(msg.Params, names[:1], vals[:1])
		} else {
			jsonrpc.Members(msg.Params, names[:], vals[:])
		}
	}
	var mv []byte // params._meta's protocolVersion, when a string
	if vals[0] != nil {
		if raw, ok := jsonrpc.Member(vals[0], "io.modelcontextprotocol/protocolVersion"); ok && isString(raw) {
			mv = raw
		}
	}
	switch {
	case !v.present:
		return headerMismatch(hdrProtocolVersion, "header %s is required", hdrProtocolVersion)
	case !v.ok:
		return headerMismatch(hdrProtocolVersion, "header %s is malformed", hdrProtocolVersion)
	case mv != nil && !stringIs(mv, v.value):
		said, _ := stringOf(mv)
		return headerMismatch(hdrProtocolVersion, "header %s is %q but params._meta says %q", hdrProtocolVersion, v.value, said)
	}
	switch m, present, ok := headerValue(h, hdrMethod); {
	case !present:
		return headerMismatch(hdrMethod, "header %s is required", hdrMethod)
	case !ok:
		return headerMismatch(hdrMethod, "header %s is malformed", hdrMethod)
	case m != msg.Method:
		return headerMismatch(hdrMethod, "header %s is %q but the body's method is %q", hdrMethod, m, msg.Method)
	}
	if member == "" || !isString(vals[1]) {
		return nil // the dispatcher rejects params whose name is not a string
	}
	n, present, ok := headerValue(h, hdrName)
	switch {
	case !present:
		return headerMismatch(hdrName, "header %s is required for %s", hdrName, msg.Method)
	case !ok:
		return headerMismatch(hdrName, "header %s is malformed", hdrName)
	case !stringIs(vals[1], n):
		return headerMismatch(hdrName, "header %s does not match params.%s", hdrName, member)
	}
	if msg.Method == methodCallTool {
		return checkParams(h, msg.Params, e.params.forTool(n))
	}
	return nil
}

// execModern runs one 2026-07-28 request on a session of its own: the
// revision is stateless, so nothing outlives the POST. The client closing
// the stream closes the session, which cancels the handler; nothing more
// is written after that.
func (e *Engine) execModern(ctx context.Context, p *Prepared, out Output) error {
	sess := e.srv.NewSession(transport.Info{Name: transportName, Revision: p.dialect.Revision()},
		transport.SinkFunc(discard))
	slot := e.streams.add(sess)
	defer func() {
		sess.Close()
		e.streams.remove(slot)
	}()
	// The writer watches the Engine's life itself: no context derived from
	// both for each request.
	w := &p.w
	*w = writer{e: e, out: out, rep: p.reply(e), dialect: p.dialect, life: e.life.Done()}
	dctx := ctx
	// (Done is not asked: on a request's context it makes a channel for
	// nothing, and the watch on a context that never ends never fires.)
	if _, bounded := ctx.Deadline(); !bounded && ctx != context.Background() {
		// The client going away closes the session (reply.cut), which
		// cancels the handler; its context keeps ctx's values only. A
		// deadline would be lost that way, so a bounded ctx stays the
		// handler's parent.
		dctx = context.WithoutCancel(ctx)
		w.rep.cut, w.rep.sess = ctx, sess
		defer w.rep.stopWatch()
	}
	return e.serveReply(ctx, dctx, sess, p, w)
}

// serveReply delivers p to sess under dctx, with w's reply as the sink, and
// writes the response with w. The handler may run inline, inside deliver
// (reply.Inline): then the reply starts the writer on a goroutine of its
// own if anything must be written before the handler returns, and this one
// waits for it.
func (e *Engine) serveReply(ctx, dctx context.Context, sess transport.Session, p *Prepared, w *writer) error {
	w.ctx = ctx
	rep := w.rep
	rep.dueAfter, rep.wheel = e.o.StreamAfter, &e.due
	rep.w = w
	deliver(dctx, sess, p, inlineReply{rep})
	if rep.settleInline() {
		return <-w.spawned
	}
	return w.write(false)
}
