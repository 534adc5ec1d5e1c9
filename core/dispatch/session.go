package dispatch

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// legacyState is what initialize negotiated. It is replaced, never mutated.
type legacyState struct {
	dialect    protocol.Dialect
	clientCaps spec.ClientCapabilities
	clientInfo spec.Implementation
	// logLevel is the minimum severity of notifications/message.
	logLevel int
}

// Session is one connection. It implements transport.Session.
type Session struct {
	rt   *Runtime
	info transport.Info
	out  transport.Sink
	// fixed is the dialect the transport chose for every message, or nil.
	fixed protocol.Dialect

	state atomic.Pointer[legacyState]

	mu       sync.Mutex
	inflight callSet
	subs     map[string]struct{}
	// outbound are the server-to-client requests awaiting the client's
	// response, by the id the session gave them (outbound.go).
	outbound map[jsonrpc.ID]*outbound
	nextOut  uint64

	// sendMu makes Close a barrier: sends hold it shared, Close exclusively.
	// closed is written under it exclusively; isClosed, a hint that drops
	// work early, reads it without the lock, which cost two shared atomic
	// updates per message.
	sendMu sync.RWMutex
	closed atomic.Bool
	// tracked says Runtime.track listed the session (initialize did).
	tracked atomic.Bool
}

func (rt *Runtime) newSession(info transport.Info, out transport.Sink) *Session {
	s := &Session{rt: rt, info: info, out: out}
	if info.Revision != "" {
		s.fixed, _ = rt.registry.Lookup(info.Revision)
	}
	return s
}

// Deliver implements transport.Session.
func (s *Session) Deliver(ctx context.Context, frame []byte, reply transport.Sink) {
	if s.isClosed() {
		return
	}
	if s.info.Batches && isArray(frame) {
		s.deliverBatch(ctx, frame, reply)
		return
	}
	msg, err := jsonrpc.Decode(frame, s.rt.cfg.Limits)
	s.handle(ctx, msg, err, reply)
}

// DeliverDecoded is Deliver for a frame the transport has already decoded
// into msg under lim (to check it against HTTP headers, say), so that the
// frame is not scanned twice. Under limits other than the session's own the
// frame is decoded again.
func (s *Session) DeliverDecoded(ctx context.Context, frame []byte, msg jsonrpc.Message, lim jsonrpc.Limits, reply transport.Sink) {
	if lim != s.rt.cfg.Limits {
		s.Deliver(ctx, frame, reply)
		return
	}
	if s.isClosed() {
		return
	}
	s.handle(ctx, msg, nil, reply)
}

// handle routes one decoded message (or its decoding error).
func (s *Session) handle(ctx context.Context, msg jsonrpc.Message, err *jsonrpc.Error, reply transport.Sink) {
	if err != nil {
		// Notifications are never answered, not even when malformed.
		if !msg.ID.IsAbsent() {
			s.send(reply, jsonrpc.AppendError(nil, msg.ID, err))
		}
		return
	}
	switch msg.Kind {
	case jsonrpc.KindRequest:
		s.request(ctx, msg, reply)
	case jsonrpc.KindNotification:
		s.notification(msg)
	default:
		// A response to one of this session's server-to-client requests
		// completes it; any other response is dropped.
		if !s.resolve(msg) {
			s.rt.log.Debug("polymcp: dropped a response to no request of ours", "transport", s.info.Name, "id", msg.ID.String())
		}
	}
}

func (s *Session) notification(msg jsonrpc.Message) {
	switch msg.Method {
	case "notifications/cancelled":
		var p spec.CancelledParams
		if jsonrpc.UnmarshalDecoded(msg.Params, &p) != nil || len(p.RequestID) == 0 {
			return
		}
		if id, err := jsonrpc.ParseID(p.RequestID, s.rt.cfg.Limits); err == nil {
			s.cancel(id)
		}
	default:
		// notifications/initialized needs no action: requests are admitted
		// once initialize was answered. Unknown notifications are dropped.
	}
}

// cancel stops the call with id, if it is still in flight. Unknown or
// finished ids are ignored, as the spec allows.
func (s *Session) cancel(id jsonrpc.ID) {
	s.mu.Lock()
	c := s.inflight.get(id)
	s.mu.Unlock()
	if c != nil {
		c.abandon(errCancelledByClient)
	}
}

// register records an in-flight call; a duplicate id is refused.
func (s *Session) register(c *call) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight.add(c)
}

func (s *Session) forget(c *call) {
	s.mu.Lock()
	s.inflight.remove(c)
	s.mu.Unlock()
}

// Close implements transport.Session.
func (s *Session) Close() {
	s.sendMu.Lock()
	already := s.closed.Swap(true)
	s.sendMu.Unlock()
	if already {
		return
	}
	s.rt.untrack(s)
	s.mu.Lock()
	calls := s.inflight.all()
	s.mu.Unlock()
	for _, c := range calls {
		c.abandon(errSessionClosed)
	}
	s.failOutbound()
}

func (s *Session) isClosed() bool { return s.closed.Load() }

// send writes msg to sink unless the session is closed.
func (s *Session) send(sink transport.Sink, msg []byte) {
	s.sendMu.RLock()
	defer s.sendMu.RUnlock()
	if s.closed.Load() {
		return
	}
	if err := sink.Send(msg); err != nil {
		s.rt.log.Debug("polymcp: send failed", "transport", s.info.Name, "err", err)
	}
}

// sendOut writes a message that belongs to no request.
func (s *Session) sendOut(msg []byte) {
	if s.out != nil {
		s.send(s.out, msg)
	}
}

func (s *Session) subscribe(uri string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.subs == nil {
			s.subs = make(map[string]struct{})
		}
		s.subs[uri] = struct{}{}
	} else {
		delete(s.subs, uri)
	}
}

func (s *Session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subs[uri]
	return ok
}

func isArray(frame []byte) bool {
	for _, b := range frame {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return true
		}
		return false
	}
	return false
}

// callSet is a session's calls in flight, by id. The session of a
// 2026-07-28 HTTP request holds one call at most: the first call in flight
// takes a field, and a map is made only for a second (a map per request was
// two allocations).
type callSet struct {
	one  *call
	many map[jsonrpc.ID]*call
}

func (cs *callSet) get(id jsonrpc.ID) *call {
	if cs.one != nil && cs.one.id == id {
		return cs.one
	}
	return cs.many[id]
}

// add records c unless a call with its id is in flight.
func (cs *callSet) add(c *call) bool {
	if cs.get(c.id) != nil {
		return false
	}
	if cs.one == nil {
		cs.one = c
		return true
	}
	if cs.many == nil {
		cs.many = make(map[jsonrpc.ID]*call)
	}
	cs.many[c.id] = c
	return true
}

func (cs *callSet) remove(c *call) {
	if cs.one == c {
		cs.one = nil
	} else if cs.many[c.id] == c {
		delete(cs.many, c.id)
	}
}

func (cs *callSet) all() []*call {
	calls := make([]*call, 0, len(cs.many)+1)
	if cs.one != nil {
		calls = append(calls, cs.one)
	}
	for _, c := range cs.many {
		calls = append(calls, c)
	}
	return calls
}
