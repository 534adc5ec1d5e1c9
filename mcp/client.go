package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"sync"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// The client side (package client has the whole of it).
type (
	// Client is a connection to an MCP server, after negotiation.
	Client = client.Client
	// ClientOptions configure a Client; nil means the defaults.
	ClientOptions = client.Options
)

// NewClient negotiates with the server at the other end of conn and
// returns the client; on failure conn is closed.
func NewClient(ctx context.Context, conn transport.ClientConn, opts *ClientOptions) (*Client, error) {
	return client.Connect(ctx, conn, opts)
}

// ConnectCommand starts cmd as a stdio server and connects to it. Closing
// the client closes the server's stdin and, if it has not exited after a
// grace period, kills it.
func ConnectCommand(ctx context.Context, cmd *exec.Cmd, opts *ClientOptions) (*Client, error) {
	p, err := stdio.Start(context.WithoutCancel(ctx), cmd)
	if err != nil {
		return nil, err
	}
	return client.Connect(ctx, p.Conn(), opts)
}

// ConnectHTTP connects to the MCP server at url: Streamable HTTP, or, when
// the server refuses that with 400, 404 or 405, the 2024-11-05 HTTP+SSE
// transport at the same URL (the spec's backwards-compatibility probe).
// What it found is remembered for the URL in this process (the spec's era
// cache): a later ConnectHTTP without a pinned revision skips the probes
// that failed. httpOpts (nil: the defaults) sets the HTTP client (an
// oauth.Transport in it, say) and headers of both transports.
func ConnectHTTP(ctx context.Context, url string, opts *ClientOptions, httpOpts *streamhttp.ClientOptions) (*Client, error) {
	o := ClientOptions{}
	if opts != nil {
		o = *opts
	}
	// Only a negotiation finds out what the server speaks; a pinned
	// revision says nothing of the others.
	negotiated := o.Revision == ""
	known, _ := eras.Load(url)
	if known == eraSSE {
		return connectSSE(ctx, url, o, httpOpts)
	}
	if known == eraLegacy && o.Revision == "" {
		o.Revision = spec.Rev20251125 // initialize; the server may answer an older revision
	}
	conn, err := streamhttp.Dial(url, httpOpts)
	if err != nil {
		return nil, err
	}
	c, err := client.Connect(ctx, conn, &o)
	var se *streamhttp.StatusError
	switch {
	case err == nil:
		if negotiated {
			eras.Store(url, eraOf(c.Revision()))
		}
		return c, nil
	case !errors.As(err, &se) || !oldServerStatus(se.Status):
		return nil, err
	}
	c, serr := connectSSE(ctx, url, o, httpOpts)
	if serr != nil {
		return nil, fmt.Errorf("%w (and as HTTP+SSE: %w)", err, serr)
	}
	return c, nil
}

// connectSSE connects over the 2024-11-05 HTTP+SSE transport.
func connectSSE(ctx context.Context, url string, o ClientOptions, httpOpts *streamhttp.ClientOptions) (*Client, error) {
	var so *sse.ClientOptions
	if httpOpts != nil {
		so = &sse.ClientOptions{HTTPClient: httpOpts.HTTPClient, Header: httpOpts.Header,
			MaxEventBytes: httpOpts.MaxMessageBytes, Logger: httpOpts.Logger}
	}
	conn, err := sse.Dial(ctx, url, so)
	if err != nil {
		return nil, err
	}
	if o.Revision == "" {
		o.Revision = spec.Rev20241105
	}
	c, err := client.Connect(ctx, conn, &o)
	if err == nil {
		eras.Store(url, eraSSE)
	}
	return c, err
}

// The eras an HTTP server was found to speak, by URL.
const (
	eraModern = "modern"
	eraLegacy = "legacy"
	eraSSE    = "sse"
)

var eras sync.Map

func eraOf(revision string) string {
	if revision == spec.Rev20260728 {
		return eraModern
	}
	return eraLegacy
}

// oldServerStatus: the answers to a POST by which a 2024-11-05 server
// shows it has no Streamable HTTP endpoint there.
func oldServerStatus(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// ConnectClient connects an in-process client to s, for tests and embedding.
func (s *Server) ConnectClient(ctx context.Context, opts *ClientOptions) (*Client, error) {
	return client.Connect(ctx, s.Connect().Conn(), opts)
}
