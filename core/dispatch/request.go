package dispatch

import (
	"context"
	"errors"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// method is one row of the single method table.
type method struct {
	// async methods run user handlers, so they go through the executor and
	// can be cancelled; the others answer inline from immutable state.
	async bool
	// stream methods answer inline but stay open (subscriptions/listen).
	stream bool
	// rare methods are called a few times a session, and their results
	// are encoded with jsonrpc.WithResponseRare.
	rare bool
	run  func(ctx context.Context, c *call) (spec.Result, error)
}

// request admits one request and runs its method.
func (s *Session) request(ctx context.Context, msg jsonrpc.Message, reply transport.Sink) {
	c := s.newCall(msg, reply)
	if err := s.admit(&msg, &c.adm, &c.req); err != nil {
		s.send(reply, jsonrpc.AppendError(nil, msg.ID, s.rt.wireError(c.adm.dialect, err)))
		return
	}
	c.admitted()
	m := s.rt.methods[msg.Method]
	c.m = m
	if m.stream || m.async {
		if !s.register(c) {
			s.send(reply, jsonrpc.AppendError(nil, msg.ID, jsonrpc.Errorf(jsonrpc.KindJSONRPC,
				jsonrpc.CodeInvalidRequest, "request id %s is already in flight", msg.ID)))
			return
		}
		// Close cancels the calls it finds registered; one registered
		// after it looked must not run. (Close marks the session closed
		// before it looks, so this sees the mark whenever Close missed c.)
		if s.isClosed() {
			s.forget(c)
			return
		}
	}
	if !m.async {
		res, err := m.run(ctx, c)
		if err != errStreamOpen {
			c.finish(res, err)
		}
		return
	}
	c.run(ctx, m)
}

// wireError converts any error to its wire form under dialect d (which may
// be nil when the revision could not be determined).
func (rt *Runtime) wireError(d protocol.Dialect, err error) *jsonrpc.Error {
	var nf *router.NotFoundError
	if errors.As(err, &nf) && d != nil {
		return d.ResourceNotFound(nf.URI)
	}
	return toRPCError(err)
}

func (rt *Runtime) cachePolicy(method string) protocol.CachePolicy {
	if method == "resources/read" {
		return rt.cfg.ReadCache
	}
	return rt.cfg.ListCache
}

func (rt *Runtime) timeout() time.Duration {
	return rt.cfg.Executor.Options().Timeout
}
