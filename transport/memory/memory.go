// Package memory connects a client to a transport.Server inside one process,
// with no framing and no I/O: for tests, and for embedding a server in the
// program that uses it.
//
// Every frame and message is copied on the way in and on the way out, so
// neither side can see the other reuse a buffer, exactly as if the bytes had
// crossed a pipe.
package memory

import (
	"bytes"
	"context"
	"sync"

	"github.com/polymcp/polymcp/transport"
)

// InboxSize is how many messages wait for Recv before the session's sends
// block. Blocking rather than growing keeps a client that stopped reading
// from costing unbounded memory, as a full pipe would.
const InboxSize = 4096

// ErrClosed is returned after Close: transport.ErrClosed.
var ErrClosed = transport.ErrClosed

// info is the connection description of Connect: a frame can be any JSON
// text, so batches fit.
var info = transport.Info{Name: "memory", Batches: true}

// Client is the client end of an in-process connection. Its methods are safe
// for concurrent use.
type Client struct {
	session transport.Session
	inbox   chan []byte
	// ctx is every Deliver's context; Close cancels it along with the session.
	ctx    context.Context
	cancel context.CancelFunc

	// deliverMu keeps Deliver and Close apart: Sends hold it shared, Close
	// exclusively, so the session sees no frame after its Close.
	deliverMu sync.RWMutex
	stopped   bool // under deliverMu
	closeOnce sync.Once
	closed    chan struct{}
}

// Connect opens a session of srv. Replies and the session's other messages
// (notifications, server-to-client requests) all arrive through Recv.
func Connect(srv transport.Server) *Client {
	return ConnectInfo(srv, info)
}

// ConnectInfo is Connect with a chosen connection description, for example
// one whose Revision fixes the protocol revision as an HTTP header would.
func ConnectInfo(srv transport.Server, info transport.Info) *Client {
	c := &Client{inbox: make(chan []byte, InboxSize), closed: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.session = srv.NewSession(info, inboxSink{c})
	return c
}

// put is the session's sink: it copies msg into the inbox, blocking while
// the inbox is full.
func (c *Client) put(msg []byte) error {
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	select {
	case c.inbox <- bytes.Clone(msg):
		return nil
	case <-c.closed:
		return ErrClosed
	}
}

// Send delivers one frame (one JSON text) to the session; frame is copied.
// Answers the session gives at once go to the inbox before Send returns, so
// a Send can block while the inbox is full.
func (c *Client) Send(frame []byte) error {
	c.deliverMu.RLock()
	defer c.deliverMu.RUnlock()
	if c.stopped {
		return ErrClosed
	}
	c.session.Deliver(c.ctx, bytes.Clone(frame), inboxSink{c})
	return nil
}

// Recv returns the next message from the server. After Close it still
// returns what was already received, then ErrClosed.
func (c *Client) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.inbox:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		select {
		case m := <-c.inbox:
			return m, nil
		default:
			return nil, ErrClosed
		}
	}
}

// Close closes the session, which cancels its calls in flight. Sends still
// blocked on a full inbox fail, so that the session's Close, which waits
// for them, cannot wait on a client that stopped reading. Close is
// idempotent.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		close(c.closed) // first: it unblocks the puts a Deliver may wait in
		c.cancel()
		c.deliverMu.Lock() // waits for the Delivers under way
		c.stopped = true
		c.deliverMu.Unlock()
		c.session.Close()
	})
}

// Closed reports whether Close has been called.
func (c *Client) Closed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// inboxSink puts a session's messages in the client's inbox, copied as if
// they had crossed a pipe: a transport.Copier.
type inboxSink struct{ c *Client }

func (s inboxSink) Send(msg []byte) error { return s.c.put(msg) }

func (inboxSink) CopiesMessages() {}

// Conn returns c as a transport.ClientConn, for package client.
func (c *Client) Conn() transport.ClientConn { return conn{c} }

type conn struct{ c *Client }

func (k conn) Send(_ context.Context, msg []byte) error { return k.c.Send(msg) }

func (k conn) Recv(ctx context.Context) ([]byte, error) { return k.c.Recv(ctx) }

func (k conn) Close() error {
	k.c.Close()
	return nil
}
