package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// ErrClosed is returned by requests made after Close, and by requests in
// flight when the connection ends.
var ErrClosed = errors.New("client: closed")

// limits are the decoder's limits for what a server sends: its answers can
// be far larger than a request, never deeper.
var limits = jsonrpc.Limits{}

// Client is one connection to an MCP server, after negotiation. Its
// methods are safe for concurrent use.
type Client struct {
	conn transport.ClientConn
	o    Options
	caps spec.ClientCapabilities
	// capsJSON and infoJSON are caps and the client's Info encoded once,
	// for the _meta of every 2026-07-28 request.
	capsJSON, infoJSON json.RawMessage

	// What negotiation settled; fixed after Connect.
	revision     string
	modern       bool
	serverInfo   spec.Implementation
	serverCaps   spec.ServerCapabilities
	instructions string

	nextID atomic.Int64
	// session counts the legacy sessions initialized; reinit holds
	// re-initializing to one request at a time.
	session atomic.Uint64
	reinit  sync.Mutex
	mu      sync.Mutex
	// pending are the requests awaiting an answer, by id.
	pending map[int64]chan answer
	// progress routes notifications/progress to a call, by token.
	progress map[string]func(spec.ProgressParams)
	// asked are the server's questions being answered (legacy), by id, to
	// cancel them.
	asked map[jsonrpc.ID]context.CancelFunc
	// acks are the subscriptions/listen requests awaiting their
	// acknowledgement, by id.
	acks map[int64]chan ListenFilter
	// listening are the open subscriptions' ids: a notification naming
	// another subscription (one closed, whose end the server has yet to
	// see) is dropped.
	listening map[int64]bool
	// outputs are the output schemas of the tools last listed, by name.
	outputs  map[string]*outputSchema
	logLevel spec.LoggingLevel // sent in _meta on 2026-07-28
	err      error             // why the connection ended, once it has

	ctx    context.Context // ends with Close: the handlers' parent
	cancel context.CancelFunc
	done   chan struct{} // closed when the reading goroutine ends
}

// answer is what a request gets: a result, or why there is none.
type answer struct {
	result []byte
	err    error
}

// Connect negotiates the protocol revision over conn and returns the
// client; on failure it closes conn. ctx bounds the negotiation only.
func Connect(ctx context.Context, conn transport.ClientConn, o *Options) (*Client, error) {
	c := &Client{conn: conn, o: o.withDefaults(), pending: map[int64]chan answer{},
		progress: map[string]func(spec.ProgressParams){}, asked: map[jsonrpc.ID]context.CancelFunc{},
		acks: map[int64]chan ListenFilter{}, listening: map[int64]bool{},
		done: make(chan struct{})}
	caps, err := c.o.capabilities()
	if err != nil {
		conn.Close()
		return nil, err
	}
	c.caps = caps
	if err := c.encodeIdentity(); err != nil {
		conn.Close()
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.read()
	if err := c.negotiate(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Revision returns the protocol revision the client speaks with the server.
func (c *Client) Revision() string { return c.revision }

// ServerInfo returns the server's name and version (legacy revisions: from
// initialize; 2026-07-28: from the serverInfo _meta of discover's result,
// when it sent one).
func (c *Client) ServerInfo() spec.Implementation { return c.serverInfo }

// ServerCapabilities returns what the server offers.
func (c *Client) ServerCapabilities() spec.ServerCapabilities { return c.serverCaps }

// Instructions returns the server's instructions for the model, if any.
func (c *Client) Instructions() string { return c.instructions }

// Close ends the connection: requests in flight fail with ErrClosed and
// the server's questions being answered are cancelled. It returns the
// conn's Close error.
func (c *Client) Close() error {
	c.cancel()
	err := c.conn.Close()
	<-c.done
	return err
}

// Done is closed once the connection has ended (Close, or the server gone).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, or nil while it is up.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// request sends method with params and returns the raw result. params is
// a JSON object's members (without _meta) or nil; meta members are added
// to its _meta, after the revision's own on 2026-07-28. A request whose
// legacy session the server has ended is sent again in a new one.
func (c *Client) request(ctx context.Context, method string, params map[string]any, meta spec.Meta) ([]byte, error) {
	session := c.session.Load()
	raw, err := c.requestOnce(ctx, method, params, meta)
	if err == nil || !errors.Is(err, transport.ErrSessionExpired) || c.modern || method == "initialize" {
		return raw, err
	}
	if err := c.renewSession(ctx, session); err != nil {
		return nil, err
	}
	return c.requestOnce(ctx, method, params, meta)
}

// renewSession initializes a new legacy session in the revision of the
// first, unless another request already did since session.
func (c *Client) renewSession(ctx context.Context, session uint64) error {
	c.reinit.Lock()
	defer c.reinit.Unlock()
	if c.session.Load() != session {
		return nil
	}
	c.o.Logger.Info("client: the server ended the session; initializing a new one")
	raw, err := c.requestOnce(ctx, "initialize", c.initializeParams(c.revision), nil)
	if err != nil {
		return fmt.Errorf("client: initialize again: %w", err)
	}
	var r spec.InitializeResult
	if err := jsonrpc.UnmarshalOwned(raw, &r); err != nil {
		return fmt.Errorf("client: bad initialize result: %w", err)
	}
	if r.ProtocolVersion != c.revision {
		return &UnsupportedVersionError{Requested: c.revision, Supported: []string{r.ProtocolVersion}}
	}
	c.session.Add(1)
	return c.notify(ctx, "notifications/initialized", nil)
}

// requestOnce is request without the renewal of an ended session.
func (c *Client) requestOnce(ctx context.Context, method string, params map[string]any, meta spec.Meta) ([]byte, error) {
	ctx, cancel := round(ctx, c.o.Timeout)
	defer cancel()
	id := c.nextID.Add(1)
	ch, err := c.start(ctx, id, method, params, meta)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, id, ch)
}

// start sends request id; its answer will come on the channel.
func (c *Client) start(ctx context.Context, id int64, method string, params map[string]any, meta spec.Meta) (chan answer, error) {
	frame, err := c.encodeRequest(id, method, params, meta)
	if err != nil {
		return nil, err
	}
	ch := make(chan answer, 1)
	if err := c.register(id, ch); err != nil {
		return nil, err
	}
	if err := c.conn.Send(ctx, frame); err != nil {
		c.unregister(id)
		if errors.Is(err, transport.ErrClosed) {
			return nil, ErrClosed // as every request after the end
		}
		return nil, fmt.Errorf("client: send %s: %w", method, err)
	}
	return ch, nil
}

// wait returns request id's answer, or abandons the request when ctx ends.
func (c *Client) wait(ctx context.Context, id int64, ch chan answer) ([]byte, error) {
	select {
	case a := <-ch:
		return a.result, a.err
	case <-ctx.Done():
		if c.unregister(id) {
			c.cancelRequest(id, context.Cause(ctx))
		}
		return nil, context.Cause(ctx)
	}
}

// encodeRequest builds the request message: params with _meta filled in.
func (c *Client) encodeRequest(id int64, method string, params map[string]any, meta spec.Meta) ([]byte, error) {
	if c.modern {
		meta = c.modernMeta(meta)
	}
	if len(meta) > 0 {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = meta
	}
	// One buffer, sized for the raw members: a 64 KiB argument grew the
	// params through nine reallocations and was copied once more into
	// the frame.
	frame := jsonrpc.AppendRequestHead(make([]byte, 0, 256+rawSize(params)), jsonrpc.IntID(id), method)
	if params != nil {
		frame = append(frame, `,"params":`...)
		var err error
		// Every raw member of params (arguments, inputResponses) is an
		// output of jsonrpc.Marshal: no need to compact it again.
		if frame, err = appendMembers(frame, params, true); err != nil {
			return nil, fmt.Errorf("client: %s params: %w", method, err)
		}
	}
	return append(frame, '}'), nil
}

// encodeIdentity encodes what every 2026-07-28 request says of the client.
func (c *Client) encodeIdentity() (err error) {
	if c.capsJSON, err = jsonrpc.Marshal(c.caps); err != nil {
		return fmt.Errorf("client: capabilities: %w", err)
	}
	if c.infoJSON, err = jsonrpc.Marshal(c.o.Info); err != nil {
		return fmt.Errorf("client: Info: %w", err)
	}
	return nil
}

// modernMeta returns meta with the members every 2026-07-28 request
// carries.
func (c *Client) modernMeta(meta spec.Meta) spec.Meta {
	m := spec.Meta{spec.MetaProtocolVersion: c.revision, spec.MetaClientCapabilities: c.capsJSON,
		spec.MetaClientInfo: c.infoJSON}
	c.mu.Lock()
	if c.logLevel != "" {
		m[spec.MetaLogLevel] = c.logLevel
	}
	c.mu.Unlock()
	for k, v := range meta {
		m[k] = v
	}
	return m
}

func (c *Client) register(id int64, ch chan answer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.pending[id] = ch
	return nil
}

// unregister forgets request id; it reports whether it was still pending.
func (c *Client) unregister(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// cancelRequest tells the server that request id is abandoned. On
// Streamable HTTP 2026-07-28 the conn closes the request's stream instead
// of sending it.
func (c *Client) cancelRequest(id int64, cause error) {
	params := `{"requestId":` + strconv.FormatInt(id, 10) + `,"reason":` +
		string(jsonrpc.AppendString(nil, cause.Error())) + `}`
	msg := jsonrpc.AppendNotification(nil, "notifications/cancelled", []byte(params))
	ctx, cancel := context.WithTimeout(c.ctx, c.o.ProbeTimeout)
	defer cancel()
	if err := c.conn.Send(ctx, msg); err != nil {
		c.o.Logger.Debug("client: cancelling a request", "id", id, "err", err)
	}
}

// notify sends a notification.
func (c *Client) notify(ctx context.Context, method string, params []byte) error {
	return c.conn.Send(ctx, jsonrpc.AppendNotification(nil, method, params))
}

// resolve gives request id its answer, if it is still waited for.
func (c *Client) resolve(id jsonrpc.ID, a answer) {
	n, ok := id.Int()
	if !ok {
		c.o.Logger.Debug("client: an answer with an id the client never sends", "id", id.String())
		return
	}
	c.mu.Lock()
	ch, waiting := c.pending[n]
	delete(c.pending, n)
	c.mu.Unlock()
	if !waiting {
		c.o.Logger.Debug("client: an answer to no request in flight", "id", n)
		return
	}
	ch <- a
}

// end records why the connection ended and fails every request in flight.
func (c *Client) end(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	pending := c.pending
	c.pending = map[int64]chan answer{}
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- answer{err: err}
	}
	c.cancel()
}
