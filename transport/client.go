package transport

import (
	"context"
	"errors"
	"time"
)

// ClientConn is a client's side of one connection to a server (a spawned
// process's stdio, a Streamable HTTP endpoint, an in-process server). It
// carries whole JSON-RPC messages: one JSON object per Send or Recv,
// without a trailing newline. The client (package client) does the
// protocol; a ClientConn only frames and carries.
type ClientConn interface {
	// Send hands msg (a request, a notification, or the answer to a
	// server's request) to the server. It is safe for concurrent use and
	// does not wait for the answer: that comes through Recv. The conn
	// does not keep msg after Send returns. An error means msg did not
	// reach the server; for a request, the client fails its call with it.
	Send(ctx context.Context, msg []byte) error
	// Recv returns the next message from the server. One goroutine calls
	// it at a time. It returns ErrClosed once the conn is closed or the
	// server has gone (a process exiting, a session ending), after every
	// message received before that.
	Recv(ctx context.Context) ([]byte, error)
	// Close ends the connection and releases what it holds (stops the
	// process, ends the HTTP session). A Recv blocked in it returns
	// ErrClosed. Close is safe to call more than once.
	Close() error
}

// ErrClosed is what a ClientConn's Recv returns once the connection has
// ended.
var ErrClosed = errors.New("transport: connection closed")

// RequestError is what a ClientConn's Recv returns when the transport
// failed one request after Send had returned (an HTTP status with no
// JSON-RPC answer in its body, a reply stream that broke before its
// answer): the client fails that call with it and goes on receiving.
type RequestError struct {
	ID  []byte // the request's id, as it was sent (JSON)
	Err error
}

func (e *RequestError) Error() string {
	return "transport: request " + string(e.ID) + ": " + e.Err.Error()
}

func (e *RequestError) Unwrap() error { return e.Err }

// ErrSessionExpired is wrapped by the error of a request the server
// refused because its legacy session is gone (Streamable HTTP's 404): the
// client initializes a new session and sends the request again.
var ErrSessionExpired = errors.New("transport: session expired")

// Wait waits d, or until ctx ends, and then returns ctx's cause: the pause
// of a client's retries and polls (a reply stream's resumption, a task's
// next tasks/get).
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
