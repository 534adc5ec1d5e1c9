package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// DefaultMaxMessageBytes bounds one JSON body or one SSE event a ClientConn
// reads.
const DefaultMaxMessageBytes = 64 << 20

// ErrSessionExpired is the error of a request that carried a legacy
// session id and got 404: the server ended the session. The conn forgets
// the id; the client initializes again. It wraps transport.ErrSessionExpired.
var ErrSessionExpired = fmt.Errorf("streamhttp: HTTP 404 to a request of the session: %w", transport.ErrSessionExpired)

// ErrNoAnswer is the error of a request whose reply ended before its
// answer: a stream cut at 2026-07-28 (the request is lost; re-issue it with
// a new id), or one that could not be resumed on the legacy revisions.
var ErrNoAnswer = errors.New("streamhttp: the reply ended before the answer")

// ErrMessageTooLarge is the error of a request whose reply holds a JSON
// body or an SSE event larger than ClientOptions.MaxMessageBytes.
var ErrMessageTooLarge = sse.ErrTooLarge

// StatusError is the error of a request answered with an HTTP status and a
// body that is not its JSON-RPC answer.
type StatusError struct {
	Status int
	Body   string // the first 512 bytes
}

func (e *StatusError) Error() string {
	s := "streamhttp: HTTP " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// statusBodyBytes is how much of a body a StatusError keeps.
const statusBodyBytes = 512

// ClientOptions configure a ClientConn. A nil *ClientOptions, and every zero
// field, select the defaults.
type ClientOptions struct {
	// HTTPClient sends the requests. nil: a client of the conn's own with
	// timeouts for connecting and none overall, since streams last.
	HTTPClient *http.Client
	// Header is added to every request (Authorization, say).
	Header http.Header
	// MaxMessageBytes bounds one JSON body or one SSE event (default
	// DefaultMaxMessageBytes); a larger one fails its request with
	// ErrMessageTooLarge.
	MaxMessageBytes int64
	// Logger receives what has no caller to report to: refused
	// notifications, a GET stream that could not be kept. nil: discarded.
	Logger *slog.Logger
}

// ClientConn is the client's side of a Streamable HTTP endpoint: a
// transport.ClientConn for both shapes of the transport. A request whose
// params._meta names a protocolVersion is posted the 2026-07-28 way
// (MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, Mcp-Param-* for
// the arguments a listed tool marks x-mcp-header; closing its reply cancels
// it); any other message belongs to the legacy session that the
// answer to initialize opened (Mcp-Session-Id, the negotiated
// MCP-Protocol-Version, a GET stream, resumption with Last-Event-ID, DELETE
// on Close). The 2026-07-28 tools/list answers it carries lose the tools
// whose x-mcp-header annotations are invalid, as SEP-2243 asks of an HTTP
// client.
//
// Each request is one POST on a goroutine of its own; what its reply
// carries is queued for Recv in arrival order. The queue is not bounded:
// the conn never stalls one reply behind another.
type ClientConn struct {
	url    string
	client *http.Client
	own    bool // client is the conn's: Close closes its idle connections
	header http.Header
	max    int64
	log    *slog.Logger

	// life ends with Close, aborting every exchange.
	life      context.Context
	stop      context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once

	mu     sync.Mutex
	closed bool
	sess   session
	calls  map[jsonrpc.ID]*call
	items  []item
	wake   chan struct{}
	// annotations are the x-mcp-header annotations of the tools the
	// 2026-07-28 tools/list answers named, by tool: what tools/call mirrors.
	annotations map[string][]paramHeader
	// stopListen ends the GET stream, when one was opened.
	stopListen context.CancelFunc
}

// session is what the answer to initialize negotiated: every later legacy
// request carries it.
type session struct {
	id, version string
}

// set adds the session's headers to h.
func (s session) set(h http.Header) {
	if s.id != "" {
		h.Set(hdrSessionID, s.id)
	}
	if s.version != "" {
		h.Set(hdrProtocolVersion, headerText(s.version))
	}
}

// item is one thing for Recv: a message or a request's failure.
type item struct {
	msg []byte
	err error
}

// Dial returns a conn to the Streamable HTTP endpoint, an http or https
// URL. It does no I/O: the first Send does.
func Dial(endpoint string, o *ClientOptions) (*ClientConn, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("streamhttp: endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("streamhttp: endpoint %q is not an http or https URL", endpoint)
	}
	if o == nil {
		o = &ClientOptions{}
	}
	if o.MaxMessageBytes < 0 {
		return nil, errors.New("streamhttp: MaxMessageBytes is negative")
	}
	c := &ClientConn{url: endpoint, client: o.HTTPClient, header: http.Header{}, max: DefaultMaxMessageBytes,
		log: o.Logger, calls: make(map[jsonrpc.ID]*call), wake: make(chan struct{}, 1),
		annotations: make(map[string][]paramHeader)}
	for k, v := range o.Header {
		c.header[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
	if c.client == nil {
		c.client, c.own = sse.NewHTTPClient(), true
	}
	if o.MaxMessageBytes > 0 {
		c.max = o.MaxMessageBytes
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.life, c.stop = context.WithCancel(context.Background())
	return c, nil
}

// DefaultMaxConnsPerHost bounds the connections to the server of the
// client a conn makes for itself (sse.NewHTTPClient); a request beyond
// waits for one to be free.
const DefaultMaxConnsPerHost = sse.DefaultMaxConnsPerHost

// URL returns the endpoint the conn posts to.
func (c *ClientConn) URL() string { return c.url }

// SessionID returns the legacy session's id, "" when there is none.
func (c *ClientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.id
}

// Send posts msg. For a request it starts the exchange and returns: the
// answer, and whatever comes before it, arrive through Recv. A
// notification or response waits for the server's 202; a refusal is only
// logged, having no id to report it under. ctx bounds only that wait.
func (c *ClientConn) Send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	msg = bytes.Clone(msg)
	m, derr := jsonrpc.Decode(msg, jsonrpc.Limits{})
	if derr != nil {
		return fmt.Errorf("streamhttp: cannot send: %w", derr)
	}
	version, modern := metaProtocolVersion(m.Params)
	if m.Kind == jsonrpc.KindNotification && m.Method == methodCancelled && c.abort(m.Params) {
		return nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return transport.ErrClosed
	}
	s := c.sess
	if modern || m.Method == "initialize" {
		s = session{} // initialize begins a session; modern requests have none
	}
	h := c.postHeader(&m, version, modern, s)
	c.wg.Add(1)
	if m.Kind != jsonrpc.KindRequest {
		c.mu.Unlock()
		defer c.wg.Done()
		c.post(ctx, &m, msg, h, s)
		return nil
	}
	x := c.track(&m, msg, modern, s)
	c.mu.Unlock()
	go c.run(x, msg, h)
	return nil
}

const methodCancelled = "notifications/cancelled"

// postHeader returns the headers of the POST of m; c.mu is held.
func (c *ClientConn) postHeader(m *jsonrpc.Message, version string, modern bool, s session) http.Header {
	h := c.header.Clone()
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if !modern {
		s.set(h)
		return h
	}
	h.Set(hdrProtocolVersion, headerText(version))
	h.Set(hdrMethod, headerText(m.Method))
	if name, ok := mirroredName(version, m); ok {
		h.Set(hdrName, headerText(name))
	}
	if m.Method == methodCallTool {
		c.setParamHeaders(h, m.Params)
	}
	return h
}

// abort handles notifications/cancelled. For a 2026-07-28 request in
// flight, closing its reply is the cancel: its POST is aborted and the
// notification is not posted (handled). A legacy request's reply is read
// on, since its server decides, and the notification is posted.
func (c *ClientConn) abort(params []byte) (handled bool) {
	raw, ok := jsonrpc.Member(params, "requestId")
	if !ok {
		return false
	}
	id, err := jsonrpc.ParseID(raw, jsonrpc.Limits{})
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	x := c.calls[id]
	if x == nil {
		return false
	}
	x.cancelled = true
	if x.modern {
		x.cancel()
	}
	return x.modern
}

// Recv returns the next message, or a *transport.RequestError for a
// request the transport failed. Once the conn is closed it returns what
// was queued before, then transport.ErrClosed.
func (c *ClientConn) Recv(ctx context.Context) ([]byte, error) {
	for {
		c.mu.Lock()
		if len(c.items) > 0 {
			it := c.items[0]
			c.items[0] = item{}
			c.items = c.items[1:]
			c.mu.Unlock()
			return it.msg, it.err
		}
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return nil, transport.ErrClosed
		}
		select {
		case <-c.wake:
		case <-c.life.Done():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// pushLocked queues it for Recv, unless the conn is closed or it belongs to
// call x, which the client cancelled: then nothing more of a 2026-07-28
// request, and no error for any.
func (c *ClientConn) pushLocked(x *call, it item) {
	if c.closed || (x != nil && x.cancelled && (x.modern || it.err != nil)) {
		return
	}
	c.items = append(c.items, it)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *ClientConn) enqueue(x *call, msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pushLocked(x, item{msg: msg})
}

// fail reports that the transport failed x.
func (c *ClientConn) fail(x *call, err error) {
	c.log.Debug("streamhttp: request failed", "id", x.id.String(), "err", err)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pushLocked(x, item{err: &transport.RequestError{ID: x.rawID, Err: err}})
}

// Close aborts every exchange and the GET stream, ends the legacy session
// (DELETE, bounded by deleteTimeout) and returns once every goroutine of
// the conn has.
func (c *ClientConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		s := c.sess
		c.mu.Unlock()
		c.stop()
		if s.id != "" {
			c.endSession(s)
		}
		c.wg.Wait()
		if c.own {
			c.client.CloseIdleConnections()
		}
	})
	return nil
}

// deleteTimeout bounds the DELETE that ends a session on Close.
const deleteTimeout = 2 * time.Second

func (c *ClientConn) endSession(s session) {
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	h := c.header.Clone()
	s.set(h)
	resp, err := c.do(ctx, http.MethodDelete, nil, h)
	if err != nil {
		c.log.Warn("streamhttp: cannot end the session", "err", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		c.log.Warn("streamhttp: cannot end the session", "err", statusError(resp))
	}
}
