package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/client/oauth"
	"github.com/polymcp/polymcp/core/jsonrpc"
)

// The handle tables of the client half.
var (
	clients   = newTable[Client](kindClient)
	questions = newTable[question](kindQuestion)
)

// ClientCallbacks is the host's side of a client (polymcp_client_callbacks).
// Methods are called from Go goroutines, several at once; byte slices are
// borrowed for the call's duration. OnClosed is called exactly once, after
// every other call has returned, and nothing is called after it.
type ClientCallbacks interface {
	OnResponse(tag uint64, rc Code, body []byte)
	OnNotification(method string, params []byte)
	OnProgress(tag uint64, params []byte)
	OnQuestion(q uint64, method string, params []byte)
	OnQuestionCancel(q uint64)
	OnClosed(rc Code, msg string)
	// Answers reports whether the host can take questions (on_question).
	Answers() bool
}

// Client is one polymcp_client_t: a client.Client being connected, then
// serving the host's requests, each on a worker of its own.
type Client struct {
	handle uint64
	cb     ClientCallbacks

	// ctx ends when the client closes: it cancels the connect, every
	// request waiting for it, and every open question.
	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{} // closed once the connect has finished
	conn   *client.Client
	err    error // why the connect failed
	// loopback takes the OAuth redirects of the "oauth" option, if any.
	loopback *oauth.Loopback

	mu      sync.Mutex
	pending map[uint64]*request // by the host's tag
	closing bool
	closed  bool           // on_closed has been called
	work    sync.WaitGroup // the connect, requests and questions

	// cbMu gates notifications against on_closed, as Server.logMu does logs.
	cbMu   sync.RWMutex
	cbDone bool
}

// request is one pending tag: the connect's or a request's.
type request struct {
	cancel context.CancelCauseFunc
	done   atomic.Bool // its on_response is sent or on its way; progress stops
}

// errCancelled is the cause of a request the host cancelled.
var errCancelled = errors.New("cancelled by the host")

// Connect creates a client from polymcp_client_connect's options and starts
// connecting; the outcome reaches OnResponse(tag, ...).
func Connect(options []byte, cb ClientCallbacks, tag uint64) (uint64, error) {
	var cfg ClientConfig
	if err := decodeStrict(options, "options", &cfg); err != nil {
		return 0, err
	}
	cfg.answered()
	if err := cfg.check(cb.Answers()); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{cb: cb, ctx: ctx, cancel: cancel, ready: make(chan struct{}),
		pending: map[uint64]*request{}}
	opts := cfg.clientOptions(c)
	dialCtx, dialCancel := context.WithCancelCause(ctx)
	r, _ := c.begin(tag, dialCancel) // the first tag is always free
	c.handle = clients.add(c)
	go c.connect(dialCtx, r, tag, &cfg, opts)
	return c.handle, nil
}

// connect dials, reports the outcome and, once connected, watches for the
// connection's own end.
func (c *Client) connect(ctx context.Context, r *request, tag uint64, cfg *ClientConfig, opts *client.Options) {
	defer r.cancel(nil)
	conn, err := cfg.dial(ctx, c, opts)
	if err == nil && ctx.Err() != nil {
		conn.Close() // cancelled, or closed, as it came up
		err = ctx.Err()
	}
	if err != nil {
		err = causeOf(ctx, err)
		c.err = err
		close(c.ready)
		c.respond(tag, r, nil, err)
		c.work.Done()
		c.shutdown(CodeOfClient(err), err.Error())
		return
	}
	c.conn = conn
	close(c.ready)
	c.respond(tag, r, connectResult(conn), nil)
	c.work.Done()
	select {
	case <-conn.Done():
		msg := "the connection ended"
		if err := conn.Err(); err != nil {
			msg = err.Error()
		}
		c.shutdown(EClosed, msg)
	case <-c.ctx.Done():
	}
}

func connectResult(conn *client.Client) []byte {
	b, _ := jsonrpc.Marshal(map[string]any{"protocolVersion": conn.Revision(),
		"serverInfo": conn.ServerInfo(), "capabilities": conn.ServerCapabilities(),
		"instructions": conn.Instructions()})
	return b
}

// begin registers tag as pending, counting it in work; cancel ends it.
func (c *Client) begin(tag uint64, cancel context.CancelCauseFunc) (*request, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closing:
		return nil, errorf(EClosed, "client %#x is closed", c.handle)
	case c.pending[tag] != nil:
		return nil, errorf(EInvalid, "tag %d is the tag of a pending request", tag)
	}
	r := &request{cancel: cancel}
	c.pending[tag] = r
	c.work.Add(1)
	return r, nil
}

// respond sends tag's on_response, once, and forgets the tag.
func (c *Client) respond(tag uint64, r *request, result []byte, err error) {
	c.forget(tag, r)
	if err != nil {
		code, body := errorBody(err)
		c.cb.OnResponse(tag, code, body)
		return
	}
	c.cb.OnResponse(tag, OK, result)
}

// forget ends the request of tag: its progress stops and the tag is free.
func (c *Client) forget(tag uint64, r *request) {
	r.done.Store(true)
	c.mu.Lock()
	delete(c.pending, tag)
	c.mu.Unlock()
}

// Request starts one request of the host's (polymcp_client_request).
func Request(h uint64, method string, params, opts []byte, tag uint64) error {
	c, err := lookupClient(h)
	if err != nil {
		return err
	}
	var o RequestConfig
	if err := decodeStrict(opts, "request options", &o); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if method == "" {
		return errorf(EInvalid, "method is empty")
	}
	if err := checkParams(params); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	r, err := c.begin(tag, cancel)
	if err != nil {
		cancel(nil)
		return err
	}
	workers.run(func() { c.run(ctx, r, tag, method, params, &o) })
	return nil
}

// run waits for the connection and sends the request.
func (c *Client) run(ctx context.Context, r *request, tag uint64, method string, params []byte, o *RequestConfig) {
	defer c.work.Done()
	defer r.cancel(nil)
	select {
	case <-c.ready:
	case <-ctx.Done():
		c.respond(tag, r, nil, causeOf(ctx, ctx.Err()))
		return
	}
	if c.conn == nil {
		c.respond(tag, r, nil, fmt.Errorf("%w: %w", client.ErrClosed, c.err))
		return
	}
	if method == "subscriptions/listen" {
		c.listen(ctx, r, tag, params)
		return
	}
	result, err := c.send(ctx, method, params, millis(o.TimeoutMs), o.callOptions(c, tag, r))
	if err != nil {
		err = causeOf(ctx, err)
	}
	c.respond(tag, r, result, err)
}

// Cancel cancels the pending request of tag (polymcp_client_cancel).
func Cancel(h uint64, tag uint64) error {
	c, err := lookupClient(h)
	if err != nil {
		return err
	}
	c.mu.Lock()
	r := c.pending[tag]
	c.mu.Unlock()
	if r == nil || r.done.Load() {
		return errorf(EUnknownCall, "no request of tag %d is pending", tag)
	}
	r.cancel(errCancelled)
	return nil
}

// CloseClient starts closing (polymcp_client_close); on_closed reports the end.
func CloseClient(h uint64) error {
	c, err := lookupClient(h)
	if err != nil {
		return err
	}
	go c.shutdown(OK, "")
	return nil
}

// FreeClient releases the handle after on_closed (polymcp_client_free).
func FreeClient(h uint64) error {
	c, err := lookupClient(h)
	if err != nil {
		return err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if !closed {
		return errorf(EInvalid, "client %#x is not closed yet: close it and wait for on_closed", h)
	}
	if !clients.remove(h) {
		return errorf(EBadHandle, "client handle %#x was freed", h)
	}
	return nil
}

// shutdown closes the client once, in the order that makes on_closed the
// last callback: no new work, the connection and every pending request
// and question cancelled, their goroutines waited for, then on_closed.
func (c *Client) shutdown(rc Code, msg string) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.mu.Unlock()
	c.cancel()
	<-c.ready
	if c.conn != nil {
		_ = c.conn.Close()
	}
	if c.loopback != nil {
		_ = c.loopback.Close()
	}
	c.work.Wait()
	c.cbMu.Lock()
	c.cbDone = true
	c.cbMu.Unlock()
	c.mu.Lock()
	c.closed = true // before on_closed, which may free the handle itself
	c.mu.Unlock()
	c.cb.OnClosed(rc, msg)
}

// notify passes a server notification on, unless on_closed has been sent.
func (c *Client) notify(method string, params []byte) {
	c.unlessClosed(func() { c.cb.OnNotification(method, params) })
}

// unlessClosed runs a callback of the server's making (a notification, a
// request's progress) unless on_closed has been sent.
func (c *Client) unlessClosed(callback func()) {
	c.cbMu.RLock()
	defer c.cbMu.RUnlock()
	if !c.cbDone {
		callback()
	}
}

func lookupClient(h uint64) (*Client, error) {
	return clients.get(h, EBadHandle, "was freed")
}

// causeOf prefers the context's cause (the host's cancel, the client's
// close) to the error it produced.
func causeOf(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		if errors.Is(cause, context.Canceled) {
			return client.ErrClosed // the client's own context: Close
		}
		return cause
	}
	return err
}
