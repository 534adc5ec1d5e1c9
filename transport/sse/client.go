package sse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/polymcp/polymcp/transport"
)

// DefaultClientMaxEventBytes bounds one event a ClientConn reads.
const DefaultClientMaxEventBytes = 64 << 20

// ErrNoEndpoint is Dial's error when the stream's first event is not the
// endpoint event of a 2024-11-05 server.
var ErrNoEndpoint = errors.New("sse: the stream did not start with an endpoint event")

// ClientOptions configure a ClientConn; nil and every zero field mean the
// defaults.
type ClientOptions struct {
	// HTTPClient sends the requests; nil: one of the conn's own
	// (NewHTTPClient), whose idle connections Close closes.
	HTTPClient *http.Client
	// Header is added to every request (Authorization, say).
	Header http.Header
	// MaxEventBytes bounds one event (DefaultClientMaxEventBytes when 0):
	// a larger one ends the connection with ErrTooLarge.
	MaxEventBytes int64
	// Logger receives what has no caller to report to; nil discards it.
	Logger *slog.Logger
}

// ClientConn is the client side of the 2024-11-05 HTTP+SSE transport, a
// transport.ClientConn: the server's messages arrive as "message" events
// of one GET stream, and each of the client's is POSTed to the endpoint
// the stream's first event named.
type ClientConn struct {
	client   *http.Client
	own      bool // client is the conn's: Close closes its idle connections
	header   http.Header
	endpoint string
	log      *slog.Logger

	events *Reader
	body   io.Closer
	stop   context.CancelFunc
	// recvMu keeps Recv to one caller at a time, as the contract says.
	recvMu    sync.Mutex
	closeOnce sync.Once
}

// Dial opens the event stream at streamURL (GET, Accept:
// text/event-stream) and waits, within ctx, for its endpoint event. The
// endpoint must be on the stream's origin: a server cannot send the
// client's messages elsewhere.
func Dial(ctx context.Context, streamURL string, o *ClientOptions) (*ClientConn, error) {
	var opts ClientOptions
	if o != nil {
		opts = *o
	}
	c := &ClientConn{client: opts.HTTPClient, header: opts.Header, log: opts.Logger}
	if c.client == nil {
		c.client, c.own = NewHTTPClient(), true
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	max := opts.MaxEventBytes
	if max <= 0 {
		max = DefaultClientMaxEventBytes
	}
	life, stop := context.WithCancel(context.Background())
	c.stop = stop
	if err := c.open(ctx, life, streamURL, max); err != nil {
		stop()
		return nil, err
	}
	return c, nil
}

// open starts the stream, bound to life, and reads the endpoint event.
func (c *ClientConn) open(ctx, life context.Context, streamURL string, max int64) error {
	base, err := url.Parse(streamURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return fmt.Errorf("sse: %q is not an http or https URL", streamURL)
	}
	req, err := http.NewRequestWithContext(life, http.MethodGet, streamURL, nil)
	if err != nil {
		return err
	}
	c.setHeader(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	// The stream outlives ctx, which only bounds the wait for the endpoint.
	stopWaiting := context.AfterFunc(ctx, func() { c.stop() })
	defer stopWaiting()
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("sse: open the stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("sse: open the stream: HTTP %d", resp.StatusCode)
	}
	c.body, c.events = resp.Body, NewReader(resp.Body, max, &Cursor{})
	ev, err := c.events.Next()
	if err == nil && ev.Name != "endpoint" {
		err = ErrNoEndpoint
	}
	if err == nil {
		err = c.setEndpoint(base, string(bytes.TrimSpace(ev.Data)))
	}
	if err != nil {
		resp.Body.Close()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	return nil
}

// setEndpoint resolves the endpoint against the stream's URL; it must stay
// on the stream's origin.
func (c *ClientConn) setEndpoint(base *url.URL, ref string) error {
	u, err := base.Parse(ref)
	if err != nil {
		return fmt.Errorf("sse: bad endpoint %q: %w", ref, err)
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return fmt.Errorf("sse: endpoint %q is not on the stream's origin", ref)
	}
	c.endpoint = u.String()
	return nil
}

func (c *ClientConn) setHeader(h http.Header) {
	for k, v := range c.header {
		h[k] = append([]string(nil), v...)
	}
}

// Endpoint returns the URL the conn posts to.
func (c *ClientConn) Endpoint() string { return c.endpoint }

// Send implements transport.ClientConn: it POSTs msg to the endpoint and
// returns once the server accepted it (202, or any 2xx); the answer comes
// on the stream.
func (c *ClientConn) Send(ctx context.Context, msg []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	c.setHeader(req.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("sse: post: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return fmt.Errorf("sse: post: HTTP %s: %s", strconv.Itoa(resp.StatusCode), b)
}

// Recv implements transport.ClientConn: the next "message" event's data.
// The stream's end, or Close, is transport.ErrClosed; an event over the
// bound ends the connection with ErrTooLarge.
func (c *ClientConn) Recv(ctx context.Context) ([]byte, error) {
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	// A read cannot be bounded by ctx without closing the stream: ctx
	// ending closes it, as it would end the connection's use anyway.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	for {
		ev, err := c.events.Next()
		switch {
		case errors.Is(err, ErrTooLarge):
			c.Close()
			return nil, err
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, transport.ErrClosed
		case !ev.IsMessage():
			continue
		}
		return bytes.Clone(ev.Data), nil
	}
}

// Close implements transport.ClientConn: it ends the stream, which ends
// the server's session.
func (c *ClientConn) Close() error {
	c.closeOnce.Do(func() {
		c.stop()
		c.body.Close()
		if c.own {
			c.client.CloseIdleConnections()
		}
	})
	return nil
}

// The connections to the server of a client NewHTTPClient makes. Each
// request in flight holds one (its reply may be a long stream), so the
// idle ones kept must cover the requests a busy client has in flight at
// once: net/http's default of 2 closed the rest after each wave of
// concurrent calls and dialed them again. The cap queues requests beyond
// it rather than open connections a server refuses (polymcp's Listener
// allows 1,024).
const (
	// DefaultMaxConnsPerHost bounds the connections to the server.
	DefaultMaxConnsPerHost = 256
	// defaultMaxIdlePerHost is how many idle connections are kept.
	defaultMaxIdlePerHost = 64
)

// NewHTTPClient returns the HTTP client an MCP client conn (this
// package's, or a Streamable HTTP one) makes for itself when given none.
// It bounds connecting (dial, TLS) but not the exchange: a JSON answer's
// headers come only with the answer, and streams are long.
func NewHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxConnsPerHost:       DefaultMaxConnsPerHost,
		MaxIdleConnsPerHost:   defaultMaxIdlePerHost,
	}}
}
