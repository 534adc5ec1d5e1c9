package streamhttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// call is one request in flight.
type call struct {
	id     jsonrpc.ID
	rawID  []byte // as sent, for the RequestError
	modern bool
	init   bool    // a legacy initialize: its answer opens the session
	lists  bool    // a 2026-07-28 tools/list: its answer's tools are vetted
	sess   session // the session its POST named, for a 404 and resumption
	ctx    context.Context
	cancel context.CancelFunc
	header http.Header // of the POST's response
	// cancelled is set by the client's notifications/cancelled; guarded by
	// ClientConn.mu.
	cancelled bool
}

const (
	// maxReconnects bounds the reconnections in a row that read no event,
	// of a resumed reply and of the GET stream.
	maxReconnects = 5
	// defaultRetry is the reconnection delay when the server named none.
	defaultRetry = time.Second
)

// track registers a request; c.mu is held.
func (c *ClientConn) track(m *jsonrpc.Message, msg []byte, modern bool, s session) *call {
	raw, _ := jsonrpc.Member(msg, "id")
	x := &call{id: m.ID, rawID: bytes.Clone(raw), modern: modern, init: !modern && m.Method == "initialize",
		lists: modern && m.Method == methodListTools, sess: s}
	x.ctx, x.cancel = context.WithCancel(c.life)
	c.calls[m.ID] = x
	return x
}

// run is the goroutine of one request.
func (c *ClientConn) run(x *call, body []byte, h http.Header) {
	defer c.wg.Done()
	defer func() {
		x.cancel()
		c.mu.Lock()
		if c.calls[x.id] == x {
			delete(c.calls, x.id)
		}
		c.mu.Unlock()
	}()
	if err := c.exchange(x, body, h); err != nil {
		c.fail(x, err)
	}
}

// exchange posts x and queues its reply until the answer.
func (c *ClientConn) exchange(x *call, body []byte, h http.Header) error {
	resp, err := c.do(x.ctx, http.MethodPost, body, h)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	x.header = resp.Header
	switch {
	case resp.StatusCode == http.StatusNotFound && x.sess.id != "":
		c.expire(x.sess.id)
		return ErrSessionExpired
	case !isStream(resp):
		return c.readAnswer(x, resp)
	}
	cur := &sse.Cursor{}
	answered, _, err := c.pump(x, sse.NewReader(resp.Body, c.max, cur))
	switch {
	case answered:
		return nil
	case errors.Is(err, ErrMessageTooLarge):
		return err
	case x.modern || cur.LastID == "" || c.isCancelled(x):
		// Nothing to resume from (2026-07-28 has no resumption), or the
		// client no longer waits for the answer.
		return noAnswer(err)
	}
	return c.resume(x, cur)
}

// readAnswer reads a reply that is not a stream: x's JSON-RPC answer,
// whatever the status (a 400 with -32022, say), or a StatusError.
func (c *ClientConn) readAnswer(x *call, resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	switch {
	case err != nil:
		return err
	case int64(len(body)) > c.max:
		return ErrMessageTooLarge
	}
	if m, derr := jsonrpc.Decode(body, jsonrpc.Limits{}); derr == nil && answers(m, x.id) {
		c.deliver(x, m, body)
		return nil
	}
	return &StatusError{Status: resp.StatusCode, Body: string(body[:min(len(body), statusBodyBytes)])}
}

// answers reports whether m is the answer to the request id.
func answers(m jsonrpc.Message, id jsonrpc.ID) bool {
	return (m.Kind == jsonrpc.KindResponse || m.Kind == jsonrpc.KindError) && m.ID == id
}

// pump queues the messages of an SSE stream until it ends or the answer to
// x arrives (x is nil for the GET stream). events counts every event read,
// priming ones included: a stream that gives them is alive.
func (c *ClientConn) pump(x *call, rd *sse.Reader) (answered bool, events int, err error) {
	for {
		ev, err := rd.Next()
		if err != nil {
			return false, events, err
		}
		events++
		if !ev.IsMessage() {
			continue
		}
		msg := bytes.Clone(ev.Data)
		m, derr := jsonrpc.Decode(msg, jsonrpc.Limits{})
		switch {
		case derr != nil:
			c.log.Warn("streamhttp: dropped an SSE event that is not a JSON-RPC message", "err", derr)
		case x != nil && answers(m, x.id):
			c.deliver(x, m, msg)
			return true, events, nil
		default:
			c.enqueue(x, msg)
		}
	}
}

// deliver queues x's answer. The answer to initialize opens the session
// first, so that the client's next message carries it; the tools of a
// 2026-07-28 tools/list answer are vetted.
func (c *ClientConn) deliver(x *call, m jsonrpc.Message, msg []byte) {
	if x.lists && m.Kind == jsonrpc.KindResponse {
		msg = c.vetTools(m, msg)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if x.init && m.Kind == jsonrpc.KindResponse {
		version, _ := stringMember(m.Result, "protocolVersion")
		c.sess = session{id: x.header.Get(hdrSessionID), version: version}
	}
	c.pushLocked(x, item{msg: msg})
}

func (c *ClientConn) isCancelled(x *call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return x.cancelled
}

// expire forgets the session id the server no longer knows, unless a new
// session replaced it meanwhile.
func (c *ClientConn) expire(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess.id == id {
		c.sess = session{}
	}
}

// noAnswer is the error of a reply that ended before the answer, with the
// read error that ended it.
func noAnswer(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return ErrNoAnswer
	}
	return fmt.Errorf("%w: %w", ErrNoAnswer, err)
}

// resume follows x's reply with GET and Last-Event-ID once its stream
// ended without the answer (2025-11-25: a server may close it to make the
// client poll), until the answer comes.
func (c *ClientConn) resume(x *call, cur *sse.Cursor) error {
	var last error
	for misses := 0; misses < maxReconnects; {
		if err := transport.Wait(x.ctx, delayOf(cur)); err != nil {
			return err
		}
		resp, err := c.openGet(x.ctx, x.sess, cur.LastID)
		var se *StatusError
		switch {
		case errors.As(err, &se) && se.Status == http.StatusNotFound && x.sess.id != "":
			c.expire(x.sess.id)
			return ErrSessionExpired
		case se != nil:
			return err
		case err != nil:
			last, misses = err, misses+1
			continue
		}
		answered, events, err := c.pump(x, sse.NewReader(resp.Body, c.max, cur))
		resp.Body.Close()
		switch {
		case answered:
			return nil
		case errors.Is(err, ErrMessageTooLarge) || c.isCancelled(x):
			return noAnswer(err)
		case events > 0:
			misses = 0
		default:
			misses++
		}
		last = err
	}
	return noAnswer(last)
}

// openListen opens the legacy session's GET stream, which carries the
// server's requests and notifications unrelated to any request. It
// replaces the stream of an earlier session. It returns once the server
// has answered the GET (or after listenWait): the client's next request
// then cannot overtake the stream, which a server could mistake for a
// resumption of that request's stream.
func (c *ClientConn) openListen(ctx context.Context, s session) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.stopListen != nil {
		c.stopListen()
	}
	lctx, cancel := context.WithCancel(c.life)
	c.stopListen = cancel
	c.wg.Add(1)
	opened := make(chan struct{})
	go c.listen(lctx, s, opened)
	c.mu.Unlock()
	t := time.NewTimer(listenWait)
	defer t.Stop()
	select {
	case <-opened:
	case <-t.C:
	case <-ctx.Done():
	}
}

// listenWait bounds how long opening the GET stream holds up the client.
const listenWait = time.Second

// listen reads the GET stream, reopening it with Last-Event-ID when it
// drops. A status (405: the server offers none) ends it for good.
func (c *ClientConn) listen(ctx context.Context, s session, opened chan struct{}) {
	defer c.wg.Done()
	cur := &sse.Cursor{}
	for misses := 0; ; {
		events, err := c.listenOnce(ctx, s, cur, opened)
		opened = nil
		var se *StatusError
		switch {
		case ctx.Err() != nil:
			return
		case errors.As(err, &se):
			if se.Status != http.StatusMethodNotAllowed {
				c.log.Warn("streamhttp: no GET stream", "err", err)
			}
			return
		case events > 0:
			misses = 0
		case misses == maxReconnects:
			c.log.Warn("streamhttp: GET stream lost", "err", err)
			return
		default:
			misses++
		}
		if transport.Wait(ctx, delayOf(cur)) != nil {
			return
		}
	}
}

// listenOnce reads the GET stream once; opened, when not nil, is closed
// once the server has answered the GET.
func (c *ClientConn) listenOnce(ctx context.Context, s session, cur *sse.Cursor, opened chan struct{}) (events int, err error) {
	resp, err := c.openGet(ctx, s, cur.LastID)
	if opened != nil {
		close(opened)
	}
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, events, err = c.pump(nil, sse.NewReader(resp.Body, c.max, cur))
	return events, err
}

// openGet opens a GET stream on session s, after lastID when it is set. A
// response that is not a stream is a *StatusError.
func (c *ClientConn) openGet(ctx context.Context, s session, lastID string) (*http.Response, error) {
	h := c.header.Clone()
	h.Set("Accept", "text/event-stream")
	s.set(h)
	if lastID != "" {
		h.Set(hdrLastEventID, lastID)
	}
	resp, err := c.do(ctx, http.MethodGet, nil, h)
	if err != nil {
		return nil, err
	}
	if isStream(resp) {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, statusError(resp)
}

// post sends a notification or a response and waits for the 202. Once
// the server accepted notifications/initialized on a legacy session (s),
// the GET stream opens.
func (c *ClientConn) post(ctx context.Context, m *jsonrpc.Message, body []byte, h http.Header, s session) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	resp, err := c.do(ctx, http.MethodPost, body, h)
	if err != nil {
		c.log.Warn("streamhttp: message not delivered", "method", m.Method, "err", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		c.log.Warn("streamhttp: message refused", "method", m.Method, "err", statusError(resp))
		return
	}
	if m.Method == "notifications/initialized" && s != (session{}) {
		c.openListen(ctx, s)
	}
}

func (c *ClientConn) do(ctx context.Context, method string, body []byte, h http.Header) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, r)
	if err != nil {
		return nil, err
	}
	req.Header = h
	return c.client.Do(req)
}

// isStream reports whether resp is a successful SSE reply.
func isStream(resp *http.Response) bool {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return resp.StatusCode/100 == 2 && err == nil && mt == "text/event-stream"
}

// statusError reads the start of the body of a refusal.
func statusError(resp *http.Response) *StatusError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, statusBodyBytes))
	return &StatusError{Status: resp.StatusCode, Body: string(b)}
}

func delayOf(cur *sse.Cursor) time.Duration {
	if cur.Retry > 0 {
		return cur.Retry
	}
	return defaultRetry
}

// registry knows which params member Mcp-Name mirrors, per revision.
var registry = sync.OnceValue(func() *protocol.Registry {
	r, err := protocol.NewRegistry()
	if err != nil {
		panic(err) // it is built from core/protocol's own tables
	}
	return r
})

// mirroredName returns the value Mcp-Name carries for m, a request at
// revision rev, when its method has one (tools/call's name,
// resources/read's uri, …) and it is a string.
func mirroredName(rev string, m *jsonrpc.Message) (string, bool) {
	reg := registry()
	d, ok := reg.Lookup(rev)
	if !ok {
		// A revision newer than this package: its newest is the best guess.
		mods := reg.Modern()
		d, _ = reg.Lookup(mods[len(mods)-1])
	}
	method, _ := d.Catalogue().Lookup(m.Method)
	if method.NameParam == "" {
		return "", false
	}
	return stringMember(m.Params, method.NameParam)
}

// headerText returns v as the value of an MCP header: as it is when it is
// printable ASCII without surrounding whitespace, otherwise (or when it
// looks like the sentinel itself) as =?base64?…?=, which decodeSentinel
// reads back.
func headerText(v string) string {
	if isPlainHeader(v) {
		return v
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
}

func isPlainHeader(v string) bool {
	if v != trimOWS(v) || (strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix)) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return false
		}
	}
	return true
}
