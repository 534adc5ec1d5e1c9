package mcp

import (
	"context"
	"net/http"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

// HTTPHandler returns a net/http Handler that serves s over Streamable
// HTTP (every revision, on opts.Path, default /mcp) and 2024-11-05 HTTP+SSE
// (/sse and /message), with Origin and Host checks and limits on by
// default. It panics if opts are invalid, like NewServer.
func (s *Server) HTTPHandler(opts *streamhttp.Options) http.Handler {
	h, err := streamhttp.NewHandler(s.rt, opts)
	if err != nil {
		panic(err)
	}
	return h
}

// ListenHTTP binds addr (127.0.0.1 when its host is empty; "" picks a free
// loopback port) and serves s until ctx ends or the Listener is shut down.
// Listener.URL reports the endpoint with the real port.
func (s *Server) ListenHTTP(ctx context.Context, addr string, opts *streamhttp.Options) (*streamhttp.Listener, error) {
	return streamhttp.Listen(ctx, addr, s.rt, opts)
}

// ServeHTTP serves s on addr until ctx ends, then drains gracefully. It is
// not an http.Handler method: use HTTPHandler for that.
func (s *Server) ServeHTTP(ctx context.Context, addr string, opts *streamhttp.Options) error {
	l, err := s.ListenHTTP(ctx, addr, opts)
	if err != nil {
		return err
	}
	return l.Wait()
}
