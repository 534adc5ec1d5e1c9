package mcp

import (
	"context"
	"os/exec"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/transport"
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

// ConnectHTTP connects to the Streamable HTTP endpoint at url.
func ConnectHTTP(ctx context.Context, url string, opts *ClientOptions) (*Client, error) {
	conn, err := streamhttp.Dial(url, nil)
	if err != nil {
		return nil, err
	}
	return client.Connect(ctx, conn, opts)
}

// ConnectClient connects an in-process client to s, for tests and embedding.
func (s *Server) ConnectClient(ctx context.Context, opts *ClientOptions) (*Client, error) {
	return client.Connect(ctx, s.Connect().Conn(), opts)
}
